// This file holds the pruning of a kernel's symbolic-dim arguments: a kernel takes the dims
// its code uses, not every dim of the graph (a detector has hundreds of run-time sizes, of
// which a kernel uses a few; with all of them its 7,577 kernels made a module of hundreds of
// megabytes). Emission computes some expressions eagerly (a buffer view's extents, of which
// only the strides may be used), so a dim counts as used when live code reads it: the dead
// pure instructions are dropped first.

package lower

import (
	"slices"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// usedParams drops from kernel f the dead pure instructions and the arguments of the symbolic
// dims (dims, from argument first on, the last ones) that no remaining instruction reads, and
// returns the dims it keeps.
func usedParams(f *llvm.Func, first int, dims []string) []string {
	dropDeadCode(f)
	read := readValues(f)
	params := slices.Clone(f.Params[first:])
	return setDims(f, first, dims, params, func(j int) bool { return read[params[j]] })
}

// setDims makes the arguments of f from argument first on the params (one per dim of dims)
// for which keep holds, and returns those dims.
func setDims(f *llvm.Func, first int, dims []string, params []*llvm.Param, keep func(j int) bool) []string {
	var kept []string
	ps := slices.Clone(f.Params[:first])
	for j, p := range dims {
		if keep(j) {
			kept = append(kept, p)
			ps = append(ps, params[j])
		}
	}
	f.Params = ps
	f.Sig.Params = make([]types.Type, len(ps))
	for i, p := range ps {
		f.Sig.Params[i] = p.Typ
	}
	return kept
}

// readValues returns the values the instructions of f read.
func readValues(f *llvm.Func) map[value.Value]bool {
	read := map[value.Value]bool{}
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			for _, op := range operands(inst) {
				read[*op] = true
			}
		}
		for _, op := range operands(b.Term) {
			read[*op] = true
		}
	}
	return read
}

// phantomReads returns the dims whose stand-ins (phantoms, by dim) the live code of f reads:
// a split twin is emitted with the serial kernel's dims as arguments and stand-ins for the
// others, which its dead code may read but its live code must not.
func phantomReads(f *llvm.Func, phantoms map[string]*llvm.Param) []string {
	dropDeadCode(f)
	read := readValues(f)
	var out []string
	for p, v := range phantoms {
		if read[v] {
			out = append(out, p)
		}
	}
	return out
}

// operands returns the operands of an instruction or terminator (none for one llir does not
// describe).
func operands(x any) []*value.Value {
	if o, ok := x.(interface{ Operands() []*value.Value }); ok {
		return o.Operands()
	}
	return nil
}

// pure reports whether inst has no effect but its value (so that it may be dropped when
// nothing uses the value).
func pure(inst llvm.Instruction) bool {
	switch i := inst.(type) {
	case *llvm.InstAdd, *llvm.InstSub, *llvm.InstMul, *llvm.InstSDiv, *llvm.InstUDiv, *llvm.InstSRem, *llvm.InstURem,
		*llvm.InstShl, *llvm.InstLShr, *llvm.InstAShr, *llvm.InstAnd, *llvm.InstOr, *llvm.InstXor,
		*llvm.InstFAdd, *llvm.InstFSub, *llvm.InstFMul, *llvm.InstFDiv, *llvm.InstFRem, *llvm.InstFNeg,
		*llvm.InstICmp, *llvm.InstFCmp, *llvm.InstSelect, *llvm.InstGetElementPtr, *llvm.InstPhi, *llvm.InstFreeze,
		*llvm.InstTrunc, *llvm.InstZExt, *llvm.InstSExt, *llvm.InstFPTrunc, *llvm.InstFPExt, *llvm.InstFPToUI,
		*llvm.InstFPToSI, *llvm.InstUIToFP, *llvm.InstSIToFP, *llvm.InstPtrToInt, *llvm.InstIntToPtr,
		*llvm.InstBitCast, *llvm.InstAddrSpaceCast, *llvm.InstExtractElement, *llvm.InstInsertElement,
		*llvm.InstShuffleVector, *llvm.InstExtractValue, *llvm.InstInsertValue, *llvm.InstAlloca:
		return true
	case *llvm.InstLoad:
		return !i.Volatile && !i.Atomic
	}
	return false
}

// dropDeadCode removes from f the pure instructions whose values no live instruction uses:
// the live ones are the others (stores, calls, terminators) and, transitively, what they read.
func dropDeadCode(f *llvm.Func) {
	live := map[value.Value]bool{}
	var work []value.Value
	mark := func(ops []*value.Value) {
		for _, op := range ops {
			if v := *op; !live[v] {
				live[v] = true
				work = append(work, v)
			}
		}
	}
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			if !pure(inst) {
				mark(operands(inst))
			}
		}
		mark(operands(b.Term))
	}
	for len(work) > 0 {
		v := work[len(work)-1]
		work = work[:len(work)-1]
		if inst, ok := v.(llvm.Instruction); ok && pure(inst) {
			mark(operands(inst))
		}
	}
	for _, b := range f.Blocks {
		kept := b.Insts[:0]
		for _, inst := range b.Insts {
			if v, ok := inst.(value.Value); !pure(inst) || ok && live[v] {
				kept = append(kept, inst)
			}
		}
		clear(b.Insts[len(kept):])
		b.Insts = kept
	}
}
