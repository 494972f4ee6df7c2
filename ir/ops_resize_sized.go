// This file declares resize_sized: Resize to output extents known only at run time (symbolic
// dims, typically bounded dims computed from box coordinates, as Mask R-CNN's paste of each
// 28×28 mask into its box). The static resize fits its source indices at compile time; here
// the scale is extent / input extent with the extent a run-time value, so the body computes
// the source coordinate of every output index from param(…) and reads the input at it
// (DynRead): the input's access is the named over-approximation of data-dependent reads, the
// whole extent of every resized axis. Linear interpolation takes two taps per resized axis (a
// reduction dim), nearest one; the coordinates follow onnxruntime's formulas in f64.

package ir

import (
	"github.com/graphc/graphc/volume"
)

func init() {
	register(&OpDef{
		Name: "resize_sized",
		Summary: "resamples x to shape (extents that may be symbolic dims known at run time) by nearest or linear " +
			"interpolation (ONNX Resize semantics with sizes; the scale of an axis is its extent / x's)",
		Example:     `%r = resize_sized(%x) {mode = "linear", shape = "[1, 1, H, W]"} : f32[1, 1, H, W]`,
		MinOperands: 1, MaxOperands: 1,
		Attrs: []AttrDef{
			{Name: "shape", Kind: AttrString, Doc: "the result shape; a dim that differs from x's is resized"},
			{Name: "mode", Kind: AttrString, Default: dflt(StringAttr("linear")), Doc: "nearest or linear"},
			{Name: "coordinate_transformation_mode", Kind: AttrString, Default: dflt(StringAttr("half_pixel")), Doc: "half_pixel, pytorch_half_pixel, asymmetric or align_corners"},
			{Name: "nearest_mode", Kind: AttrString, Default: dflt(StringAttr("round_prefer_floor")), Doc: "round_prefer_floor, round_prefer_ceil, floor or ceil"},
		},
		Build: buildResizeSized,
	})
}

func buildResizeSized(b *Builder) error {
	x := b.In(0)
	a := b.Op.Attrs
	shape, err := ParseExtents(a.Str("shape", ""))
	if err != nil {
		return b.Errorf("shape: %v", err)
	}
	r := x.Rank()
	if len(shape) != r {
		return b.Errorf("shape %s for an operand of rank %d", ExtentsString(shape), r)
	}
	if !x.Elem.IsFloat() {
		return b.Errorf("x %s must be a float tensor", x)
	}
	mode, ctm, nearest := a.Str("mode", "linear"), a.Str("coordinate_transformation_mode", "half_pixel"), a.Str("nearest_mode", "round_prefer_floor")
	taps := map[string]int64{"nearest": 1, "linear": 2}[mode]
	if taps == 0 {
		return b.Errorf("mode %q (want nearest or linear)", mode)
	}
	switch ctm {
	case "half_pixel", "pytorch_half_pixel", "asymmetric", "align_corners":
	default:
		return b.Errorf("coordinate_transformation_mode %q (want half_pixel, pytorch_half_pixel, asymmetric or align_corners)", ctm)
	}
	switch nearest {
	case "round_prefer_floor", "round_prefer_ceil", "floor", "ceil":
	default:
		return b.Errorf("nearest_mode %q (want round_prefer_floor, round_prefer_ceil, floor or ceil)", nearest)
	}
	// resized axes: those whose extent differs from x's (x's must be static there)
	var axes []int
	sizes := map[int]int64{}
	for d := range r {
		if shape[d].Equal(x.Shape[d]) {
			continue
		}
		n, ok := x.Shape[d].IsConst()
		if !ok {
			return b.Errorf("resizing dim %d needs a static input extent, got %s", d, x.Shape[d].String())
		}
		if len(shape[d].Floors) > 0 {
			return b.Errorf("output extent %s of dim %d has a floor division", shape[d].String(), d)
		}
		axes = append(axes, d)
		sizes[d] = n
	}
	// iteration [out dims…, one tap dim per resized axis]
	ext := append([]volume.Aff(nil), shape...)
	iters := make([]IterKind, r+len(axes))
	for i := range axes {
		ext = append(ext, volume.AffConst(taps))
		iters[r+i] = Reduction
	}
	dims := dimNames(len(ext))
	b.SetBox(dims, ext, iters)
	am, err := approxAlongAxes(b.Params, dims, identity(0, r), axes, x.Shape)
	if err != nil {
		return b.Errorf("%v", err)
	}
	b.Op.Access = []Access{{Approx: true, ApproxMap: am}}
	b.Op.Out = AffAccess(identity(0, r)...)

	f := func(v float64) *Scalar { return Const(F64, v) }
	add := func(p, q *Scalar) *Scalar { return Bin(SAdd, p, q) }
	sub := func(p, q *Scalar) *Scalar { return Bin(SSub, p, q) }
	mul := func(p, q *Scalar) *Scalar { return Bin(SMul, p, q) }
	div := func(p, q *Scalar) *Scalar { return Bin(SDiv, p, q) }
	idx := make([]*Scalar, r)
	for d := range idx {
		idx[d] = Index(d)
	}
	var weight *Scalar
	for i, d := range axes {
		n := float64(sizes[d])
		out := Cast(affScalar(shape[d]), F64)
		y := Cast(Index(d), F64)
		var u *Scalar // the source coordinate (the ONNX reference's x_original)
		switch ctm {
		case "half_pixel":
			u = sub(div(add(y, f(0.5)), div(out, f(n))), f(0.5))
		case "pytorch_half_pixel":
			u = Select(Bin(SGt, out, f(1)), sub(div(add(y, f(0.5)), div(out, f(n))), f(0.5)), f(0))
		case "asymmetric":
			u = div(y, div(out, f(n)))
		case "align_corners":
			u = Select(Bin(SGt, out, f(1)), div(mul(y, f(n-1)), sub(out, f(1))), f(0))
		}
		var pos, w *Scalar
		if mode == "nearest" {
			switch nearest {
			case "floor":
				pos = Un(SFloor, u)
			case "ceil":
				pos = Un(SCeil, u)
			case "round_prefer_floor": // x.5 goes down
				pos = Un(SCeil, sub(u, f(0.5)))
			case "round_prefer_ceil": // x.5 goes up
				pos = Un(SFloor, add(u, f(0.5)))
			}
			pos, w = Bin(SMax, f(0), Bin(SMin, pos, f(n-1))), f(1)
		} else {
			uc := Bin(SMax, f(0), Bin(SMin, u, f(n-1)))
			x0 := Un(SFloor, uc)
			fr := sub(uc, x0)
			t := Cast(Index(r+i), F64)
			pos = Bin(SMin, add(x0, t), f(n-1))
			w = Select(Bin(SEq, t, f(0)), sub(f(1), fr), fr)
		}
		idx[d] = Cast(pos, I64)
		if weight == nil {
			weight = w
		} else {
			weight = mul(weight, w)
		}
	}
	pixel := Cast(DynRead(0, x.Elem, idx...), F64)
	if weight != nil {
		pixel = mul(weight, pixel)
	}
	b.Op.Body = Cast(pixel, x.Elem)
	b.Op.Reduce = ReduceSum
	b.Result = TensorType{Elem: x.Elem, Shape: shape}
	return nil
}

// affScalar returns the quasi-affine a (no floor division) of symbolic dims as an i64 body
// expression.
func affScalar(a volume.Aff) *Scalar {
	s := ConstI(I64, a.Const)
	for _, p := range a.Params {
		term := &Scalar{Op: SParam, Name: p.Name, Type: I64}
		if p.Coef != 1 {
			term = Bin(SMul, ConstI(I64, p.Coef), term)
		}
		s = Bin(SAdd, s, term)
	}
	return s
}
