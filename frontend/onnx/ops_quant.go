// This file imports the quantization ops: QuantizeLinear and DequantizeLinear (per tensor, per
// axis, blocked), MatMulInteger and ConvInteger, QLinearMatMul and QLinearConv (an integer
// contraction, then requantize with multiplier a_scale·b_scale/y_scale, as onnxruntime
// computes it) and DynamicQuantizeLinear (min/max reductions, then quantize_linear).

package onnx

import (
	"fmt"

	"github.com/graphc/graphc/ir"
)

func init() {
	registerOp("QuantizeLinear", 10, importQuantizeLinear)
	registerOp("DequantizeLinear", 10, importDequantizeLinear)
	registerOp("MatMulInteger", 10, importMatMulInteger)
	registerOp("ConvInteger", 10, importConvInteger)
	registerOp("QLinearMatMul", 10, importQLinearMatMul)
	registerOp("QLinearConv", 10, importQLinearConv)
	registerOp("DynamicQuantizeLinear", 11, importDynamicQuantizeLinear)
	noteOp("QuantizeLinear", "u8, i8, u16, i16, packed u4/i4/u2/i2, float8 and float4 results; per tensor, per axis, blocked")
	noteOp("DequantizeLinear", "u8, i8, u16, i16, i32, packed u4/i4/u2/i2, float8 and float4 inputs; per tensor, per axis, blocked")
	noteOp("QLinearMatMul", "matmul_integer, then requantize by a_scale·b_scale/y_scale in f32 (onnxruntime's rounding)")
	noteOp("QLinearConv", "conv_integer with the i32 bias, then requantize by x_scale·w_scale/y_scale in f32")
	noteOp("DynamicQuantizeLinear", "u8 result; reduce_min/reduce_max, then quantize_linear")
}

// zeroPointOr returns input i, or a scalar zero of type t when it is absent.
func zeroPointOr(e *emitter, i int, t ir.DType) *ir.Value {
	if e.c.HasInput(i) {
		return e.In(i)
	}
	return e.Scalar(t, 0)
}

// quantAttrs returns the axis and block_size attributes.
func quantAttrs(c *nodeCtx) ir.Attrs {
	return ir.Attrs{"axis": ir.IntAttr(c.AttrInt("axis", 1)), "block_size": ir.IntAttr(c.AttrInt("block_size", 0))}
}

func importQuantizeLinear(c *nodeCtx) error {
	e := c.emitter()
	x, s := e.In(0), e.In(1)
	t := ir.U8
	if od := c.AttrInt("output_dtype", 0); od != 0 {
		dt, err := DType(int32(od))
		if err != nil {
			return fmt.Errorf("output_dtype: %w", err)
		}
		t = dt
	}
	if c.HasInput(2) {
		z := e.In(2)
		if z != nil {
			t = z.Type.Elem
		}
	}
	if e.err != nil {
		return e.err
	}
	if _, _, ok := ir.QuantRange(t); (!ok || t == ir.I32) && !(t.IsMiniFloat() && t != ir.BF16) {
		return fmt.Errorf("%w: quantized type %s (graphc has u8, i8, u16, i16, u4, i4, u2, i2 and the float8 formats)", ErrUnsupported, t)
	}
	z := zeroPointOr(e, 2, t)
	attrs := quantAttrs(c)
	attrs["saturate"] = ir.IntAttr(c.AttrInt("saturate", 1))
	e.Out(0, e.Op("quantize_linear", c.Output(0), attrs, x, s, z))
	return e.Done()
}

func importDequantizeLinear(c *nodeCtx) error {
	e := c.emitter()
	x, s := e.In(0), e.In(1)
	if e.err != nil {
		return e.err
	}
	if _, _, ok := ir.QuantRange(x.Type.Elem); !ok && !(x.Type.Elem.IsMiniFloat() && x.Type.Elem != ir.BF16) {
		return fmt.Errorf("%w: quantized type %s (graphc has u8, i8, u16, i16, i32, u4, i4, u2, i2 and the float8 formats)", ErrUnsupported, x.Type.Elem)
	}
	z := zeroPointOr(e, 2, x.Type.Elem)
	if od := c.AttrInt("output_dtype", 0); od != 0 {
		// opset 23: the result type, when it is not the scale's
		t, err := DType(int32(od))
		if err != nil || !t.IsFloat() {
			return fmt.Errorf("%w: output_dtype %d", ErrUnsupported, od)
		}
		e.Out(0, e.Cast(e.Op("dequantize_linear", "", quantAttrs(c), x, s, z), t, ""))
		return e.Done()
	}
	e.Out(0, e.Op("dequantize_linear", c.Output(0), quantAttrs(c), x, s, z))
	return e.Done()
}

func importMatMulInteger(c *nodeCtx) error {
	e := c.emitter()
	a, b := e.In(0), e.In(1)
	if e.err != nil {
		return e.err
	}
	az, bz := zeroPointOr(e, 2, a.Type.Elem), zeroPointOr(e, 3, b.Type.Elem)
	e.Out(0, e.Op("matmul_integer", c.Output(0), nil, a, b, az, bz))
	return e.Done()
}

// convIntAttrs resolves the convolution attributes of a node with input x and weight w.
func convIntAttrs(c *nodeCtx, x, w *ir.Value) (ir.Attrs, error) {
	if x.Type.Rank() < 3 || w.Type.Rank() != x.Type.Rank() {
		return nil, fmt.Errorf("%w: X must have rank >= 3 and W the same rank, got %s and %s", ErrInvalid, x.Type, w.Type)
	}
	ns := x.Type.Rank() - 2
	k, err := kernelOf(w)
	if err != nil {
		return nil, err
	}
	s, d := intsOr(c, "strides", ns, 1), intsOr(c, "dilations", ns, 1)
	pads, err := autoPads(c, x.Type.Shape[2:], k, s, d)
	if err != nil {
		return nil, err
	}
	return ir.Attrs{"strides": listAttr(s, 1), "dilations": listAttr(d, 1), "pads": listAttr(pads, 0),
		"group": ir.IntAttr(c.AttrInt("group", 1))}, nil
}

func importConvInteger(c *nodeCtx) error {
	e := c.emitter()
	x, w := e.In(0), e.In(1)
	if e.err != nil {
		return e.err
	}
	attrs, err := convIntAttrs(c, x, w)
	if err != nil {
		return err
	}
	xz, wz := zeroPointOr(e, 2, x.Type.Elem), zeroPointOr(e, 3, w.Type.Elem)
	e.Out(0, e.Op("conv_integer", c.Output(0), attrs, x, w, xz, wz))
	return e.Done()
}

// multiplier returns a_scale·b_scale/y_scale as f32 (computed in the scales' type, as the
// reference does), and the axis of a per-channel multiplier (-1: per tensor).
func multiplier(e *emitter, as, bs, ys *ir.Value, channelAxis int) (*ir.Value, int) {
	m := e.Op("div", "", nil, e.Op("mul", "", nil, as, bs), ys)
	m = e.Cast(m, ir.F32, "")
	if e.err != nil {
		return nil, -1
	}
	if m.Type.Rank() == 1 {
		if n, ok := m.Type.Dim(0); ok && n == 1 {
			return m, -1
		}
		return m, channelAxis
	}
	if m.Type.Rank() > 1 {
		e.err = fmt.Errorf("%w: scales %s, %s and %s give a multiplier %s, not a scalar or a vector", ErrUnsupported, as.Type, bs.Type, ys.Type, m.Type)
	}
	return m, -1
}

func importQLinearMatMul(c *nodeCtx) error {
	e := c.emitter()
	a, as, az, b, bs, bz, ys, yz := e.In(0), e.In(1), e.In(2), e.In(3), e.In(4), e.In(5), e.In(6), e.In(7)
	acc := e.Op("matmul_integer", "", nil, a, b, az, bz)
	if e.err != nil {
		return e.err
	}
	m, axis := multiplier(e, as, bs, ys, acc.Type.Rank()-1)
	e.Out(0, e.Op("requantize", c.Output(0), ir.Attrs{"axis": ir.IntAttr(int64(max(axis, 0)))}, acc, m, yz))
	return e.Done()
}

func importQLinearConv(c *nodeCtx) error {
	e := c.emitter()
	x, xs, xz, w, ws, wz, ys, yz := e.In(0), e.In(1), e.In(2), e.In(3), e.In(4), e.In(5), e.In(6), e.In(7)
	if e.err != nil {
		return e.err
	}
	attrs, err := convIntAttrs(c, x, w)
	if err != nil {
		return err
	}
	ins := []*ir.Value{x, w, xz, wz}
	if c.HasInput(8) {
		ins = append(ins, e.In(8))
	}
	acc := e.Op("conv_integer", "", attrs, ins...)
	m, _ := multiplier(e, xs, ws, ys, 1)
	e.Out(0, e.Op("requantize", c.Output(0), ir.Attrs{"axis": ir.IntAttr(1)}, acc, m, yz))
	return e.Done()
}

// importDynamicQuantizeLinear: scale = (max(0, max x) - min(0, min x)) / 255,
// zero point = saturate(round(-min(0, min x) / scale)), y = quantize_linear(x, scale, zp).
func importDynamicQuantizeLinear(c *nodeCtx) error {
	e := c.emitter()
	x := e.In(0)
	if e.err != nil {
		return e.err
	}
	if x.Type.Elem != ir.F32 {
		return fmt.Errorf("%w: DynamicQuantizeLinear of %s (f32 only)", ErrUnsupported, x.Type.Elem)
	}
	all := make([]int, x.Type.Rank())
	for i := range all {
		all[i] = i
	}
	red := ir.Attrs{"axes": ints(all), "keepdims": ir.IntAttr(0)}
	zero := e.Scalar(ir.F32, 0)
	lo := e.Op("min", "", nil, e.Op("reduce_min", "", red, x), zero)
	hi := e.Op("max", "", nil, e.Op("reduce_max", "", red, x), zero)
	scale := e.Op("div", c.Output(1), nil, e.Op("sub", "", nil, hi, lo), e.Scalar(ir.F32, 255))
	zp := e.Op("quantize_linear", c.Output(2), nil, e.Op("neg", "", nil, lo), scale, e.Scalar(ir.U8, 0))
	y := e.Op("quantize_linear", c.Output(0), nil, x, scale, zp)
	e.Out(0, y)
	e.Out(1, scale)
	e.Out(2, zp)
	return e.Done()
}
