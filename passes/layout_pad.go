// This file gives convolutions whose padding reads nothing an explicitly zero-padded input
// (part of channels-last, layout.go): a sum that reads an operand through an access guarded
// exactly by the operand's bounds reads instead a copy padded with zeros, unguarded, so that it
// runs on register tiles; the taps that read nothing but padding are dropped first.

package passes

import (
	"math"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// padInput gives a sum that reads an operand of its result's rank (>= 3) through padding (an access guarded exactly by
// the operand's bounds, in a term select(avail, x·w, 0) with w a finite constant) a zero-padded
// copy of that operand: it returns the op computing the copy (not yet in the graph) and
// rewrites op to read it unguarded with the term x·w.
func padInput(g *ir.Graph, op *ir.Op, nhwcSet map[*ir.Value]bool) (*ir.Op, error) {
	if op.Reduce != ir.ReduceSum || op.Init != 0 || math.Signbit(op.Init) {
		return nil, nil
	}
	for k, o := range op.Operands {
		acc := op.Access[k]
		if o.Type.Rank() < minSpatialRank || o.Type.Rank() != op.Result.Type.Rank() || len(acc.Pieces) != 1 || len(acc.Pieces[0].Guard) == 0 || !o.Type.Elem.IsFloat() {
			continue
		}
		term, w := paddedTerm(op, k)
		if term == nil {
			continue
		}
		if len(g.Params) == 0 {
			// with symbolic dims the taps that read nothing but padding depend on them (few
			// samples): dropped, they would leave a domain that is no longer a box for the
			// register tiles; the copy's zeros are read instead
			dropDeadTaps(g.Params, op)
		}
		p, err := padOp(g, op, k, w, term, !nhwcSet[o])
		if err != nil || p != nil {
			return p, err
		}
	}
	return nil, nil
}

// dropDeadTaps restricts a sum whose result index is its leading dims to the reduction points
// where some term of its body may be non-zero for some result: every term must be
// select(avail(j), ..., +0), and a point where every such read is undefined for every result
// only adds +0 (a dilated convolution's taps that read nothing but padding: DeepLab's 3×3
// convolutions with dilation 36 on a 14×14 input read the input with their centre tap only).
// Skipping +0 keeps every sum's bits: an accumulator that starts at +0 is never -0. The domain
// stays the product of the results and a reduction set.
func dropDeadTaps(params []string, op *ir.Op) {
	if len(op.Out.Pieces) != 1 {
		return
	}
	nOut := len(op.Out.Pieces[0].Index)
	for d, a := range op.Out.Pieces[0].Index {
		if a.ShiftedDim() != d || a.Const != 0 {
			return
		}
	}
	for d := nOut; d < op.NDim(); d++ {
		if op.Iters[d] != ir.Reduction {
			return
		}
	}
	terms := bodyTerms(op.Body)
	dom := op.Domain
	rdims := op.Dims[nOut:]
	keep := volume.EmptySet(params, "", rdims)
	for _, t := range terms {
		if t.Op != ir.SSelect || t.Args[0].Op != ir.SAvail {
			return
		}
		z := t.Args[2]
		if z.Op != ir.SConst || z.F != 0 || math.Signbit(z.F) {
			return
		}
		acc := op.Access[t.Args[0].Arg]
		if acc.Approx || len(acc.Pieces) != 1 {
			return
		}
		g := volume.SetFromConstraints(params, dom.TupleName(), dom.DimNames(), acc.Pieces[0].Guard).Intersect(dom)
		keep = keep.Union(g.ProjectOut(0, nOut).SetTupleName("").SetDimNames(rdims))
	}
	all := dom.ProjectOut(0, nOut).SetTupleName("").SetDimNames(rdims)
	if all.IsSubset(keep).Or(true) { // unknown: the domain stays
		return
	}
	ex := make([]volume.Aff, len(rdims))
	for i := range ex {
		ex[i] = volume.AffDim(nOut + i)
	}
	lift := volume.MultiAff{Params: params, InName: dom.TupleName(), InDims: dom.DimNames(), Exprs: ex}.Map()
	if live := dom.Intersect(keep.Preimage(lift)).Coalesce(); live.Err() == nil { // else volume gave up: the domain stays
		op.Domain = live
	}
}

// paddedTerm finds, among the terms that the body adds, select(avail(k), read(k)·read(w), 0)
// (either factor order) with operand w a constant of finite elements read unguarded, and
// avail(k) and read(k) nowhere else; it returns the term and w.
func paddedTerm(op *ir.Op, k int) (*ir.Scalar, int) {
	terms := bodyTerms(op.Body)
	var found *ir.Scalar
	w := -1
	for _, t := range terms {
		if t.Op != ir.SSelect || t.Args[0].Op != ir.SAvail || t.Args[0].Arg != k {
			continue
		}
		z := t.Args[2]
		if z.Op != ir.SConst || z.F != 0 || math.Signbit(z.F) || t.Args[1].Op != ir.SMul {
			return nil, -1
		}
		a, b := t.Args[1].Args[0], t.Args[1].Args[1]
		if b.Op == ir.SRead && b.Arg == k {
			a, b = b, a
		}
		if a.Op != ir.SRead || a.Arg != k || b.Op != ir.SRead || b.Arg == k || found != nil {
			return nil, -1
		}
		wv := op.Operands[b.Arg]
		if !wv.IsConst() || len(op.Access[b.Arg].Pieces) != 1 || len(op.Access[b.Arg].Pieces[0].Guard) > 0 {
			return nil, -1
		}
		for i, n := 0, wv.Data.Len(); i < n && wv.Data.Elem.IsFloat(); i++ {
			if x := wv.Data.Float(i); math.IsInf(x, 0) || math.IsNaN(x) {
				return nil, -1
			}
		}
		found, w = t, b.Arg
	}
	if found == nil {
		return nil, -1
	}
	// operand k is used by this term only
	uses := 0
	seen := map[*ir.Scalar]bool{}
	op.Body.Walk(func(s *ir.Scalar) {
		if !seen[s] && (s.Op == ir.SRead || s.Op == ir.SAvail) && s.Arg == k {
			uses++
		}
		seen[s] = true
	})
	if uses != 2 {
		return nil, -1
	}
	return found, w
}

// A padded copy whose pixels are a multiple of padPitchPeriod bytes apart (512 f32 channels)
// gets padPitchLine bytes more per pixel. Otherwise the pixels a register tile broadcasts from
// (its rows, their taps, the kernel rows) all fall into two sets of the 4 KiB-periodic L1
// cache, and evict each other: a 3×3 stride-2 convolution to 7²×512 read its input from L2
// (Zen 3, one thread: 5.9 ms, 3.6 with 528-channel pixels; stride 1 3.7 -> 3.6).
const (
	padPitchPeriod = 2048
	padPitchLine   = 64
)

// padOp builds the padding op of operand k of op (see padInput) when its guard is exactly the
// operand's bounds, and rewrites op. With reorder, the operand is still channels-first (NCHW,
// NCW, NCDHW: a graph input):
// the copy is made channels-last, so that the reorder happens in the copy. With symbolic dims
// (the samples of a dynamic-axes audio export) the box of the elements read is an expression
// of them (volume.Set.ParamBounds), and a side of the copy is guarded unless the operand's
// bounds are known to hold there for every value of the symbolic dims.
func padOp(g *ir.Graph, op *ir.Op, k int, w int, term *ir.Scalar, reorder bool) (*ir.Op, error) {
	params := g.Params
	piece := op.Access[k].Pieces[0]
	dims := op.Dims
	x := op.Operands[k]
	shape := x.Type.Shape
	_, ok := guardedByBounds(params, op.Domain, dims, piece, shape)
	if !ok {
		return nil, nil
	}
	// the elements read, padding included, and their box
	r := len(shape)
	lo, hi, err := readBox(params, op.Domain, piece.Index)
	if err != nil || lo == nil {
		return nil, err
	}
	// the symbolic dims for which op has iterations (the box's bounds hold there only)
	ctx := op.Domain.ProjectOut(0, op.NDim())
	ext := make([]volume.Aff, r)
	names := make([]string, r)
	shift := make([]volume.Aff, r) // padded index -> operand index
	var pguard []volume.Constraint
	for a := range ext {
		ext[a] = hi[a].Sub(lo[a]).AddConst(1)
		names[a] = "p" + string(rune('0'+a))
		shift[a] = volume.AffDim(a).Add(lo[a])
		if !alwaysHolds(ctx, volume.GE(lo[a], volume.AffConst(0))) {
			pguard = append(pguard, volume.GE(shift[a], volume.AffConst(0)))
		}
		if !alwaysHolds(ctx, volume.GE(shape[a].AddConst(-1), hi[a])) {
			pguard = append(pguard, volume.GE(shape[a].AddConst(-1), shift[a]))
		}
	}
	// the copy's innermost axis (the channels) of a pitch that maps its pixels to few cache
	// sets gets a line of zeros at its end, which op never reads: the copy writes them, so
	// that its box is whole (the value it copies can then be written in place inside it)
	ca := r - 1
	if reorder {
		ca = 1 // NCHW: the copy moves the channels last
	}
	var pitchFrom int64 // the first padding channel (0: none)
	if c, ok := ext[ca].IsConst(); ok {
		if sz := int64(x.Type.Elem.Size()); sz > 0 && padPitchLine%sz == 0 && c*sz%padPitchPeriod == 0 {
			pitchFrom = c
			ext[ca] = ext[ca].AddConst(padPitchLine / sz)
			pguard = append(pguard, volume.GE(shape[ca].AddConst(-1), shift[ca]))
		}
	}
	if ir.AffsErr(append(append(append([]volume.Aff(nil), ext...), shift...), lo...)) != nil {
		return nil, nil // volume gave up: the operand is not padded
	}
	full := volume.Box(params, "", names, ext)
	// the padded copy is needed where op reads it
	toPad := make([]volume.Aff, r)
	for a := range toPad {
		toPad[a] = piece.Index[a].Sub(lo[a])
	}
	padMap := volume.MultiAff{Params: params, InName: op.Domain.TupleName(), InDims: dims, OutName: "", Exprs: toPad}.Map()
	dom := op.Domain.Apply(padMap).SetTupleName("").SetDimNames(names).Coalesce()
	if pitchFrom > 0 {
		band := volume.SetFromConstraints(params, "", names, []volume.Constraint{volume.GE(volume.AffDim(ca), volume.AffConst(pitchFrom))})
		dom = dom.Union(full.Intersect(band)).Coalesce()
	}
	elem := x.Type.Elem
	iters := make([]ir.IterKind, r)
	p := &ir.Op{
		Kind:     "pad",
		Name:     op.Name,
		Operands: []*ir.Value{x},
		Dims:     names,
		Iters:    iters,
		Full:     full,
		Domain:   dom,
		Access:   []ir.Access{{Pieces: []ir.AccessPiece{{Guard: pguard, Index: shift}}}},
		Out:      ir.AffAccess(identityAffs(r)...),
		Body:     ir.Select(ir.Avail(0), ir.Read(0, elem), ir.Const(elem, 0)),
		Reduce:   ir.ReduceNone,
		Result:   &ir.Value{Type: ir.TensorType{Elem: elem, Shape: ext}},
	}
	p.Result.Def = p
	readPad := ir.AffAccess(toPad...)
	if reorder {
		perm := channelsLast(r)
		p.Out = permuteAccess(p.Out, perm)
		p.Result.Type.Shape = permuteAffs(p.Result.Type.Shape, perm)
		reorderDims(p)
		readPad = permuteAccess(readPad, perm)
	}
	gen, err := ir.ToGeneric(params, p)
	if err != nil {
		return nil, nil
	}
	gen.Domain = p.Domain.SetDimNames(gen.Dims)
	if gen.VolumeErr() != nil || ir.AffsErr(toPad) != nil {
		return nil, nil // volume gave up: the operand is not padded
	}
	// op reads the copy, unguarded, and adds x·w
	op.Operands[k] = gen.Result
	op.Access[k] = readPad
	op.Body = unguardTerm(op.Body, term, k, w, elem)
	return gen, nil
}

// readBox returns the box of the operand indices that index (expressions of the dims) takes
// over dom: exact constants without symbolic dims (boundsOf of the image); with them, the
// image's bounds as expressions of the symbolic dims (volume.Set.ParamBounds), else the
// bounds of index over the box of dom, which may hold more than the elements read (the copy
// is then larger than it needs to be, its domain still the elements read). nil: no box.
func readBox(params []string, dom volume.Set, index []volume.Aff) (lo, hi []volume.Aff, err error) {
	img := dom.Apply(volume.MultiAff{Params: params, InName: dom.TupleName(), InDims: dom.DimNames(), Exprs: index}.Map())
	if len(params) == 0 {
		l, h, err := boundsOf(img)
		if err != nil || l == nil {
			return nil, nil, err
		}
		for a := range l {
			lo, hi = append(lo, volume.AffConst(l[a])), append(hi, volume.AffConst(h[a]))
		}
		return lo, hi, nil
	}
	if l, h, err := img.ParamBounds(); err == nil {
		return l, h, nil
	}
	// the image is not one interval per dim (a union whose pieces hold for different values
	// of the symbolic dims): interval arithmetic over the domain's box
	dlo, dhi, err := dom.ParamBounds()
	if err != nil {
		return nil, nil, nil
	}
	for _, x := range index {
		if len(x.Dims) > len(dlo) {
			return nil, nil, nil
		}
		for _, f := range x.Floors {
			if f.Num.NDimUsed() > 0 {
				return nil, nil, nil // a floor of the dims: not bounded term by term
			}
		}
		l := x.SubstDims(make([]volume.Aff, len(dlo)))
		h := l
		for d, c := range x.Dims {
			switch {
			case c > 0:
				l, h = l.Add(dlo[d].Mul(c)), h.Add(dhi[d].Mul(c))
			case c < 0:
				l, h = l.Add(dhi[d].Mul(c)), h.Add(dlo[d].Mul(c))
			}
		}
		lo, hi = append(lo, l), append(hi, h)
	}
	return lo, hi, nil
}

// alwaysHolds reports whether c (over the symbolic dims only) holds wherever ctx does; unknown
// counts as not.
func alwaysHolds(ctx volume.Set, c volume.Constraint) bool {
	if a, ok := c.Aff.IsConst(); ok && len(c.Aff.Params) == 0 && !c.Eq {
		return a >= 0
	}
	fails := volume.SetFromConstraints(ctx.Params(), ctx.TupleName(), nil, []volume.Constraint{volume.GE(c.Aff.Neg().AddConst(-1), volume.AffConst(0))})
	return ctx.Intersect(fails).IsEmpty().Or(false)
}
