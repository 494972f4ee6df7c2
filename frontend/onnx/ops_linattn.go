// This file imports LinearAttention (opset 27), the recurrent attention of linear
// transformers, unrolled over the (static) sequence as its function body's Scan is: per step
// the [Dk, Dv] state of each key/value head decays (gated rules), is written with k·vᵀ or the
// delta rule's k·(β(v - Sᵀk))ᵀ, and is read by the query, in float32.

package onnx

import (
	"fmt"
	"math"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

func init() {
	registerOp("LinearAttention", 27, importLinearAttention)
	noteOp("LinearAttention", "update rules linear, gated, delta and gated_delta; grouped query heads; past_state; unrolled over a static sequence length")
}

func importLinearAttention(c *nodeCtx) error {
	e := c.emitter()
	q0, k0, v0 := e.In(0), e.In(1), e.In(2)
	if e.err != nil {
		return e.err
	}
	if q0.Type.Rank() != 3 || k0.Type.Rank() != 3 || v0.Type.Rank() != 3 || !q0.Type.Elem.IsFloat() {
		return fmt.Errorf("%w: query, key and value must be 3-D float tensors, got %s, %s and %s", ErrInvalid, q0.Type, k0.Type, v0.Type)
	}
	hq, hkv := c.AttrInt("q_num_heads", 0), c.AttrInt("kv_num_heads", 0)
	seq, ok1 := q0.Type.Dim(1)
	qh, ok2 := q0.Type.Dim(2)
	kh, ok3 := k0.Type.Dim(2)
	vh, ok4 := v0.Type.Dim(2)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return fmt.Errorf("%w: symbolic sequence or hidden sizes (%s, %s)", ErrUnsupported, q0.Type, v0.Type)
	}
	if hq <= 0 || hkv <= 0 || hq%hkv != 0 || qh%hq != 0 || kh%hkv != 0 || vh%hkv != 0 || qh/hq != kh/hkv {
		return fmt.Errorf("%w: q_num_heads = %d and kv_num_heads = %d do not divide %s, %s and %s", ErrInvalid, hq, hkv, q0.Type, k0.Type, v0.Type)
	}
	if seq > maxUnroll {
		return fmt.Errorf("%w: a sequence of %d steps (at most %d are unrolled)", ErrUnsupported, seq, maxUnroll)
	}
	dk, dv := qh/hq, vh/hkv
	rule := c.AttrString("update_rule", "gated_delta")
	gated := rule == "gated" || rule == "gated_delta"
	delta := rule == "delta" || rule == "gated_delta"
	if !gated && !delta && rule != "linear" {
		return fmt.Errorf("%w: update_rule %q (want linear, gated, delta or gated_delta)", ErrInvalid, rule)
	}
	if gated && !c.HasInput(4) || delta && !c.HasInput(5) {
		return fmt.Errorf("%w: update_rule %s needs decay and/or beta", ErrInvalid, rule)
	}
	batch := q0.Type.Shape[0]
	one := volume.AffConst(1)
	cst := func(v int64) volume.Aff { return volume.AffConst(v) }
	f32 := func(v *ir.Value) *ir.Value { return e.Cast(v, ir.F32, "") }
	// step t of a [B, S, X] input, as [B, heads, X / heads] in float32
	step := func(x *ir.Value, t, heads int64) *ir.Value {
		s := e.sliceAt(x, 1, t)
		if s == nil {
			return nil
		}
		w, _ := s.Type.Dim(1)
		return f32(e.reshape(s, batch, cst(heads), cst(w/heads)))
	}
	var state *ir.Value
	if c.HasInput(3) {
		state = f32(e.In(3))
	} else {
		ty := ir.TensorType{Elem: ir.F32, Shape: []volume.Aff{batch, cst(hkv), cst(dk), cst(dv)}}
		state = e.Op("fill", "", ir.Attrs{"type": ir.StringAttr(ty.String()), "value": ir.FloatAttr(0)})
	}
	scale := float32(1 / float64(float32(math.Sqrt(float64(float32(dk))))))
	if c.Attr("scale") != nil {
		scale = c.AttrFloat("scale", 1)
	}
	sc := e.Scalar(ir.F32, float64(scale))
	mm := func(a, b *ir.Value) *ir.Value { return e.Op("matmul", "", nil, a, b) }
	var outs []*ir.Value
	for t := int64(0); t < seq; t++ {
		qt, kt, vt := step(q0, t, hq), step(k0, t, hkv), step(v0, t, hkv)
		if e.err != nil {
			return e.err
		}
		kcol := e.reshape(kt, batch, cst(hkv), cst(dk), one) // [B, H, Dk, 1]
		if gated {
			d := e.In(4)
			dw, _ := d.Type.Dim(2)
			dt := step(d, t, hkv) // [B, H, Dk or 1]
			g := e.reshape(e.Op("exp", "", nil, dt), batch, cst(hkv), cst(dw/hkv), one)
			state = e.Op("mul", "", nil, state, g)
		}
		write := vt
		if delta {
			bt := e.In(5)
			bw, _ := bt.Type.Dim(2)
			beta := e.reshape(f32(e.sliceAt(bt, 1, t)), batch, cst(bw), one) // [B, H or 1, 1]
			st := e.Op("transpose", "", ir.Attrs{"perm": ir.IntsAttr(0, 1, 3, 2)}, state)
			got := e.reshape(mm(st, kcol), batch, cst(hkv), cst(dv))
			write = e.Op("mul", "", nil, beta, e.Op("sub", "", nil, vt, got))
		}
		state = e.Op("add", "", nil, state, mm(kcol, e.reshape(write, batch, cst(hkv), one, cst(dv))))
		read := state
		if hq != hkv {
			g := hq / hkv
			r := e.reshape(state, batch, cst(hkv), one, cst(dk), cst(dv))
			r = e.Op("expand", "", ir.Attrs{"shape": ir.StringAttr(ir.ExtentsString([]volume.Aff{batch, cst(hkv), cst(g), cst(dk), cst(dv)}))}, r)
			read = e.reshape(r, batch, cst(hq), cst(dk), cst(dv))
		}
		o := mm(e.reshape(qt, batch, cst(hq), one, cst(dk)), read) // [B, Hq, 1, Dv]
		outs = append(outs, e.Op("mul", "", nil, sc, e.reshape(o, batch, cst(hq*dv))))
	}
	if e.err != nil {
		return e.err
	}
	y := e.Cast(e.stack("", outs, 1), q0.Type.Elem, "")
	e.Out(0, e.Op("identity", c.Output(0), nil, y))
	if c.Output(1) != "" {
		e.Out(1, e.Op("identity", c.Output(1), nil, e.Cast(state, q0.Type.Elem, "")))
	}
	return e.Done()
}
