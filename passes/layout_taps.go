// This file splits padded convolutions whose taps read padding over large parts of the output
// (atrous convolutions whose dilation is comparable to the image: DeepLab's 3×3 convolutions of
// dilation 12 on 14×14 read the input with one tap for most output pixels) into one sum per
// output region with the taps live there, and a copy that assembles the regions. Each region is
// a product of its outputs and its live taps, so it runs on register tiles without padding.

package passes

import (
	"errors"
	"fmt"
	"slices"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// Tap regions: at most tapMaxRegions of them, and only when they skip at least half the work.
const tapMaxRegions = 16

// tapAxis is one spatial axis of a windowed read: the read index is s·o + d·k + c0 for result
// dim o and reduction dim k, in [0, size).
type tapAxis struct {
	o, k       int
	s, d, c0   int64
	size       int64
	olo, ohi   int64 // the result dim's range
	klo, khi   int64 // the reduction dim's range
	segs       [][2]int64
	taps       [][2]int64 // live taps of each segment
	work, full int64
}

// liveTaps returns the taps of output o whose read is inside the operand.
func (a *tapAxis) liveTaps(o int64) (int64, int64) {
	lo, hi := a.klo, a.khi
	// 0 <= s·o + d·k + c0 <= size-1
	lo = max(lo, ceilDiv(-a.c0-a.s*o, a.d))
	hi = min(hi, floorDiv(a.size-1-a.c0-a.s*o, a.d))
	return lo, hi
}

// floorDiv returns ⌊a/b⌋.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// ceilDiv returns ⌈a/b⌉.
func ceilDiv(a, b int64) int64 { return -floorDiv(-a, b) }

// splitTaps returns the region sums of op (not yet in the graph) and rewrites op into the copy
// that assembles them, or nil when op is not such a convolution or splitting does not halve
// its work. op is a channels-last sum whose result index is its leading dims; its body adds
// select(avail(k), x·w, 0) (w a finite constant, x read through windows guarded by x's bounds)
// and at most a bias term read at the first reduction point only.
func splitTaps(g *ir.Graph, op *ir.Op) ([]*ir.Op, error) {
	if op.Reduce != ir.ReduceSum || len(g.Params) > 0 || op.Init != 0 || len(op.Out.Pieces) != 1 {
		return nil, nil
	}
	nOut := len(op.Out.Pieces[0].Index)
	for d, a := range op.Out.Pieces[0].Index {
		if a.ShiftedDim() != d || a.Const != 0 {
			return nil, nil
		}
	}
	var k, w = -1, -1
	var term *ir.Scalar
	for j, o := range op.Operands {
		acc := op.Access[j]
		if o.Type.Rank() >= minSpatialRank && o.Type.Rank() == op.Result.Type.Rank() && len(acc.Pieces) == 1 && len(acc.Pieces[0].Guard) > 0 && o.Type.Elem.IsFloat() {
			if t, ww := paddedTerm(op, j); t != nil {
				k, w, term = j, ww, t
				break
			}
		}
	}
	if k < 0 {
		return nil, nil
	}
	x := op.Operands[k]
	shape, ok := x.Type.StaticShape()
	if !ok {
		return nil, nil
	}
	// the other terms: none, or one read guarded to the first reduction point
	terms := bodyTerms(op.Body)
	bias := -1
	for _, t := range terms {
		if t == term {
			continue
		}
		if t.Op != ir.SSelect || t.Args[0].Op != ir.SAvail || bias >= 0 {
			return nil, nil
		}
		bias = t.Args[0].Arg
	}
	regions, err := splitTapsExact(g, op, nOut, k, w, term, bias, shape)
	if errors.Is(err, errTapsGaveUp) {
		return nil, nil
	}
	for _, r := range regions {
		if r.VolumeErr() != nil {
			return nil, nil // volume gave up: the op is not split
		}
	}
	return regions, err
}

// errTapsGaveUp: an exact test of splitTapsExact gave up (the op is not split).
var errTapsGaveUp = errors.New("channels-last: a volume test gave up")

// splitTapsExact is splitTaps once op's form is known (its padded operand k read in term with
// the weights w, its bias operand or -1): with exact volume operations, it checks that the
// domain is a box, that the guard of k is exactly k's bounds and that the bias is read at the
// first reduction point, splits each windowed axis into segments of outputs with the same live
// taps, and builds the regions when they are few enough and halve the work.
func splitTapsExact(g *ir.Graph, op *ir.Op, nOut, k, w int, term *ir.Scalar, bias int, shape []int64) ([]*ir.Op, error) {
	params := g.Params
	dom := op.Domain
	n := op.NDim()
	lo, hi, err := boundsOf(dom)
	if err != nil || lo == nil {
		return nil, nil
	}
	// the reduction set must be a box (checked below through the domain being one)
	if !boxSetOf(params, dom.TupleName(), dom.DimNames(), lo, hi).IsSubset(dom).Or(false) { // unknown: not a box
		return nil, nil
	}
	piece := op.Access[k].Pieces[0]
	// the guard is exactly the read's bounds
	if _, ok := guardedByBounds(params, dom, dom.DimNames(), piece, op.Operands[k].Type.Shape); !ok {
		return nil, nil
	}
	// the bias read, if any, is at the first reduction point only
	if bias >= 0 {
		bacc := op.Access[bias]
		if len(bacc.Pieces) != 1 {
			return nil, nil
		}
		bg := volume.SetFromConstraints(params, dom.TupleName(), dom.DimNames(), bacc.Pieces[0].Guard).Intersect(dom)
		first := dom
		for d := nOut; d < n; d++ {
			first = first.Intersect(volume.SetFromConstraints(params, dom.TupleName(), dom.DimNames(),
				[]volume.Constraint{volume.EQ(volume.AffDim(d), volume.AffConst(lo[d]))}))
		}
		if !bg.IsEqual(first).Or(false) { // unknown: not split
			return nil, nil
		}
	}
	// the windowed axes
	var axes []*tapAxis
	for a, ix := range piece.Index {
		if len(ix.Floors) > 0 || len(ix.Params) > 0 {
			return nil, nil
		}
		o, kk := -1, -1
		for d, c := range ix.Dims {
			switch {
			case c == 0:
			case d < nOut && o < 0 && c > 0:
				o = d
			case d >= nOut && kk < 0 && c > 0:
				kk = d
			default:
				return nil, nil
			}
		}
		if o < 0 || kk < 0 {
			continue // not a window: read inside the operand (the guard says so)
		}
		ax := &tapAxis{o: o, k: kk, s: ix.Dims[o], d: ix.Dims[kk], c0: ix.Const, size: shape[a],
			olo: lo[o], ohi: hi[o], klo: lo[kk], khi: hi[kk]}
		for v := ax.olo; v <= ax.ohi; v++ {
			tl, th := ax.liveTaps(v)
			if tl > th {
				return nil, nil // an output no tap reaches along this axis
			}
			if m := len(ax.segs); m > 0 && ax.taps[m-1] == [2]int64{tl, th} {
				ax.segs[m-1][1] = v
			} else {
				ax.segs = append(ax.segs, [2]int64{v, v})
				ax.taps = append(ax.taps, [2]int64{tl, th})
			}
			ax.work += th - tl + 1
			ax.full += ax.khi - ax.klo + 1
		}
		axes = append(axes, ax)
	}
	if len(axes) == 0 {
		return nil, nil
	}
	nreg, work, full := 1, int64(1), int64(1)
	for _, ax := range axes {
		nreg *= len(ax.segs)
		work *= ax.work
		full *= ax.full
	}
	if nreg < 2 || nreg > tapMaxRegions || 2*work > full {
		return nil, nil
	}
	// the regions, in row-major order of their segments
	var regions []*ir.Op
	var pieces []ir.AccessPiece
	choice := make([]int, len(axes))
	for {
		rlo, rhi := slices.Clone(lo), slices.Clone(hi)
		for i, ax := range axes {
			rlo[ax.o], rhi[ax.o] = ax.segs[choice[i]][0], ax.segs[choice[i]][1]
			rlo[ax.k], rhi[ax.k] = ax.taps[choice[i]][0], ax.taps[choice[i]][1]
		}
		r, pc, err := tapRegion(g, op, nOut, k, w, term, bias, rlo, rhi)
		if err != nil || r == nil {
			return nil, err
		}
		regions = append(regions, r)
		pieces = append(pieces, pc)
		i := len(axes) - 1
		for ; i >= 0; i-- {
			if choice[i]++; choice[i] < len(axes[i].segs) {
				break
			}
			choice[i] = 0
		}
		if i < 0 {
			break
		}
	}
	// op becomes the copy that assembles the regions
	elem := op.Result.Type.Elem
	var body *ir.Scalar
	for i := len(regions) - 1; i >= 0; i-- {
		if body == nil {
			body = ir.Read(i, elem)
		} else {
			body = ir.Select(ir.Avail(i), ir.Read(i, elem), body)
		}
	}
	names := slices.Clone(op.Dims[:nOut])
	res := volume.MultiAff{Params: params, InName: dom.TupleName(), InDims: dom.DimNames(), Exprs: identityAffs(nOut)}.Map()
	adom := dom.Apply(res).SetTupleName("").SetDimNames(names).Coalesce()
	afull := op.Full.Apply(res).SetTupleName("").SetDimNames(names).Coalesce()
	asm := &ir.Op{Kind: "assemble", Name: op.Name, Dims: names, Iters: make([]ir.IterKind, nOut), Full: afull, Domain: adom,
		Out: ir.AffAccess(identityAffs(nOut)...), Body: body, Reduce: ir.ReduceNone, Result: op.Result}
	for i, r := range regions {
		asm.Operands = append(asm.Operands, r.Result)
		asm.Access = append(asm.Access, ir.Access{Pieces: []ir.AccessPiece{pieces[i]}})
	}
	*op = *asm
	return regions, nil
}

// tapRegion returns the sum of op over the box rlo..rhi (its outputs and their live taps),
// with its dims rebased so that its result starts at 0, and the piece by which the assembling
// copy reads it.
func tapRegion(g *ir.Graph, op *ir.Op, nOut, k, w int, term *ir.Scalar, bias int, rlo, rhi []int64) (*ir.Op, ir.AccessPiece, error) {
	params := g.Params
	n := op.NDim()
	dom := op.Domain
	names := dom.DimNames()
	// rebase: new dim d is old dim d minus rlo[d] for the result dims
	sub := make([]volume.Aff, n)
	for d := range sub {
		sub[d] = volume.AffDim(d)
		if d < nOut {
			sub[d] = sub[d].AddConst(rlo[d])
		}
	}
	shiftMap := volume.MultiAff{Params: params, InName: dom.TupleName(), InDims: names, OutName: dom.TupleName(), Exprs: sub}.Map()
	box := boxSetOf(params, dom.TupleName(), names, rlo, rhi)
	rdom := dom.Intersect(box).Preimage(shiftMap).Coalesce()
	// the constructor's domain of the region: its results from 0, its taps
	flo, fhi := slices.Clone(rlo), slices.Clone(rhi)
	for d := 0; d < nOut; d++ {
		flo[d], fhi[d] = 0, rhi[d]-rlo[d]
	}
	rfull := boxSetOf(params, dom.TupleName(), names, flo, fhi)
	r := &ir.Op{Kind: op.Kind, Name: op.Name, Operands: slices.Clone(op.Operands), Dims: names, Iters: op.Iters,
		Full: rfull, Domain: rdom, Reduce: op.Reduce, Init: op.Init}
	for j := range op.Access {
		r.Access = append(r.Access, substAccess(op.Access[j], sub))
	}
	// x is read inside the operand everywhere in the region: no guard, and its term is x·w
	r.Access[k] = ir.Access{Pieces: []ir.AccessPiece{{Index: r.Access[k].Pieces[0].Index}}}
	r.Body = unguardTerm(op.Body, term, k, w, op.Operands[k].Type.Elem)
	// the bias moves to the region's first reduction point: the points before it added +0
	if bias >= 0 {
		var gcons []volume.Constraint
		for d := nOut; d < n; d++ {
			gcons = append(gcons, volume.EQ(volume.AffDim(d), volume.AffConst(rlo[d])))
		}
		r.Access[bias] = ir.Access{Pieces: []ir.AccessPiece{{Guard: gcons, Index: r.Access[bias].Pieces[0].Index}}}
	}
	shape := make([]volume.Aff, nOut)
	for d := range shape {
		shape[d] = volume.AffConst(rhi[d] - rlo[d] + 1)
	}
	r.Out = ir.AffAccess(identityAffs(nOut)...)
	r.Result = &ir.Value{Type: ir.TensorType{Elem: op.Result.Type.Elem, Shape: shape}}
	r.Result.Def = r
	// check exactly that x is read inside the operand on the region
	xm := volume.MultiAff{Params: params, InName: rdom.TupleName(), InDims: names, Exprs: r.Access[k].Pieces[0].Index}.Map()
	switch rdom.IsSubset(volume.Box(params, "", nil, op.Operands[k].Type.Shape).Preimage(xm)) {
	case volume.Unknown:
		return nil, ir.AccessPiece{}, errTapsGaveUp
	case volume.No:
		return nil, ir.AccessPiece{}, fmt.Errorf("channels-last: region of %s reads outside its input", op.Result.Name)
	}
	gen, err := ir.ToGeneric(params, r)
	if err != nil {
		return nil, ir.AccessPiece{}, nil
	}
	gen.Domain = rdom.SetDimNames(gen.Dims)
	// the assembling copy reads it at (result index - rlo) where the index is in the region
	pc := ir.AccessPiece{}
	for d := 0; d < nOut; d++ {
		pc.Index = append(pc.Index, volume.AffDim(d).AddConst(-rlo[d]))
		pc.Guard = append(pc.Guard, volume.GE(volume.AffDim(d), volume.AffConst(rlo[d])), volume.GE(volume.AffConst(rhi[d]), volume.AffDim(d)))
	}
	return gen, pc, nil
}
