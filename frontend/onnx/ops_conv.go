// This file imports the convolutions and pools: Conv, ConvTranspose, MaxPool, AveragePool,
// GlobalAveragePool and GlobalMaxPool. auto_pad and ConvTranspose's output_shape are resolved
// here into explicit pads, so the IR ops carry only strides, dilations and pads.

package onnx

import (
	"fmt"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

func init() {
	registerOp("Conv", 1, importConv)
	registerOp("ConvTranspose", 1, importConvTranspose)
	noteOp("ConvTranspose", "one convolution per stride phase and their interleave (gather form), unless a phase has no taps")
	registerOp("MaxPool", 1, importPool("max_pool"))
	registerOp("AveragePool", 1, importPool("avg_pool"))
	registerOp("GlobalAveragePool", 1, importGlobalPool("global_avg_pool"))
	registerOp("GlobalMaxPool", 1, importGlobalPool("global_max_pool"))
}

// ints returns attribute name, or n copies of def when it is absent or empty.
func intsOr(c *nodeCtx, name string, n int, def int64) []int64 {
	v := c.AttrInts(name, nil)
	if len(v) == 0 {
		v = make([]int64, n)
		for i := range v {
			v[i] = def
		}
	}
	return v
}

// autoPads resolves auto_pad for input extents in, kernel k, strides s and dilations d; it
// returns the explicit pads (begins then ends).
func autoPads(c *nodeCtx, in []volume.Aff, k, s, d []int64) ([]int64, error) {
	ns := len(in)
	switch ap := c.AttrString("auto_pad", "NOTSET"); ap {
	case "NOTSET", "":
		pads := intsOr(c, "pads", 2*ns, 0)
		if len(pads) != 2*ns {
			return nil, fmt.Errorf("%w: %d pads for %d spatial dims", ErrInvalid, len(pads), ns)
		}
		return pads, nil
	case "VALID":
		return make([]int64, 2*ns), nil
	case "SAME_UPPER", "SAME_LOWER":
		pads := make([]int64, 2*ns)
		for i := 0; i < ns; i++ {
			n, ok := in[i].IsConst()
			if !ok {
				return nil, fmt.Errorf("%w: auto_pad %s needs static spatial extents, got %s", ErrUnsupported, ap, in[i].String())
			}
			out := (n + s[i] - 1) / s[i]
			total := max(0, (out-1)*s[i]+(k[i]-1)*d[i]+1-n)
			small, big := total/2, total-total/2
			if ap == "SAME_UPPER" {
				pads[i], pads[ns+i] = small, big
			} else {
				pads[i], pads[ns+i] = big, small
			}
		}
		return pads, nil
	default:
		return nil, fmt.Errorf("%w: auto_pad %q", ErrInvalid, ap)
	}
}

// convInputs returns X, W and the optional B.
func convInputs(c *nodeCtx) ([]*ir.Value, error) {
	var ins []*ir.Value
	for i := 0; i < 3; i++ {
		if !c.HasInput(i) {
			if i < 2 {
				return nil, fmt.Errorf("%w: missing input #%d", ErrInvalid, i)
			}
			continue
		}
		v, err := c.Input(i)
		if err != nil {
			return nil, err
		}
		ins = append(ins, v)
	}
	if ins[0].Type.Rank() < 3 {
		return nil, fmt.Errorf("%w: X must have rank >= 3, got %s", ErrInvalid, ins[0].Type)
	}
	if ins[1].Type.Rank() != ins[0].Type.Rank() {
		return nil, fmt.Errorf("%w: W must have the rank of X (%d), got %s", ErrInvalid, ins[0].Type.Rank(), ins[1].Type)
	}
	return ins, nil
}

// kernelOf returns the static kernel extents of W.
func kernelOf(w *ir.Value) ([]int64, error) {
	ks := make([]int64, w.Type.Rank()-2)
	for i := range ks {
		k, ok := w.Type.Shape[2+i].IsConst()
		if !ok {
			return nil, fmt.Errorf("%w: kernel extent %s must be static", ErrUnsupported, w.Type.Shape[2+i].String())
		}
		ks[i] = k
	}
	return ks, nil
}

func importConv(c *nodeCtx) error {
	ins, err := convInputs(c)
	if err != nil {
		return err
	}
	x := ins[0]
	ns := x.Type.Rank() - 2
	k, err := kernelOf(ins[1])
	if err != nil {
		return err
	}
	s, d := intsOr(c, "strides", ns, 1), intsOr(c, "dilations", ns, 1)
	pads, err := autoPads(c, x.Type.Shape[2:], k, s, d)
	if err != nil {
		return err
	}
	return emitWide(c, "conv", ins, ir.Attrs{"strides": listAttr(s, 1), "dilations": listAttr(d, 1),
		"pads": listAttr(pads, 0), "group": ir.IntAttr(c.AttrInt("group", 1))})
}

func importConvTranspose(c *nodeCtx) error {
	ins, err := convInputs(c)
	if err != nil {
		return err
	}
	x := ins[0]
	ns := x.Type.Rank() - 2
	k, err := kernelOf(ins[1])
	if err != nil {
		return err
	}
	s, d := intsOr(c, "strides", ns, 1), intsOr(c, "dilations", ns, 1)
	op := intsOr(c, "output_padding", ns, 0)
	if len(s) != ns || len(d) != ns || len(op) != ns {
		return fmt.Errorf("%w: strides %v, dilations %v, output_padding %v for %d spatial dims", ErrInvalid, s, d, op, ns)
	}
	ap := c.AttrString("auto_pad", "NOTSET")
	outShape := c.AttrInts("output_shape", nil)
	var pads []int64
	if len(outShape) > 0 || ap == "SAME_UPPER" || ap == "SAME_LOWER" {
		if len(outShape) > ns {
			outShape = outShape[len(outShape)-ns:] // given with N and C
		}
		pads = make([]int64, 2*ns)
		for i := 0; i < ns; i++ {
			n, ok := x.Type.Shape[2+i].IsConst()
			if !ok {
				return fmt.Errorf("%w: output_shape or auto_pad needs static spatial extents", ErrUnsupported)
			}
			want := n * s[i]
			if len(outShape) > 0 {
				want = outShape[i]
			}
			// the spec's formulas, with Python's floor division as in the reference (a negative
			// total extends the output at the end)
			total := s[i]*(n-1) + op[i] + (k[i]-1)*d[i] + 1 - want
			half := floorDiv(total, 2)
			if ap == "SAME_UPPER" {
				pads[i], pads[ns+i] = half, total-half
			} else {
				pads[i], pads[ns+i] = total-half, half
			}
		}
	} else if ap == "VALID" {
		pads = make([]int64, 2*ns)
	} else {
		pads = intsOr(c, "pads", 2*ns, 0)
	}
	attrs := ir.Attrs{"strides": listAttr(s, 1), "dilations": listAttr(d, 1),
		"pads": listAttr(pads, 0), "group": ir.IntAttr(c.AttrInt("group", 1)), "output_padding": listAttr(op, 0)}
	if c.Output(0) != "" {
		// one convolution per stride phase and their interleave (ir/conv_phases.go): the
		// gather form, on the convolution kernels
		v, err := ir.ConvTransposePhases(c.im.g, c.Output(0), c.node.GetName(), ins, attrs)
		if err != nil {
			return err
		}
		if v != nil {
			c.SetOutput(0, v)
			return nil
		}
	}
	return emitWide(c, "conv_transpose", ins, attrs)
}

func importPool(kind string) func(c *nodeCtx) error {
	return func(c *nodeCtx) error {
		x, err := c.Input(0)
		if err != nil {
			return err
		}
		if x.Type.Rank() < 3 {
			return fmt.Errorf("%w: X must have rank >= 3, got %s", ErrInvalid, x.Type)
		}
		ns := x.Type.Rank() - 2
		k := c.AttrInts("kernel_shape", nil)
		if len(k) != ns {
			return fmt.Errorf("%w: kernel_shape %v for %d spatial dims", ErrInvalid, k, ns)
		}
		s, d := intsOr(c, "strides", ns, 1), intsOr(c, "dilations", ns, 1)
		pads, err := autoPads(c, x.Type.Shape[2:], k, s, d)
		if err != nil {
			return err
		}
		attrs := ir.Attrs{"kernel": ir.IntsAttr(k...), "strides": listAttr(s, 1), "dilations": listAttr(d, 1),
			"pads": listAttr(pads, 0), "ceil_mode": ir.IntAttr(c.AttrInt("ceil_mode", 0))}
		if kind == "avg_pool" {
			attrs["count_include_pad"] = ir.IntAttr(c.AttrInt("count_include_pad", 0))
		}
		if c.Output(1) != "" {
			// MaxPool's Indices output
			ia := attrs.Clone()
			ia["storage_order"] = ir.IntAttr(c.AttrInt("storage_order", 0))
			v, err := c.Emit("max_pool_index", []*ir.Value{x}, ia, c.Output(1))
			if err != nil {
				return err
			}
			c.SetOutput(1, v)
		}
		if c.Output(0) == "" {
			return nil
		}
		if kind == "avg_pool" {
			return emitWide(c, kind, []*ir.Value{x}, attrs)
		}
		return emit1(c, kind, []*ir.Value{x}, attrs)
	}
}

func importGlobalPool(kind string) func(c *nodeCtx) error {
	return func(c *nodeCtx) error {
		x, err := c.Input(0)
		if err != nil {
			return err
		}
		return emit1(c, kind, []*ir.Value{x}, nil)
	}
}

// floorDiv returns ⌊a/b⌋ for b > 0.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// listAttr returns v as an attribute, or the empty list (the catalogue's default) when every
// entry is def, so that printed graphs show only what differs from the defaults.
func listAttr(v []int64, def int64) ir.Attr {
	for _, x := range v {
		if x != def {
			return ir.IntsAttr(v...)
		}
	}
	return ir.IntsAttr()
}

// emitWide emits a reducing op; on f16 operands it computes in f32 and rounds the result
// once (as the reference and real kernels accumulate f16 products in f32), instead of
// rounding every partial sum to f16.
func emitWide(c *nodeCtx, kind string, ins []*ir.Value, attrs ir.Attrs) error {
	if ins[0].Type.Elem != ir.F16 {
		return emit1(c, kind, ins, attrs)
	}
	wide := make([]*ir.Value, len(ins))
	for i, v := range ins {
		w, err := c.Emit("cast", []*ir.Value{v}, ir.Attrs{"to": ir.StringAttr("f32")}, "")
		if err != nil {
			return err
		}
		wide[i] = w
	}
	y, err := c.Emit(kind, wide, attrs, "")
	if err != nil {
		return err
	}
	return emit1(c, "cast", []*ir.Value{y}, ir.Attrs{"to": ir.StringAttr("f16")})
}

func init() {
	registerOp("DeformConv", 19, importDeformConv)
	noteOp("DeformConv", "2-D; offsets, mask (default ones) and bias; bilinear samples, zero outside the image")
}

// importDeformConv: deform_conv (the offsets twice, a mask of ones by default), then the bias.
func importDeformConv(c *nodeCtx) error {
	e := c.emitter()
	x, w, off := e.In(0), e.In(1), e.In(2)
	if e.err != nil {
		return e.err
	}
	var mask *ir.Value
	if c.HasInput(4) {
		mask = e.In(4)
	} else {
		kh, _ := w.Type.Dim(2)
		kw, _ := w.Type.Dim(3)
		ty := ir.TensorType{Elem: x.Type.Elem, Shape: []volume.Aff{off.Type.Shape[0], volume.AffConst(c.AttrInt("offset_group", 1) * kh * kw), off.Type.Shape[2], off.Type.Shape[3]}}
		mask = e.Op("fill", "", ir.Attrs{"type": ir.StringAttr(ty.String()), "value": ir.FloatAttr(1)})
	}
	two := func(name string, def int64) ir.Attr {
		v := c.AttrInts(name, nil)
		if len(v) == 0 {
			return ir.IntsAttr(def, def)
		}
		return ir.IntsAttr(v...)
	}
	pads := c.AttrInts("pads", nil)
	if len(pads) == 0 {
		pads = []int64{0, 0, 0, 0}
	}
	attrs := ir.Attrs{"strides": two("strides", 1), "dilations": two("dilations", 1), "pads": ir.IntsAttr(pads...),
		"group": ir.IntAttr(c.AttrInt("group", 1)), "offset_group": ir.IntAttr(c.AttrInt("offset_group", 1))}
	y := e.Op("deform_conv", "", attrs, x, w, off, off, mask)
	if c.HasInput(3) {
		oc := w.Type.Shape[0]
		one := volume.AffConst(1)
		y = e.Op("add", "", nil, y, e.reshape(e.In(3), one, oc, one, one))
	}
	e.Out(0, e.Op("identity", c.Output(0), nil, y))
	return e.Done()
}
