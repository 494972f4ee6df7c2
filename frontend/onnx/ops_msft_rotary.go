// This file imports com.microsoft's RotaryEmbedding: the rotation of ONNX's RotaryEmbedding
// (ops_rotary.go) with onnxruntime's input order (input, position_ids, cos_cache, sin_cache)
// and conventions: position_ids is [B, S], or one element, the position of the first token
// (positions offset + s); a 3-D input without num_heads has heads of 2 · cos_cache's width.

package onnx

import (
	"fmt"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

func init() {
	registerDomainOp(MsftDomain, "RotaryEmbedding", importMsftRotary,
		"3-D [B, S, hidden] or 4-D [B, N, S, H] input, interleaved or halves, rotary_embedding_dim, position_ids [B, S] or the first position (one element); "+
			"the caches gathered by the positions (exact element maps when they are constants or offsets of the index)")
}

func importMsftRotary(c *nodeCtx) error {
	e := c.emitter()
	x, ids, cosC, sinC := e.In(0), e.In(1), e.In(2), e.In(3)
	if e.err != nil {
		return e.err
	}
	t := x.Type.Elem
	if !t.IsFloat() || cosC.Type.Elem != t || sinC.Type.Elem != t || cosC.Type.Rank() != 2 || sinC.Type.Rank() != 2 {
		return fmt.Errorf("%w: input, cos_cache and sin_cache must have one float type and the caches be 2-D, got %s, %s and %s", ErrInvalid, x.Type, cosC.Type, sinC.Type)
	}
	if c.AttrInt("is_packed_batching", 0) != 0 {
		return fmt.Errorf("%w: is_packed_batching", ErrUnsupported)
	}
	heads := c.AttrInt("num_heads", 0)
	rd := c.AttrInt("rotary_embedding_dim", 0)
	if x.Type.Rank() == 3 && heads == 0 {
		if rd != 0 {
			return fmt.Errorf("%w: rotary_embedding_dim needs num_heads", ErrInvalid)
		}
		w, ok1 := cosC.Type.Dim(1)
		hidden, ok2 := x.Type.Dim(2)
		if !ok1 || !ok2 || w == 0 || hidden%(2*w) != 0 {
			return fmt.Errorf("%w: the hidden size %s is not a multiple of the head size 2·%s", ErrInvalid, x.Type.Shape[2].String(), cosC.Type.Shape[1].String())
		}
		heads = hidden / (2 * w)
	}
	seqAxis := 1
	if x.Type.Rank() == 4 {
		seqAxis = 2
	}
	if x.Type.Rank() < 3 {
		return fmt.Errorf("%w: the input must be 3-D or 4-D, got %s", ErrInvalid, x.Type)
	}
	pos, err := e.positions(ids, x.Type.Shape[0], x.Type.Shape[seqAxis])
	if err != nil {
		return err
	}
	cosB := e.Op("gather", "", ir.Attrs{"axis": ir.IntAttr(0)}, cosC, pos)
	sinB := e.Op("gather", "", ir.Attrs{"axis": ir.IntAttr(0)}, sinC, pos)
	if e.err != nil {
		return e.err
	}
	rot, err := e.rotary(x, cosB, sinB, heads, rd, c.AttrInt("interleaved", 0) != 0, c.Output(0))
	if err != nil {
		return err
	}
	e.Out(0, rot)
	return e.Done()
}

// positions returns the positions of the tokens as i64 [B or 1, S]: ids itself when it is
// [B, S], or offset + range(S) when it has one element (the first token's position).
func (e *emitter) positions(ids *ir.Value, batch, seq volume.Aff) (*ir.Value, error) {
	if ids.Type.Elem.IsFloat() || ids.Type.Elem == ir.Bool {
		return nil, fmt.Errorf("%w: position_ids must be integers, got %s", ErrInvalid, ids.Type)
	}
	ids = e.Cast(ids, ir.I64, "")
	if n, ok := ids.Type.StaticShape(); ok && ir.NumElements(n) == 1 {
		r := e.Op("range", "", ir.Attrs{"elem": ir.StringAttr("i64"), "limit": ir.StringAttr(seq.String())})
		off := e.reshape(ids, volume.AffConst(1), volume.AffConst(1))
		return e.Op("add", "", nil, e.reshape(r, volume.AffConst(1), seq), off), e.err
	}
	if ids.Type.Rank() != 2 || !ids.Type.Shape[1].Equal(seq) {
		return nil, fmt.Errorf("%w: position_ids must be [batch, %s] or one element, got %s", ErrInvalid, seq.String(), ids.Type)
	}
	return ids, nil
}
