// This file imports GroupQueryAttention's ragged batches: with a past cache, seqlens_k[b] + 1
// is the total length of batch row b, so its past is past_b = seqlens_k[b] + 1 - S keys long
// (the first past_b positions of past_key; 0 when negative, onnxruntime's first prompt), its
// queries sit at positions past_b + s (rotary angles), and onnxruntime's present holds the
// row's past followed by its S new keys, then zeros: present[b, h, t] = past[b, h, t] for
// t < past_b, new[b, h, t - past_b] for t - past_b < S, else 0 (present has P + S positions,
// onnxruntime's length when some row's total is P + S).
//
// The attention itself keeps graphc's dense layout, concat(past, new), and its static causal
// triangle aligned to P (DIE still removes it): a row's keys are the same set in either layout,
// so it masks the past keys t in [past_b, P) with -inf, per row ([B, 1, 1, P + S]). A local
// window is then applied per row in onnxruntime's positions (past key t at t, new key P + j at
// past_b + j): [B, 1, S, P + S]. A dense batch (past_b = P for every b) masks nothing and
// computes what the dense import computed.

package onnx

import (
	"fmt"
	"math"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// gqaRagged holds a ragged GroupQueryAttention's per-row past lengths, i64 [B].
type gqaRagged struct {
	pastB *ir.Value
	// pastLen is P, the past cache's length, as an i64 scalar
	pastLen *ir.Value
}

// gqaRaggedPast reads seqlens_k (input 5) into each row's past length, clamped to [0, P].
func (e *emitter) gqaRaggedPast(c *nodeCtx, q4 *ir.Value, sh attnShape) (*gqaRagged, error) {
	if !c.HasInput(5) {
		return nil, fmt.Errorf("%w: seqlens_k is required", ErrInvalid)
	}
	sk := e.In(5)
	pk := e.In(3)
	if e.err != nil {
		return nil, e.err
	}
	if sk.Type.Rank() != 1 || sk.Type.Elem.IsFloat() || sk.Type.Elem == ir.Bool {
		return nil, fmt.Errorf("%w: seqlens_k must be a 1-D integer tensor [batch], got %s", ErrInvalid, sk.Type)
	}
	if n, ok := sk.Type.Dim(0); ok {
		if b, ok := sh.batch.IsConst(); ok && n != b && n != 1 {
			return nil, fmt.Errorf("%w: seqlens_k has %d elements for a batch of %d", ErrInvalid, n, b)
		}
	}
	sk = e.Cast(sk, ir.I64, "")
	sLen := e.Count(q4, []int{2}, ir.I64)
	pLen := e.Count(pk, []int{2}, ir.I64)
	past := e.Op("sub", "", nil, e.Op("add", "", nil, sk, e.Scalar(ir.I64, 1)), sLen)
	past = e.Op("min", "", nil, e.Op("max", "", nil, past, e.Scalar(ir.I64, 0)), pLen)
	if n, ok := sk.Type.Dim(0); ok && n == 1 {
		past = e.Op("expand", "", ir.Attrs{"shape": ir.StringAttr(ir.ExtentsString([]volume.Aff{sh.batch}))}, past)
	}
	return &gqaRagged{pastB: past, pastLen: pLen}, e.err
}

// gqaRaggedCache concatenates the past before the new keys and values (the attention's
// operands, in graphc's dense layout) and binds the present outputs in onnxruntime's layout.
func (e *emitter) gqaRaggedCache(c *nodeCtx, k, v *ir.Value, rg *gqaRagged) (*ir.Value, *ir.Value, error) {
	pk, pv := e.In(3), e.In(4)
	if e.err != nil {
		return nil, nil, e.err
	}
	if pk.Type.Rank() != 4 || !pk.Type.Equal(pv.Type) || !pk.Type.Shape[1].Equal(k.Type.Shape[1]) || !pk.Type.Shape[3].Equal(k.Type.Shape[3]) || pk.Type.Elem != k.Type.Elem {
		return nil, nil, fmt.Errorf("%w: past_key %s and past_value %s must be [B, heads, P, D] matching the new keys %s", ErrInvalid, pk.Type, pv.Type, k.Type)
	}
	kc := e.Op("concat", "", ir.Attrs{"axis": ir.IntAttr(2)}, pk, k)
	vc := e.Op("concat", "", ir.Attrs{"axis": ir.IntAttr(2)}, pv, v)
	if e.err != nil {
		return nil, nil, e.err
	}
	sh := kc.Type.Shape // [B, H, P + S, D]
	// the row's past (t < past_b), zeros after it, then its new keys written from past_b on
	cols := e.Op("range", "", ir.Attrs{"elem": ir.StringAttr("i64"), "limit": ir.StringAttr(sh[2].String())})
	inPast := e.Op("less", "", nil, e.reshape(cols, volume.AffConst(1), volume.AffConst(1), sh[2], volume.AffConst(1)),
		e.reshape(rg.pastB, sh[0], volume.AffConst(1), volume.AffConst(1), volume.AffConst(1)))
	present := func(cat, nw *ir.Value, name string) *ir.Value {
		base := e.Op("where", "", nil, inPast, cat, e.Scalar(nw.Type.Elem, 0))
		return e.Op("tensor_scatter", name, ir.Attrs{"axis": ir.IntAttr(2), "mode": ir.StringAttr("linear")}, base, nw, rg.pastB)
	}
	e.Out(1, present(kc, k, c.Output(1)))
	e.Out(2, present(vc, v, c.Output(2)))
	return kc, vc, e.err
}

// gqaRaggedMask is the additive mask of each row's missing past keys ([B, 1, 1, P + S]), or
// with a local window (window >= 0) the window in onnxruntime's positions as well
// ([B, 1, S, P + S]): query s of row b sees key t (position t for t < P, past_b + t - P
// after) when that position exceeds past_b + s - window.
func (e *emitter) gqaRaggedMask(rg *gqaRagged, sh attnShape, t ir.DType, window int64) *ir.Value {
	ninf := math.Inf(-1)
	cols := e.Op("range", "", ir.Attrs{"elem": ir.StringAttr("i64"), "limit": ir.StringAttr(sh.skv.String())})
	one := volume.AffConst(1)
	tt := e.reshape(cols, one, one, one, sh.skv)
	pb := e.reshape(rg.pastB, sh.batch, one, one, one)
	isPast := e.Op("less", "", nil, tt, rg.pastLen)
	gap := e.Op("and", "", nil, isPast, e.Op("greater_equal", "", nil, tt, pb))
	if window >= 0 {
		// position of key t: t in the past, past_b + t - P after it
		pos := e.Op("where", "", nil, isPast, tt, e.Op("add", "", nil, pb, e.Op("sub", "", nil, tt, rg.pastLen)))
		s := e.reshape(e.Op("range", "", ir.Attrs{"elem": ir.StringAttr("i64"), "limit": ir.StringAttr(sh.sq.String())}), one, one, sh.sq, one)
		front := e.Op("sub", "", nil, e.Op("add", "", nil, pb, s), e.Scalar(ir.I64, float64(window)))
		gap = e.Op("or", "", nil, gap, e.Op("less_equal", "", nil, pos, front))
	}
	return e.Op("where", "", nil, gap, e.Scalar(t, ninf), e.Scalar(t, 0))
}
