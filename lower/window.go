// This file emits windowed reductions (max and average pools, in NCHW and channels-last, any
// reduction over a small window of an operand) with register accumulators: the result's
// unit-stride dim is scanned in vectors, the reduction dims inside each vector, and each
// vector of results is loaded once, combined with its whole window in a register and stored
// once. The interchanged nest it replaces ran the vector loop innermost, under the window
// loops, and so loaded, combined and stored the result at every window tap (GoogLeNet's
// 3×3 max pools: 2.7 ms of 36 on Zen 3, most of it in those stores).
//
// Each result element combines its window's points in the evaluator's order (the reduction
// dims keep their order, and every parallel dim names a result index), so float sums keep
// their bits; no lanes are folded.

package lower

import (
	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// windowMaxTaps bounds the points of a window accumulated in registers: each tap reads its
// own cache line of the operand for each vector of results, and the lines of the next vector
// are the same ones, still in L1 when the window's lines fit in half of it (256 × 64 bytes =
// 16 KB of a 32 KB L1). A larger reduction (a sum over a long non-innermost axis) keeps the
// interchanged nest, which streams the operand's rows.
const windowMaxTaps = 256

// windowOrder returns the loop order of op as a windowed reduction along its result's
// unit-stride dim d (the parallel dims but d in their order, d, then the reduction dims in
// their order), or nil when op is not one: it must be a plain reduction (not an arg
// reduction) whose parallel dims each name an index of the result (so that every result
// element is combined from its own window, in the order of the reduction dims alone), with at
// most windowMaxTaps reduction points of constant extent, and a domain that is a product of
// d's values and the window at each point of the other parallel dims (the lanes of a vector
// share their window's loops).
func windowOrder(op *ir.Op, d int) []int {
	if op.Reduce == ir.ReduceNone || op.Reduce.IsArg() || len(op.Out.Pieces) != 1 || op.Iters[d] != ir.Parallel {
		return nil
	}
	out := op.Out.Pieces[0].Index
	var par, red []int
	for i, k := range op.Iters {
		used := false
		for _, a := range out {
			if coefOf(a, i) != 0 || floorsUse(a, i) {
				used = true
			}
		}
		switch {
		case k == ir.Reduction && !used:
			red = append(red, i)
		case k == ir.Parallel && indexedBy(out, i):
			if i != d {
				par = append(par, i)
			}
		default:
			return nil
		}
	}
	if len(red) == 0 {
		return nil
	}
	lo, hi, err := constBounds(op.Domain)
	if err != nil {
		return nil
	}
	taps := int64(1)
	for _, r := range red {
		if taps *= hi[r] - lo[r] + 1; taps > windowMaxTaps {
			return nil
		}
	}
	if !windowProduct(op, d, red) {
		return nil
	}
	return append(append(par, d), red...)
}

// windowProduct reports whether op's domain is, at each point of the parallel dims but d, the
// product of d's values and the window's points: the domain equals the intersection of its
// cylinders over its projections without the reduction dims and without d (an exact check).
func windowProduct(op *ir.Op, d int, red []int) bool {
	dom := op.Domain.SetTupleName("")
	params := dom.Params()
	cylinder := func(drop func(int) bool) volume.Set {
		var exprs []volume.Aff
		for i := range op.Dims {
			if !drop(i) {
				exprs = append(exprs, volume.AffDim(i))
			}
		}
		m := volume.MultiAff{Params: params, InDims: op.Dims, Exprs: exprs}.Map()
		return dom.Apply(m).Preimage(m)
	}
	isRed := func(i int) bool {
		for _, r := range red {
			if r == i {
				return true
			}
		}
		return false
	}
	prod := cylinder(isRed).Intersect(cylinder(func(i int) bool { return i == d }))
	if prod.Err() != nil {
		return false
	}
	return prod.IsSubset(dom).Or(false)
}

// windowAcc is the accumulator of a windowed reduction in an astEmitter: level is the loop
// level of the result's unit-stride dim, scanned in vectors of vl lanes (and a scalar
// remainder); load reads the results at a level point (lanes 0: one element), step combines
// the body at an iteration point into the accumulator, store writes it back.
type windowAcc struct {
	level int
	vl    int
	load  func(lev []value.Value, lanes int) value.Value
	step  func(lev []value.Value, lanes int, acc value.Value) (value.Value, error)
	store func(lev []value.Value, acc value.Value)
	// slot holds the accumulator of each width (a stack slot SROA turns into a register)
	slot func(lanes int) (value.Value, types.Type)
}

// windowFor emits the loop of the accumulator's level: vectors of vl results while they fit,
// then one result at a time, each accumulated over the window the loop body scans. A body
// whose bounds or guards depend on the level (the lanes would not share their window) runs
// one result at a time throughout.
func (e *astEmitter) windowFor(n *volume.For, lo, hi value.Value, step int64) error {
	fb := e.fb
	w := e.win
	dim := n.Dim
	if step == 1 && w.vl > 1 && !nodeUsesLevel(n.Body, dim) {
		pre := fb.cur
		header := fb.newBlock("win.header")
		body := fb.newBlock("win.body")
		exit := fb.newBlock("win.exit")
		pre.NewBr(header)
		iv := header.NewPhi(llvm.NewIncoming(lo, pre))
		fb.known(iv, gcd(fb.multipleOf(lo), int64(w.vl)))
		last := header.NewAdd(iv, i64(int64(w.vl-1)))
		header.NewCondBr(header.NewICmp(enum.IPredSLE, last, hi), body, exit)
		fb.cur = body
		e.lev[dim] = iv
		if err := e.windowPoint(n.Body, w.vl); err != nil {
			return err
		}
		next := fb.cur.NewAdd(iv, i64(int64(w.vl)))
		iv.Incs = append(iv.Incs, llvm.NewIncoming(next, fb.cur))
		fb.cur.NewBr(header)
		fb.cur = exit
		if l, ok := isConst(lo); ok {
			if h, ok := isConst(hi); ok && (h-l+1)%int64(w.vl) == 0 {
				return nil // the vectors cover lo..hi
			}
		}
		lo = iv
	}
	return fb.loop(lo, hi, step, "win.rem", func(r value.Value) error {
		e.lev[dim] = r
		return e.windowPoint(n.Body, 0)
	})
}

// windowPoint accumulates the results at the current level point (lanes of them, or one) over
// the window body scans, and stores them.
func (e *astEmitter) windowPoint(body volume.Node, lanes int) error {
	fb := e.fb
	w := e.win
	slot, t := w.slot(lanes)
	fb.cur.NewStore(w.load(e.lev, lanes), slot)
	leaf := e.leaf
	defer func() { e.leaf = leaf }()
	e.leaf = func(lev []value.Value) error {
		v, err := w.step(lev, lanes, fb.cur.NewLoad(t, slot))
		if err != nil {
			return err
		}
		fb.cur.NewStore(v, slot)
		return nil
	}
	if err := e.emit(body); err != nil {
		return err
	}
	w.store(e.lev, fb.cur.NewLoad(t, slot))
	return nil
}

// nodeUsesLevel reports whether an AST's bounds, guards or assignments read level l.
func nodeUsesLevel(n volume.Node, l int) bool {
	uses := func(as ...volume.Aff) bool {
		for _, a := range as {
			if coefOf(a, l) != 0 || floorsUse(a, l) {
				return true
			}
		}
		return false
	}
	switch n := n.(type) {
	case *volume.Block:
		for _, c := range n.Nodes {
			if nodeUsesLevel(c, l) {
				return true
			}
		}
	case *volume.For:
		return uses(n.Lower...) || uses(n.Upper...) || n.Stride > 1 && uses(n.Offset) || nodeUsesLevel(n.Body, l)
	case *volume.If:
		for _, c := range n.Conds {
			if uses(c.Aff) {
				return true
			}
		}
		return nodeUsesLevel(n.Then, l)
	case *volume.Assign:
		return uses(n.Value) || nodeUsesLevel(n.Body, l)
	}
	return false
}

// windowAccumulator returns the accumulator of a windowed reduction ("window-acc" strategy)
// whose levels toDims maps to the op's dims.
func (kb *kernelBuilder) windowAccumulator(toDims func([]value.Value) []value.Value) *windowAcc {
	op := kb.op
	fb := kb.fb
	elem := op.Result.Type.Elem
	level := kb.strat.windowLevel
	d := kb.strat.perm[level]
	out := op.Out.Pieces[0].Index
	off := func(lev []value.Value) value.Value { return fb.offset(kb.res, fb.indexAt(out, toDims(lev))) }
	slots := map[int]value.Value{}
	// step combines the body of o (op or a specialisation of it) at dims into acc
	step := func(o *ir.Op, dims []value.Value, lanes int, acc value.Value) (value.Value, error) {
		kb.op = o
		defer func() { kb.op = op }()
		bc := &bodyCtx{kb: kb, fb: fb, op: o, dims: dims, vl: lanes, inner: d, memo: map[*ir.Scalar]value.Value{}}
		v, err := bc.emit(o.Body)
		if err != nil {
			return nil, err
		}
		if o.Body.Type != elem {
			if v, err = bc.cast(v, o.Body.Type, elem); err != nil {
				return nil, err
			}
		}
		return bc.combine(o.Reduce, elem, acc, v)
	}
	k := guardedRead(op)
	var defined, undefined *ir.Op
	if k >= 0 {
		defined, undefined = specialize(op, map[int]bool{k: true}, true), specialize(op, map[int]bool{k: true}, false)
	}
	return &windowAcc{
		level: level,
		vl:    kb.strat.vl,
		load: func(lev []value.Value, lanes int) value.Value {
			if kb.fromInitValue {
				// the value emitInit would have stored
				bc := &bodyCtx{kb: kb, fb: fb, op: op, vl: lanes}
				return bc.splatValue(fb.toReg(memConst(elem, op.Init), elem))
			}
			if lanes > 0 {
				return fb.vectorLoad(kb.res, off(lev), lanes)
			}
			return fb.loadElem(kb.res, off(lev))
		},
		step: func(lev []value.Value, lanes int, acc value.Value) (value.Value, error) {
			dims := toDims(lev)
			if k < 0 {
				return step(op, dims, lanes, acc)
			}
			// the guard of the one guarded read is the same for every lane (vectorLanes): a
			// branch to the body specialised for a defined read (unguarded) or an undefined
			// one (a pool's padding: the select takes its identity arm, which LLVM folds
			// away), rather than a select of both on every tap
			bc := &bodyCtx{kb: kb, fb: fb, op: op, dims: dims, memo: map[*ir.Scalar]value.Value{}}
			cond := kb.avail(bc, k)
			if c, ok := cond.(*constant.Int); ok {
				return step(map[bool]*ir.Op{true: defined, false: undefined}[c.X.Sign() != 0], dims, lanes, acc)
			}
			then, other, merge := fb.newBlock("win.read"), fb.newBlock("win.pad"), fb.newBlock("win.tap")
			fb.cur.NewCondBr(cond, then, other)
			var incs []*llvm.Incoming
			for _, b := range []struct {
				blk *llvm.Block
				op  *ir.Op
			}{{then, defined}, {other, undefined}} {
				fb.cur = b.blk
				v, err := step(b.op, dims, lanes, acc)
				if err != nil {
					return nil, err
				}
				incs = append(incs, llvm.NewIncoming(v, fb.cur))
				fb.cur.NewBr(merge)
			}
			fb.cur = merge
			return merge.NewPhi(incs...), nil
		},
		store: func(lev []value.Value, acc value.Value) {
			if vt, ok := acc.Type().(*types.VectorType); ok && vt.Len > 1 {
				fb.vectorStore(kb.res, off(lev), acc)
				return
			}
			st := fb.cur.NewStore(fb.toMem(acc, elem), fb.elemPtr(kb.res, off(lev)))
			st.Align = llvm.Align(byteSize(mustMemType(elem)))
		},
		slot: func(lanes int) (value.Value, types.Type) {
			t := vecType(regType(elem), lanes)
			if slots[lanes] == nil {
				slots[lanes] = kb.entryAlloca(t)
			}
			return slots[lanes], t
		},
	}
}

// guardedRead returns the one read of op whose access is guarded (a single piece), or -1 when
// there is none, more than one, or one of several pieces.
func guardedRead(op *ir.Op) int {
	k := -1
	for i, acc := range op.Access {
		if !op.Body.Reads(i) || len(acc.Pieces) == 0 || len(acc.Pieces) == 1 && len(acc.Pieces[0].Guard) == 0 {
			continue
		}
		if k >= 0 || acc.Approx || len(acc.Pieces) != 1 || hasDynRead(op.Body, i) {
			return -1
		}
		k = i
	}
	return k
}

// splitWindow splits a windowed reduction whose one guarded read is guarded along its window
// (a padded pool) into an interior, the result points whose whole window reads defined
// elements, where the read loses its guard (unguarded vectors along the result's unit-stride
// dim, in NCHW as in channels-last), and the border, which keeps the guard: the volume-model
// paper's interior and border partitions. Each result element's window lies in one part, so
// every element is combined in the evaluator's order.
func splitWindow(op *ir.Op) ([]*ir.Op, string) {
	k := guardedRead(op)
	if k < 0 || op.Reduce.IsArg() || len(op.Out.Pieces) != 1 {
		return nil, "a reduction that is not a window with one guarded read"
	}
	if d := outDim(op); d >= 0 && uniformPiece(op.Access[k], d) {
		// channels-last: window-acc branches once per tap on the guard (GoogLeNet's max pools
		// on Zen 3: 0.74 ms unsplit, 0.85 ms split)
		return nil, "the guard is the same for every lane of the result's vectors"
	}
	out := op.Out.Pieces[0].Index
	var par []int
	for i, kind := range op.Iters {
		if kind == ir.Parallel {
			if !indexedBy(out, i) {
				return nil, "a reduction with a parallel dim that indexes no result dim"
			}
			par = append(par, i)
		}
	}
	dom := op.Domain.SetTupleName("")
	params := dom.Params()
	guard := volume.SetFromConstraints(params, "", dom.DimNames(), op.Access[k].Pieces[0].Guard)
	var exprs []volume.Aff
	for _, i := range par {
		exprs = append(exprs, volume.AffDim(i))
	}
	m := volume.MultiAff{Params: params, InDims: op.Dims, Exprs: exprs}.Map()
	// the result points one of whose window points reads outside the guard, on all their
	// window points
	border := dom.Subtract(guard).Apply(m).Preimage(m).Intersect(dom).Coalesce()
	interior := dom.Subtract(border).Coalesce()
	if border.Err() != nil || interior.Err() != nil {
		return nil, "the window's guards are too complex to split"
	}
	if interior.IsEmpty() != volume.No {
		return nil, "no result point reads its whole window inside the guard"
	}
	name := op.Domain.TupleName()
	in := specialize(op, map[int]bool{k: true}, true)
	in.Domain = interior.SetTupleName(name)
	parts := []*ir.Op{in}
	if border.IsEmpty() != volume.Yes {
		b := *op
		b.Domain = border.SetTupleName(name)
		parts = append(parts, &b)
	}
	return parts, ""
}
