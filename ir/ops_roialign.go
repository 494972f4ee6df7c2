// This file declares roi_align: every output bin of every region of interest averages (or takes
// the max of) bilinear samples of its image on a fixed sampling grid, as the ONNX reference
// computes them. The regions' corners and batch indices are read through exact affine
// accesses; the image at coordinates computed from them (DynRead), so its access is the named
// over-approximation of data-dependent reads: every pixel of every image.

package ir

import "github.com/graphc/graphc/volume"

func init() {
	register(&OpDef{
		Name: "roi_align",
		Summary: "y[r, c, i, j] = mean (or max) over the sampling grid of bin (i, j) of region r of bilinear samples of " +
			"x[batch[r], c]; the region's corners x1, y1, x2, y2 are four operands",
		Example:     `%y = roi_align(%x, %x1, %y1, %x2, %y2, %b) {output_height = 2, output_width = 2, sampling_ratio = 2} : f32[3, 1, 2, 2]`,
		MinOperands: 6, MaxOperands: 6,
		Attrs: []AttrDef{
			{Name: "mode", Kind: AttrString, Default: dflt(StringAttr("avg")), Doc: "avg or max"},
			{Name: "output_height", Kind: AttrInt, Default: dflt(IntAttr(1)), Doc: "bins per region, vertically"},
			{Name: "output_width", Kind: AttrInt, Default: dflt(IntAttr(1)), Doc: "bins per region, horizontally"},
			{Name: "sampling_ratio", Kind: AttrInt, Doc: "samples per bin and dim (> 0)"},
			{Name: "spatial_scale", Kind: AttrFloat, Default: dflt(FloatAttr(1)), Doc: "scale of the region coordinates"},
			{Name: "half_pixel", Kind: AttrInt, Default: dflt(IntAttr(1)), Doc: "1 shifts the coordinates by half a pixel (aligned)"},
		},
		Build: buildRoiAlign,
	})
}

func buildRoiAlign(b *Builder) error {
	x, roi, bi := b.In(0), b.In(1), b.In(5)
	if x.Rank() != 4 || !x.Elem.IsFloat() {
		return b.Errorf("x %s must be a float tensor [N, C, H, W]", x)
	}
	for k := 1; k <= 4; k++ {
		if t := b.In(k); t.Rank() != 1 || !t.Equal(roi) || t.Elem != x.Elem {
			return b.Errorf("region corners must be four [R] tensors of x's type, got %s", t)
		}
	}
	if err := checkIndexType(b, 5); err != nil {
		return err
	}
	if bi.Rank() != 1 || !bi.Shape[0].Equal(roi.Shape[0]) {
		return b.Errorf("batch indices %s must be [R] of %s", bi, roi)
	}
	a := b.Op.Attrs
	oh, ow, sr := a.Int("output_height", 1), a.Int("output_width", 1), a.Int("sampling_ratio", 0)
	mode := a.Str("mode", "avg")
	if oh <= 0 || ow <= 0 || sr <= 0 || mode != "avg" && mode != "max" {
		return b.Errorf("output %d×%d, sampling_ratio %d and mode %q: positive sizes and avg or max needed", oh, ow, sr, mode)
	}
	hh, ok1 := x.Shape[2].IsConst()
	ww, ok2 := x.Shape[3].IsConst()
	if !ok1 || !ok2 {
		return b.Errorf("symbolic image extents in %s", x)
	}
	// iteration [r, c, i, j, sy, sx]
	ext := []volume.Aff{roi.Shape[0], x.Shape[1], volume.AffConst(oh), volume.AffConst(ow), volume.AffConst(sr), volume.AffConst(sr)}
	iters := []IterKind{Parallel, Parallel, Parallel, Parallel, Reduction, Reduction}
	dims := dimNames(6)
	b.SetBox(dims, ext, iters)
	am, err := approxAlongAxes(b.Params, dims, []volume.Aff{volume.AffConst(0), volume.AffDim(1), volume.AffConst(0), volume.AffConst(0)},
		[]int{0, 2, 3}, x.Shape)
	if err != nil {
		return b.Errorf("%v", err)
	}
	b.Op.Access = []Access{{Approx: true, ApproxMap: am}}
	for k := 1; k <= 5; k++ {
		b.Op.Access = append(b.Op.Access, AffAccess(volume.AffDim(0)))
	}
	b.Op.Out = AffAccess(identity(0, 4)...)

	f := func(v float64) *Scalar { return Const(F64, v) }
	add := func(p, q *Scalar) *Scalar { return Bin(SAdd, p, q) }
	sub := func(p, q *Scalar) *Scalar { return Bin(SSub, p, q) }
	mul := func(p, q *Scalar) *Scalar { return Bin(SMul, p, q) }
	lt := func(p, q *Scalar) *Scalar { return Bin(SLt, p, q) }
	rd := func(k int) *Scalar { return Cast(Read(k, x.Elem), F64) }
	scale := f(a.Float("spatial_scale", 1))
	off := 0.0
	if a.Int("half_pixel", 1) != 0 {
		off = 0.5
	}
	x1, y1 := sub(mul(rd(1), scale), f(off)), sub(mul(rd(2), scale), f(off))
	x2, y2 := sub(mul(rd(3), scale), f(off)), sub(mul(rd(4), scale), f(off))
	rw, rh := sub(x2, x1), sub(y2, y1)
	if off == 0 {
		rw, rh = Bin(SMax, rw, f(1)), Bin(SMax, rh, f(1))
	}
	binH, binW := Bin(SDiv, rh, f(float64(oh))), Bin(SDiv, rw, f(float64(ow)))
	fi := func(d int) *Scalar { return Cast(Index(d), F64) }
	// the sample point of (i, j, sy, sx)
	yy := add(add(y1, mul(fi(2), binH)), mul(add(fi(4), f(0.5)), Bin(SDiv, binH, f(float64(sr)))))
	xx := add(add(x1, mul(fi(3), binW)), mul(add(fi(5), f(0.5)), Bin(SDiv, binW, f(float64(sr)))))
	valid := Un(SNot, Bin(SOr, Bin(SOr, lt(yy, f(-1)), lt(f(float64(hh)), yy)), Bin(SOr, lt(xx, f(-1)), lt(f(float64(ww)), xx))))
	// clamp below at 0; the high neighbour collapses onto the last row or column
	axis := func(v *Scalar, n int64) (lo, hi, frac *Scalar) {
		v = Bin(SMax, v, f(0))
		low := Un(SFloor, v)
		last := Bin(SGe, low, f(float64(n-1)))
		lo = Select(last, f(float64(n-1)), low)
		hi = Select(last, f(float64(n-1)), add(low, f(1)))
		frac = Select(last, f(0), sub(v, low))
		return
	}
	ylo, yhi, ly := axis(yy, hh)
	xlo, xhi, lx := axis(xx, ww)
	hy, hx := sub(f(1), ly), sub(f(1), lx)
	batch := Cast(Read(5, bi.Elem), I64)
	pix := func(yv, xv *Scalar) *Scalar {
		return Cast(DynRead(0, x.Elem, batch, Index(1), Cast(yv, I64), Cast(xv, I64)), F64)
	}
	t1, t2 := mul(mul(hy, hx), pix(ylo, xlo)), mul(mul(hy, lx), pix(ylo, xhi))
	t3, t4 := mul(mul(ly, hx), pix(yhi, xlo)), mul(mul(ly, lx), pix(yhi, xhi))
	var v *Scalar
	if mode == "avg" {
		v = Bin(SDiv, add(add(add(t1, t2), t3), t4), f(float64(sr*sr)))
		b.Op.Reduce = ReduceSum
	} else {
		v = Bin(SMax, Bin(SMax, t1, t2), Bin(SMax, t3, t4))
		b.Op.Reduce = ReduceMax
		b.Op.Init = LowestValue(x.Elem)
	}
	b.Op.Body = Cast(Select(valid, v, f(0)), x.Elem)
	b.Result = TensorType{Elem: x.Elem, Shape: []volume.Aff{roi.Shape[0], x.Shape[1], volume.AffConst(oh), volume.AffConst(ow)}}
	return nil
}
