// This file adds the default thread pool (pool.ll, LLVM IR over POSIX threads) to hosted
// modules and emits ENTRY, which runs ENTRY_parallel on it: on the pool in ThreadsPool mode on
// a hosted target, serially otherwise.

package lower

import (
	_ "embed"
	"fmt"
	"strings"

	llvm "github.com/llir/llvm/asm"
	llir "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

//go:embed pool.ll
var poolIR string

// poolName is the pool's parallel-for in pool.ll.
const poolName = "graphc.pool.parallel_for"

// defaultThreading returns the module's graphc_threading of its default pool, adding the
// pool to the module on first use.
func (mc *moduleCtx) defaultThreading() (*llir.Global, error) {
	if mc.pool != nil {
		return mc.pool, nil
	}
	pm, err := llvm.ParseString("pool.ll", poolIR+relaxIR(mc.tgt.Triple))
	if err != nil {
		return nil, fmt.Errorf("the default thread pool: %w", err)
	}
	var pf *llir.Func
	for _, f := range pm.Funcs {
		if f.Name() == poolName {
			pf = f
		}
		f.Parent = mc.m
		mc.m.Funcs = append(mc.m.Funcs, f)
	}
	mc.m.Globals = append(mc.m.Globals, pm.Globals...)
	if pf == nil {
		return nil, fmt.Errorf("the default thread pool has no %s", poolName)
	}
	tt := threadingType()
	g := mc.m.NewGlobalDef("graphc.pool.threading", constant.NewStruct(tt, pf, constant.NewNull(types.I8Ptr)))
	g.Immutable = true
	g.Linkage = enum.LinkageInternal
	mc.pool = g
	return g, nil
}

// relaxIR defines graphc.pool.relax, the spin-wait hint of the target's CPU: pause on x86-64
// (it also lets the sibling hyperthread run), yield on AArch64, nothing elsewhere.
func relaxIR(triple string) string {
	decl, body := "", ""
	switch {
	case strings.HasPrefix(triple, "x86_64"):
		decl, body = "declare void @llvm.x86.sse2.pause()\n", "\tcall void @llvm.x86.sse2.pause()\n"
	case strings.HasPrefix(triple, "aarch64"):
		decl, body = "declare void @llvm.aarch64.hint(i32)\n", "\tcall void @llvm.aarch64.hint(i32 1)\n"
	}
	return "\n" + decl + "\ndefine internal void @graphc.pool.relax() nounwind {\nentry:\n" + body + "\tret void\n}\n"
}

// emitSerialEntry emits ENTRY with the arguments of par (ENTRY_parallel) but the last: it
// calls par with the default pool's threading (ThreadsPool on a hosted target) or NULL.
func (ec *entryCtx) emitSerialEntry(par *llir.Func) error {
	mc := ec.mc
	var ps []*llir.Param
	for _, p := range par.Params[:len(par.Params)-1] {
		q := llir.NewParam(p.Name(), p.Typ)
		q.Attrs = append(q.Attrs, p.Attrs...)
		ps = append(ps, q)
	}
	f := mc.m.NewFunc(ec.entry, types.I32, ps...)
	mc.defineAttrs(f)
	var threads value.Value = constant.NewNull(types.NewPointer(threadingType()))
	if mc.threadMode() == ThreadsPool {
		g, err := mc.defaultThreading()
		if err != nil {
			return err
		}
		threads = g
	}
	b := f.NewBlock("entry")
	var args []value.Value
	for _, p := range ps {
		args = append(args, p)
	}
	args = append(args, threads)
	call := b.NewCall(par, args...)
	call.Tail = enum.TailTail
	b.NewRet(call)
	return nil
}

// threadMode is the thread mode the module has: Config.Threads, but ThreadsCaller for
// ThreadsPool on a freestanding target (no thread library).
func (mc *moduleCtx) threadMode() ThreadMode {
	if mc.cfg.Threads == ThreadsPool && mc.tgt.Freestanding {
		return ThreadsCaller
	}
	return mc.cfg.Threads
}
