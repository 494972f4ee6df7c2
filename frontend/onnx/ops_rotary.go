// This file imports RotaryEmbedding (opset 23) as slices, a gather of the cos/sin caches by
// the position ids, elementwise products and concatenations: every step has an exact element
// map except the gather by data-dependent position ids (over-approximated; exact when the ids
// are constants or affine in the index).

package onnx

import (
	"fmt"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

func init() {
	registerOp("RotaryEmbedding", 23, importRotary)
	noteOp("RotaryEmbedding", "3-D (with num_heads) and 4-D inputs, interleaved or halves, rotary_embedding_dim, "+
		"caches gathered by position_ids or given per position")
}

// importRotary rotates the first rotary_embedding_dim features of every head by the angles of
// its position: with x1, x2 the halves (or the even and odd features when interleaved),
// re = cos·x1 - sin·x2 and im = sin·x1 + cos·x2 replace them; the rest pass through.
func importRotary(c *nodeCtx) error {
	e := c.emitter()
	x0, cosC, sinC := e.In(0), e.In(1), e.In(2)
	if e.err != nil {
		return e.err
	}
	t := x0.Type.Elem
	if !t.IsFloat() || cosC.Type.Elem != t || sinC.Type.Elem != t {
		return fmt.Errorf("%w: input, cos_cache and sin_cache must have one float type, got %s, %s and %s", ErrInvalid, t, cosC.Type.Elem, sinC.Type.Elem)
	}
	// cos and sin per (batch, position): gathered by position_ids, or given as [B, S, ·]
	if c.HasInput(3) {
		ids := e.In(3)
		if e.err != nil {
			return e.err
		}
		if ids.Type.Rank() != 2 || ids.Type.Elem.IsFloat() || ids.Type.Elem == ir.Bool {
			return fmt.Errorf("%w: position_ids must be a 2-D integer tensor, got %s", ErrInvalid, ids.Type)
		}
		if cosC.Type.Rank() != 2 || sinC.Type.Rank() != 2 {
			return fmt.Errorf("%w: with position_ids the caches must be 2-D, got %s and %s", ErrInvalid, cosC.Type, sinC.Type)
		}
		cosC = e.Op("gather", "", ir.Attrs{"axis": ir.IntAttr(0)}, cosC, ids)
		sinC = e.Op("gather", "", ir.Attrs{"axis": ir.IntAttr(0)}, sinC, ids)
	} else if cosC.Type.Rank() != 3 || sinC.Type.Rank() != 3 {
		return fmt.Errorf("%w: without position_ids the caches must be 3-D [batch, sequence, rotary_embedding_dim / 2], got %s and %s", ErrInvalid, cosC.Type, sinC.Type)
	}
	if e.err != nil {
		return e.err
	}
	rot, err := e.rotary(x0, cosC, sinC, c.AttrInt("num_heads", 0), c.AttrInt("rotary_embedding_dim", 0), c.AttrInt("interleaved", 0) != 0, c.Output(0))
	if err != nil {
		return err
	}
	e.Out(0, rot)
	return e.Done()
}

// rotary rotates the first rd features (0: all) of every head of x0 ([B, S, heads·D] with
// heads given, or [B, H, S, D]) by the angles whose cosines and sines are cosC and sinC
// [B or 1, S, ≥ rd/2], interleaved or in halves; the result is named name.
func (e *emitter) rotary(x0, cosC, sinC *ir.Value, heads, rd int64, interleaved bool, name string) (*ir.Value, error) {
	x := x0
	// x is [B, S, H, D] (from 3-D input) or [B, H, S, D]; posAxis is the axis of S
	var posAxis int
	switch x0.Type.Rank() {
	case 3:
		hidden, ok := x0.Type.Dim(2)
		if heads <= 0 || !ok || hidden%heads != 0 {
			return nil, fmt.Errorf("%w: a 3-D input needs num_heads dividing its static hidden size, got num_heads = %d and %s", ErrInvalid, heads, x0.Type)
		}
		s := x0.Type.Shape
		x = e.reshape(x0, s[0], s[1], volume.AffConst(heads), volume.AffConst(hidden/heads))
		posAxis = 1
	case 4:
		posAxis = 2
	default:
		return nil, fmt.Errorf("%w: the input must be 3-D or 4-D, got %s", ErrInvalid, x0.Type)
	}
	if x == nil {
		return nil, e.err
	}
	d, ok := x.Type.Dim(3)
	if !ok {
		return nil, fmt.Errorf("%w: symbolic head size in %s", ErrUnsupported, x.Type)
	}
	if rd == 0 {
		rd = d
	}
	if rd < 0 || rd > d || rd%2 != 0 {
		return nil, fmt.Errorf("%w: rotary_embedding_dim = %d must be even and at most the head size %d", ErrInvalid, rd, d)
	}
	half := rd / 2
	if w, ok := cosC.Type.Dim(2); !ok || w < half {
		return nil, fmt.Errorf("%w: the caches have %s angles per position, fewer than rotary_embedding_dim / 2 = %d", ErrInvalid, cosC.Type.Shape[2].String(), half)
	}
	angles := func(v *ir.Value) *ir.Value {
		v = e.sliceLast(v, 0, half, 1)
		if v == nil {
			return nil
		}
		s := v.Type.Shape
		one := volume.AffConst(1)
		if posAxis == 2 {
			return e.reshape(v, s[0], one, s[1], s[2]) // [B, 1, S, half]
		}
		return e.reshape(v, s[0], s[1], one, s[2]) // [B, S, 1, half]
	}
	cos, sin := angles(cosC), angles(sinC)

	var x1, x2 *ir.Value
	if interleaved {
		x1, x2 = e.sliceLast(x, 0, rd, 2), e.sliceLast(x, 1, rd, 2)
	} else {
		x1, x2 = e.sliceLast(x, 0, half, 1), e.sliceLast(x, half, rd, 1)
	}
	re := e.Op("sub", "", nil, e.Op("mul", "", nil, cos, x1), e.Op("mul", "", nil, sin, x2))
	im := e.Op("add", "", nil, e.Op("mul", "", nil, sin, x1), e.Op("mul", "", nil, cos, x2))
	if e.err != nil {
		return nil, e.err
	}
	var rot *ir.Value
	if interleaved {
		// (real, imaginary) pairs: [.., half, 1] twice, joined to [.., half, 2], flattened to [.., rd]
		s := re.Type.Shape
		pair := []volume.Aff{s[0], s[1], s[2], s[3], volume.AffConst(1)}
		j := e.Op("concat", "", ir.Attrs{"axis": ir.IntAttr(4)}, e.reshape(re, pair...), e.reshape(im, pair...))
		rot = e.reshape(j, s[0], s[1], s[2], volume.AffConst(rd))
	} else {
		rot = e.Op("concat", "", ir.Attrs{"axis": ir.IntAttr(3)}, re, im)
	}
	if rd < d {
		rot = e.Op("concat", "", ir.Attrs{"axis": ir.IntAttr(3)}, rot, e.sliceLast(x, rd, d, 1))
	}
	if x0.Type.Rank() == 3 {
		rot = e.Op("reshape", name, ir.Attrs{"shape": ir.StringAttr(ir.ExtentsString(x0.Type.Shape))}, rot)
	} else {
		rot = e.Op("identity", name, nil, rot)
	}
	return rot, e.err
}

// sliceLast slices the last axis of x: start, start + step, … before end.
func (e *emitter) sliceLast(x *ir.Value, start, end, step int64) *ir.Value {
	if x == nil {
		return nil
	}
	return e.Op("slice", "", ir.Attrs{"starts": ir.IntsAttr(start), "ends": ir.IntsAttr(end),
		"axes": ir.IntsAttr(int64(x.Type.Rank() - 1)), "steps": ir.IntsAttr(step)}, x)
}
