// This file declares resize: nearest, linear and cubic interpolation with static scales and
// the coordinate transformation modes of ONNX Resize. For every resized axis the source
// coordinate x_ori of each output index is computed with the floating-point formulas of the
// ONNX reference; the integer source indices (nearest, or the floor of x_ori for the taps of
// linear and cubic) are fitted exactly by quasi-affine pieces (fit.go) and clamped by three
// guarded pieces, so the element map is exact. Interpolation weights depend on the output index
// only; the body computes them in f64 from the same formulas, and the taps are a reduction dim.

package ir

import (
	"math"

	"github.com/graphc/graphc/volume"
)

func init() {
	register(&OpDef{
		Name:        "resize",
		Summary:     "resamples every dim to shape by nearest, linear or cubic interpolation (ONNX Resize semantics)",
		Example:     `%r = resize(%x) {mode = "nearest", scales = [1.0, 1.0, 2.0, 2.0], shape = "[1, 1, 4, 4]"} : f32[1, 1, 4, 4]`,
		MinOperands: 1, MaxOperands: 1,
		Attrs: []AttrDef{
			{Name: "shape", Kind: AttrString, Doc: "the result shape"},
			{Name: "scales", Kind: AttrFloats, Doc: "the scale of every dim, as used in the coordinate transformation"},
			{Name: "mode", Kind: AttrString, Default: dflt(StringAttr("nearest")), Doc: "nearest, linear or cubic"},
			{Name: "coordinate_transformation_mode", Kind: AttrString, Default: dflt(StringAttr("half_pixel")), Doc: "half_pixel, half_pixel_symmetric, pytorch_half_pixel, align_corners, asymmetric, tf_crop_and_resize or tf_half_pixel_for_nn (opsets 11 and 12)"},
			{Name: "nearest_mode", Kind: AttrString, Default: dflt(StringAttr("round_prefer_floor")), Doc: "round_prefer_floor, round_prefer_ceil, floor or ceil"},
			{Name: "cubic_coeff_a", Kind: AttrFloat, Default: dflt(FloatAttr(-0.75)), Doc: "the cubic kernel's A"},
			{Name: "exclude_outside", Kind: AttrInt, Default: dflt(IntAttr(0)), Doc: "1 gives taps outside the input weight 0 (renormalised)"},
			{Name: "extrapolation_value", Kind: AttrFloat, Default: dflt(FloatAttr(0)), Doc: "the value where tf_crop_and_resize samples outside the input"},
			{Name: "roi", Kind: AttrFloats, Default: dflt(FloatsAttr()), Doc: "tf_crop_and_resize region: starts of every dim, then ends (normalised)"},
			{Name: "antialias", Kind: AttrInt, Default: dflt(IntAttr(0)), Doc: "1 stretches the linear or cubic kernel when downsampling"},
		},
		Build: buildResize,
	})
}

// coordMap computes the source coordinate of output index x along one axis, both in Go (for
// the index tables) and as an f64 body expression, with the same operations in the same order
// so that the two agree bit for bit.
type coordMap struct {
	mode          string
	scale         float64
	in, out       int64
	roiLo, roiHi  float64
	outW          float64 // scale · in, the reference's "output_width"
	offset        float64 // half_pixel_symmetric
	alpha         float64 // d x_ori / d x, for the slope candidates of the fit
	constantValue float64
	constant      bool
}

func newCoordMap(mode string, scale float64, in, out int64, roiLo, roiHi float64) (coordMap, error) {
	c := coordMap{mode: mode, scale: scale, in: in, out: out, roiLo: roiLo, roiHi: roiHi}
	c.outW = float64(scale * float64(in))
	c.alpha = 1 / scale
	switch mode {
	case "align_corners":
		if c.outW == 1 {
			c.constant, c.constantValue = true, 0
		}
		c.alpha = float64(in-1) / (c.outW - 1)
	case "asymmetric", "half_pixel", "tf_half_pixel_for_nn":
	case "pytorch_half_pixel":
		if c.outW == 1 {
			c.constant, c.constantValue = true, -0.5
		}
	case "half_pixel_symmetric":
		adjustment := float64(out) / c.outW
		center := float64(in) / 2
		c.offset = float64(center * (1 - adjustment))
	case "tf_crop_and_resize":
		d := roiHi - roiLo
		if c.outW == 1 {
			c.constant = true
			c.constantValue = float64(float64(d*float64(in-1))/2) + float64(roiLo*float64(in-1))
		}
		c.alpha = float64(d*float64(in-1)) / (c.outW - 1)
	default:
		return c, errorf("unknown coordinate_transformation_mode %q", mode)
	}
	return c, nil
}

// at returns x_ori for output index x (explicit conversions keep Go from fusing operations).
func (c coordMap) at(x int64) float64 {
	if c.constant {
		return c.constantValue
	}
	xf := float64(x)
	switch c.mode {
	case "align_corners":
		return float64(x*(c.in-1)) / (c.outW - 1)
	case "asymmetric":
		return xf / c.scale
	case "tf_half_pixel_for_nn": // opsets 11 and 12
		return float64((xf + 0.5) / c.scale)
	case "tf_crop_and_resize":
		d := c.roiHi - c.roiLo
		v := float64(float64(float64(xf*d)*float64(c.in-1)) / (c.outW - 1))
		return v + float64(c.roiLo*float64(c.in-1))
	case "half_pixel_symmetric":
		return float64(c.offset+float64((xf+0.5)/c.scale)) - 0.5
	}
	return float64((xf+0.5)/c.scale) - 0.5 // half_pixel, pytorch_half_pixel
}

// scalar returns x_ori as an f64 expression of iteration dim d.
func (c coordMap) scalar(d int) *Scalar {
	k := func(v float64) *Scalar { return ConstF(F64, v) }
	if c.constant {
		return k(c.constantValue)
	}
	x := Cast(Index(d), F64)
	switch c.mode {
	case "align_corners":
		return Bin(SDiv, Cast(Bin(SMul, Index(d), ConstI(I64, c.in-1)), F64), k(c.outW-1))
	case "asymmetric":
		return Bin(SDiv, x, k(c.scale))
	case "tf_half_pixel_for_nn":
		return Bin(SDiv, Bin(SAdd, x, k(0.5)), k(c.scale))
	case "tf_crop_and_resize":
		d := c.roiHi - c.roiLo
		v := Bin(SDiv, Bin(SMul, Bin(SMul, x, k(d)), k(float64(c.in-1))), k(c.outW-1))
		return Bin(SAdd, v, k(float64(c.roiLo*float64(c.in-1))))
	case "half_pixel_symmetric":
		return Bin(SSub, Bin(SAdd, k(c.offset), Bin(SDiv, Bin(SAdd, x, k(0.5)), k(c.scale))), k(0.5))
	}
	return Bin(SSub, Bin(SDiv, Bin(SAdd, x, k(0.5)), k(c.scale)), k(0.5))
}

// outside reports whether tf_crop_and_resize samples outside the input at x_ori.
func (c coordMap) outside(v float64) bool {
	return c.mode == "tf_crop_and_resize" && (v < 0 || v > float64(c.in-1))
}

// nearestIndex rounds x_ori as the reference does (before clamping).
func nearestIndex(v float64, mode string) (int64, error) {
	f := math.Floor(v)
	if v == f {
		return int64(f), nil
	}
	r := v - f
	up := false
	switch mode {
	case "round_prefer_floor":
		up = r > 0.5
	case "round_prefer_ceil":
		up = r >= 0.5
	case "floor":
	case "ceil":
		up = true
	default:
		return 0, errorf("unknown nearest_mode %q", mode)
	}
	if up {
		return int64(f) + 1, nil
	}
	return int64(f), nil
}

// resizeAxis is the plan for one dim: its source index table and, for interpolating axes,
// the tap dim of the iteration space.
type resizeAxis struct {
	cm      coordMap
	table   []int64 // source index before clamping (nearest) or floor(x_ori); -1: outside
	tapDim  int     // iteration dim of the taps (-1: a single tap of weight 1)
	tapOff  int64   // tap j reads table + j + tapOff
	ntap    int64   // taps of an interpolating axis
	aaScale float64 // antialiasing: the kernel is stretched by 1/aaScale (< 1 when downsampling)
	trivial bool    // identity: the index is the output index
}

// maxResizeExtent bounds a resized extent: the builder tabulates the source index of every
// output index of a resized dim (2^26 entries are 512 MiB).
const maxResizeExtent = 1 << 26

func buildResize(b *Builder) error {
	x := b.In(0)
	r := x.Rank()
	a := b.Op.Attrs
	shape, err := ParseExtents(a.Str("shape", ""))
	if err != nil {
		return b.Errorf("%v", err)
	}
	scales := a.Floats("scales", nil)
	if len(shape) != r || len(scales) != r {
		return b.Errorf("shape %s and %d scales for an operand of rank %d", ExtentsString(shape), len(scales), r)
	}
	mode := a.Str("mode", "nearest")
	taps := map[string]int64{"nearest": 1, "linear": 2, "cubic": 4}[mode]
	if taps == 0 {
		return b.Errorf("mode %q is not nearest, linear or cubic", mode)
	}
	ctm := a.Str("coordinate_transformation_mode", "half_pixel")
	roi := a.Floats("roi", nil)
	if ctm == "tf_crop_and_resize" && len(roi) != 2*r {
		return b.Errorf("tf_crop_and_resize needs %d roi values, got %d", 2*r, len(roi))
	}
	axes := make([]resizeAxis, r)
	dims := dimNames(r)
	iters := make([]IterKind, r)
	ext := append([]volume.Aff(nil), shape...)
	hasNone := false
	for d := 0; d < r; d++ {
		ax := &axes[d]
		ax.tapDim = -1
		if shape[d].Equal(x.Shape[d]) && scales[d] == 1 && ctm != "tf_crop_and_resize" {
			ax.trivial = true // every mode maps x to x when the scale is 1
			continue
		}
		in, ok := x.Shape[d].IsConst()
		out, ok2 := shape[d].IsConst()
		if !ok || !ok2 {
			return b.Errorf("resizing dim %d needs static extents, got %s to %s", d, x.Shape[d].String(), shape[d].String())
		}
		if scales[d] <= 0 {
			return b.Errorf("scale %v of dim %d must be positive", scales[d], d)
		}
		if out < 0 {
			return b.Errorf("extent %d of dim %d is negative", out, d)
		}
		if in == 0 && out > 0 {
			return b.Errorf("cannot resize the empty dim %d to %d", d, out)
		}
		if out > maxResizeExtent {
			// the index table below has one entry per output index, whatever the other extents
			// (a tensor with an empty dim passes every element limit)
			return b.Errorf("resizing dim %d to %d elements: at most %d per dim are supported", d, out, int64(maxResizeExtent))
		}
		lo, hi := 0.0, 1.0
		if len(roi) == 2*r {
			lo, hi = roi[d], roi[r+d]
		}
		cm, err := newCoordMap(ctm, scales[d], in, out, lo, hi)
		if err != nil {
			return b.Errorf("%v", err)
		}
		ax.cm = cm
		ax.table = make([]int64, out)
		integral := true
		for i := int64(0); i < out; i++ {
			v := cm.at(i)
			if cm.outside(v) {
				ax.table[i] = -1
				hasNone = true
				continue
			}
			if mode == "nearest" {
				n, err := nearestIndex(v, a.Str("nearest_mode", "round_prefer_floor"))
				if err != nil {
					return b.Errorf("%v", err)
				}
				ax.table[i] = n
				continue
			}
			f := math.Floor(v)
			integral = integral && f == v
			ax.table[i] = int64(f)
		}
		ax.aaScale = 1
		if a.Int("antialias", 0) != 0 && scales[d] < 1 {
			ax.aaScale = scales[d]
		}
		if mode != "nearest" && (!integral || ax.aaScale < 1) {
			ax.tapDim = len(dims)
			ax.ntap, ax.tapOff = taps, 0
			if mode == "cubic" {
				ax.tapOff = -1
			}
			if ax.aaScale < 1 {
				// the reference's footprint: taps start .. 1 - start around floor(x_ori)
				support := 1.0
				if mode == "cubic" {
					support = 2
				}
				start := int64(math.Floor(-support/ax.aaScale)) + 1
				ax.ntap, ax.tapOff = 2-2*start, start
			}
			dims = append(dims, "t"+string(rune('0'+d%10)))
			iters = append(iters, Reduction)
			ext = append(ext, volume.AffConst(ax.ntap))
		}
	}
	b.SetBox(dims, ext, iters)
	pieces, err := resizePieces(axes, x.Shape)
	if err != nil {
		return b.Errorf("%v", err)
	}
	b.Op.Access = []Access{{Pieces: pieces}}
	b.Op.Out = AffAccess(identity(0, r)...)
	b.Result = TensorType{Elem: x.Elem, Shape: shape}
	extrap := a.Float("extrapolation_value", 0)
	v := Read(0, x.Elem)
	if mode == "nearest" || len(dims) == r {
		if hasNone {
			v = Select(Avail(0), v, Const(x.Elem, extrap))
		}
		b.Op.Body = v
		return nil
	}
	if !x.Elem.IsFloat() {
		return b.Errorf("%s interpolation needs a floating-point operand, got %s", mode, x.Elem)
	}
	var w *Scalar
	for d := range axes {
		if axes[d].tapDim < 0 {
			continue
		}
		wd := tapWeight(axes[d], d, mode, a.Float("cubic_coeff_a", -0.75), a.Int("exclude_outside", 0) != 0)
		if w == nil {
			w = wd
		} else {
			w = Bin(SMul, w, wd)
		}
	}
	body := Bin(SMul, Cast(w, x.Elem), v)
	if hasNone {
		// outside the input: the extrapolation value, once (at the first taps)
		first := ConstI(Bool, 1)
		for d := range axes {
			if axes[d].tapDim >= 0 {
				first = Bin(SAnd, first, Bin(SEq, Index(axes[d].tapDim), ConstI(I64, 0)))
			}
		}
		body = Select(Avail(0), body, Select(first, Const(x.Elem, extrap), Const(x.Elem, 0)))
	}
	b.Op.Body = body
	b.Op.Reduce = ReduceSum
	return nil
}

// resizePieces builds the access: per axis, the fitted segments of its table (plus the tap
// for interpolating axes), each split into below / inside / above the input (clamped to the
// first and last element); the product over axes gives the pieces.
func resizePieces(axes []resizeAxis, inShape []volume.Aff) ([]AccessPiece, error) {
	type part struct {
		guard []volume.Constraint
		index volume.Aff
	}
	perAxis := make([][]part, len(axes))
	for d, ax := range axes {
		if ax.trivial {
			perAxis[d] = []part{{nil, volume.AffDim(d)}}
			continue
		}
		in, _ := inShape[d].IsConst()
		out := int64(len(ax.table))
		// fit table + shift >= 0, so that negative source indices stay distinct from the
		// "outside" marker -1
		shift := -minTable(ax.table, ax.cm)
		shifted := make([]int64, out)
		for i, t := range ax.table {
			if ax.cm.outside(ax.cm.at(int64(i))) {
				shifted[i] = -1
			} else {
				shifted[i] = t + shift
			}
		}
		segs := fitTable(shifted, slopeCandidates(ax.cm.alpha, 4096))
		ntap := int64(1)
		if ax.tapDim >= 0 {
			ntap = ax.ntap
		}
		var parts []part
		for _, s := range segs {
			if s.none {
				continue
			}
			e := s.expr(d).AddConst(-shift)
			if ax.tapDim >= 0 {
				e = e.Add(volume.AffDim(ax.tapDim)).AddConst(ax.tapOff)
			}
			g := s.guard(d, out)
			lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
			for i := s.lo; i < s.hi; i++ {
				lo = min(lo, ax.table[i]+ax.tapOff)
				hi = max(hi, ax.table[i]+ax.tapOff+ntap-1)
			}
			if lo < 0 {
				parts = append(parts, part{append(clone(g), volume.LT(e, volume.AffConst(0))), volume.AffConst(0)})
			}
			inner := clone(g)
			if lo < 0 {
				inner = append(inner, volume.GE(e, volume.AffConst(0)))
			}
			if hi > in-1 {
				inner = append(inner, volume.GE(volume.AffConst(in-1), e))
			}
			parts = append(parts, part{inner, e})
			if hi > in-1 {
				parts = append(parts, part{append(clone(g), volume.GE(e, volume.AffConst(in))), volume.AffConst(in - 1)})
			}
		}
		perAxis[d] = parts
	}
	pieces := []AccessPiece{{Index: []volume.Aff{}}}
	for d := range axes {
		var next []AccessPiece
		for _, p := range pieces {
			for _, q := range perAxis[d] {
				next = append(next, AccessPiece{
					Guard: append(clone(p.Guard), q.guard...),
					Index: append(append([]volume.Aff(nil), p.Index...), q.index),
				})
			}
		}
		pieces = next
	}
	if len(pieces) == 0 {
		pieces = []AccessPiece{{Guard: falseGuard(), Index: make([]volume.Aff, len(axes))}}
		for i := range pieces[0].Index {
			pieces[0].Index[i] = volume.AffConst(0)
		}
	}
	return pieces, nil
}

func minTable(t []int64, cm coordMap) int64 {
	m := int64(0)
	for i, v := range t {
		if !cm.outside(cm.at(int64(i))) {
			m = min(m, v)
		}
	}
	return m
}

func clone(g []volume.Constraint) []volume.Constraint {
	return append([]volume.Constraint(nil), g...)
}

// tapWeight returns the f64 weight of the tap (iteration dim ax.tapDim) of axis d.
func tapWeight(ax resizeAxis, d int, mode string, A float64, exclude bool) *Scalar {
	k := func(v float64) *Scalar { return ConstF(F64, v) }
	xo := ax.cm.scalar(d)
	fl := Un(SFloor, xo)
	ratio := Bin(SSub, xo, fl)
	mul := func(a, b *Scalar) *Scalar { return Bin(SMul, a, b) }
	add := func(a, b *Scalar) *Scalar { return Bin(SAdd, a, b) }
	sub := func(a, b *Scalar) *Scalar { return Bin(SSub, a, b) }
	var coef []*Scalar
	switch {
	case ax.aaScale < 1:
		// antialiasing: the kernel at (tap offset - ratio)·scale, normalised
		var sum *Scalar
		for j := int64(0); j < ax.ntap; j++ {
			arg := Un(SAbs, mul(sub(k(float64(ax.tapOff+j)), ratio), k(ax.aaScale)))
			var w *Scalar
			if mode == "linear" {
				w = Bin(SMin, Bin(SMax, sub(k(1), arg), k(0)), k(1))
			} else {
				x2 := mul(arg, arg)
				x3 := mul(arg, x2)
				near := add(sub(mul(k(A+2), x3), mul(k(A+3), x2)), k(1))
				far := sub(add(sub(mul(k(A), x3), mul(k(5*A), x2)), mul(k(8*A), arg)), k(4*A))
				w = Select(Bin(SLe, arg, k(1)), near, Select(Bin(SLt, arg, k(2)), far, k(0)))
			}
			coef = append(coef, w)
			if sum == nil {
				sum = w
			} else {
				sum = add(sum, w)
			}
		}
		for j := range coef {
			coef[j] = Bin(SDiv, coef[j], sum)
		}
	case mode == "linear":
		coef = []*Scalar{sub(k(1), ratio), ratio}
	default: // cubic, the reference's polynomial forms
		r1 := add(ratio, k(1))
		one := sub(k(1), ratio)
		two := add(one, k(1))
		// ((A(r+1) - 5A)(r+1) + 8A)(r+1) - 4A
		c0 := sub(mul(add(mul(sub(mul(k(A), r1), k(5*A)), r1), k(8*A)), r1), k(4*A))
		// ((A+2) r - (A+3)) r r + 1
		c1 := add(mul(mul(sub(mul(k(A+2), ratio), k(A+3)), ratio), ratio), k(1))
		c2 := add(mul(mul(sub(mul(k(A+2), one), k(A+3)), one), one), k(1))
		c3 := sub(mul(add(mul(sub(mul(k(A), two), k(5*A)), two), k(8*A)), two), k(4*A))
		coef = []*Scalar{c0, c1, c2, c3}
	}
	if exclude {
		// taps outside the input weigh 0 and the others are renormalised
		f := Cast(fl, I64)
		sum := (*Scalar)(nil)
		for j := range coef {
			pos := Bin(SAdd, f, ConstI(I64, int64(j)+ax.tapOff))
			inside := Bin(SAnd, Bin(SGe, pos, ConstI(I64, 0)), Bin(SLe, pos, ConstI(I64, ax.cm.in-1)))
			coef[j] = Select(inside, coef[j], k(0))
			if sum == nil {
				sum = coef[j]
			} else {
				sum = Bin(SAdd, sum, coef[j])
			}
		}
		for j := range coef {
			coef[j] = Bin(SDiv, coef[j], sum)
		}
	}
	t := Index(ax.tapDim)
	w := coef[len(coef)-1]
	for j := len(coef) - 2; j >= 0; j-- {
		w = Select(Bin(SEq, t, ConstI(I64, int64(j))), coef[j], w)
	}
	return w
}
