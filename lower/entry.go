// This file emits a graph's ABI functions: ENTRY_workspace_size and ENTRY, which checks the
// symbolic dims, places every buffer (arguments, constant globals, workspace slots), calls one
// kernel per op and propagates a non-zero status, then copies the outputs that no op wrote in
// place (outputs that are inputs, constants or repeated).

package lower

import (
	"context"
	"fmt"
	"math"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/ir"
)

// entryCtx is the state of lowering one graph.
type entryCtx struct {
	ctx     context.Context // checked between kernels
	mc      *moduleCtx
	g       *ir.Graph
	entry   string
	params  []string
	regions map[*ir.Value]*region
	plan    *bufPlan
	consts  map[*ir.Value]*llvm.Global
	// strategies records the kernel strategy of each op, in op order; kernels the kernel the
	// entry calls for each op (nil for an epilogue of another op's kernel); kernelsAt is the
	// number of the module's functions before the first kernel (stages.go)
	strategies []string
	// choices records, in op order, the kernel family each op's kernel is of and why the
	// families before it did not apply (kernel_choice.go), for the plan
	choices   []string
	kernels   []*kernelSig
	kernelsAt int
	// opDomains caches each op's domain information (see domainOf)
	opDomains map[*ir.Op]*domainInfo
	// dots caches each op's integer dot-product plan and, without one, why (see intDotOf)
	dots map[*ir.Op]dotPlan
	// nbits caches each op's matmul_nbits plan, nil without one (see nbitsPlan)
	nbits map[*ir.Op]*nbitsGEMV
	// reqs caches requirements()
	reqs *ir.ParamContext
	// users lists the ops that read each value, with the operand index
	users map[*ir.Value][]use
	// key is the scratch space of kernelKey; bufKeys caches bufferKey
	key     keyBuf
	bufKeys map[*ir.Value]string
	// prof holds the profile counters (Config.Profile)
	prof *llvm.Global
	// splitDims holds 1 + the result dim along which each value's kernel split it over
	// threads (parallel.go's recordSplit)
	splitDims map[*ir.Value]int
	// epi holds the epilogue chain of each contraction that has one; fusedInto maps each op
	// of a chain to its contraction (epilogue.go)
	epi       map[*ir.Op]*epiChain
	fusedInto map[*ir.Op]*ir.Op
	// alias places values inside their copies' buffers (a padding, a concatenation);
	// aliasCopies are those copies, with the operands each skips (alias.go)
	alias       map[*ir.Value]*aliasInfo
	aliasCopies map[*ir.Op][]*aliasInfo
	// boundedDone lists the bounded dims whose values the entry has loaded so far (bounded.go)
	boundedDone map[string]bool
	// weights is the layout of the weights argument (Config.ExternalWeights), weightOff each
	// constant's offset in it
	weights   *Weights
	weightOff map[*ir.Value]int64
	// prepackedConsts are the constants passed to a kernel as compile-time panels
	// (contract_prepack.go)
	prepackedConsts map[*ir.Value]bool
}

// use is an operand of an op.
type use struct {
	op *ir.Op
	k  int
}

func (ec *entryCtx) regionOf(v *ir.Value) *region {
	if r, ok := ec.regions[v]; ok {
		return r
	}
	return fullRegion
}

// checkDims emits the check that every symbolic dim and every extent computed from them is
// non-negative and that the ops' requirements on them hold, branching to bad otherwise.
func (ec *entryCtx) checkDims(fb *funcBuilder, bad func() *llvm.Block) {
	seen := map[string]bool{}
	check := func(v value.Value, key string) {
		if _, ok := isConst(v); ok || seen[key] {
			return
		}
		seen[key] = true
		ok := fb.cur.NewICmp(enum.IPredSGE, v, i64(0))
		next := fb.newBlock("dims.ok")
		fb.cur.NewCondBr(ok, next, bad())
		fb.cur = next
	}
	for _, p := range ec.params {
		check(fb.params[p], "param "+p)
	}
	types := []ir.TensorType{}
	for _, in := range ec.g.Inputs {
		types = append(types, in.Type)
	}
	for _, op := range ec.g.Ops {
		types = append(types, op.Result.Type)
	}
	for _, t := range types {
		for _, d := range t.Shape {
			if _, ok := d.IsConst(); ok || ec.g.UsesBounded(d) {
				continue // (an extent of bounded dims once they are computed: defineBounded)
			}
			check(fb.aff(d, nil), d.String())
		}
	}
	// the ops' requirements on the symbolic dims (a slice of a static buffer to a symbolic end)
	for _, op := range ec.g.Ops {
		for _, c := range op.Requires {
			if ec.g.UsesBounded(c.Aff) {
				continue // checked once the bounded dim is computed (bounded.go)
			}
			key := "requires " + c.Aff.String()
			if c.Eq {
				key += " = 0"
			}
			if seen[key] {
				continue
			}
			seen[key] = true
			v := fb.aff(c.Aff, nil)
			pred := enum.IPredSGE
			if c.Eq {
				pred = enum.IPredEQ
			}
			ok := fb.cur.NewICmp(pred, v, i64(0))
			next := fb.newBlock("requires.ok")
			fb.cur.NewCondBr(ok, next, bad())
			fb.cur = next
		}
	}
}

func (ec *entryCtx) emitWorkspaceSize() (*llvm.Func, error) {
	mc := ec.mc
	var ps []*llvm.Param
	abi := callerParams(ec.g, ec.params)
	for _, p := range abi {
		ps = append(ps, llvm.NewParam(p, types.I64))
	}
	f := mc.m.NewFunc(ec.entry+"_workspace_size", types.I64, ps...)
	mc.defineAttrs(f)
	fb := newFuncBuilder(mc, f)
	for i, p := range abi {
		fb.params[p] = ps[i]
	}
	ec.bindBounds(fb)
	var bad *llvm.Block
	ec.checkDims(fb, func() *llvm.Block {
		if bad == nil {
			bad = f.NewBlock("bad_dims")
			bad.NewRet(i64(-1))
		}
		return bad
	})
	_, total := ec.layout(fb)
	fb.cur.NewRet(total)
	return f, nil
}

// emitEntry emits ENTRY: it checks the symbolic dims (and the weights argument), places every
// buffer, calls the kernel of each op that has one (ec.kernels, filled by the kernels stage) and
// returns the first non-zero status, then copies the outputs that no kernel wrote in place.
func (ec *entryCtx) emitEntry() (*llvm.Func, error) {
	mc := ec.mc
	g := ec.g
	var ps []*llvm.Param
	for i, in := range g.Inputs {
		p := llvm.NewParam(fmt.Sprintf("in%d", i), types.NewPointer(mustMemType(in.Type.Elem)))
		p.Attrs = append(p.Attrs, enum.ParamAttrNoAlias, enum.ParamAttrNoCapture, enum.ParamAttrReadOnly)
		ps = append(ps, p)
	}
	for i, o := range g.Outputs {
		p := llvm.NewParam(fmt.Sprintf("out%d", i), types.NewPointer(mustMemType(o.Type.Elem)))
		p.Attrs = append(p.Attrs, enum.ParamAttrNoAlias, enum.ParamAttrNoCapture)
		ps = append(ps, p)
	}
	abi := callerParams(g, ec.params)
	for _, p := range abi {
		ps = append(ps, llvm.NewParam(p, types.I64))
	}
	ws := llvm.NewParam("workspace", types.I8Ptr)
	ws.Attrs = append(ws.Attrs, enum.ParamAttrNoAlias, enum.ParamAttrNoCapture)
	ps = append(ps, ws)
	var wp *llvm.Param
	if ec.weights != nil {
		wp = weightsParam()
		ps = append(ps, wp)
	}
	name := ec.entry
	var threads *llvm.Param
	if mc.cfg.Threads != ThreadsNone {
		// ENTRY_parallel; ENTRY calls it with the default threading (emitSerialEntry)
		threads = llvm.NewParam("threads", types.NewPointer(threadingType()))
		threads.Attrs = append(threads.Attrs, enum.ParamAttrNoCapture, enum.ParamAttrReadOnly)
		ps = append(ps, threads)
		name += "_parallel"
	}
	f := mc.m.NewFunc(name, types.I32, ps...)
	mc.defineAttrs(f)
	fb := newFuncBuilder(mc, f)
	nio := len(g.Inputs) + len(g.Outputs)
	for i, p := range abi {
		fb.params[p] = ps[nio+i]
	}
	ec.bindBounds(fb)
	ec.checkDims(fb, func() *llvm.Block { return fb.failBlock(statusBadDims) })
	if wp != nil {
		ec.checkWeights(fb, wp)
	}
	tEntry := ec.profileStart(fb)

	// buffers
	bufs := map[*ir.Value]value.Value{}
	for i, in := range g.Inputs {
		bufs[in] = ps[i]
	}
	for i, o := range g.Outputs {
		if _, taken := bufs[o]; !taken && o.Def != nil {
			bufs[o] = ps[len(g.Inputs)+i]
		}
	}
	for _, c := range g.Consts {
		if wp != nil {
			bufs[c] = ec.weightPtr(fb, wp, c)
			continue
		}
		// a constant expression: a constant no call reads leaves no reference (see
		// dropUnreadConsts)
		bufs[c] = constant.NewBitCast(ec.constGlobal(c), types.NewPointer(mustMemType(c.Type.Elem)))
	}
	offs, _ := ec.layout(fb)
	slotPtr := func(b *planBuf) value.Value {
		return fb.cur.NewGetElementPtr(types.I8, ws, offs[b.slot])
	}
	// buffers in the same slot with the same element type have the same pointer
	type slotView struct {
		slot int
		elem ir.DType
	}
	views := map[slotView]value.Value{}
	for _, b := range ec.plan.bufs {
		if b.v == nil {
			continue
		}
		sv := slotView{b.slot, b.v.Type.Elem}
		if _, ok := views[sv]; !ok {
			views[sv] = fb.cur.NewBitCast(slotPtr(b), types.NewPointer(mustMemType(b.v.Type.Elem)))
		}
		bufs[b.v] = views[sv]
	}
	for v, a := range ec.alias {
		bufs[v] = bufs[a.target] // the kernels' views add the offset
	}
	ec.boundedDone = nil
	ec.defineBounded(fb, nil, bufs) // bounded dims whose values are inputs or constants
	for i, op := range g.Ops {
		sig := ec.kernels[i]
		if sig == nil {
			ec.defineBounded(fb, op, bufs)
			continue // an epilogue: its contraction's kernel computes it
		}
		args := []value.Value{bufs[op.Result]}
		for k, o := range op.Operands {
			b, ok := bufs[o]
			if !ok {
				return nil, fmt.Errorf("op %%%s (%s): operand #%d %%%s is defined after its use", op.Result.Name, op.Kind, k, o.Name)
			}
			args = append(args, b)
		}
		ec.prepackArgs(fb, op, args)
		if sig.scratch {
			args = append(args, slotPtr(ec.plan.scratch[op]))
		}
		if c := ec.epi[op]; c != nil {
			args = append(args, epiArgs(c, bufs)...)
		}
		for _, p := range sig.params {
			args = append(args, fb.params[p])
		}
		t0 := ec.profileStart(fb)
		var rc value.Value
		if sig.par != nil {
			// given threads, the split twin; else the serial kernel
			none := fb.cur.NewICmp(enum.IPredEQ, threads, constant.NewNull(threads.Typ.(*types.PointerType)))
			rc = fb.ifElse(none, "threads", func() value.Value { return fb.cur.NewCall(sig.f, args...) }, func() value.Value {
				return fb.cur.NewCall(sig.par, append(args, threads, i64(math.MinInt64), i64(math.MaxInt64), i64(0))...)
			})
		} else {
			rc = fb.cur.NewCall(sig.f, args...)
		}
		ec.profileStop(fb, i, t0)
		ok := fb.cur.NewICmp(enum.IPredEQ, rc, i32c(statusOK))
		next := fb.newBlock("op.ok")
		fail := fb.newBlock("op.fail")
		fb.cur.NewCondBr(ok, next, fail)
		fail.NewRet(rc)
		fb.cur = next
		ec.defineBounded(fb, op, bufs)
	}
	for i, o := range g.Outputs {
		dst := ps[len(g.Inputs)+i]
		if bufs[o] == value.Value(dst) {
			continue
		}
		if err := ec.emitCopy(fb, o, bufs[o], dst); err != nil {
			return nil, err
		}
	}
	ec.profileStop(fb, len(g.Ops), tEntry)
	fb.cur.NewRet(i32c(statusOK))
	if threads != nil {
		if err := ec.emitSerialEntry(f); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// emitCopy copies the whole of value v from src to dst.
func (ec *entryCtx) emitCopy(fb *funcBuilder, v *ir.Value, src, dst value.Value) error {
	mt := mustMemType(v.Type.Elem)
	n := fb.product(fb.extents(v.Type))
	return fb.loop(i64(0), fb.sub(n, i64(1)), 1, "copy", func(iv value.Value) error {
		x := fb.cur.NewLoad(mt, fb.cur.NewGetElementPtr(mt, src, iv))
		fb.cur.NewStore(x, fb.cur.NewGetElementPtr(mt, dst, iv))
		return nil
	})
}
