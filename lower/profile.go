// This file emits the per-kernel profile of an entry (Config.Profile): cycle counters around
// every kernel call, one more for the whole call, and ENTRY_profile, which copies and resets
// them. The op order of the graph names the counters (graphc-bench -profile prints the table).

package lower

import (
	"fmt"
	"strings"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// profileCounters returns the counters of the entry, [ops+1 x i64]: cycles spent in each op's
// kernel, then in whole calls.
func (ec *entryCtx) profileCounters() (*llvm.Global, types.Type) {
	t := types.NewArray(uint64(len(ec.g.Ops)+1), types.I64)
	if ec.prof == nil {
		ec.prof = ec.mc.m.NewGlobalDef(ec.entry+".profile", constant.NewZeroInitializer(t))
		ec.prof.Linkage = enum.LinkageInternal
	}
	return ec.prof, t
}

// profileStart reads the cycle counter when profiling (nil otherwise).
func (ec *entryCtx) profileStart(fb *funcBuilder) value.Value {
	if !ec.mc.cfg.Profile {
		return nil
	}
	return fb.cur.NewCall(ec.mc.intrinsic("llvm.readcyclecounter", types.I64))
}

// profileStop adds the cycles since t0 to counter i.
func (ec *entryCtx) profileStop(fb *funcBuilder, i int, t0 value.Value) {
	if t0 == nil {
		return
	}
	t1 := fb.cur.NewCall(ec.mc.intrinsic("llvm.readcyclecounter", types.I64))
	g, t := ec.profileCounters()
	p := fb.cur.NewGetElementPtr(t, g, i64(0), i64(int64(i)))
	old := fb.cur.NewLoad(types.I64, p)
	fb.cur.NewStore(fb.cur.NewAdd(old, fb.cur.NewSub(t1, t0)), p)
}

// emitProfile emits int64_t ENTRY_profile(int64_t *counters): it copies the ops+1 counters
// (when counters is not null), resets them and returns the number of ops.
func (ec *entryCtx) emitProfile() {
	out := llvm.NewParam("counters", types.NewPointer(types.I64))
	f := ec.mc.m.NewFunc(ec.entry+"_profile", types.I64, out)
	ec.mc.defineAttrs(f)
	fb := newFuncBuilder(ec.mc, f)
	g, t := ec.profileCounters()
	n := int64(len(ec.g.Ops))
	nonNull := fb.cur.NewICmp(enum.IPredNE, out, constant.NewNull(types.NewPointer(types.I64)))
	_ = fb.loop(i64(0), i64(n), 1, "prof", func(iv value.Value) error {
		p := fb.cur.NewGetElementPtr(t, g, i64(0), iv)
		v := fb.cur.NewLoad(types.I64, p)
		if err := fb.ifThen(nonNull, "prof.copy", func() error {
			fb.cur.NewStore(v, fb.cur.NewGetElementPtr(types.I64, out, iv))
			return nil
		}); err != nil {
			return err
		}
		fb.cur.NewStore(i64(0), p)
		return nil
	})
	fb.cur.NewRet(i64(n))
}

// profileHeader adds the declaration of ENTRY_profile to an entry's header.
func profileHeader(h, entry string, ops int) string {
	decl := fmt.Sprintf("/* Profiling build: cycles spent in each of the %d op kernels (graph op order), then in\n"+
		" * whole calls, since the last call; copied to counters[0..%d] when not null, then reset.\n"+
		" * Returns the number of ops. The entry is not re-entrant in a profiling build. */\n"+
		"int64_t %s_profile(int64_t *counters);\n\n", ops, ops, entry)
	at := strings.LastIndex(h, "#ifdef __cplusplus")
	if at < 0 {
		return h + decl
	}
	return h[:at] + decl + h[at:]
}
