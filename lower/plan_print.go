// This file collects and prints the lowering plan: what the stages of Builder.Add (stages.go)
// decided for each op, in a stable text format (graphc --emit=plan, Entry.Plan), and the partial
// plans that Config.PrintAfter prints after a stage (graphc --print-lowering-after). The stages
// fill, in order,
//
//   - regions: the box of every workspace tensor (region.go, computeRegions);
//   - buffers: the workspace slots, their offsets and sizes, and which values share them, are
//     written in place into another value's buffer (plan.go, alias.go) or are computed as an
//     epilogue of a contraction's kernel (epilogue.go);
//   - kernels: per op, the kernel function and its strategy (strategy.go, contract.go,
//     intdot.go, guard_split.go: the string Entry.Strategies records, with the register tile,
//     the loop order, the vector width) and the earlier op whose kernel it shares (dedup.go);
//   - entry: the order of the calls, which is the op order (the plan adds nothing).
//
// The plan is read from the state that lowering fills anyway; collecting it emits nothing.

package lower

import (
	"fmt"
	"strings"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"

	"github.com/graphc/graphc/ir"
)

// Plan is what lowering decided for one graph (one entry), stage by stage. String prints it.
type Plan struct {
	Entry string
	// Stage is the last stage whose decisions the plan holds (Stages; "" or the last stage:
	// all of them). The fields that later stages decide are empty: a plan after regions has
	// no slots and no buffer, kernel or strategy per op; after buffers, no kernel or strategy.
	Stage string
	// Machine names the target, CPU and the widths lowering used (explicit vectors and
	// register tiles, in bytes).
	Machine string
	// WorkspaceBytes is the workspace size, or -1 when it depends on symbolic dims.
	WorkspaceBytes int64
	Slots          []PlanSlot
	Ops            []PlanOp
}

// PlanSlot is one workspace slot: buffers whose lifetimes do not overlap share it.
type PlanSlot struct {
	Offset int64 // byte offset in the workspace; -1 when symbolic
	Bytes  int64 // size (the largest member's); -1 when symbolic
	// Buffers describes each member: "%v ops 2..5" or "scratch of %v op 3".
	Buffers []string
}

// PlanOp is what lowering decided for one op.
type PlanOp struct {
	Index  int
	Result string // the result value's name
	Kind   string
	Type   string
	// Region is the box of the result that its buffer holds ("whole" for the whole tensor).
	Region string
	// Buffer says where the result lives: "output 0", "slot 1", or "in place in %p at [0 1 1 0]
	// (...)" inside another value's buffer (alias.go).
	Buffer string
	// Scratch is the slot of the op's scratch buffer ("" when it has none).
	Scratch string
	// Kernel is the kernel function the entry calls ("" when the op is an epilogue of another
	// op's kernel); SharedWith is the index of the first op that calls the same function, or -1.
	Kernel     string
	SharedWith int
	// Split says that the kernel has a twin split over threads (parallel.go), which
	// ENTRY_parallel calls when it is given threads.
	Split bool
	// SplitDim is the result dim that the split twin divides among the threads (-1: none
	// known: an integer or transpose kernel, or a region with no level to split)
	SplitDim int
	// Strategy is the op's Entry.Strategies string.
	Strategy string
	// Choice names the kernel family that won (kernel_choice.go's table) and why each family
	// before it did not apply.
	Choice string
	// Epilogue lists the ops the kernel also computes, in order (epilogue.go); EpilogueOf is
	// the result of the op whose kernel computes this one ("" when it has its own kernel).
	Epilogue   []string
	EpilogueOf string
}

// buildPlan collects what the stages up to and including the one named upto decided about the
// graph ec lowers (the whole plan once the entry stage has run).
func (ec *entryCtx) buildPlan(upto string) *Plan {
	mc := ec.mc
	machine := mc.tgt.Name
	if mc.cpu != "" {
		machine += " cpu=" + mc.cpu
	}
	machine += fmt.Sprintf(" vector-bytes=%d tile-bytes=%d", max(mc.vecBytes, 0), mc.tileBytes)
	p := &Plan{Entry: ec.entry, Stage: upto, Machine: machine, WorkspaceBytes: -1}
	at := stageIndex(upto)
	buffers, kernels := at >= stageIndex("buffers"), at >= stageIndex("kernels")
	slotOf := map[*planBuf]int{}
	if buffers {
		p.WorkspaceBytes = ec.planSlots(p, slotOf)
	}
	outs := map[*ir.Value]int{}
	for i, o := range ec.g.Outputs {
		if _, ok := outs[o]; !ok {
			outs[o] = i
		}
	}
	first := map[*llvm.Func]int{}
	for i, op := range ec.g.Ops {
		po := PlanOp{Index: i, Result: op.Result.Name, Kind: op.Kind, Type: op.Result.Type.String(), SharedWith: -1, SplitDim: -1,
			Region: regionString(ec.regionOf(op.Result), op.Result.Type)}
		if buffers {
			switch a, b := ec.alias[op.Result], ec.plan.value[op.Result]; {
			case a != nil:
				po.Buffer = fmt.Sprintf("in place in %%%s at %v (its copy %%%s writes the rest)", a.target.Name, a.shift, a.copyOp.Result.Name)
			case b != nil:
				po.Buffer = fmt.Sprintf("slot %d", slotOf[b])
			default:
				if k, ok := outs[op.Result]; ok {
					po.Buffer = fmt.Sprintf("output %d", k)
				}
			}
			if b := ec.plan.scratch[op]; b != nil {
				po.Scratch = fmt.Sprintf("slot %d", slotOf[b])
			}
			if c := ec.fusedInto[op]; c != nil {
				po.EpilogueOf = c.Result.Name
			}
			if c := ec.epi[op]; c != nil {
				for _, e := range c.ops {
					po.Epilogue = append(po.Epilogue, fmt.Sprintf("%%%s (%s)", e.Result.Name, e.Kind))
				}
			}
		}
		if kernels {
			if i < len(ec.strategies) {
				po.Strategy = ec.strategies[i]
			}
			if i < len(ec.choices) {
				po.Choice = ec.choices[i]
			}
			if k := ec.kernels[i]; k != nil {
				po.Kernel = k.f.Name()
				po.Split = k.par != nil
				po.SplitDim = k.splitDim - 1
				if j, ok := first[k.f]; ok {
					po.SharedWith = j
				} else {
					first[k.f] = i
				}
			}
		}
		p.Ops = append(p.Ops, po)
	}
	return p
}

// planSlots adds the workspace slots of the buffer plan to p, records each buffer's slot in
// slotOf, and returns the workspace size (-1 when it depends on symbolic dims).
func (ec *entryCtx) planSlots(p *Plan, slotOf map[*planBuf]int) int64 {
	offs := make([]int64, len(ec.plan.slots))
	workspace := int64(-1)
	if len(ec.g.Params) == 0 {
		tmp := newFuncBuilder(ec.mc, llvm.NewFunc("graphc.sizing", types.Void))
		vs, total := ec.layout(tmp)
		for s, v := range vs {
			if n, ok := isConst(v); ok {
				offs[s] = n
			} else {
				offs[s] = -1
			}
		}
		if n, ok := isConst(total); ok {
			workspace = n
		}
	} else {
		for s := 1; s < len(offs); s++ {
			offs[s] = -1 // the slots before it have symbolic sizes
		}
	}
	for s, members := range ec.plan.slots {
		ps := PlanSlot{Offset: offs[s]}
		for _, b := range members {
			slotOf[b] = s
			if b.static < 0 || ps.Bytes < 0 {
				ps.Bytes = -1
			} else {
				ps.Bytes = max(ps.Bytes, b.static)
			}
			life := fmt.Sprintf("ops %d..%d", b.start, b.end)
			if b.start == b.end {
				life = fmt.Sprintf("op %d", b.start)
			}
			if b.v != nil {
				ps.Buffers = append(ps.Buffers, fmt.Sprintf("%%%s %s", b.v.Name, life))
			} else {
				ps.Buffers = append(ps.Buffers, fmt.Sprintf("scratch of %%%s %s", b.op.Result.Name, life))
			}
		}
		p.Slots = append(p.Slots, ps)
	}
	return workspace
}

// regionString prints the box of a tensor of type t in region r: "whole", or per dim lo..hi
// (inclusive, clamped to the tensor when both are constant; symbolic bounds in parentheses,
// e.g. [(N - 1)..(N - 1), 0..31]).
func regionString(r *region, t ir.TensorType) string {
	if r == nil || r.full || len(t.Shape) == 0 {
		return "whole"
	}
	var dims []string
	whole := true
	for d, dim := range t.Shape {
		if len(r.lo[d]) == 0 {
			dims = append(dims, "empty")
			whole = false
			continue
		}
		lo, hi := symExtreme(true, r.lo[d]), symExtreme(false, r.hi[d])
		l, lok := lo.constant()
		h, hok := hi.constant()
		if full, static := dim.IsConst(); static && lok && hok {
			l, h = min(max(l, 0), full), min(h, full-1)
			whole = whole && l == 0 && h == full-1
			dims = append(dims, fmt.Sprintf("%d..%d", l, h))
			continue
		}
		whole = false
		dims = append(dims, boundString(lo)+".."+boundString(hi))
	}
	if whole {
		return "whole"
	}
	return "[" + strings.Join(dims, ", ") + "]"
}

// boundString prints a bound of a region, in parentheses when it is an expression that is not
// already enclosed in a call or parentheses.
func boundString(s *sym) string {
	t := symString(s)
	if !strings.Contains(t, " ") {
		return t // a constant or a name
	}
	if i := strings.IndexByte(t, '('); i >= 0 && strings.Trim(t[:i], "minaxflor") == "" {
		depth := 0
		for j := i; j < len(t); j++ {
			switch t[j] {
			case '(':
				depth++
			case ')':
				depth--
			}
			if depth == 0 {
				if j == len(t)-1 {
					return t // (…), min(…), max(…), floor(…)
				}
				break
			}
		}
	}
	return "(" + t + ")"
}

// symString prints a symbolic bound.
func symString(s *sym) string {
	switch s.kind {
	case symAff:
		return s.aff.String()
	case symAdd:
		return "(" + symString(s.args[0]) + " + " + symString(s.args[1]) + ")"
	case symScale:
		return fmt.Sprintf("%d*%s", s.coef, symString(s.args[0]))
	case symFloor:
		return fmt.Sprintf("floor(%s/%d)", symString(s.args[0]), s.den)
	}
	var args []string
	seen := map[string]bool{}
	for _, a := range s.args {
		if t := symString(a); !seen[t] {
			seen[t] = true
			args = append(args, t)
		}
	}
	if len(args) == 1 {
		return args[0] // the bounds of several accesses, all alike
	}
	name := "max"
	if s.kind == symMin {
		name = "min"
	}
	return name + "(" + strings.Join(args, ", ") + ")"
}

// bytesString prints a size or offset that may be symbolic (-1).
func bytesString(n int64) string {
	if n < 0 {
		return "symbolic"
	}
	return fmt.Sprint(n)
}

// String prints the plan: the machine, the workspace slots (buffers stage), then per op its
// region (regions stage), buffer and scratch (buffers stage), kernel, strategy and choice (the
// kernel family that won and why the ones above it in kernel_choice.go's table did not; kernels
// stage) and epilogue chain (buffers stage), in call order (entry stage). A 48×64 · 64×96
// matmul and its relu on skylake-avx512:
//
//	plan main_graph: x86-64 cpu=skylake-avx512 vector-bytes=64 tile-bytes=64
//	buffers: workspace 18432 bytes
//	  slot 0 @0 18432 bytes: %C ops 0..1
//	op 0 %C = matmul f32[48, 96]
//	  region: whole
//	  buffer: slot 0
//	  kernel: main_graph.k0.matmul
//	  strategy: register-tiles 8x48 i=0 j=1 kc=0 classes=1 parts=1 +epilogue(1)
//	  choice: register-tiles (int-dot: not an i32 sum; nbits-gemm: not a block-quantized weight product over whole rows; nbits-gemv: not a block-quantized weight product over whole rows)
//	  epilogue: %R (relu)
//	op 1 %R = relu f32[48, 96]
//	  region: whole
//	  buffer: output 0
//	  kernel: none (epilogue of %C)
//	  choice: epilogue (computed by the kernel of %C)
//
// A partial plan (Stage before the last stage) names its stage on the first line and prints
// only the lines of the stages up to it, in the same order: after regions, the op lines and
// their regions; after buffers, also the buffers and slots, each op's buffer, scratch and
// epilogue lines, and "kernel: none (epilogue of %C)" for the ops computed by another op's
// kernel:
//
//	plan main_graph (after buffers): x86-64 cpu=skylake-avx512 vector-bytes=64 tile-bytes=64
//	buffers: workspace 18432 bytes
//	  slot 0 @0 18432 bytes: %C ops 0..1
//	op 0 %C = matmul f32[48, 96]
//	  region: whole
//	  buffer: slot 0
//	  epilogue: %R (relu)
//	op 1 %R = relu f32[48, 96]
//	  region: whole
//	  buffer: output 0
//	  kernel: none (epilogue of %C)
func (p *Plan) String() string {
	var sb strings.Builder
	at := len(stages) - 1
	if i := stageIndex(p.Stage); i >= 0 {
		at = i
	}
	buffers, kernels := at >= stageIndex("buffers"), at >= stageIndex("kernels")
	if at < len(stages)-1 {
		fmt.Fprintf(&sb, "plan %s (after %s): %s\n", p.Entry, p.Stage, p.Machine)
	} else {
		fmt.Fprintf(&sb, "plan %s: %s\n", p.Entry, p.Machine)
	}
	if buffers {
		fmt.Fprintf(&sb, "buffers: workspace %s bytes\n", bytesString(p.WorkspaceBytes))
		for s, sl := range p.Slots {
			fmt.Fprintf(&sb, "  slot %d @%s %s bytes: %s\n", s, bytesString(sl.Offset), bytesString(sl.Bytes), strings.Join(sl.Buffers, ", "))
		}
	}
	for _, op := range p.Ops {
		fmt.Fprintf(&sb, "op %d %%%s = %s %s\n", op.Index, op.Result, op.Kind, op.Type)
		fmt.Fprintf(&sb, "  region: %s\n", op.Region)
		if !buffers {
			continue
		}
		if op.Buffer != "" {
			fmt.Fprintf(&sb, "  buffer: %s\n", op.Buffer)
		}
		if op.Scratch != "" {
			fmt.Fprintf(&sb, "  scratch: %s\n", op.Scratch)
		}
		switch {
		case op.EpilogueOf != "":
			fmt.Fprintf(&sb, "  kernel: none (epilogue of %%%s)\n", op.EpilogueOf)
			if kernels {
				fmt.Fprintf(&sb, "  choice: %s\n", op.Choice)
			}
			continue
		case !kernels:
		case op.SharedWith >= 0:
			fmt.Fprintf(&sb, "  kernel: %s (shared with op %d)\n", op.Kernel, op.SharedWith)
		default:
			fmt.Fprintf(&sb, "  kernel: %s\n", op.Kernel)
		}
		if kernels {
			fmt.Fprintf(&sb, "  strategy: %s\n", op.Strategy)
			fmt.Fprintf(&sb, "  choice: %s\n", op.Choice)
		}
		if len(op.Epilogue) > 0 {
			fmt.Fprintf(&sb, "  epilogue: %s\n", strings.Join(op.Epilogue, ", "))
		}
	}
	return sb.String()
}

// Plan prints the plans of every entry of the module.
func (m *Module) Plan() string {
	var sb strings.Builder
	for i, e := range m.Entries {
		if i > 0 {
			sb.WriteByte('\n')
		}
		if e.Plan != nil {
			sb.WriteString(e.Plan.String())
		}
	}
	return sb.String()
}
