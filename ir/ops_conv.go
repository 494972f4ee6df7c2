// This file declares the convolutions (1-D, 2-D and 3-D, NCHW layout): conv and conv_transpose,
// with strides, dilations, groups and padding. Their element maps are the volume-model
// paper's A.2.7: the input is read at s·o + d·k − p through an access guarded by
// 0 <= s·o + d·k − p < H, so padding reads no element and dead iteration elimination sees the
// borders; the body selects 0 where the input is not available.

package ir

import (
	"github.com/graphc/graphc/volume"
)

func init() {
	convAttrs := []AttrDef{
		{Name: "strides", Kind: AttrInts, Default: dflt(IntsAttr()), Doc: "stride per spatial dim (default 1)"},
		{Name: "dilations", Kind: AttrInts, Default: dflt(IntsAttr()), Doc: "dilation per spatial dim (default 1)"},
		{Name: "pads", Kind: AttrInts, Default: dflt(IntsAttr()), Doc: "begin pads of every spatial dim, then end pads (default 0)"},
		{Name: "group", Kind: AttrInt, Default: dflt(IntAttr(1)), Doc: "number of channel groups"},
	}
	register(
		&OpDef{
			Name:        "conv",
			Summary:     "convolution (cross-correlation) of X[N, C, spatial…] with W[M, C/group, kernel…], plus optional bias B[M]",
			Example:     "%y = conv(%x, %w) {pads = [1, 1, 1, 1]} : f32[1, 8, 16, 16]",
			MinOperands: 2, MaxOperands: 3,
			Attrs: convAttrs,
			Build: buildConv,
		},
		&OpDef{
			Name:        "conv_transpose",
			Summary:     "transposed convolution of X[N, C, spatial…] with W[C, M/group, kernel…], plus optional bias B[M]",
			Example:     "%y = conv_transpose(%x, %w) {strides = [2, 2]} : f32[1, 2, 7, 7]",
			MinOperands: 2, MaxOperands: 3,
			Attrs: append(append([]AttrDef(nil), convAttrs...),
				AttrDef{Name: "output_padding", Kind: AttrInts, Default: dflt(IntsAttr()), Doc: "extra extent at the end of each spatial dim (default 0)"}),
			Build: buildConvTranspose,
		},
	)
}

// window holds the spatial parameters shared by convolutions and pools.
type window struct {
	s, d, pb, pe []int64 // strides, dilations, begin and end pads
	k            []int64 // kernel extents
}

// windowAttrs reads strides, dilations and pads for ns spatial dims with kernel extents k.
func windowAttrs(b *Builder, ns int, k []int64) (window, error) {
	w := window{k: k}
	get := func(name string, n int, def int64) ([]int64, error) {
		v := b.Op.Attrs.Ints(name, nil)
		if len(v) == 0 {
			v = make([]int64, n)
			for i := range v {
				v[i] = def
			}
		}
		if len(v) != n {
			return nil, b.Errorf("%s %v: want %d values for %d spatial dims", name, v, n, ns)
		}
		return v, nil
	}
	var err error
	if w.s, err = get("strides", ns, 1); err != nil {
		return w, err
	}
	if w.d, err = get("dilations", ns, 1); err != nil {
		return w, err
	}
	pads, err := get("pads", 2*ns, 0)
	if err != nil {
		return w, err
	}
	w.pb, w.pe = pads[:ns], pads[ns:]
	for i := 0; i < ns; i++ {
		if w.s[i] <= 0 || w.d[i] <= 0 {
			return w, b.Errorf("strides %v and dilations %v must be positive", w.s, w.d)
		}
		if k[i] <= 0 {
			return w, b.Errorf("kernel extent %d at spatial dim %d must be positive", k[i], i)
		}
	}
	return w, nil
}

// outExtent returns floor((S + pb + pe - d(k-1) - 1) / s) + 1.
func (w window) outExtent(i int, S volume.Aff) volume.Aff {
	return S.AddConst(w.pb[i] + w.pe[i] - w.d[i]*(w.k[i]-1) - 1).FloorDiv(w.s[i]).AddConst(1)
}

// readPos returns s·o + d·k − pb for output dim oDim and kernel dim kDim, and the guard that
// keeps it inside [0, S) (only the bounds that padding can cross).
func (w window) readPos(i, oDim, kDim int, S volume.Aff) (volume.Aff, []volume.Constraint) {
	pos := volume.AffDim(oDim).Mul(w.s[i]).Add(volume.AffDim(kDim).Mul(w.d[i])).AddConst(-w.pb[i])
	var g []volume.Constraint
	if w.pb[i] > 0 {
		g = append(g, volume.GE(pos, volume.AffConst(0)))
	}
	if w.pe[i] > 0 {
		g = append(g, volume.LT(pos, S))
	}
	return pos, g
}

// staticKernel returns the static spatial extents of a weight tensor.
func staticKernel(b *Builder, w TensorType) ([]int64, error) {
	ks, err := constExtents(w.Shape, "the weight")
	if err != nil {
		return nil, b.Errorf("%v", err)
	}
	return ks, nil
}

// convShapes checks X and W and returns the number of spatial dims.
func convShapes(b *Builder) (int, error) {
	x, w := b.In(0), b.In(1)
	if x.Rank() < 3 || w.Rank() != x.Rank() {
		return 0, b.Errorf("X must have rank >= 3 and W the same rank, got %s and %s", x, w)
	}
	if w.Elem != x.Elem {
		return 0, b.Errorf("X is %s, W is %s", x.Elem, w.Elem)
	}
	if b.NumIn() == 3 {
		bt := b.In(2)
		if bt.Rank() != 1 || bt.Elem != x.Elem {
			return 0, b.Errorf("B must be a vector of %s, got %s", x.Elem, bt)
		}
	}
	return x.Rank() - 2, nil
}

// finishConv sets the body X·W (0 where X is not read), the bias term, the reduction and the
// result.
func finishConv(b *Builder, xGuarded bool, nOutChannels int64, shape []volume.Aff) error {
	x := b.In(0)
	prod := Bin(SMul, Read(0, x.Elem), Read(1, x.Elem))
	if xGuarded {
		prod = Select(Avail(0), prod, Const(x.Elem, 0))
	}
	if b.NumIn() == 3 {
		if n, ok := b.In(2).Shape[0].IsConst(); !ok || n != nOutChannels {
			return b.Errorf("B has %s elements for %d output channels", b.In(2).Shape[0].String(), nOutChannels)
		}
		prod = Bin(SAdd, prod, Select(Avail(2), Read(2, x.Elem), Const(x.Elem, 0)))
	}
	b.Op.Body = prod
	b.Op.Reduce = ReduceSum
	b.Op.Out = AffAccess(identity(0, len(shape))...)
	b.Result = TensorType{Elem: x.Elem, Shape: shape}
	return nil
}

// biasAccess reads B[m] once per output element: where the reduction dims (from first on) are
// all zero.
func biasAccess(mDim, first, ndim int) Access {
	var g []volume.Constraint
	for d := first; d < ndim; d++ {
		g = append(g, volume.EQ(volume.AffDim(d), volume.AffConst(0)))
	}
	return Access{Pieces: []AccessPiece{{Guard: g, Index: []volume.Aff{volume.AffDim(mDim)}}}}
}

// convDims returns the iteration dims [n, m, o…, c, k…] and their kinds.
func convDims(ns int) ([]string, []IterKind) {
	dims := []string{"n", "m"}
	for i := 0; i < ns; i++ {
		dims = append(dims, "o"+string(rune('0'+i)))
	}
	dims = append(dims, "c")
	for i := 0; i < ns; i++ {
		dims = append(dims, "k"+string(rune('0'+i)))
	}
	iters := make([]IterKind, len(dims))
	for i := 2 + ns; i < len(dims); i++ {
		iters[i] = Reduction
	}
	return dims, iters
}

// groups checks the channel counts: C input channels, cg per group in W, and returns the
// group count.
func groups(b *Builder, C volume.Aff, cg int64) (int64, error) {
	g := b.Op.Attrs.Int("group", 1)
	if g <= 0 {
		return 0, b.Errorf("group %d must be positive", g)
	}
	if !C.Equal(volume.AffConst(cg * g)) {
		return 0, b.Errorf("X has %s channels, W expects %d per group × %d groups", C.String(), cg, g)
	}
	return g, nil
}

// buildConv: Y[n, m, o] = Σ_{c, k} X[n, g(m)·Cg + c, s·o + d·k − p] · W[m, c, k] (+ B[m]).
func buildConv(b *Builder) error {
	if _, err := convShapes(b); err != nil {
		return err
	}
	f, err := convForm(b)
	if err != nil {
		return err
	}
	if b.NumIn() == 3 {
		b.Op.Access = append(b.Op.Access, biasAccess(1, f.cDim, f.ndim))
	}
	return finishConv(b, f.guarded, f.M, f.shape)
}

// convLayout is what convForm leaves to the op's builder.
type convLayout struct {
	shape      []volume.Aff // the result's
	guarded    bool         // the input access is guarded (padding)
	M          int64        // output channels
	cDim, ndim int          // the input-channel dim (the first reduction dim); all dims
}

// convForm sets the dims, domain and the accesses of X (operand 0) and W (operand 1) of a
// convolution; the builder adds the other operands' accesses, the body and the result.
func convForm(b *Builder) (convLayout, error) {
	x := b.In(0)
	if x.Rank() < 3 || b.In(1).Rank() != x.Rank() {
		return convLayout{}, b.Errorf("X must have rank >= 3 and W the same rank, got %s and %s", x, b.In(1))
	}
	ns := x.Rank() - 2
	ws, err := staticKernel(b, b.In(1))
	if err != nil {
		return convLayout{}, err
	}
	M, cg := ws[0], ws[1]
	g, err := groups(b, x.Shape[1], cg)
	if err != nil {
		return convLayout{}, err
	}
	if M%g != 0 {
		return convLayout{}, b.Errorf("%d output channels are not a multiple of group %d", M, g)
	}
	win, err := windowAttrs(b, ns, ws[2:])
	if err != nil {
		return convLayout{}, err
	}
	dims, iters := convDims(ns)
	cDim := 2 + ns
	ext := []volume.Aff{x.Shape[0], volume.AffConst(M)}
	shape := []volume.Aff{x.Shape[0], volume.AffConst(M)}
	for i := 0; i < ns; i++ {
		o := win.outExtent(i, x.Shape[2+i])
		if c, ok := o.IsConst(); ok && c < 0 {
			return convLayout{}, b.Errorf("spatial dim %d of extent %s is smaller than the dilated kernel", i, x.Shape[2+i].String())
		}
		ext = append(ext, o)
		shape = append(shape, o)
	}
	ext = append(ext, volume.AffConst(cg))
	for i := 0; i < ns; i++ {
		ext = append(ext, volume.AffConst(win.k[i]))
	}
	b.SetBox(dims, ext, iters)
	inC := volume.AffDim(cDim)
	if g > 1 {
		inC = volume.AffDim(1).FloorDiv(M / g).Mul(cg).Add(inC)
	}
	xIdx := []volume.Aff{volume.AffDim(0), inC}
	var guard []volume.Constraint
	wIdx := []volume.Aff{volume.AffDim(1), volume.AffDim(cDim)}
	for i := 0; i < ns; i++ {
		pos, gi := win.readPos(i, 2+i, cDim+1+i, x.Shape[2+i])
		xIdx = append(xIdx, pos)
		guard = append(guard, gi...)
		wIdx = append(wIdx, volume.AffDim(cDim+1+i))
	}
	b.Op.Access = []Access{{Pieces: []AccessPiece{{Guard: guard, Index: xIdx}}}, AffAccess(wIdx...)}
	return convLayout{shape: shape, guarded: len(guard) > 0, M: M, cDim: cDim, ndim: len(dims)}, nil
}

// buildConvTranspose: Y[n, m, o] = Σ_{c, k} X[n, g(m)·Cg + c, i] · W[g(m)·Cg + c, m mod Mg, k]
// (+ B[m]) where o = s·i + d·k − p, i.e. i = (o + p − d·k) / s when that is an integer in
// [0, S): a guarded access with a divisibility guard.
func buildConvTranspose(b *Builder) error {
	ns, err := convShapes(b)
	if err != nil {
		return err
	}
	x := b.In(0)
	ws, err := staticKernel(b, b.In(1))
	if err != nil {
		return err
	}
	C, mg := ws[0], ws[1]
	g := b.Op.Attrs.Int("group", 1)
	if g <= 0 || C%g != 0 {
		return b.Errorf("group %d must be positive and divide the %d input channels of W", g, C)
	}
	if !x.Shape[1].Equal(volume.AffConst(C)) {
		return b.Errorf("X has %s channels, W has %d", x.Shape[1].String(), C)
	}
	cg, M := C/g, mg*g
	win, err := windowAttrs(b, ns, ws[2:])
	if err != nil {
		return err
	}
	op := b.Op.Attrs.Ints("output_padding", nil)
	if len(op) == 0 {
		op = make([]int64, ns)
	}
	if len(op) != ns {
		return b.Errorf("output_padding %v: want %d values", op, ns)
	}
	dims, iters := convDims(ns)
	cDim := 2 + ns
	ext := []volume.Aff{x.Shape[0], volume.AffConst(M)}
	shape := []volume.Aff{x.Shape[0], volume.AffConst(M)}
	for i := 0; i < ns; i++ {
		// s(S-1) + output_padding + d(k-1) + 1 - pb - pe
		o := x.Shape[2+i].AddConst(-1).Mul(win.s[i]).AddConst(op[i] + win.d[i]*(win.k[i]-1) + 1 - win.pb[i] - win.pe[i])
		if c, ok := o.IsConst(); ok && c < 0 {
			return b.Errorf("pads %d and %d make spatial dim %d negative", win.pb[i], win.pe[i], i)
		}
		ext = append(ext, o)
		shape = append(shape, o)
	}
	ext = append(ext, volume.AffConst(cg))
	for i := 0; i < ns; i++ {
		ext = append(ext, volume.AffConst(win.k[i]))
	}
	b.SetBox(dims, ext, iters)
	gm := volume.AffDim(1).FloorDiv(mg) // the group of output channel m
	inC := gm.Mul(cg).Add(volume.AffDim(cDim))
	xIdx := []volume.Aff{volume.AffDim(0), inC}
	wIdx := []volume.Aff{inC, volume.AffDim(1).Mod(mg)}
	var guard []volume.Constraint
	for i := 0; i < ns; i++ {
		e := volume.AffDim(2 + i).AddConst(win.pb[i]).Sub(volume.AffDim(cDim + 1 + i).Mul(win.d[i])) // s·i
		xIdx = append(xIdx, e.FloorDiv(win.s[i]))
		guard = append(guard, volume.GE(e, volume.AffConst(0)), volume.GE(x.Shape[2+i].AddConst(-1).Mul(win.s[i]), e))
		if win.s[i] > 1 {
			guard = append(guard, volume.EQ(e.Mod(win.s[i]), volume.AffConst(0)))
		}
		wIdx = append(wIdx, volume.AffDim(cDim+1+i))
	}
	b.Op.Access = []Access{{Pieces: []AccessPiece{{Guard: guard, Index: xIdx}}}, AffAccess(wIdx...)}
	if b.NumIn() == 3 {
		b.Op.Access = append(b.Op.Access, biasAccess(1, cDim, len(dims)))
	}
	return finishConv(b, true, M, shape)
}
