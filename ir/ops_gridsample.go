// This file declares grid_sample: every output point samples the input at the coordinates
// the grid gives it (nearest, linear or cubic interpolation; zeros, border or reflection
// padding), following the ONNX reference. The grid is read through exact affine accesses; the
// input at coordinates computed from the grid's values (DynRead), so its access is the named
// over-approximation of data-dependent reads: the whole spatial extent of its (n, c) plane.

package ir

import "github.com/graphc/graphc/volume"

func init() {
	register(&OpDef{
		Name: "grid_sample",
		Summary: "y[n, c, o..] = Σ over the interpolation taps of weight · x[n, c, tap coordinates], the sampling point of o " +
			"given by the grid components g_0.. (one operand each, innermost spatial dim first)",
		Example:     `%y = grid_sample(%x, %gx, %gy) {mode = "linear", padding_mode = "zeros"} : f32[1, 1, 2, 4]`,
		MinOperands: 2, MaxOperands: -1,
		Attrs: []AttrDef{
			{Name: "mode", Kind: AttrString, Default: dflt(StringAttr("linear")), Doc: "nearest, linear or cubic"},
			{Name: "padding_mode", Kind: AttrString, Default: dflt(StringAttr("zeros")), Doc: "zeros, border or reflection"},
			{Name: "align_corners", Kind: AttrInt, Default: dflt(IntAttr(0)), Doc: "1 maps -1 and 1 to the centres of the corner pixels"},
		},
		Build: buildGridSample,
	})
}

func buildGridSample(b *Builder) error {
	x := b.In(0)
	r := b.NumIn() - 1
	if x.Rank() != r+2 || !x.Elem.IsFloat() {
		return b.Errorf("x %s must be a float tensor [N, C, …] with one spatial dim per grid component (%d)", x, r)
	}
	g := b.In(1)
	if g.Rank() != r+1 || !g.Shape[0].Equal(x.Shape[0]) || g.Elem != x.Elem {
		return b.Errorf("grid components %s must be [N, out…] of x's type %s", g, x)
	}
	for k := 2; k <= r; k++ {
		if !b.In(k).Equal(g) {
			return b.Errorf("grid components #1 %s and #%d %s differ", g, k, b.In(k))
		}
	}
	mode, pad := b.Op.Attrs.Str("mode", "linear"), b.Op.Attrs.Str("padding_mode", "zeros")
	taps := map[string]int64{"nearest": 1, "linear": 2, "cubic": 4}[mode]
	if taps == 0 {
		return b.Errorf("mode %q (want nearest, linear or cubic)", mode)
	}
	if pad != "zeros" && pad != "border" && pad != "reflection" {
		return b.Errorf("padding_mode %q (want zeros, border or reflection)", pad)
	}
	align := b.Op.Attrs.Int("align_corners", 0) != 0
	sizes := make([]int64, r)
	for i := range sizes {
		d, ok := x.Shape[2+i].IsConst()
		if !ok {
			return b.Errorf("symbolic spatial extent in %s", x)
		}
		sizes[i] = d
	}
	// iteration [n, c, o_1..o_r, t_1..t_r]
	shape := append([]volume.Aff{x.Shape[0], x.Shape[1]}, g.Shape[1:]...)
	ext := append([]volume.Aff(nil), shape...)
	iters := make([]IterKind, 2+2*r)
	for i := 0; i < r; i++ {
		ext = append(ext, volume.AffConst(taps))
		iters[2+r+i] = Reduction
	}
	dims := dimNames(len(ext))
	b.SetBox(dims, ext, iters)
	gIdx := append([]volume.Aff{volume.AffDim(0)}, identity(2, r)...)
	b.Op.Access = make([]Access, 1+r)
	for k := 1; k <= r; k++ {
		b.Op.Access[k] = AffAccess(gIdx...)
	}
	xIdx := make([]volume.Aff, r+2)
	xIdx[0], xIdx[1] = volume.AffDim(0), volume.AffDim(1)
	spatial := make([]int, r)
	for i := range spatial {
		xIdx[2+i] = volume.AffConst(0)
		spatial[i] = 2 + i
	}
	am, err := approxAlongAxes(b.Params, dims, xIdx, spatial, x.Shape)
	if err != nil {
		return b.Errorf("%v", err)
	}
	b.Op.Access[0] = Access{Approx: true, ApproxMap: am}
	b.Op.Out = AffAccess(identity(0, 2+r)...)

	f := func(v float64) *Scalar { return Const(F64, v) }
	add := func(a, c *Scalar) *Scalar { return Bin(SAdd, a, c) }
	sub := func(a, c *Scalar) *Scalar { return Bin(SSub, a, c) }
	mul := func(a, c *Scalar) *Scalar { return Bin(SMul, a, c) }
	lt := func(a, c *Scalar) *Scalar { return Bin(SLt, a, c) }
	// reflect u into [lo, hi] by its nearest border, repeatedly (the reference's _gs_reflect)
	reflect := func(u *Scalar, lo, hi float64) *Scalar {
		rng := hi - lo
		side := func(dx *Scalar, near, far func(*Scalar) *Scalar) *Scalar {
			n := Un(SFloor, Bin(SDiv, dx, f(rng)))
			rem := sub(dx, mul(n, f(rng)))
			even := Bin(SEq, sub(n, mul(f(2), Un(SFloor, mul(n, f(0.5))))), f(0))
			return Select(even, near(rem), far(rem))
		}
		below := side(sub(f(lo), u), func(r *Scalar) *Scalar { return add(f(lo), r) }, func(r *Scalar) *Scalar { return sub(f(hi), r) })
		above := side(sub(u, f(hi)), func(r *Scalar) *Scalar { return sub(f(hi), r) }, func(r *Scalar) *Scalar { return add(f(lo), r) })
		return Select(lt(u, f(lo)), below, Select(lt(f(hi), u), above, u))
	}
	var weight, inRange *Scalar
	idx := make([]*Scalar, r+2)
	idx[0], idx[1] = Index(0), Index(1)
	for i := 0; i < r; i++ {
		d := float64(sizes[i])
		lo, hi := -0.5, d-0.5
		if align {
			lo, hi = 0, d-1
		}
		gv := Cast(Read(r-i, g.Elem), F64) // the grid lists the innermost dim first
		var u *Scalar
		if align {
			u = mul(mul(add(gv, f(1)), f(0.5)), f(d-1))
		} else {
			u = mul(sub(mul(add(gv, f(1)), f(d)), f(1)), f(0.5))
		}
		if mode == "nearest" {
			u = Un(SRound, u) // halves to even, in every rank (as the node tests' outputs do)
		}
		switch pad {
		case "border":
			u = Select(Bin(SOr, lt(u, f(lo)), lt(f(hi), u)), Bin(SMax, f(0), Bin(SMin, u, f(d-1))), u)
		case "reflection":
			u = reflect(u, lo, hi)
		}
		t := Cast(Index(2+r+i), F64)
		var pos, w *Scalar
		switch mode {
		case "nearest":
			pos, w = Un(SFloor, Select(lt(u, f(0)), Un(SCeil, u), u)), f(1) // truncation toward zero
		case "linear":
			x0 := Un(SFloor, u)
			fr := sub(u, x0)
			pos = add(x0, t)
			w = Select(Bin(SEq, t, f(0)), sub(f(1), fr), fr)
		case "cubic":
			x0 := Un(SFloor, u)
			s := sub(u, x0)
			pos = add(sub(x0, f(1)), t)
			w = cubicCoeff(s, t)
		}
		// the pixel at pos, by the padding mode (zeros: none outside)
		switch pad {
		case "zeros":
			in := Bin(SAnd, Bin(SLe, f(0), pos), lt(pos, f(d)))
			if inRange == nil {
				inRange = in
			} else {
				inRange = Bin(SAnd, inRange, in)
			}
		case "border":
			pos = Bin(SMax, f(0), Bin(SMin, pos, f(d-1)))
		case "reflection":
			p := reflect(pos, lo, hi)
			pos = Un(SFloor, Select(lt(p, f(0)), Un(SCeil, p), p))
		}
		idx[2+i] = Cast(pos, I64)
		if weight == nil {
			weight = w
		} else {
			weight = mul(weight, w)
		}
	}
	var pixel *Scalar = Cast(DynRead(0, x.Elem, idx...), F64)
	if inRange != nil {
		pixel = Select(inRange, pixel, f(0))
	}
	b.Op.Body = Cast(mul(weight, pixel), x.Elem)
	b.Op.Reduce = ReduceSum
	b.Result = TensorType{Elem: x.Elem, Shape: shape}
	return nil
}

// cubicCoeff is tap t's weight of Keys' cubic convolution (alpha = -0.75) at fraction s.
func cubicCoeff(s, t *Scalar) *Scalar {
	const a = -0.75
	f := func(v float64) *Scalar { return Const(F64, v) }
	add := func(x, y *Scalar) *Scalar { return Bin(SAdd, x, y) }
	sub := func(x, y *Scalar) *Scalar { return Bin(SSub, x, y) }
	mul := func(x, y *Scalar) *Scalar { return Bin(SMul, x, y) }
	far := func(x *Scalar) *Scalar { // |x| in [1, 2)
		return sub(mul(add(mul(sub(mul(f(a), x), f(5*a)), x), f(8*a)), x), f(4*a))
	}
	near := func(x *Scalar) *Scalar { // |x| < 1
		return add(mul(mul(sub(mul(f(a+2), x), f(a+3)), x), x), f(1))
	}
	c0, c1 := far(add(s, f(1))), near(s)
	c2, c3 := near(sub(f(1), s)), far(sub(f(2), s))
	eq := func(k float64) *Scalar { return Bin(SEq, t, f(k)) }
	return Select(eq(0), c0, Select(eq(1), c1, Select(eq(2), c2, c3)))
}
