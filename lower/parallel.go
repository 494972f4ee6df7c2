// This file splits kernels over threads (issue 33). A kernel that may be split has a twin,
// KERNEL.par, which takes four more arguments after the symbolic dims: the caller's threading
// (const graphc_threading *), a range [pb, pe) and a region number. ENTRY_parallel calls the
// serial kernel when it has no threads, else the twin with the whole range (pb = INT64_MIN,
// pe = INT64_MAX).
//
// The twin's body is a sequence of regions (beginRegion, endRegion): a loop nest, a plan of
// register tiles, a block transpose... each with its split level (splitLevel: the level of its
// scan with the most iterations, a tile coordinate of a register-tile kernel or a dim of a
// nest's loop order). Called with the whole range, the twin initialises its result and runs
// its regions in order; a region whose split level has two values or more is handed to the
// parallel-for of the threading, with the kernel's task function and a context (its
// arguments, the level's first value, the count, the region's number, a status). Each task
// calls the twin again with NULL threading, a sub-range and the region's number: the twin
// skips the initialisation and every other region, and clamps the loops of the split level to
// the sub-range. A region with nothing to split runs in the whole-range call only. A task
// handed the whole range of a kernel with one region and no initialisation calls the serial
// kernel (one thread then runs the serial code).
//
// A level is split only where its iterations write disjoint result elements: a tile
// coordinate, or a nest dim that the result is indexed by. Every element is then computed
// by one task, with the same operations in the same order as in one thread: outputs are
// bit-identical for any number of threads. A nest whose split level is also its vector
// level gets ranges that start at multiples of its vector length (the parallel-for's grain),
// so that the same elements take the vector loop and the scalar remainder. Regions run one
// after another (the parallel-for returns when every chunk ran), so a region may read what
// an earlier one wrote (a border nest after the interior's tiles).

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
	parMinWork   = 10_000
	parChunkWork = 5_000
	// parTileFlopsPerNs is the rate of register-tile kernels, parPointsPerNs the rate of a
	// nest's points per body operation (vector code), parScalarSlowdown how much slower a
	// nest without a vector strategy runs (LLVM vectorizes many of them: copies, gathers).
	// Measured on Zen 3, one call of each split kernel of GPT-2, BERT and MobileNetV3 against
	// these estimates: layer norms, softmax, adds, SE products and poolings ran at 0.7-3x
	// the estimate of 12 points per operation per ns (4, the rate before, overestimated
	// them 3-12x: 3 µs layer-norm parts went to the threads as 25 µs), the head-split copies
	// of attention and the embedding gathers (scalar nests) at 2-4x 12/2.
	parTileFlopsPerNs = 32
	parPointsPerNs    = 12
	parScalarSlowdown = 2
	// parIntPointsPerNs is the rate of the integer dot-product and matmul_nbits kernels, in
	// multiply-adds (AVX2's widened pmaddwd runs about half the float tiles' rate; a GEMV
	// on 4-bit weights is bound by their read)
	parIntPointsPerNs = 8
	// parPreferTrips is the fewest values of a level that a kernel splits in preference to
	// others because it divides the result as its operand's producer divided that operand:
	// fewer values (7 rows of a 7×7 image: 4 and 3 on two threads) would cost more in
	// balance than the other core's cache does
	parPreferTrips = 16
	// parPackRows and parColumnTrips: a register-tile kernel whose packed panels are read by
	// fewer rows than parPackRows splits its column tiles rather than its rows, whose tasks
	// would each copy every panel again, when it has at least parColumnTrips column tiles
	// (contraction.repacksWhenSplit: 8 calls of a task cost 48/M of the kernel's work)
	parPackRows    = 1024
	parColumnTrips = 8
	// parGEMVMinWork and parGEMVChunkWork replace parMinWork and parChunkWork for one-row
	// register-tile kernels (a GEMV: a recurrent step's h·Rᵀ, fewRowsShape), which read
	// their weights once: split by columns, each core reads half of them from its own L2 or
	// from L3, and a tile's 64 columns are a chunk's worth. Zen 3, kernels' cycles 1 → 2
	// threads: gru_tagger (steps of 192×576, 6.9 µs estimated) 1.13× → 1.27×; rnn_relu (256×256,
	// 4.1 µs: below the bound) gained nothing split.
	parGEMVMinWork   = 5_000
	parGEMVChunkWork = 500
	// parSymExtent stands for a symbolic extent in the estimates
	parSymExtent = 64
	// cacheLine is the bytes of a cache line (64 on the hosted targets' CPUs)
	cacheLine = 64
)

// parKernel is the parallel state of a kernel: its extra arguments, the estimated work of
// one call and the alignment of the sub-ranges (the grain is a multiple of it).
type parKernel struct {
	// phantoms stand for the dims the serial kernel does not take (kernel_params.go)
	phantoms                map[string]*llvm.Param
	threads, pb, pe, region *llvm.Param
	work                    int64
	// chunkWork is the least work of a chunk (parChunkWork, or parGEMVChunkWork)
	chunkWork int64
	// task is the kernel's task function and ctx the type of its context (taskFunc)
	task *llvm.Func
	ctx  *types.StructType
	// serial is the kernel without the parallel arguments, which a task given the whole
	// range calls (one thread then runs the serial code) when the kernel has one region and
	// does not initialise its result (inits): the serial kernel would initialise it again
	serial *llvm.Func
	inits  bool
	// loops: a region lies inside a loop of the kernel (parallel_tiles.go), whose other
	// iterations a task given the region's whole range must not run
	loops bool
	// splitDim is 1 + the result dim along which the kernel's first split region divides its
	// result (0: none known), which the kernels of its readers prefer to split along too
	splitDim int
	// regions counts the regions begun; ends are the blocks that close the open ones
	regions int
	ends    []*llvm.Block
}

// threadingType is graphc_threading: { parallel_for, pool }.
func threadingType() *types.StructType {
	task := types.NewPointer(types.NewFunc(types.Void, types.I8Ptr, types.I64, types.I64))
	pf := types.NewPointer(types.NewFunc(types.Void, types.I8Ptr, task, types.I8Ptr, types.I64, types.I64))
	return types.NewStruct(pf, types.I8Ptr)
}

// parallelWork returns the estimated work of the kernel of op planned by kf when it may be
// split over threads, or 0 when it stays serial: a depthwise integer convolution over NCHW
// (each channel's copy fills the one scratch), nests with no loop over a dim the result is
// indexed by, and kernels whose work is known to be small stay serial.
func (ec *entryCtx) parallelWork(op *ir.Op, kf *kernelForm) int64 {
	if ec.mc.cfg.Threads == ThreadsNone || kf.dot != nil && kf.dot.depthwise && !kf.dot.nhwc {
		return 0
	}
	points := boxPoints(op.Domain)
	cost := int64(0)
	op.Body.Walk(func(*ir.Scalar) { cost++ })
	nest := func(st *strategy) int64 {
		w := points * max(cost, 1) / parPointsPerNs
		if st == nil || st.vl == 0 && st.transpose == nil {
			w *= parScalarSlowdown
		}
		return w
	}
	var work int64
	minWork := int64(parMinWork)
	switch {
	case kf.dot != nil || kf.nbits != nil:
		// integer dot products and block-quantized products: split over output tiles
		// (parallel_tiles.go); a point is a multiply-add
		work = points / parIntPointsPerNs
	case kf.tiles != nil:
		// (a border nest, if any, runs on the points the tiles leave: counted as tiles)
		work = 2 * points / parTileFlopsPerNs
		if gemvTiles(kf.tiles) {
			minWork = parGEMVMinWork
		}
	case kf.parts != nil:
		// the parts the kernel emits (not an interior its producer wrote in place), counted
		// exactly: a padding copy's border strips span the whole box. Only parts that split
		// on their own count (serialPart)
		for _, i := range ec.copyParts(op, kf.parts) {
			if w := partWork(kf.parts[i], kf.partStrats[i], cost); w >= parMinWork || ec.mc.cfg.SplitAll {
				work += w
			}
		}
	case kf.strat != nil && kf.strat.transpose != nil:
		work = nest(kf.strat)
	case kf.strat != nil && len(kf.strat.perm) > 0:
		if len(op.Out.Pieces) != 1 || !slices.ContainsFunc(kf.strat.perm, func(d int) bool { return indexedBy(op.Out.Pieces[0].Index, d) }) {
			return 0
		}
		work = nest(kf.strat)
	default:
		return 0
	}
	if ec.mc.cfg.SplitAll {
		return max(work, 1)
	}
	if work < minWork {
		return 0
	}
	return work
}

// gemvTiles reports whether a register-tile plan has tiles of one row (a GEMV).
func gemvTiles(c *contraction) bool {
	return c.mr == 1 && len(c.small) == 0
}

// chunkWork returns the least work of a chunk of the split kernel of kf.
func chunkWork(kf *kernelForm) int64 {
	if kf.tiles != nil && gemvTiles(kf.tiles) {
		return parGEMVChunkWork
	}
	return parChunkWork
}

// partWork estimates the work of one part of a kernel split along its reads' guards (cost:
// the operations of the op's body per point).
func partWork(part *ir.Op, st *strategy, cost int64) int64 {
	n := boxPoints(part.Domain)
	if c, err := part.Domain.Card(nil); err == nil {
		n = min(n, c)
	}
	w := n * max(cost, 1) / parPointsPerNs
	if st == nil || st.vl == 0 {
		w *= parScalarSlowdown
	}
	return w
}

// serialPart reports whether a part of a split kernel is too small to split on its own
// (partWork below parMinWork): its region then runs in the whole-range call only. A
// recurrent layer's outputs stacked from its steps (64 parts of 192 elements each) launched
// one parallel-for per step, 4.5x slower on two threads than on one.
func (ec *entryCtx) serialPart(op, part *ir.Op, st *strategy) bool {
	if ec.mc.cfg.SplitAll {
		return false
	}
	cost := int64(0)
	op.Body.Walk(func(*ir.Scalar) { cost++ })
	return partWork(part, st, cost) < parMinWork
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
	pk.region = llvm.NewParam("region", types.I64)
	return append(ps, pk.threads, pk.pb, pk.pe, pk.region)
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
//
// prefer (nil: none) marks the levels along which a reader would find its operand where the
// thread that runs it wrote it (consistentLevel): such a level wins over the others when it has
// at least parPreferTrips values (or a symbolic count), so that each thread splits it as
// evenly as the others.
func splitLevel(roots []volume.Node, params []string, vecLevel int, okLevel, prefer func(int) bool) (level int, fors []*volume.For, assigns []*volume.Assign, trips int64, ok bool) {
	level, fors, assigns, trips, _, ok = splitLevels(roots, params, vecLevel, okLevel, prefer)
	return level, fors, assigns, trips, ok
}

// constLevel is a level that splitLevels found splittable with constant values [lo, hi].
type constLevel struct {
	level  int
	lo, hi int64
}

// splitLevels is splitLevel, and also returns every level it considered that has constant
// values, in order (the inner levels of a two-level split).
func splitLevels(roots []volume.Node, params []string, vecLevel int, okLevel, prefer func(int) bool) (level int, fors []*volume.For, assigns []*volume.Assign, trips int64, consts []constLevel, ok bool) {
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
		pref    bool
	}
	var best *candidate
	better := func(c *candidate) bool {
		switch {
		case best == nil:
			return true
		case c.pref != best.pref:
			return c.pref
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
		// a vector level splits only as one loop (dispatch)
		c.pref = prefer != nil && prefer(level) && (c.trips == 0 || c.trips >= parPreferTrips) &&
			(level != vecLevel || len(fs) == 1 && len(as) == 0)
		if !constant && best != nil {
			continue // a symbolic level after a constant one: keep the constant one
		}
		if constant {
			consts = append(consts, constLevel{level: level, lo: lo, hi: hi})
		}
		if better(c) {
			best = c
		}
		if !constant {
			break // the first level of symbolic extent: no comparison with deeper ones
		}
	}
	if best == nil {
		return 0, nil, nil, 0, consts, false
	}
	return best.level, best.fors, best.assigns, best.trips, consts, true
}

// dispatch begins a region (beginRegion) for the scans roots (of one plan of the kernel): its
// split level is chosen by splitLevel (okLevel says which levels may be split), and it returns
// the range the loops of that level are clamped to (nil: no level, the region runs in the
// whole-range call only). align > 1 asks for sub-ranges starting at lo plus multiples of
// align; vecLevel is the vector level of the scan (-1: none), which must be one loop when it
// is split, so that the vector loop starts where the serial one does. unitLevel is the level
// whose values are adjacent elements of the result (-1: none): split there, sub-ranges cover
// whole cache lines, so that no two threads write one line (a global average pool's
// channels, chunks of 4 of which shared a line, ran 4x slower on two threads than on one).
// The caller ends the region (endRegion) after the scans.
//
// levelDim gives the domain dim of each level (-1: none), by which the split prefers the
// level of an operand's producer (consistentLevel) and records its own (splitDim).
func (kb *kernelBuilder) dispatch(roots []volume.Node, align int64, vecLevel, unitLevel int, okLevel func(int) bool, levelDim func(int) int) *levelClamp {
	return kb.dispatchNarrow(roots, align, vecLevel, unitLevel, okLevel, nil, 0, false, levelDim)
}

// dispatchNarrow is dispatch, restricted to the levels that narrow accepts (nil: none) when
// one of them has at least minTrips values (or a symbolic count): a register-tile kernel
// splits its column tiles, whose packed panels each task then copies once, rather than rows
// whose tasks would each copy every panel again (contraction.repackLevel).
//
// With pairs (the levels' loops take no vector strategy: register tiles), a chosen level of
// fewer values (minTrips, else parPreferTrips) splits pairs of its values and a deeper
// level's (pairWith, levelClamp).
func (kb *kernelBuilder) dispatchNarrow(roots []volume.Node, align int64, vecLevel, unitLevel int, okLevel, narrow func(int) bool, minTrips int64, pairs bool, levelDim func(int) int) *levelClamp {
	pk := kb.par
	if pk == nil {
		return nil
	}
	prefer := kb.consistentLevel(levelDim)
	level, fors, assigns, trips, ok := 0, []*volume.For(nil), []*volume.Assign(nil), int64(0), false
	var consts []constLevel
	if narrow != nil {
		level, fors, assigns, trips, consts, ok = splitLevels(roots, kb.ec.g.Params, vecLevel, func(l int) bool { return okLevel(l) && narrow(l) }, prefer)
		if ok && trips > 0 && trips < minTrips && pairs {
			if outer, p := pairWith(level, trips, consts, minTrips); p != nil {
				return kb.beginPairRegion(level, outer, p, levelDim)
			}
		}
		ok = ok && (trips == 0 || trips >= minTrips)
	}
	if !ok {
		level, fors, assigns, trips, consts, ok = splitLevels(roots, kb.ec.g.Params, vecLevel, okLevel, prefer)
		if ok && trips > 0 && trips < parPreferTrips && pairs {
			if outer, p := pairWith(level, trips, consts, parPreferTrips); p != nil {
				return kb.beginPairRegion(level, outer, p, levelDim)
			}
		}
	}
	if !ok || kb.serial || level == vecLevel && (len(fors) != 1 || len(assigns) > 0) {
		return kb.beginRegion(nil, nil, 1, 0)
	}
	if pk.splitDim == 0 {
		pk.splitDim = kb.resultDimOf(levelDim(level)) + 1
	}
	if level != vecLevel {
		align = 1
	}
	if level == unitLevel {
		line := int64(max(cacheLine/kb.op.Result.Type.Elem.Size(), 1))
		align = align * line / gcd(align, line)
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
	// the sub-ranges start at lo plus multiples of align: the clamped start of the one loop
	// of a vector level is lo modulo align
	return kb.beginRegion(lo, hi, align, level)
}

// pairWith returns the two-level split of level (trips values) with another level of
// constant values (consts), the one that gives the most pairs, when they number at least
// want (nil: none). The shallower of the two is the clamp's level, the deeper pair.inner.
func pairWith(level int, trips int64, consts []constLevel, want int64) (outer int, p *levelPair) {
	var self *constLevel
	for i := range consts {
		if consts[i].level == level {
			self = &consts[i]
		}
	}
	if self == nil {
		return 0, nil
	}
	for i := range consts {
		c := &consts[i]
		n := c.hi - c.lo + 1
		if c.level == level || n < 2 || trips > math.MaxInt32/n {
			continue
		}
		if p != nil && trips*n <= p.pairs {
			continue
		}
		o, in := self, c
		if c.level < level {
			o, in = c, self
		}
		outer = o.level
		p = &levelPair{inner: in.level, lo: o.lo, innerLo: in.lo, n: in.hi - in.lo + 1, pairs: trips * n}
	}
	if p == nil || p.pairs < want {
		return 0, nil
	}
	return outer, p
}

// beginPairRegion begins the region of a two-level split (levelClamp) of levels outer and
// p.inner, for the split of level (one of them: the dim its result records).
func (kb *kernelBuilder) beginPairRegion(level, outer int, p *levelPair, levelDim func(int) int) *levelClamp {
	pk := kb.par
	if pk.splitDim == 0 {
		pk.splitDim = kb.resultDimOf(levelDim(level)) + 1
	}
	c := kb.beginRegion(i64(0), i64(p.pairs-1), 1, outer)
	c.pair = p
	return c
}

// beginRegion begins a region of the kernel's twin whose split level takes the values
// [lo, hi] (nil: nothing to split) and returns the clamp of that level, the level of the
// region's loops that the caller clamps (nil when lo is nil). With the whole range, the region
// goes to the threading's parallel-for when there are threads and two values or more (the
// call then continues after the region), else runs here; a task runs it, clamped, when it
// is the task's region, else skips it. The region's code follows; endRegion closes it.
func (kb *kernelBuilder) beginRegion(lo, hi value.Value, align int64, level int) *levelClamp {
	pk := kb.par
	fb := kb.fb
	k := pk.regions
	pk.regions++
	body := fb.newBlock("region.body")
	end := fb.newBlock("region.end")
	pk.ends = append(pk.ends, end)
	if lo == nil {
		fb.cur.NewCondBr(kb.wholeRange(), body, end)
		fb.cur = body
		return nil
	}
	whole := fb.newBlock("region.whole")
	task := fb.newBlock("region.task")
	fb.cur.NewCondBr(kb.wholeRange(), whole, task)
	task.NewCondBr(task.NewICmp(enum.IPredEQ, pk.region, i64(int64(k))), body, end)
	fb.cur = whole
	n := fb.add(fb.sub(hi, lo), i64(1))
	// go parallel: a threading was given and there are two values or more
	wantsPar := fb.and1(fb.cur.NewICmp(enum.IPredNE, pk.threads, constant.NewNull(pk.threads.Typ.(*types.PointerType))),
		fb.cur.NewICmp(enum.IPredSGE, n, i64(2)))
	par := fb.newBlock("region.par")
	fb.cur.NewCondBr(wantsPar, par, body)
	fb.cur = par
	kb.emitParallelFor(lo, n, align, k, end)
	fb.cur = body
	return &levelClamp{pb: pk.pb, pe: pk.pe, align: max(align, 1), level: level}
}

// endRegion closes the innermost open region: the code emitted next runs after it, in the
// whole-range call and in every task.
func (kb *kernelBuilder) endRegion() {
	pk := kb.par
	if pk == nil || len(pk.ends) == 0 {
		return
	}
	end := pk.ends[len(pk.ends)-1]
	pk.ends = pk.ends[:len(pk.ends)-1]
	kb.fb.cur.NewBr(end)
	kb.fb.cur = end
	kb.clamp = nil
}

// emitParallelFor emits the call of the threading's parallel-for over the n values of
// region k's split level from lo, in chunks of a multiple of align, with the kernel's task
// function; the call returns the tasks' status when one failed, else goes on at next.
func (kb *kernelBuilder) emitParallelFor(lo, n value.Value, align int64, k int, next *llvm.Block) {
	fb := kb.fb
	pk := kb.par
	f := fb.f
	task := kb.taskFunc()
	ct := pk.ctx
	// the context: every argument of the kernel but the parallel ones, lo, n, the region and
	// the status
	nargs := len(f.Params) - 4
	ctx := kb.entryAlloca(ct)
	field := func(i int) value.Value {
		return fb.cur.NewGetElementPtr(ct, ctx, i32c(0), i32c(int64(i)))
	}
	for i, p := range f.Params[:nargs] {
		fb.cur.NewStore(p, field(i))
	}
	fb.cur.NewStore(lo, field(nargs))
	fb.cur.NewStore(n, field(nargs+1))
	fb.cur.NewStore(i64(int64(k)), field(nargs+2))
	fb.cur.NewStore(i32c(statusOK), field(nargs+3))
	// the grain: at least parChunkWork (chunkWork) of the kernel's work, a multiple of align
	cw := pk.chunkWork
	if cw == 0 {
		cw = parChunkWork
	}
	var grain value.Value = fb.cur.NewSDiv(fb.mul(n, i64(cw)), i64(pk.work))
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
	fb.cur.NewCall(pf, pool, task, fb.cur.NewBitCast(ctx, types.I8Ptr), n, g)
	rc := fb.cur.NewLoad(types.I32, field(nargs+3))
	fail := fb.newBlock("region.fail")
	fb.cur.NewCondBr(fb.cur.NewICmp(enum.IPredEQ, rc, i32c(statusOK)), next, fail)
	fail.NewRet(rc)
}

// taskFunc returns the kernel's task function, void KERNEL.task(i8 *ctx, i64 b, i64 e),
// declared on first use; finishTask gives it its body once the kernel's regions are known.
func (kb *kernelBuilder) taskFunc() *llvm.Func {
	pk := kb.par
	if pk.task != nil {
		return pk.task
	}
	kf := kb.fb.f
	var fields []types.Type
	for _, p := range kf.Params[:len(kf.Params)-4] {
		fields = append(fields, p.Typ)
	}
	pk.ctx = types.NewStruct(append(fields, types.I64, types.I64, types.I64, types.I32)...)
	mc := kb.ec.mc
	f := mc.m.NewFunc(kf.Name()+".task", types.Void, llvm.NewParam("ctx", types.I8Ptr), llvm.NewParam("b", types.I64), llvm.NewParam("e", types.I64))
	f.Linkage = enum.LinkageInternal
	mc.defineAttrs(f)
	pk.task = f
	return f
}

// finishTask emits the body of the kernel's task function (if it has one): it calls the
// twin on the split level's values [lo + b, lo + e) of its region without threading, or the
// serial kernel for the whole range [0, n) when the kernel has one region and no
// initialisation to repeat, and records a non-zero status (the largest).
func (pk *parKernel) finishTask(kf *llvm.Func) {
	f := pk.task
	if f == nil {
		return
	}
	ct := pk.ctx
	pc, pb, pe := f.Params[0], f.Params[1], f.Params[2]
	blk := f.NewBlock("entry")
	ctx := blk.NewBitCast(pc, types.NewPointer(ct))
	nargs := len(kf.Params) - 4
	field := func(b *llvm.Block, i int) value.Value {
		return b.NewGetElementPtr(ct, ctx, i32c(0), i32c(int64(i)))
	}
	var args []value.Value
	for i := 0; i < nargs; i++ {
		args = append(args, blk.NewLoad(ct.Fields[i], field(blk, i)))
	}
	lo := blk.NewLoad(types.I64, field(blk, nargs))
	n := blk.NewLoad(types.I64, field(blk, nargs+1))
	region := blk.NewLoad(types.I64, field(blk, nargs+2))
	part := f.NewBlock("part")
	join := f.NewBlock("join")
	var rcAll value.Value
	all := f.NewBlock("whole")
	if !pk.inits && !pk.loops && pk.regions == 1 {
		whole := blk.NewAnd(blk.NewICmp(enum.IPredEQ, pb, i64(0)), blk.NewICmp(enum.IPredEQ, pe, n))
		blk.NewCondBr(whole, all, part)
		rcAll = all.NewCall(pk.serial, args...)
	} else {
		blk.NewBr(part)
		rcAll = i32c(statusOK)
	}
	all.NewBr(join)
	args = append(args, constant.NewNull(pk.threads.Typ.(*types.PointerType)), part.NewAdd(lo, pb), part.NewAdd(lo, pe), region)
	rcPart := part.NewCall(kf, args...)
	part.NewBr(join)
	rc := join.NewPhi(llvm.NewIncoming(rcAll, all), llvm.NewIncoming(rcPart, part))
	fail := f.NewBlock("fail")
	done := f.NewBlock("done")
	join.NewCondBr(join.NewICmp(enum.IPredNE, rc, i32c(statusOK)), fail, done)
	fail.NewAtomicRMW(enum.AtomicOpMax, field(fail, nargs+3), rc, enum.AtomicOrderingMonotonic)
	fail.NewBr(done)
	done.NewRet(nil)
}

// levelClamp is the range [pb, pe) that the loops of a level are clamped to; a sub-range
// starts at the loop's first value plus a multiple of align.
//
// A two-level clamp (pair not nil) splits the pairs of values of two levels instead, the
// level and a deeper one (pair.inner): the range is of the pairs' numbers
// (x - pair.lo)·pair.n + (y - pair.innerLo), x the level's value and y the inner level's,
// and a task runs the pairs of its numbers, so that a kernel with few values at each level
// (a 1×1 convolution's 7 column tiles of a 7×7 image, 7 rows) still gives each thread an
// equal share.
type levelClamp struct {
	pb, pe value.Value
	align  int64
	level  int
	pair   *levelPair
}

// levelPair is the inner level of a two-level clamp: its values [innerLo, innerLo + n), the
// outer level's first value lo, and the number of pairs (the range's end).
type levelPair struct {
	inner          int
	lo, innerLo, n int64
	pairs          int64
}

// covers reports whether the clamp restricts the loops of level l.
func (c *levelClamp) covers(l int) bool {
	return l == c.level || c.pair != nil && l == c.pair.inner
}

// apply restricts the bounds [lo, hi] of a loop of the clamp's level to the range.
func (c *levelClamp) apply(fb *funcBuilder, lo, hi value.Value) (value.Value, value.Value) {
	if c.pair != nil {
		return c.bounds(fb, c.level, nil, lo, hi)
	}
	m := fb.multipleOf(lo)
	l := fb.smax(lo, c.pb)
	fb.known(l, gcd(m, c.align))
	return l, fb.smin(hi, fb.sub(c.pe, i64(1)))
}

// pairRange returns the task's pair numbers [b, e) within [0, pairs) (the whole range's
// INT64_MIN and INT64_MAX clamped, so that no bound overflows).
func (c *levelClamp) pairRange(fb *funcBuilder) (b, e value.Value) {
	return fb.smax(c.pb, i64(0)), fb.smin(c.pe, i64(c.pair.pairs))
}

// bounds restricts the bounds [lo, hi] of a loop of level l (covers) to the range, lev
// holding the values of the levels around it (the outer level's, for the inner one).
func (c *levelClamp) bounds(fb *funcBuilder, l int, lev []value.Value, lo, hi value.Value) (value.Value, value.Value) {
	p := c.pair
	if p == nil {
		return c.apply(fb, lo, hi)
	}
	b, e := c.pairRange(fb)
	if l == c.level {
		first := fb.add(i64(p.lo), fb.cur.NewSDiv(b, i64(p.n)))
		last := fb.add(i64(p.lo), fb.cur.NewSDiv(fb.sub(e, i64(1)), i64(p.n)))
		return fb.smax(lo, first), fb.smin(hi, last)
	}
	// the inner level at outer value x: pairs (x - p.lo)·n + [0, n)
	base := fb.sub(fb.mul(fb.sub(lev[c.level], i64(p.lo)), i64(p.n)), i64(p.innerLo))
	return fb.smax(lo, fb.sub(b, base)), fb.smin(hi, fb.sub(fb.sub(e, i64(1)), base))
}

// holds returns whether value v of level l (covers) lies in the range, lev holding the
// values of the levels around it.
func (c *levelClamp) holds(fb *funcBuilder, l int, lev []value.Value, v value.Value) value.Value {
	if c.pair == nil {
		return fb.and1(fb.cur.NewICmp(enum.IPredSGE, v, c.pb), fb.cur.NewICmp(enum.IPredSLT, v, c.pe))
	}
	lo, hi := c.bounds(fb, l, lev, v, v)
	return fb.cur.NewICmp(enum.IPredSLE, lo, hi)
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

// consistentLevel returns which levels of the kernel of kb.op (domain dim levelDim(l), -1:
// none) split it along the dim by which an operand's producer was split (ec.splitDims): the
// operand is read at that dim's index itself, so that the thread of each part reads what the
// same thread wrote (the pool gives thread k the same part of every region split alike).
// Consecutive kernels of a network thus keep their data in one core's cache: on two cores,
// MobileNet's convolutions split channels and the nests after them rows.
func (kb *kernelBuilder) consistentLevel(levelDim func(int) int) func(int) bool {
	op := kb.op
	if levelDim == nil {
		return nil
	}
	return func(l int) bool {
		d := levelDim(l)
		if d < 0 {
			return false
		}
		for k, o := range op.Operands {
			r := kb.ec.splitDims[o]
			if r == 0 || len(op.Access[k].Pieces) != 1 {
				continue
			}
			idx := op.Access[k].Pieces[0].Index
			if r-1 < len(idx) && indexedBy(idx[r-1:r], d) {
				return true
			}
		}
		return false
	}
}

// resultDimOf returns the result dim of kb.op indexed by domain dim d itself (-1: none).
func (kb *kernelBuilder) resultDimOf(d int) int {
	op := kb.op
	if d < 0 || len(op.Out.Pieces) != 1 {
		return -1
	}
	idx := op.Out.Pieces[0].Index
	for r := range idx {
		if indexedBy(idx[r:r+1], d) {
			return r
		}
	}
	return -1
}

// recordSplit records the result dim along which the kernel sig of op (and of its epilogue
// chain) splits its result, for the kernels of its readers (consistentLevel).
func (ec *entryCtx) recordSplit(op *ir.Op, sig *kernelSig) {
	if sig == nil || sig.par == nil || sig.splitDim == 0 {
		return
	}
	if ec.splitDims == nil {
		ec.splitDims = map[*ir.Value]int{}
	}
	ec.splitDims[op.Result] = sig.splitDim
	if c := ec.epi[op]; c != nil {
		for _, e := range c.ops {
			if e.Result.Type.Rank() == op.Result.Type.Rank() {
				ec.splitDims[e.Result] = sig.splitDim
			}
		}
	}
}
