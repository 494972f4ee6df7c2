// This file declares deform_conv, the 2-D deformable convolution: every kernel tap samples its
// input channel bilinearly at the tap's position shifted by a learned offset, scaled by a mask.
// Weights, offsets and masks are read through exact (quasi-)affine accesses; the input at the
// shifted positions (DynRead), so its access is the named over-approximation of data-dependent
// reads: the whole plane of the channel.

package ir

import "github.com/graphc/graphc/volume"

func init() {
	register(&OpDef{
		Name: "deform_conv",
		Summary: "y[n, o, i, j] = Σ over the group's channels c and taps (kh, kw) of w[o, c, kh, kw] · mask · bilinear x[n, c] " +
			"at (i·s - p + kh·d + Δh, j·s - p + kw·d + Δw); operands x, w, offset (twice: Δh, Δw), mask",
		Example:     `%y = deform_conv(%x, %w, %off, %off, %mask) {pads = [0, 0, 0, 0]} : f32[1, 1, 2, 2]`,
		MinOperands: 5, MaxOperands: 5,
		Attrs: []AttrDef{
			{Name: "strides", Kind: AttrInts, Default: dflt(IntsAttr(1, 1)), Doc: "strides (h, w)"},
			{Name: "pads", Kind: AttrInts, Default: dflt(IntsAttr(0, 0, 0, 0)), Doc: "begin pads (h, w) then end pads"},
			{Name: "dilations", Kind: AttrInts, Default: dflt(IntsAttr(1, 1)), Doc: "dilations (h, w)"},
			{Name: "group", Kind: AttrInt, Default: dflt(IntAttr(1)), Doc: "channel groups"},
			{Name: "offset_group", Kind: AttrInt, Default: dflt(IntAttr(1)), Doc: "channel groups sharing one set of offsets"},
		},
		Build: buildDeformConv,
	})
}

func buildDeformConv(b *Builder) error {
	x, w, off, mask := b.In(0), b.In(1), b.In(2), b.In(4)
	if x.Rank() != 4 || w.Rank() != 4 || off.Rank() != 4 || mask.Rank() != 4 || !x.Elem.IsFloat() {
		return b.Errorf("x %s, w %s, offset %s and mask %s must be 4-D float tensors (2-D convolution)", x, w, off, mask)
	}
	if !b.In(3).Equal(off) || w.Elem != x.Elem || off.Elem != x.Elem || mask.Elem != x.Elem {
		return b.Errorf("operands #2 and #3 must both be the offsets, all of x's type")
	}
	a := b.Op.Attrs
	st, pd, dl := a.Ints("strides", nil), a.Ints("pads", nil), a.Ints("dilations", nil)
	if len(st) != 2 || len(pd) != 4 || len(dl) != 2 {
		return b.Errorf("strides, pads and dilations must have 2, 4 and 2 entries")
	}
	var sh [11]int64
	vals := []volume.Aff{x.Shape[1], x.Shape[2], x.Shape[3], w.Shape[0], w.Shape[1], w.Shape[2], w.Shape[3], off.Shape[1], off.Shape[2], off.Shape[3], mask.Shape[1]}
	for i, v := range vals {
		c, ok := v.IsConst()
		if !ok {
			return b.Errorf("symbolic extents (only the batch may be symbolic)")
		}
		sh[i] = c
	}
	ic, ih, iw, oc, icpg, kh, kw, offc, oh, ow, maskc := sh[0], sh[1], sh[2], sh[3], sh[4], sh[5], sh[6], sh[7], sh[8], sh[9], sh[10]
	g, og := a.Int("group", 1), a.Int("offset_group", 1)
	k := kh * kw
	if g <= 0 || og <= 0 || ic != icpg*g || oc%g != 0 || ic%og != 0 || offc != og*2*k || maskc != og*k {
		return b.Errorf("channels (x %d, w %s, group %d, offset_group %d, offsets %d, mask %d) do not fit", ic, w, g, og, offc, maskc)
	}
	ocpg, icpog := oc/g, ic/og
	// iteration [n, o, i, j, c', p, q]
	ext := []volume.Aff{x.Shape[0], volume.AffConst(oc), volume.AffConst(oh), volume.AffConst(ow), volume.AffConst(icpg), volume.AffConst(kh), volume.AffConst(kw)}
	iters := []IterKind{Parallel, Parallel, Parallel, Parallel, Reduction, Reduction, Reduction}
	dims := dimNames(7)
	b.SetBox(dims, ext, iters)
	D := volume.AffDim
	cAbs := D(1).FloorDiv(ocpg).Mul(icpg).Add(D(4)) // the input channel
	ogrp := cAbs.FloorDiv(icpog)
	tap := D(5).Mul(kw).Add(D(6))
	am, err := approxAlongAxes(b.Params, dims, []volume.Aff{D(0), cAbs, volume.AffConst(0), volume.AffConst(0)}, []int{2, 3}, x.Shape)
	if err != nil {
		return b.Errorf("%v", err)
	}
	offAt := func(c int64) Access {
		return AffAccess(D(0), ogrp.Mul(2*k).Add(tap.Mul(2)).AddConst(c), D(2), D(3))
	}
	b.Op.Access = []Access{{Approx: true, ApproxMap: am}, AffAccess(D(1), D(4), D(5), D(6)), offAt(0), offAt(1),
		AffAccess(D(0), ogrp.Mul(k).Add(tap), D(2), D(3))}
	b.Op.Out = AffAccess(identity(0, 4)...)

	f := func(v float64) *Scalar { return Const(F64, v) }
	add := func(p, q *Scalar) *Scalar { return Bin(SAdd, p, q) }
	sub := func(p, q *Scalar) *Scalar { return Bin(SSub, p, q) }
	mul := func(p, q *Scalar) *Scalar { return Bin(SMul, p, q) }
	rd := func(k int) *Scalar { return Cast(Read(k, x.Elem), F64) }
	pos := func(o, p int, s, pad, d int64, k int) *Scalar {
		base := add(mul(Cast(Index(o), F64), f(float64(s))), mul(Cast(Index(p), F64), f(float64(d))))
		return add(sub(base, f(float64(pad))), rd(k))
	}
	hh := pos(2, 5, st[0], pd[0], dl[0], 2)
	ww := pos(3, 6, st[1], pd[1], dl[1], 3)
	h0, w0 := Un(SFloor, hh), Un(SFloor, ww)
	lh, lw := sub(hh, h0), sub(ww, w0)
	cIdx := AffScalar(cAbs)
	corner := func(dh, dw float64, weight *Scalar) *Scalar {
		y, xx := add(h0, f(dh)), add(w0, f(dw))
		in := Bin(SAnd, Bin(SAnd, Bin(SLe, f(0), y), Bin(SLt, y, f(float64(ih)))), Bin(SAnd, Bin(SLe, f(0), xx), Bin(SLt, xx, f(float64(iw)))))
		v := Cast(DynRead(0, x.Elem, Index(0), cIdx, Cast(y, I64), Cast(xx, I64)), F64)
		return mul(weight, Select(in, v, f(0)))
	}
	hl, wl := sub(f(1), lh), sub(f(1), lw)
	val := add(add(corner(0, 0, mul(hl, wl)), corner(0, 1, mul(hl, lw))), add(corner(1, 0, mul(lh, wl)), corner(1, 1, mul(lh, lw))))
	b.Op.Body = Cast(mul(mul(rd(1), rd(4)), val), x.Elem)
	b.Op.Reduce = ReduceSum
	b.Result = TensorType{Elem: x.Elem, Shape: []volume.Aff{x.Shape[0], volume.AffConst(oc), volume.AffConst(oh), volume.AffConst(ow)}}
	return nil
}
