// This file splits kernels over threads (issue 33). A kernel that may be split has a twin,
// KERNEL.par, which takes three more arguments after the symbolic dims: the caller's threading
// (const graphc_threading *) and a range [pb, pe) of its split level (splitLevel: the level
// of its scan with the most iterations, a tile coordinate of a register-tile kernel or a dim of
// a nest's loop order). ENTRY_parallel calls the serial kernel when it has no threads, else the
// twin with the whole range (pb = INT64_MIN, pe = INT64_MAX). The twin initialises its result
// when pb = INT64_MIN, computes the bounds [lo, hi] of its split level and, when there are two
// values or more, hands the parallel-for of the threading its task function and a context (its
// arguments, lo, the count, a status): each task calls the twin again with NULL threading and a
// sub-range, which skips the initialisation and clamps every loop of the split level to that
// range, or the serial kernel when it is handed the whole range (one thread).
//
// A level is split only where its iterations write disjoint result elements: a tile
// coordinate, or a nest dim that the result is indexed by. Every element is then computed
// by one task, with the same operations in the same order as in one thread: outputs are
// bit-identical for any number of threads. A nest whose split level is also its vector
// level gets ranges that start at multiples of its vector length (the parallel-for's grain),
// so that the same elements take the vector loop and the scalar remainder.

package lower

import (
	"fmt"
	"math"
	"slices"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// ThreadMode says which parallel entry a module has and what ENTRY runs on.
type ThreadMode int

const (
	// ThreadsNone: one thread, no ENTRY_parallel: the module as before parallel kernels.
	ThreadsNone ThreadMode = iota
	// ThreadsCaller: ENTRY_parallel takes the caller's parallel-for (NULL: serial); ENTRY
	// runs serially. The module references no thread library.
	ThreadsCaller
	// ThreadsPool: as ThreadsCaller, and ENTRY runs on the default pool emitted into the
	// module (pool.ll, over POSIX threads). Freestanding targets (Hexagon) fall back to
	// ThreadsCaller.
	ThreadsPool
)

// Work estimates, in nanoseconds of one core: a kernel is split when its estimated work is at
// least parMinWork, into chunks of at least parChunkWork (waking a sleeping worker costs a few
// microseconds; onnxruntime's users report that threading small ops costs more than it
// gains).
const (
	parMinWork   = 40_000
	parChunkWork = 15_000
	// parTileFlopsPerNs is the rate of register-tile kernels, parPointsPerNs the rate of a
	// nest's points per body operation (vector code)
	parTileFlopsPerNs = 32
	parPointsPerNs    = 4
	// parSymExtent stands for a symbolic extent in the estimates
	parSymExtent = 64
)

// parKernel is the parallel state of a kernel: its extra arguments, the estimated work of
// one call and the alignment of the sub-ranges (the grain is a multiple of it).
type parKernel struct {
	threads, pb, pe *llvm.Param
	work            int64
	task            *llvm.Func
	// serial is the kernel without the parallel arguments, which a task given the whole
	// range calls (one thread then runs the serial code) unless the kernel initialises its
	// result (inits): the serial kernel would initialise it again
	serial *llvm.Func
	inits  bool
}

// threadingType is graphc_threading: { parallel_for, pool }.
func threadingType() *types.StructType {
	task := types.NewPointer(types.NewFunc(types.Void, types.I8Ptr, types.I64, types.I64))
	pf := types.NewPointer(types.NewFunc(types.Void, types.I8Ptr, task, types.I8Ptr, types.I64, types.I64))
	return types.NewStruct(pf, types.I8Ptr)
}

// parallelWork returns the estimated work of the kernel of op planned by kf when it may be
// split over threads, or 0 when it stays serial: integer dot kernels, guard-split parts,
// register tiles with a border nest and transposes stay serial, as do nests with no loop over
// a dim the result is indexed by, and kernels whose work is known to be small.
func (ec *entryCtx) parallelWork(op *ir.Op, kf *kernelForm) int64 {
	if ec.mc.cfg.Threads == ThreadsNone || kf.dot != nil || kf.parts != nil {
		return 0
	}
	points := boxPoints(op.Domain)
	var work int64
	switch {
	case kf.tiles != nil:
		if kf.tiles.border != nil {
			return 0
		}
		work = 2 * points / parTileFlopsPerNs
	case kf.strat != nil && kf.strat.transpose == nil && len(kf.strat.perm) > 0:
		if len(op.Out.Pieces) != 1 || !slices.ContainsFunc(kf.strat.perm, func(d int) bool { return indexedBy(op.Out.Pieces[0].Index, d) }) {
			return 0
		}
		cost := int64(0)
		op.Body.Walk(func(*ir.Scalar) { cost++ })
		work = points * max(cost, 1) / parPointsPerNs
		if kf.strat.vl == 0 {
			work *= 4
		}
	default:
		return 0
	}
	if ec.mc.cfg.SplitAll {
		return max(work, 1)
	}
	if work < parMinWork {
		return 0
	}
	return work
}

// indexedBy reports whether one index of an access is dim d itself, so that distinct values
// of d address distinct elements.
func indexedBy(idx []volume.Aff, d int) bool {
	for _, a := range idx {
		if isDim(a, d) && a.Dims[d] == 1 && a.Const == 0 && len(a.Params) == 0 && len(a.Floors) == 0 {
			return true
		}
	}
	return false
}

// boxPoints estimates the points of a domain: the product of its box's extents, a symbolic
// extent counting parSymExtent.
func boxPoints(s volume.Set) int64 {
	lo, hi, err := constBounds(s)
	points := int64(1)
	for d := 0; d < s.NDim(); d++ {
		ext := int64(parSymExtent)
		if err == nil && d < len(lo) {
			ext = hi[d] - lo[d] + 1
		}
		if ext <= 0 {
			return 0
		}
		if points > math.MaxInt64/ext/64 {
			return math.MaxInt64 / 64
		}
		points *= ext
	}
	return points
}

// addParams appends the parallel arguments to a kernel's parameters.
func (pk *parKernel) addParams(ps []*llvm.Param) []*llvm.Param {
	pk.threads = llvm.NewParam("threads", types.NewPointer(threadingType()))
	pk.threads.Attrs = append(pk.threads.Attrs, enum.ParamAttrNoCapture, enum.ParamAttrReadOnly)
	pk.pb = llvm.NewParam("pb", types.I64)
	pk.pe = llvm.NewParam("pe", types.I64)
	return append(ps, pk.threads, pk.pb, pk.pe)
}

// wholeRange reports whether the kernel runs its whole range (not a task's sub-range).
func (kb *kernelBuilder) wholeRange() value.Value {
	return kb.fb.cur.NewICmp(enum.IPredEQ, kb.par.pb, i64(math.MinInt64))
}

// splitLevel chooses the level of the scans roots to split: among the levels whose loops
// take more than one value and whose bounds depend on the graph's symbolic dims only (not on
// the levels around them), and that okLevel accepts, the one with the most iterations (known
// from constant bounds; the first such level when none is constant), the outermost on ties,
// and a level other than vecLevel when there is one. Splitting a level below the outermost
// one leaves each task the loops above it whole: a register-tile kernel of 128 channels, 3
// columns of tiles visited outermost, splits its 28 rows instead (2 threads on 3 columns would
// wait for the third). It returns the level's loops and assignments; ok is false when no level
// qualifies.
func splitLevel(roots []volume.Node, params []string, vecLevel int, okLevel func(int) bool) (level int, fors []*volume.For, assigns []*volume.Assign, ok bool) {
	known := map[string]bool{}
	for _, p := range params {
		known[p] = true
	}
	onlyParams := func(as ...[]volume.Aff) bool {
		for _, l := range as {
			for _, a := range l {
				if len(a.Floors) > 0 {
					return false
				}
				for _, c := range a.Dims {
					if c != 0 {
						return false
					}
				}
				for _, p := range a.Params {
					if !known[p.Name] {
						return false
					}
				}
			}
		}
		return true
	}
	type candidate struct {
		level   int
		fors    []*volume.For
		assigns []*volume.Assign
		trips   int64 // 0: not constant
	}
	var best *candidate
	better := func(c *candidate) bool {
		switch {
		case best == nil:
			return true
		case (c.level == vecLevel) != (best.level == vecLevel):
			return best.level == vecLevel
		}
		return c.trips > best.trips
	}
	frontier := roots
	for level = 0; len(frontier) > 0; level++ {
		var fs []*volume.For
		var as []*volume.Assign
		good := true
		var walk func(n volume.Node)
		walk = func(n volume.Node) {
			switch n := n.(type) {
			case nil:
			case *volume.Block:
				for _, c := range n.Nodes {
					walk(c)
				}
			case *volume.If:
				walk(n.Then)
			case *volume.For:
				if n.Dim != level || len(n.Lower) == 0 || len(n.Upper) == 0 {
					good = false
				}
				fs = append(fs, n)
			case *volume.Assign:
				if n.Dim != level {
					good = false
				}
				as = append(as, n)
			default:
				good = false // a leaf: no deeper level
			}
		}
		for _, r := range frontier {
			walk(r)
		}
		if !good || len(fs)+len(as) == 0 {
			break
		}
		frontier = nil
		for _, f := range fs {
			frontier = append(frontier, f.Body)
		}
		for _, a := range as {
			frontier = append(frontier, a.Body)
		}
		// the level's values: one (every loop has equal constant bounds) or more
		c := &candidate{level: level, fors: fs, assigns: as}
		multi, constant, bounded := false, true, true
		lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
		for _, f := range fs {
			l, lok := constExtreme(f.Lower, true)
			h, hok := constExtreme(f.Upper, false)
			if !lok || !hok {
				constant, multi = false, true
			} else {
				lo, hi = min(lo, l), max(hi, h)
				multi = multi || l != h
			}
			bounded = bounded && onlyParams(f.Lower, f.Upper)
		}
		for _, a := range as {
			if v, vok := a.Value.IsConst(); vok {
				lo, hi = min(lo, v), max(hi, v)
			} else {
				constant = false
			}
			bounded = bounded && onlyParams([]volume.Aff{a.Value})
		}
		if constant {
			multi = hi > lo
			c.trips = hi - lo + 1
		}
		if !multi || !bounded || !okLevel(level) {
			continue
		}
		if !constant && best != nil {
			continue // a symbolic level after a constant one: keep the constant one
		}
		if better(c) {
			best = c
		}
		if !constant {
			break // the first level of symbolic extent: no comparison with deeper ones
		}
	}
	if best == nil {
		return 0, nil, nil, false
	}
	return best.level, best.fors, best.assigns, true
}

// dispatch emits, at the start of the scans roots (of one plan of the kernel), the hand-off
// of the split level (splitLevel; okLevel says which levels may be split) to the caller's
// parallel-for, and returns the range the loops of that level are clamped to (nil: none).
// align > 1 asks for sub-ranges starting at lo plus multiples of align; vecLevel is the vector
// level of the scan (-1: none), which must be one loop when it is split, so that the vector
// loop starts where the serial one does.
func (kb *kernelBuilder) dispatch(roots []volume.Node, align int64, vecLevel int, okLevel func(int) bool) *levelClamp {
	pk := kb.par
	if pk == nil {
		return nil
	}
	level, fors, assigns, ok := splitLevel(roots, kb.ec.g.Params, vecLevel, okLevel)
	// without a level to split, the kernel runs serially (and its whole range: pb is
	// INT64_MIN, as its tasks are never called)
	clamp := &levelClamp{pb: pk.pb, pe: pk.pe, align: 1, level: level}
	if !ok || level == vecLevel && (len(fors) != 1 || len(assigns) > 0) {
		return clamp
	}
	if level == vecLevel {
		// the sub-ranges start at lo plus multiples of align: the clamped start of the one
		// loop of the level is lo modulo align
		clamp.align = align
	}
	fb := kb.fb
	var lo, hi value.Value
	widen := func(l, h value.Value) {
		if lo == nil {
			lo, hi = l, h
			return
		}
		lo, hi = fb.smin(lo, l), fb.smax(hi, h)
	}
	for _, f := range fors {
		var l, h value.Value
		for i, b := range f.Lower {
			if v := fb.aff(b, nil); i == 0 {
				l = v
			} else {
				l = fb.smax(l, v)
			}
		}
		for i, b := range f.Upper {
			if v := fb.aff(b, nil); i == 0 {
				h = v
			} else {
				h = fb.smin(h, v)
			}
		}
		widen(l, h)
	}
	for _, a := range assigns {
		v := fb.aff(a.Value, nil)
		widen(v, v)
	}
	n := fb.add(fb.sub(hi, lo), i64(1))
	// go parallel: a threading was given, this is the whole range, and there are two chunks
	wantsPar := fb.and1(fb.cur.NewICmp(enum.IPredNE, pk.threads, constant.NewNull(pk.threads.Typ.(*types.PointerType))),
		fb.and1(kb.wholeRange(), fb.cur.NewICmp(enum.IPredSGE, n, i64(2))))
	par := fb.newBlock("par")
	serial := fb.newBlock("par.serial")
	fb.cur.NewCondBr(wantsPar, par, serial)
	fb.cur = par
	kb.emitParallelFor(lo, n, clamp.align)
	fb.cur = serial
	return clamp
}

// emitParallelFor emits the call of the threading's parallel-for over the n values of the
// split level from lo, in chunks of a multiple of align, with the kernel's task function, and
// returns the tasks' status.
func (kb *kernelBuilder) emitParallelFor(lo, n value.Value, align int64) {
	fb := kb.fb
	pk := kb.par
	f := fb.f
	// the context: every argument of the kernel but the parallel ones, lo, and the status
	nargs := len(f.Params) - 3
	var fields []types.Type
	for _, p := range f.Params[:nargs] {
		fields = append(fields, p.Typ)
	}
	fields = append(fields, types.I64, types.I64, types.I32)
	ct := types.NewStruct(fields...)
	ctx := kb.entryAlloca(ct)
	field := func(i int) value.Value {
		return fb.cur.NewGetElementPtr(ct, ctx, i32c(0), i32c(int64(i)))
	}
	for i, p := range f.Params[:nargs] {
		fb.cur.NewStore(p, field(i))
	}
	fb.cur.NewStore(lo, field(nargs))
	fb.cur.NewStore(n, field(nargs+1))
	fb.cur.NewStore(i32c(statusOK), field(nargs+2))
	// the grain: at least parChunkWork of the kernel's work, a multiple of align
	var grain value.Value = fb.cur.NewSDiv(fb.mul(n, i64(parChunkWork)), i64(pk.work))
	if kb.ec.mc.cfg.SplitAll {
		grain = i64(1)
	}
	if align > 1 {
		grain = fb.cur.NewMul(fb.cur.NewSDiv(fb.add(grain, i64(align-1)), i64(align)), i64(align))
	}
	g := fb.smax(grain, i64(max(align, 1)))
	tt := threadingType()
	pf := fb.cur.NewLoad(tt.Fields[0], fb.cur.NewGetElementPtr(tt, pk.threads, i32c(0), i32c(0)))
	pool := fb.cur.NewLoad(types.I8Ptr, fb.cur.NewGetElementPtr(tt, pk.threads, i32c(0), i32c(1)))
	fb.cur.NewCall(pf, pool, kb.taskFunc(ct), fb.cur.NewBitCast(ctx, types.I8Ptr), n, g)
	fb.cur.NewRet(fb.cur.NewLoad(types.I32, field(nargs+2)))
}

// taskFunc returns the kernel's task function, void KERNEL.task(i8 *ctx, i64 b, i64 e): it
// calls the split kernel on the split level's values [lo + b, lo + e) without threading, or
// the serial kernel for the whole range [0, n) (one thread: the serial code) when it has no
// initialisation to repeat, and records a non-zero status (the largest).
func (kb *kernelBuilder) taskFunc(ct *types.StructType) *llvm.Func {
	pk := kb.par
	if pk.task != nil {
		return pk.task
	}
	mc := kb.ec.mc
	kf := kb.fb.f
	pc := llvm.NewParam("ctx", types.I8Ptr)
	pb := llvm.NewParam("b", types.I64)
	pe := llvm.NewParam("e", types.I64)
	f := mc.m.NewFunc(kf.Name()+".task", types.Void, pc, pb, pe)
	f.Linkage = enum.LinkageInternal
	mc.defineAttrs(f)
	blk := f.NewBlock("entry")
	ctx := blk.NewBitCast(pc, types.NewPointer(ct))
	nargs := len(kf.Params) - 3
	var args []value.Value
	for i := 0; i < nargs; i++ {
		args = append(args, blk.NewLoad(ct.Fields[i], blk.NewGetElementPtr(ct, ctx, i32c(0), i32c(int64(i)))))
	}
	lo := blk.NewLoad(types.I64, blk.NewGetElementPtr(ct, ctx, i32c(0), i32c(int64(nargs))))
	n := blk.NewLoad(types.I64, blk.NewGetElementPtr(ct, ctx, i32c(0), i32c(int64(nargs+1))))
	whole := blk.NewAnd(blk.NewICmp(enum.IPredEQ, pb, i64(0)), blk.NewICmp(enum.IPredEQ, pe, n))
	all := f.NewBlock("whole")
	part := f.NewBlock("part")
	join := f.NewBlock("join")
	blk.NewCondBr(whole, all, part)
	var rcAll value.Value
	if pk.inits {
		rcAll = all.NewCall(kf, append(append([]value.Value(nil), args...), constant.NewNull(pk.threads.Typ.(*types.PointerType)), all.NewAdd(lo, pb), all.NewAdd(lo, pe))...)
	} else {
		rcAll = all.NewCall(pk.serial, args...)
	}
	all.NewBr(join)
	args = append(args, constant.NewNull(pk.threads.Typ.(*types.PointerType)), part.NewAdd(lo, pb), part.NewAdd(lo, pe))
	rcPart := part.NewCall(kf, args...)
	part.NewBr(join)
	rc := join.NewPhi(llvm.NewIncoming(rcAll, all), llvm.NewIncoming(rcPart, part))
	fail := f.NewBlock("fail")
	done := f.NewBlock("done")
	join.NewCondBr(join.NewICmp(enum.IPredNE, rc, i32c(statusOK)), fail, done)
	st := fail.NewGetElementPtr(ct, ctx, i32c(0), i32c(int64(nargs+2)))
	fail.NewAtomicRMW(enum.AtomicOpMax, st, rc, enum.AtomicOrderingMonotonic)
	fail.NewBr(done)
	done.NewRet(nil)
	pk.task = f
	return f
}

// levelClamp is the range [pb, pe) that the loops of level 0 are clamped to; a sub-range
// starts at the loop's first value plus a multiple of align.
type levelClamp struct {
	pb, pe value.Value
	align  int64
	level  int
}

// apply restricts the bounds [lo, hi] of a loop of level 0 to the range.
func (c *levelClamp) apply(fb *funcBuilder, lo, hi value.Value) (value.Value, value.Value) {
	m := fb.multipleOf(lo)
	l := fb.smax(lo, c.pb)
	fb.known(l, gcd(m, c.align))
	return l, fb.smin(hi, fb.sub(c.pe, i64(1)))
}

// holds returns whether value v of level 0 lies in the range.
func (c *levelClamp) holds(fb *funcBuilder, v value.Value) value.Value {
	return fb.and1(fb.cur.NewICmp(enum.IPredSGE, v, c.pb), fb.cur.NewICmp(enum.IPredSLT, v, c.pe))
}

// ThreadModes are the names of the thread modes, as --threads takes them.
var ThreadModes = map[string]ThreadMode{"none": ThreadsNone, "caller": ThreadsCaller, "pool": ThreadsPool}

// ParseThreadMode returns the mode named s ("pool", "caller" or "none").
func ParseThreadMode(s string) (ThreadMode, error) {
	if m, ok := ThreadModes[s]; ok {
		return m, nil
	}
	return ThreadsNone, fmt.Errorf("unknown thread mode %q (want pool, caller or none)", s)
}
