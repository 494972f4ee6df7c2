// This file imports CausalConvWithState (opset 27), the depthwise causal convolution of state
// space models: the past state (or zeros) joined before the input, a grouped convolution over
// the result, an optional SiLU, and the last kernel - 1 columns as the next state.

package onnx

import (
	"fmt"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

func init() {
	registerOp("CausalConvWithState", 27, importCausalConv)
	noteOp("CausalConvWithState", "concat of the past state (or zeros), grouped conv, optional silu/swish in float32, the trailing columns as the next state")
}

func importCausalConv(c *nodeCtx) error {
	e := c.emitter()
	x, w := e.In(0), e.In(1)
	if e.err != nil {
		return e.err
	}
	if x.Type.Rank() < 3 || w.Type.Rank() != x.Type.Rank() {
		return fmt.Errorf("%w: input %s and weight %s must be [N, C, L…] and [C_out, C/group, K…]", ErrInvalid, x.Type, w.Type)
	}
	if x.Type.Rank() != 3 {
		return fmt.Errorf("%w: a causal convolution over %d dims (one is supported)", ErrUnsupported, x.Type.Rank()-2)
	}
	ch, ok1 := x.Type.Dim(1)
	cpg, ok2 := w.Type.Dim(1)
	k, ok3 := w.Type.Dim(2)
	if !ok1 || !ok2 || !ok3 || cpg <= 0 || ch%cpg != 0 {
		return fmt.Errorf("%w: channels of %s do not group by %s", ErrInvalid, x.Type, w.Type)
	}
	var past *ir.Value
	if c.HasInput(3) {
		past = e.In(3)
	} else {
		ty := ir.TensorType{Elem: x.Type.Elem, Shape: []volume.Aff{x.Type.Shape[0], x.Type.Shape[1], volume.AffConst(k - 1)}}
		past = e.Op("fill", "", ir.Attrs{"type": ir.StringAttr(ty.String()), "value": ir.FloatAttr(0)})
	}
	padded := e.Op("concat", "", ir.Attrs{"axis": ir.IntAttr(2)}, past, x)
	// float16 convolves in float32 (products summed and activated there, rounded once)
	ct := x.Type.Elem
	if ct == ir.F16 {
		ct = ir.F32
	}
	ins := []*ir.Value{e.Cast(padded, ct, ""), e.Cast(w, ct, "")}
	if c.HasInput(2) {
		ins = append(ins, e.Cast(e.In(2), ct, ""))
	}
	y := e.Op("conv", "", ir.Attrs{"group": ir.IntAttr(ch / cpg)}, ins...)
	switch act := c.AttrString("activation", "none"); act {
	case "none", "":
	case "silu", "swish":
		yf := e.Cast(y, ir.F32, "")
		y = e.Op("mul", "", nil, yf, e.Op("sigmoid", "", nil, yf))
	default:
		return fmt.Errorf("%w: activation %q (want none, silu or swish)", ErrInvalid, act)
	}
	y = e.Cast(y, x.Type.Elem, "")
	e.Out(0, e.Op("identity", c.Output(0), nil, y))
	if c.Output(1) != "" && padded != nil {
		n, _ := padded.Type.Dim(2)
		e.Out(1, e.Op("slice", c.Output(1), ir.Attrs{"starts": ir.IntsAttr(n - (k - 1)), "ends": ir.IntsAttr(n), "axes": ir.IntsAttr(2)}, padded))
	}
	return e.Done()
}
