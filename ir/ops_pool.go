// This file declares pooling (NCHW, 1-D to 3-D): max_pool and avg_pool over windows with
// strides, dilations, padding and ceil mode, and the global pools. The input is read through
// the guarded window access of the convolutions, so padding reads no element; average pooling
// divides by the number of window positions that count (inside the input, or inside the
// padded input with count_include_pad), computed in the body from the output index.

package ir

import (
	"math"

	"github.com/graphc/graphc/volume"
)

func init() {
	poolAttrs := func(avg bool) []AttrDef {
		a := []AttrDef{
			{Name: "kernel", Kind: AttrInts, Doc: "window extent per spatial dim"},
			{Name: "strides", Kind: AttrInts, Default: dflt(IntsAttr()), Doc: "stride per spatial dim (default 1)"},
			{Name: "dilations", Kind: AttrInts, Default: dflt(IntsAttr()), Doc: "dilation per spatial dim (default 1)"},
			{Name: "pads", Kind: AttrInts, Default: dflt(IntsAttr()), Doc: "begin pads of every spatial dim, then end pads (default 0)"},
			{Name: "ceil_mode", Kind: AttrInt, Default: dflt(IntAttr(0)), Doc: "1 rounds the output extent up (the last window must start inside the input or its begin padding)"},
		}
		if avg {
			a = append(a, AttrDef{Name: "count_include_pad", Kind: AttrInt, Default: dflt(IntAttr(0)), Doc: "1 counts padding positions in the divisor"})
		}
		return a
	}
	register(
		&OpDef{
			Name:        "max_pool",
			Summary:     "maximum over each window of X[N, C, spatial…] (padding never wins)",
			Example:     "%y = max_pool(%x) {kernel = [2, 2], strides = [2, 2]} : f32[1, 3, 16, 16]",
			MinOperands: 1, MaxOperands: 1,
			Attrs: poolAttrs(false),
			Build: func(b *Builder) error { return buildPool(b, false) },
		},
		&OpDef{
			Name:        "avg_pool",
			Summary:     "mean over each window of X[N, C, spatial…]",
			Example:     "%y = avg_pool(%x) {kernel = [3, 3], pads = [1, 1, 1, 1]} : f32[1, 3, 32, 32]",
			MinOperands: 1, MaxOperands: 1,
			Attrs: poolAttrs(true),
			Build: func(b *Builder) error { return buildPool(b, true) },
		},
		&OpDef{
			Name:        "max_pool_index",
			Summary:     "the flattened index ((n·C + c)·H + h)·W + w of the first maximum of each max_pool window",
			Example:     "%i = max_pool_index(%x) {kernel = [2, 2], strides = [2, 2]} : i64[1, 3, 16, 16]",
			MinOperands: 1, MaxOperands: 1,
			Attrs: append(poolAttrs(false), AttrDef{Name: "storage_order", Kind: AttrInt, Default: dflt(IntAttr(0)),
				Doc: "1 numbers the spatial positions column-major (h + w·H)"}),
			Build: buildMaxPoolIndex,
		},
		&OpDef{
			Name:        "lp_pool",
			Summary:     "Σ |x|^p over each window of X[N, C, spatial…] (the p-th root is a separate pow)",
			Example:     "%y = lp_pool(%x) {kernel = [2, 2], p = 2} : f32[1, 3, 15, 15]",
			MinOperands: 1, MaxOperands: 1,
			Attrs: append(poolAttrs(false), AttrDef{Name: "p", Kind: AttrInt, Default: dflt(IntAttr(2)), Doc: "the norm's exponent"}),
			Build: buildLpPool,
		},
		&OpDef{
			Name:        "global_max_pool",
			Summary:     "maximum over all spatial positions: [N, C, spatial…] to [N, C, 1, …]",
			Example:     "%y = global_max_pool(%x) : f32[1, 3, 1, 1]",
			MinOperands: 1, MaxOperands: 1,
			Build: func(b *Builder) error { return buildGlobalPool(b, false) },
		},
		&OpDef{
			Name:        "global_avg_pool",
			Summary:     "mean over all spatial positions: [N, C, spatial…] to [N, C, 1, …]",
			Example:     "%y = global_avg_pool(%x) : f32[1, 3, 1, 1]",
			MinOperands: 1, MaxOperands: 1,
			Build: func(b *Builder) error { return buildGlobalPool(b, true) },
		},
	)
}

// lowest returns the smallest value of t (the identity of max).
func lowest(t DType) float64 {
	switch t {
	case I64:
		return math.MinInt64
	case I32:
		return math.MinInt32
	case I8:
		return math.MinInt8
	case I16:
		return math.MinInt16
	case U8, U16, Bool:
		return 0
	}
	return math.Inf(-1)
}

// poolDims returns the iteration dims [n, c, o…, k…] and their kinds.
func poolDims(ns int) ([]string, []IterKind) {
	dims := []string{"n", "c"}
	for i := 0; i < ns; i++ {
		dims = append(dims, "o"+string(rune('0'+i)))
	}
	for i := 0; i < ns; i++ {
		dims = append(dims, "k"+string(rune('0'+i)))
	}
	iters := make([]IterKind, len(dims))
	for i := 2 + ns; i < len(dims); i++ {
		iters[i] = Reduction
	}
	return dims, iters
}

func buildPool(b *Builder, avg bool) error {
	x := b.In(0)
	ns := x.Rank() - 2
	if ns < 1 {
		return b.Errorf("X must have rank >= 3, got %s", x)
	}
	k := b.Op.Attrs.Ints("kernel", nil)
	if len(k) != ns {
		return b.Errorf("kernel %v: want %d extents", k, ns)
	}
	win, err := windowAttrs(b, ns, k)
	if err != nil {
		return err
	}
	ceil := b.Op.Attrs.Int("ceil_mode", 0) != 0
	dims, iters := poolDims(ns)
	ext := []volume.Aff{x.Shape[0], x.Shape[1]}
	for i := 0; i < ns; i++ {
		S := x.Shape[2+i]
		o := win.outExtent(i, S)
		if ceil {
			s, ok := S.IsConst()
			if !ok {
				return b.Errorf("ceil_mode needs a static extent at spatial dim %d, got %s", i, S.String())
			}
			span := s + win.pb[i] + win.pe[i] - win.d[i]*(win.k[i]-1) - 1
			n := ceilDiv(span, win.s[i]) + 1
			if (n-1)*win.s[i] >= s+win.pb[i] {
				n-- // the last window would start in the end padding
			}
			o = volume.AffConst(n)
		}
		if c, ok := o.IsConst(); ok && c < 0 {
			return b.Errorf("spatial dim %d of extent %s is smaller than the dilated window", i, S.String())
		}
		ext = append(ext, o)
	}
	shape := append([]volume.Aff(nil), ext...)
	for i := 0; i < ns; i++ {
		ext = append(ext, volume.AffConst(k[i]))
	}
	b.SetBox(dims, ext, iters)
	idx := []volume.Aff{volume.AffDim(0), volume.AffDim(1)}
	var guard []volume.Constraint
	for i := 0; i < ns; i++ {
		pos, g := win.readPos(i, 2+i, 2+ns+i, x.Shape[2+i])
		if ceil {
			// ceil mode windows may overhang the end even without end padding
			g = append(g[:0:0], g...)
			if win.pe[i] <= 0 {
				g = append(g, volume.LT(pos, x.Shape[2+i]))
			}
		}
		idx = append(idx, pos)
		guard = append(guard, g...)
	}
	b.Op.Access = []Access{{Pieces: []AccessPiece{{Guard: guard, Index: idx}}}}
	b.Op.Out = AffAccess(identity(0, 2+ns)...)
	b.Result = TensorType{Elem: x.Elem, Shape: shape}
	v := Read(0, x.Elem)
	if !avg {
		if len(guard) > 0 {
			v = Select(Avail(0), v, Const(x.Elem, lowest(x.Elem)))
		}
		b.Op.Body = v
		b.Op.Reduce = ReduceMax
		b.Op.Init = lowest(x.Elem)
		return nil
	}
	if !x.Elem.IsFloat() {
		return b.Errorf("average pooling needs a floating-point operand, got %s", x.Elem)
	}
	if len(guard) > 0 {
		v = Select(Avail(0), v, Const(x.Elem, 0))
	}
	// divisor: Π over spatial dims of the window positions that count
	incl := b.Op.Attrs.Int("count_include_pad", 0) != 0
	var count *Scalar
	for i := 0; i < ns; i++ {
		lo, hi := volume.AffConst(0), x.Shape[2+i]
		if incl {
			lo, hi = volume.AffConst(-win.pb[i]), hi.AddConst(win.pe[i])
		}
		c := windowCount(win, i, AffScalar(volume.AffDim(2+i).Mul(win.s[i]).AddConst(-win.pb[i])), lo, hi)
		if count == nil {
			count = c
		} else {
			count = Bin(SMul, count, c)
		}
	}
	b.Op.Body = Bin(SDiv, v, Cast(count, x.Elem))
	b.Op.Reduce = ReduceSum
	return nil
}

// windowCount returns #{k in [0, K) : lo <= base + d·k < hi} as an i64 expression.
func windowCount(w window, i int, base *Scalar, lo, hi volume.Aff) *Scalar {
	d := w.d[i]
	c := func(v int64) *Scalar { return ConstI(I64, v) }
	// k >= ceil((lo - base)/d) = -floor((base - lo)/d)
	kmin := Un(SNeg, FloorDivScalar(Bin(SSub, base, AffScalar(lo)), d))
	// k <= floor((hi - 1 - base)/d)
	kmax := FloorDivScalar(Bin(SSub, AffScalar(hi.AddConst(-1)), base), d)
	kmin = Bin(SMax, kmin, c(0))
	kmax = Bin(SMin, kmax, c(w.k[i]-1))
	return Bin(SMax, Bin(SAdd, Bin(SSub, kmax, kmin), c(1)), c(0))
}

func buildGlobalPool(b *Builder, avg bool) error {
	x := b.In(0)
	ns := x.Rank() - 2
	if ns < 0 {
		return b.Errorf("X must have rank >= 2, got %s", x)
	}
	dims, iters := poolDims(ns)
	dims = dims[:2+ns]
	for i := 2; i < len(iters); i++ {
		iters[i] = Reduction
	}
	iters = iters[:2+ns]
	b.SetBox(dims, x.Shape, iters)
	b.Op.Access = []Access{AffAccess(identity(0, x.Rank())...)}
	out := []volume.Aff{volume.AffDim(0), volume.AffDim(1)}
	shape := []volume.Aff{x.Shape[0], x.Shape[1]}
	for i := 0; i < ns; i++ {
		out = append(out, volume.AffConst(0))
		shape = append(shape, volume.AffConst(1))
	}
	b.Op.Out = AffAccess(out...)
	b.Result = TensorType{Elem: x.Elem, Shape: shape}
	v := Read(0, x.Elem)
	if !avg {
		b.Op.Body = v
		b.Op.Reduce = ReduceMax
		b.Op.Init = lowest(x.Elem)
		return nil
	}
	if !x.Elem.IsFloat() {
		return b.Errorf("average pooling needs a floating-point operand, got %s", x.Elem)
	}
	var count *Scalar
	for i := 0; i < ns; i++ {
		c := AffScalar(x.Shape[2+i])
		if count == nil {
			count = c
		} else {
			count = Bin(SMul, count, c)
		}
	}
	if count == nil {
		count = ConstI(I64, 1)
	}
	b.Op.Body = Bin(SDiv, v, Cast(count, x.Elem))
	b.Op.Reduce = ReduceSum
	return nil
}

// buildMaxPoolIndex: the iteration domain is [n, c, o…, f] where f runs over the flattened
// indices of X inside the window of o (the constraints recover each spatial index from f with
// floor and mod, and keep it in the window and on the dilation grid), so padding is not in the
// domain at all; an arg-max reduction over f in increasing order returns the first maximum in
// the window's row-major order, as the reference does.
func buildMaxPoolIndex(b *Builder) error {
	// reuse max_pool's checks and output shape
	attrs := b.Op.Attrs.Clone()
	delete(attrs, "storage_order")
	ref := &Builder{Op: &Op{Kind: "max_pool", Attrs: attrs, Operands: b.Op.Operands}, Params: b.Params}
	if err := buildPool(ref, false); err != nil {
		return err
	}
	x := b.In(0)
	ns := x.Rank() - 2
	ext, err := constExtents(x.Shape[1:], "max_pool_index")
	if err != nil {
		return b.Errorf("%v", err)
	}
	C, spatial := ext[0], ext[1:]
	plane := NumElements(spatial)
	win, err := windowAttrs(b, ns, b.Op.Attrs.Ints("kernel", nil))
	if err != nil {
		return err
	}
	dims := []string{"n", "c"}
	for i := 0; i < ns; i++ {
		dims = append(dims, "o"+string(rune('0'+i)))
	}
	dims = append(dims, "f")
	fd := 2 + ns
	f := volume.AffDim(fd)
	image := volume.AffDim(0).Mul(C).Add(volume.AffDim(1)) // n·C + c
	cons := []volume.Constraint{
		volume.GE(volume.AffDim(0), volume.AffConst(0)), volume.LT(volume.AffDim(0), x.Shape[0]),
		volume.GE(volume.AffDim(1), volume.AffConst(0)), volume.LT(volume.AffDim(1), volume.AffConst(C)),
		volume.GE(f, image.Mul(plane)), volume.LT(f, image.AddConst(1).Mul(plane)),
	}
	idx := []volume.Aff{volume.AffDim(0), volume.AffDim(1)}
	colMajor := b.Op.Attrs.Int("storage_order", 0) != 0
	for i := 0; i < ns; i++ {
		o := volume.AffDim(2 + i)
		cons = append(cons, volume.GE(o, volume.AffConst(0)), volume.LT(o, ref.Result.Shape[2+i]))
		// the spatial index along dim i: f / (product of the faster dims) mod S_i
		stride := int64(1)
		for j := 0; j < ns; j++ {
			if colMajor && j < i || !colMajor && j > i {
				stride *= spatial[j]
			}
		}
		q := f.FloorDiv(stride).Mod(spatial[i])
		idx = append(idx, q)
		rel := q.Sub(o.Mul(win.s[i])).AddConst(win.pb[i]) // d·k
		cons = append(cons, volume.GE(rel, volume.AffConst(0)), volume.GE(volume.AffConst(win.d[i]*(win.k[i]-1)), rel))
		if win.d[i] > 1 {
			cons = append(cons, volume.EQ(rel.Mod(win.d[i]), volume.AffConst(0)))
		}
	}
	iters := make([]IterKind, len(dims))
	iters[fd] = Reduction
	b.Op.Dims, b.Op.Iters = dims, iters
	b.Op.Full = volume.SetFromConstraints(b.Params, "", dims, cons)
	b.Op.Access = []Access{AffAccess(idx...)}
	b.Op.Out = AffAccess(identity(0, 2+ns)...)
	b.Op.Body = Read(0, x.Elem)
	b.Op.Reduce = ReduceArgMax
	b.Op.ArgDim = fd
	b.Result = TensorType{Elem: I64, Shape: ref.Result.Shape}
	return nil
}

// buildLpPool sums |x|^p over max_pool's windows (padding reads nothing, so contributes 0).
func buildLpPool(b *Builder) error {
	attrs := b.Op.Attrs.Clone()
	delete(attrs, "p")
	ref := &Builder{Op: &Op{Kind: "max_pool", Attrs: attrs, Operands: b.Op.Operands}, Params: b.Params}
	if err := buildPool(ref, false); err != nil {
		return err
	}
	x := b.In(0)
	if !x.Elem.IsFloat() {
		return b.Errorf("lp pooling needs a floating-point operand, got %s", x.Elem)
	}
	p := b.Op.Attrs.Int("p", 2)
	if p <= 0 {
		return b.Errorf("p %d must be positive", p)
	}
	*b.Op = Op{Kind: b.Op.Kind, Name: b.Op.Name, Attrs: b.Op.Attrs, Operands: b.Op.Operands,
		Dims: ref.Op.Dims, Iters: ref.Op.Iters, Full: ref.Op.Full, Access: ref.Op.Access, Out: ref.Op.Out}
	v := Un(SAbs, Read(0, x.Elem))
	if p != 1 {
		v = Bin(SPow, v, Const(x.Elem, float64(p)))
	}
	if len(b.Op.Access[0].Pieces[0].Guard) > 0 {
		v = Select(Avail(0), v, Const(x.Elem, 0))
	}
	b.Op.Body = v
	b.Op.Reduce = ReduceSum
	b.Result = ref.Result
	return nil
}
