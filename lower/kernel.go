// This file emits one op as a kernel function: it initialises the op's result box, scans the
// (restricted) domain in the order its strategy chose, and at each point evaluates the body and
// stores it into, or combines it with, the result element. Kernels take their buffers as
// noalias pointers, so LLVM may vectorize them without runtime alias checks.

package lower

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// kernelBuilder is the state of one kernel function.
type kernelBuilder struct {
	ec    *entryCtx
	fb    *funcBuilder
	op    *ir.Op
	res   *view
	ops   []*view
	best  value.Value // double*: arg reductions' best value per result element
	seen  value.Value // i8*: whether the element has a best value yet
	strat *strategy
	// scratch is the workspace scratch of an integer convolution (its input copy), or nil
	scratch value.Value
	// epi are the builders of the epilogue chain's ops (epilogue.go), epiKs the operand by
	// which each reads the previous value
	epi   []*kernelBuilder
	epiKs []int
	// par is the parallel state of a kernel split over threads (parallel.go), or nil; clamp
	// restricts the outermost level of its scans to a task's range
	par   *parKernel
	clamp *levelClamp
	// serial: the region begun next is not split (parallel.go's serialPart)
	serial bool
	// tsplit is the split loop of a hand-written kernel's open region (parallel_tiles.go)
	tsplit *tileSplit
	// fromInitValue: a windowed reduction that writes its whole result, which is not
	// initialised, starts each accumulator at the op's init value (window.go)
	fromInitValue bool
}

// kernelSig is how the entry calls a kernel.
type kernelSig struct {
	f       *llvm.Func
	scratch bool // takes an i8* scratch argument after the operands
	// params are the symbolic dims the kernel takes (after the epilogue's arguments), those
	// its code uses, in the entry's order: a detector has hundreds of run-time sizes, of
	// which a kernel uses a few; dimParams are its arguments for every dim of the entry
	params    []string
	dimParams []*llvm.Param
	// par, when not nil, is the kernel's split twin (parallel.go): it takes the threading and
	// a range of its split level after the symbolic dims; the entry calls it when given threads
	par *llvm.Func
	// splitDim is 1 + the result dim along which par splits the result (0: none known;
	// parallel.go's consistentLevel)
	splitDim int
}

// emitKernel returns the kernel of op (the i-th op of g): the kernel of an earlier op with the
// same key (dedup.go), or a new one.
func (ec *entryCtx) emitKernel(i int, op *ir.Op) (*kernelSig, error) {
	if d := decideGuards(op); d != op {
		// the copy stands for op in everything keyed by it
		if c := ec.epi[op]; c != nil {
			ec.epi[d] = c
		}
		if a := ec.aliasCopies[op]; a != nil {
			ec.aliasCopies[d] = a
		}
		op = d
	}
	kf := ec.formOf(op)
	ec.choices = append(ec.choices, kf.choice)
	chain := ec.epi[op]
	if chain == nil {
		name := kf.name
		if as := ec.aliasCopies[op]; len(op.Operands) == 1 && as != nil {
			name += " (interior written in place)"
		} else if as != nil {
			var ks []int
			for _, a := range as {
				ks = append(ks, a.k)
			}
			name += fmt.Sprintf(" (operands %v written in place)", ks)
		}
		ec.strategies = append(ec.strategies, name)
	} else {
		ec.strategies = append(ec.strategies, fmt.Sprintf("%s +epilogue(%d)", kf.name, len(chain.ops)))
	}
	// every element anyone reads is computed whole by one tile, or written by one iteration of
	// an op without reduction (softmax's probabilities on the causal triangle, whose other
	// half nobody reads): no initialisation
	fromInit := (kf.tiles != nil && kf.tiles.border == nil || kf.tiles == nil && op.Reduce == ir.ReduceNone && ec.aliasCopies[op] == nil) && ec.readsOnlyWritten(op)
	if chain != nil {
		key := ec.epiKey(op, chain, fromInit)
		if sig := ec.mc.fusedKernels[key]; sig != nil {
			return sig, nil
		}
		sig, err := ec.newKernel(i, op, kf, fromInit)
		if err != nil {
			return nil, err
		}
		ec.mc.fusedKernels[key] = sig
		return sig, nil
	}
	if sig := kf.kernel(fromInit); sig != nil {
		return sig, nil
	}
	sig, err := ec.newKernel(i, op, kf, fromInit)
	if err != nil {
		return nil, err
	}
	kf.setKernel(fromInit, sig)
	return sig, nil
}

// newKernel emits the kernel of op (the i-th op of g) planned by kf, and its split twin when
// the kernel may be split over threads (parallel.go): the kernel itself stays as it was, so
// that one thread costs nothing.
func (ec *entryCtx) newKernel(i int, op *ir.Op, kf *kernelForm, fromInit bool) (*kernelSig, error) {
	sig, err := ec.newKernelFunc(i, op, kf, fromInit, nil, ec.params)
	if err != nil {
		return nil, err
	}
	if work := ec.parallelWork(op, kf); work > 0 {
		// the twin takes the serial kernel's dims: its tasks call the serial kernel with them
		pk := &parKernel{work: work, serial: sig.f, chunkWork: chunkWork(kf)}
		ps, err := ec.newKernelFunc(i, op, kf, fromInit, pk, sig.params)
		if err != nil {
			return nil, err
		}
		if extra := phantomReads(ps.f, pk.phantoms); len(extra) > 0 {
			// the twin reads dims the serial kernel does not: both take them (the twin again)
			ec.mc.dropFuncs(ps.f, pk.task)
			all := slices.Clone(sig.dimParams)
			sig.params = setDims(sig.f, len(sig.f.Params)-len(sig.params), ec.params, all, func(j int) bool {
				return slices.Contains(sig.params, ec.params[j]) || slices.Contains(extra, ec.params[j])
			})
			pk = &parKernel{work: work, serial: sig.f, chunkWork: chunkWork(kf)}
			if ps, err = ec.newKernelFunc(i, op, kf, fromInit, pk, sig.params); err != nil {
				return nil, err
			}
			if extra := phantomReads(ps.f, pk.phantoms); len(extra) > 0 {
				return nil, fmt.Errorf("op %%%s (%s): internal error: the split kernel reads dims %v it does not take", op.Result.Name, op.Kind, extra)
			}
		}
		sig.par, sig.splitDim = ps.f, pk.splitDim
	}
	return sig, nil
}

// dropFuncs removes functions (nil: none) from the module.
func (mc *moduleCtx) dropFuncs(fs ...*llvm.Func) {
	mc.m.Funcs = slices.DeleteFunc(mc.m.Funcs, func(f *llvm.Func) bool { return f != nil && slices.Contains(fs, f) })
}

// newKernelFunc emits the kernel of op planned by kf: the serial kernel (pk nil), or its split
// twin, KERNEL.par, with the parallel arguments of pk. The kernel may read the symbolic dims
// dims; the serial kernel then takes those it used (usedParams), the twin all of dims.
func (ec *entryCtx) newKernelFunc(i int, op *ir.Op, kf *kernelForm, fromInit bool, pk *parKernel, dims []string) (*kernelSig, error) {
	mc := ec.mc
	var ps []*llvm.Param
	rp := llvm.NewParam("res", types.NewPointer(mustMemType(op.Result.Type.Elem)))
	rp.Attrs = append(rp.Attrs, enum.ParamAttrNoAlias, enum.ParamAttrNoCapture)
	ps = append(ps, rp)
	for k, o := range op.Operands {
		p := llvm.NewParam("op"+strconv.Itoa(k), types.NewPointer(mustMemType(o.Type.Elem)))
		p.Attrs = append(p.Attrs, enum.ParamAttrNoAlias, enum.ParamAttrNoCapture, enum.ParamAttrReadOnly)
		ps = append(ps, p)
	}
	sig := &kernelSig{scratch: op.Reduce.IsArg() || kf.dot != nil && kf.dot.scratch > 0 || kf.nbits != nil && kf.nbits.scratch > 0 || kf.algo}
	if sig.scratch {
		sp := llvm.NewParam("scratch", types.I8Ptr)
		sp.Attrs = append(sp.Attrs, enum.ParamAttrNoAlias, enum.ParamAttrNoCapture)
		ps = append(ps, sp)
	}
	chain := ec.epi[op]
	var eps []*llvm.Param
	if chain != nil {
		eps = epiParams(chain)
		ps = append(ps, eps...)
	}
	for _, p := range dims {
		ps = append(ps, llvm.NewParam(p, types.I64))
	}
	nsym := len(ps)
	name := kernelName(ec.entry, i, op)
	if pk != nil {
		ps = pk.addParams(ps)
		name += ".par"
	}
	f := mc.m.NewFunc(name, types.I32, ps...)
	f.Linkage = enum.LinkageInternal
	// kernels stay functions: inlining thousands of loop nests into one entry made Hexagon's
	// code generation superlinear (minutes per module); one call per op costs nothing
	f.FuncAttrs = append(f.FuncAttrs, enum.FuncAttrNoInline)
	mc.defineAttrs(f)
	sig.f = f
	fb := newFuncBuilder(mc, f)
	for j, p := range dims {
		fb.params[p] = ps[nsym-len(dims)+j]
	}
	sig.params = dims
	if pk == nil {
		sig.dimParams = slices.Clone(ps[nsym-len(dims) : nsym])
		defer func() { sig.params = usedParams(f, nsym-len(dims), dims) }() // kernel_params.go
	} else {
		// the dims the serial kernel does not take have stand-ins, which only dead code may
		// read (newKernel checks; kernel_params.go)
		pk.phantoms = map[string]*llvm.Param{}
		for _, p := range ec.params {
			if !slices.Contains(dims, p) {
				pk.phantoms[p] = llvm.NewParam(p, types.I64)
				fb.params[p] = pk.phantoms[p]
			}
		}
	}
	kb := &kernelBuilder{ec: ec, fb: fb, op: op, par: pk}
	kb.fromInitValue = kf.whole && kf.strat != nil && kf.strat.window && kf.parts == nil && kf.tiles == nil
	if chain != nil {
		kb.newEpilogue(chain, eps)
	}
	var tiles *contraction
	if kf.tiles != nil {
		c := *kf.tiles
		c.fromInit = fromInit
		tiles = &c
		kb.strat = &strategy{name: kf.name}
	} else {
		kb.strat = kf.strat
	}
	// kernels on 512-bit vectors must not be split into 256-bit halves (the dot kernels have no
	// strategy: theirs is the dot kind)
	if kf.dot != nil && kf.dot.kind == dotVNNI512 ||
		kf.dot == nil && kf.wide() && mc.vecBytes >= 64 && mc.spec.VectorFromCPU {
		fb.wideVectors()
	}
	kb.res = ec.viewOf(fb, op.Result, rp)
	for k, o := range op.Operands {
		kb.ops = append(kb.ops, ec.viewOf(fb, o, ps[1+k]))
	}
	n := fb.product(kb.res.ext)
	if sig.scratch && op.Reduce.IsArg() {
		sp := ps[1+len(op.Operands)]
		kb.best = fb.cur.NewBitCast(sp, types.NewPointer(types.Double))
		kb.seen = fb.cur.NewGetElementPtr(types.I8, sp, fb.mul(n, i64(8)))
	} else if sig.scratch {
		kb.scratch = ps[1+len(op.Operands)]
	}
	if kf.algo {
		if err := kb.emitAlgorithm(); err != nil {
			return nil, err
		}
		fb.cur.NewRet(i32c(statusOK))
		return sig, nil
	}
	if !fromInit && !kf.whole && (kf.dot == nil || !kf.dot.whole) {
		// a task of a parallel kernel finds its result initialised
		initRes := func() error { return kb.emitInit(n) }
		if pk != nil {
			pk.inits = true
			initRes = func() error { return fb.ifThen(kb.wholeRange(), "init", func() error { return kb.emitInit(n) }) }
		}
		if err := initRes(); err != nil {
			return nil, err
		}
	}
	if kf.dot != nil {
		if err := kb.emitIntDot(kf.dot); err != nil {
			return nil, err
		}
	} else if kf.nbits != nil {
		if err := kb.emitNBits(kf.nbits); err != nil {
			return nil, err
		}
	} else if tiles != nil {
		// the tiles run the interior op; the border, if any, the per-point nest
		kb.op = tiles.op
		if err := kb.emitTiles(tiles); err != nil {
			return nil, err
		}
		if tiles.border != nil {
			kb.op = tiles.border
			kb.strat = mc.strategyFor(tiles.border, tiles.orderedBorder)
			if err := kb.emitNest(ec.g.Params); err != nil {
				return nil, err
			}
		}
		kb.op = op
	} else if kf.parts != nil {
		for _, i := range ec.copyParts(op, kf.parts) {
			kb.op, kb.strat = kf.parts[i], kf.partStrats[i]
			kb.serial = pk != nil && ec.serialPart(op, kf.parts[i], kf.partStrats[i])
			if err := kb.emitNest(ec.g.Params); err != nil {
				return nil, err
			}
		}
		kb.op, kb.strat, kb.serial = op, kf.strat, false
	} else if err := kb.emitNest(ec.g.Params); err != nil {
		return nil, err
	}
	fb.cur.NewRet(i32c(statusOK))
	if pk != nil {
		pk.finishTask(f)
	}
	return sig, nil
}

// writesWhole reports whether the op writes every element of its result (for all values of the
// symbolic dims), so that initialising the result first would be wasted: an exact volume check,
// cached by the domain, out map and result type it depends on.
func (ec *entryCtx) writesWhole(op *ir.Op) bool {
	var k keyBuf
	k.Strs(ec.g.Params)
	k.Str(ec.domainText(op))
	k.Strs(op.Dims)
	k.Access(op.Out)
	k.TensorType(op.Result.Type)
	k.Str(ec.requirements().String())
	key := string(k.B)
	if w, ok := ec.mc.whole[key]; ok {
		return w
	}
	w := writesWhole(op, ec.g.Params, ec.requirements())
	ec.mc.whole[key] = w
	return w
}

// requirements returns the symbolic dims for which the entry runs its kernels: every op's
// requirements hold (the entry returns status 1 before any kernel otherwise). The domains of
// the ops that DIE restricted assume them (seq < 1025 where positional embeddings are gathered
// for seq tokens); a result is written whole when it is for those dims.
//
// The context restricts each set by the requirements on the dims it mentions (ir.ParamContext).
func (ec *entryCtx) requirements() *ir.ParamContext {
	if ec.reqs == nil {
		ec.reqs = ir.RequirementsContext(ec.g)
	}
	return ec.reqs
}

// writesWhole is entryCtx.writesWhole without the cache; reqs (see entryCtx.requirements)
// restricts the dims considered.
func writesWhole(op *ir.Op, params []string, reqs *ir.ParamContext) bool {
	t := op.Result.Type
	names := make([]string, t.Rank())
	for i := range names {
		names[i] = fmt.Sprintf("e%d", i)
	}
	written := op.Domain.Apply(op.OutMap(params)).SetTupleName("").SetDimNames(names)
	box := reqs.Restrict(volume.Box(params, "", names, t.Shape), written)
	return box.IsSubset(written).Or(false) // unknown: the result is initialised first
}

// readsOnlyWritten reports whether every element of op's result that anyone reads is one op
// writes (exact volume checks), so that the others need no value: a graph output must be
// written whole (the logits of a language-model head skip an 8 MB initialisation); otherwise
// its consumers must read only elements that op writes. The answer depends on the domains and
// maps of op and its consumers alone: it is computed once per distinct combination (layers
// repeat them).
func (ec *entryCtx) readsOnlyWritten(op *ir.Op) bool {
	for _, o := range ec.g.Outputs {
		if o == op.Result {
			return writesWhole(op, ec.g.Params, ec.requirements())
		}
	}
	k := &ec.key
	k.Reset()
	k.Strs(ec.g.Params)
	k.Str(ec.domainText(op))
	k.Strs(op.Dims)
	k.Access(op.Out)
	for _, u := range ec.users[op.Result] {
		if !u.op.Body.Reads(u.k) {
			continue
		}
		if hasDynRead(u.op.Body, u.k) {
			return false
		}
		k.Str(ec.domainText(u.op))
		k.Strs(u.op.Dims)
		k.Access(u.op.Access[u.k])
	}
	if ok, seen := ec.mc.readsOnly[string(k.B)]; seen {
		return ok
	}
	key := string(k.B)
	ok := true
	params := ec.g.Params
	written := op.Domain.Apply(op.OutMap(params))
	for _, u := range ec.users[op.Result] {
		if !u.op.Body.Reads(u.k) {
			continue
		}
		read := u.op.Domain.Apply(u.op.AccessMap(params, u.k))
		if !read.IsSubset(written).Or(false) { // unknown: not proven, the result is initialised
			ok = false
			break
		}
	}
	ec.mc.readsOnly[key] = ok
	return ok
}

// alignedBuffer reports whether v's buffer is 128-byte aligned: workspace slots and constant
// globals are; graph inputs and outputs belong to the caller.
func (ec *entryCtx) alignedBuffer(v *ir.Value) bool {
	if v.IsConst() {
		return true
	}
	_, ok := ec.plan.value[v]
	return ok
}

// emitInit sets every element of the result box to the op's init value (and clears the
// arg-reduction flags).
func (kb *kernelBuilder) emitInit(n value.Value) error {
	fb := kb.fb
	elem := kb.op.Result.Type.Elem
	initV := memConst(elem, kb.op.Init)
	mt := mustMemType(elem)
	return fb.loop(i64(0), fb.sub(n, i64(1)), 1, "init", func(iv value.Value) error {
		st := fb.cur.NewStore(initV, fb.cur.NewGetElementPtr(mt, kb.res.ptr, iv))
		st.Align = llvm.Align(byteSize(mt))
		if kb.seen != nil {
			fb.cur.NewStore(i8c(0), fb.cur.NewGetElementPtr(types.I8, kb.seen, iv))
		}
		return nil
	})
}

// permutedDomain returns the domain with its dims in loop order. The set is renamed d0..dn,
// printed, its tuple rewritten in the new order and parsed back: an exact, cheap permutation
// (volume has no dim permutation, and Apply of a permutation map splits sets with floor
// divisions into many pieces: 169 for a 5×5 max pool with argmax). Apply is the fallback.
func (kb *kernelBuilder) permutedDomain() volume.Set {
	op := kb.op
	if kb.identityOrder() {
		return op.Domain
	}
	n := len(kb.strat.perm)
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("graphc_d%d", i)
	}
	reordered := make([]string, n)
	for l, d := range kb.strat.perm {
		reordered[l] = names[d]
	}
	text := op.Domain.SetTupleName("").SetDimNames(names).String()
	from := "[" + strings.Join(names, ", ") + "]"
	to := "[" + strings.Join(reordered, ", ") + "]"
	// every tuple of the set must be the named one: a piece that is a single point, or fixes a
	// dim, prints constants in its tuple ([1, 0, 1]), which the rewrite would not permute
	if body := text[strings.Index(text, "{")+1:]; strings.Count(body, "[") == strings.Count(body, from) && strings.Contains(body, from) {
		if p, err := volume.ParseSet(strings.ReplaceAll(text, from, to)); err == nil && p.NDim() == n {
			return p
		}
	}
	exprs := make([]volume.Aff, n)
	for l, d := range kb.strat.perm {
		exprs[l] = volume.AffDim(d)
	}
	m := volume.MultiAff{Params: op.Domain.Params(), InDims: op.Dims, Exprs: exprs}.Map()
	return op.Domain.Apply(m)
}

// identityOrder reports whether the strategy scans the domain in its own dim order.
func (kb *kernelBuilder) identityOrder() bool {
	for l, d := range kb.strat.perm {
		if l != d {
			return false
		}
	}
	return true
}

// emitNest emits the loop nest over the domain.
func (kb *kernelBuilder) emitNest(params []string) error {
	op := kb.op
	if kb.strat.transpose != nil {
		return kb.emitTranspose(kb.strat.transpose)
	}
	var ast volume.Node
	var err error
	if kb.identityOrder() {
		di := kb.ec.domainOf(op)
		ast, err = di.ast, di.scanErr
	} else {
		ast, err = kb.permutedDomain().Scan()
	}
	if err != nil {
		return fmt.Errorf("scanning the domain %s: %w", op.Domain, err)
	}
	n := op.NDim()
	perm := kb.strat.perm
	toDims := func(lev []value.Value) []value.Value {
		dims := make([]value.Value, n)
		for l, d := range perm {
			dims[d] = lev[l]
		}
		return dims
	}
	e := &astEmitter{fb: kb.fb, lev: make([]value.Value, n)}
	if kb.par != nil {
		vec := -1
		switch {
		case kb.strat.window:
			vec = kb.strat.windowLevel
		case kb.strat.vl > 0:
			vec = n - 1
		}
		var out0 []volume.Aff
		if len(op.Out.Pieces) == 1 {
			out0 = op.Out.Pieces[0].Index
		}
		// a level may be split when the result, written through one piece, is indexed by
		// its dim
		// the level of the result's last index, whose values are adjacent elements
		unit := -1
		if len(op.Out.Pieces) == 1 && len(out0) > 0 {
			unit = slices.IndexFunc(perm, func(d int) bool { return indexedBy(out0[len(out0)-1:], d) })
		}
		e.clamp = kb.dispatch([]volume.Node{ast}, int64(max(kb.strat.vl, 1)), vec, unit, func(l int) bool {
			return len(op.Out.Pieces) == 1 && indexedBy(op.Out.Pieces[0].Index, perm[l])
		}, func(l int) int { return perm[l] })
	}
	e.leaf = func(lev []value.Value) error { return kb.point(toDims(lev), 0) }
	if kb.strat.window {
		e.win = kb.windowAccumulator(toDims)
	} else if kb.strat.vl > 0 && n > 0 {
		e.vl = kb.strat.vl
		e.vecLeaf = func(lev []value.Value) error { return kb.point(toDims(lev), kb.strat.vl) }
		if kb.strat.reduceLanes {
			e.acc = kb.laneAccumulator(toDims)
		}
	}
	if err := e.emit(ast); err != nil {
		return err
	}
	kb.endRegion()
	return nil
}

// laneAccumulator is the vector accumulator of a "+vector-acc" reduction: lane l sums (or
// takes the extremum of) the points l, l + vl, l + 2vl... of each vector loop; after the loop
// the lanes are folded in halves (a fixed tree) and the total is combined into the result
// element, before the scalar remainder.
func (kb *kernelBuilder) laneAccumulator(toDims func([]value.Value) []value.Value) *vecAccumulator {
	op := kb.op
	fb := kb.fb
	elem := op.Result.Type.Elem
	vl := kb.strat.vl
	ctx := func(dims []value.Value, lanes int) *bodyCtx {
		bc := &bodyCtx{kb: kb, fb: fb, op: op, dims: dims, vl: lanes, memo: map[*ir.Scalar]value.Value{}}
		bc.inner = kb.strat.perm[len(kb.strat.perm)-1]
		return bc
	}
	return &vecAccumulator{
		init: func() value.Value {
			return ctx(nil, vl).cnst(elem, reduceIdentity(op.Reduce, elem), reduceIdentityInt(op.Reduce, elem))
		},
		step: func(lev []value.Value, acc value.Value) (value.Value, error) {
			bc := ctx(toDims(lev), vl)
			v, err := bc.emit(op.Body)
			if err != nil {
				return nil, err
			}
			if op.Body.Type != elem {
				if v, err = bc.cast(v, op.Body.Type, elem); err != nil {
					return nil, err
				}
			}
			return bc.combine(op.Reduce, elem, acc, v)
		},
		done: func(lev []value.Value, acc value.Value) error {
			dims := toDims(lev)
			for w := vl / 2; w >= 1; w /= 2 {
				// fold the upper half of the lanes onto the lower half
				var a, b value.Value
				lanes := w
				if w == 1 {
					a, b = fb.cur.NewExtractElement(acc, i32c(0)), fb.cur.NewExtractElement(acc, i32c(1))
					lanes = 0
				} else {
					lo, hi := make([]constant.Constant, w), make([]constant.Constant, w)
					for l := 0; l < w; l++ {
						lo[l], hi[l] = i32c(int64(l)), i32c(int64(w+l))
					}
					mt := types.NewVector(uint64(w), types.I32)
					a = fb.cur.NewShuffleVector(acc, constant.NewUndef(acc.Type()), constant.NewVector(mt, lo...))
					b = fb.cur.NewShuffleVector(acc, constant.NewUndef(acc.Type()), constant.NewVector(mt, hi...))
				}
				var err error
				if acc, err = ctx(dims, lanes).combine(op.Reduce, elem, a, b); err != nil {
					return err
				}
			}
			off := fb.offset(kb.res, fb.indexAt(op.Out.Pieces[0].Index, dims))
			total, err := ctx(dims, 0).combine(op.Reduce, elem, fb.loadElem(kb.res, off), acc)
			if err != nil {
				return err
			}
			st := fb.cur.NewStore(fb.toMem(total, elem), fb.elemPtr(kb.res, off))
			st.Align = llvm.Align(byteSize(mustMemType(elem)))
			return nil
		},
	}
}

// reduceIdentity is the value a lane accumulator starts from: x combined with it is x (-0 for
// float sums: -0 + x is x, -0 included).
func reduceIdentity(r ir.ReduceKind, t ir.DType) float64 {
	switch r {
	case ir.ReduceProd:
		return 1
	case ir.ReduceMax:
		return math.Inf(-1)
	case ir.ReduceMin:
		return math.Inf(1)
	}
	return math.Copysign(0, -1)
}

// reduceIdentityInt is reduceIdentity for integer types.
func reduceIdentityInt(r ir.ReduceKind, t ir.DType) int64 {
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	switch t {
	case ir.I32:
		lo, hi = math.MinInt32, math.MaxInt32
	case ir.I8:
		lo, hi = math.MinInt8, math.MaxInt8
	case ir.U8:
		lo, hi = 0, math.MaxUint8
	}
	switch r {
	case ir.ReduceProd:
		return 1
	case ir.ReduceMax:
		return lo
	case ir.ReduceMin:
		return hi
	}
	return 0
}

// point emits the body at one iteration point (vl = 0) or at vl consecutive points of the
// innermost dim, and stores or combines the result.
func (kb *kernelBuilder) point(dims []value.Value, vl int) error {
	fb := kb.fb
	op := kb.op
	bc := &bodyCtx{kb: kb, fb: fb, op: op, dims: dims, vl: vl, memo: map[*ir.Scalar]value.Value{}}
	if vl > 0 {
		bc.inner = kb.strat.perm[len(kb.strat.perm)-1]
	}
	off := fb.offset(kb.res, fb.indexAt(op.Out.Pieces[0].Index, dims))
	v, err := bc.emit(op.Body)
	if err != nil {
		return err
	}
	elem := op.Result.Type.Elem
	if op.Reduce.IsArg() {
		return kb.argCombine(bc, off, v)
	}
	if op.Body.Type != elem {
		if v, err = bc.cast(v, op.Body.Type, elem); err != nil {
			return err
		}
	}
	if vl > 0 && kb.strat.reduceInner {
		// lanes are consecutive points of the reduction: combine them in order
		sbc := *bc
		sbc.vl = 0
		acc := fb.loadElem(kb.res, off)
		for l := 0; l < vl; l++ {
			if acc, err = sbc.combine(op.Reduce, elem, acc, fb.cur.NewExtractElement(v, i32c(int64(l)))); err != nil {
				return err
			}
		}
		mt := mustMemType(elem)
		st := fb.cur.NewStore(fb.toMem(acc, elem), fb.elemPtr(kb.res, off))
		st.Align = llvm.Align(byteSize(mt))
		return nil
	}
	if op.Reduce != ir.ReduceNone {
		var acc value.Value
		if vl > 0 {
			acc = fb.vectorLoad(kb.res, off, vl)
		} else {
			acc = fb.loadElem(kb.res, off)
		}
		if v, err = bc.combine(op.Reduce, elem, acc, v); err != nil {
			return err
		}
	}
	if vl > 0 {
		fb.vectorStore(kb.res, off, v)
		return nil
	}
	mt := mustMemType(elem)
	st := fb.cur.NewStore(fb.toMem(v, elem), fb.elemPtr(kb.res, off))
	st.Align = llvm.Align(byteSize(mt))
	return nil
}

// combine folds v into the accumulator as the evaluator does: sums and products round to the
// element type; max and min keep a NaN once seen (NaN or greater replaces the accumulator).
func (bc *bodyCtx) combine(r ir.ReduceKind, t ir.DType, acc, v value.Value) (value.Value, error) {
	switch r {
	case ir.ReduceSum:
		return bc.computeOp(ir.SAdd, t, acc, v)
	case ir.ReduceProd:
		return bc.computeOp(ir.SMul, t, acc, v)
	case ir.ReduceMax, ir.ReduceMin:
		if !t.IsFloat() {
			return bc.computeOp(map[bool]ir.ScalarOp{true: ir.SMax, false: ir.SMin}[r == ir.ReduceMax], t, acc, v)
		}
		c := bc.cur()
		pred := enum.FPredOGT
		if r == ir.ReduceMin {
			pred = enum.FPredOLT
		}
		take := c.NewOr(bc.isNaN(v), c.NewFCmp(pred, v, acc))
		return bc.fb.sel(take, v, acc), nil
	}
	return nil, fmt.Errorf("reduction %s has no lowering", r)
}

// argCombine updates an arg reduction: the index of iteration dim ArgDim replaces the result
// element when the element has no value yet or v beats the best value so far (strictly for the
// first extremum, or equal for the last one). Values compare as float64, as in the evaluator.
func (kb *kernelBuilder) argCombine(bc *bodyCtx, off, v value.Value) error {
	fb := kb.fb
	op := kb.op
	c := fb.cur
	var x value.Value
	switch t := op.Body.Type; {
	case t.IsFloat():
		x = fb.toF64(v)
	case t.IsUnsigned():
		x = c.NewUIToFP(v, types.Double)
	default:
		x = c.NewSIToFP(v, types.Double)
	}
	bp := fb.cur.NewGetElementPtr(types.Double, kb.best, off)
	sp := fb.cur.NewGetElementPtr(types.I8, kb.seen, off)
	best := fb.cur.NewLoad(types.Double, bp)
	seen := fb.cur.NewICmp(enum.IPredNE, fb.cur.NewLoad(types.I8, sp), i8c(0))
	pred := map[ir.ReduceKind]enum.FPred{ir.ReduceArgMax: enum.FPredOGT, ir.ReduceArgMaxLast: enum.FPredOGE,
		ir.ReduceArgMin: enum.FPredOLT, ir.ReduceArgMinLast: enum.FPredOLE}[op.Reduce]
	better := fb.cur.NewFCmp(pred, x, best)
	take := fb.cur.NewOr(fb.cur.NewXor(seen, boolConst(true)), better)
	if op.ArgDim < 0 || op.ArgDim >= len(bc.dims) {
		return fmt.Errorf("argdim %d of a %d-dimensional op", op.ArgDim, len(bc.dims))
	}
	return fb.ifThen(take, "arg", func() error {
		fb.cur.NewStore(x, bp)
		fb.cur.NewStore(i8c(1), sp)
		elem := op.Result.Type.Elem
		idx, err := bc.cast(bc.dims[op.ArgDim], ir.I64, elem)
		if err != nil {
			return err
		}
		fb.cur.NewStore(fb.toMem(idx, elem), fb.elemPtr(kb.res, off))
		return nil
	})
}

// kernelName names the kernel of op i: ENTRY.kI.KIND, then the source node's name (sanitized,
// at most 64 bytes) so that profilers and disassemblies point back to the model's node. A
// kernel shared by several ops of the same form (dedup.go) carries its first op's name.
func kernelName(entry string, i int, op *ir.Op) string {
	name := fmt.Sprintf("%s.k%d.%s", entry, i, sanitizeSym(op.Kind))
	if node := sanitizeSym(strings.Trim(op.Name, "/")); node != "" {
		if len(node) > 64 {
			node = node[:64]
		}
		name += "." + node
	}
	return name
}
