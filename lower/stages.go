// This file holds the stages of Builder.Add as one ordered table, the way passes/manager.go
// keeps its passes: each stage is a function over the entry context (entryCtx) that decides one
// part of the lowering from what the stages before it decided. Their names are the words of
// Config.PrintAfter and of graphc --print-lowering-after, which print the plan known so far
// (plan_print.go) after a stage.

package lower

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// stage is one step of lowering a graph.
type stage struct {
	// name is the stage's word in Config.PrintAfter and in --print-lowering-after.
	name string
	run  func(ec *entryCtx) error
}

// stages is the single ordered table of the stages of Builder.Add. Each stage reads what the
// ones before it filled, so the order is fixed; the comment of each entry says why it comes
// where it does.
var stages = []stage{
	{"regions", (*entryCtx).stageRegions}, // first: every buffer is sized by its value's region
	{"buffers", (*entryCtx).stageBuffers}, // after regions: slots hold boxes, not whole tensors
	// after buffers: a kernel's key holds its buffers' regions and alignment (dedup.go), and
	// the epilogue chains and in-place values decide which ops get a kernel at all
	{"kernels", (*entryCtx).stageKernels},
	{"entry", (*entryCtx).stageEntry}, // last: calls the kernels with the buffers
}

// Stages returns the names of the lowering stages, in the order Builder.Add runs them:
// regions, buffers, kernels, entry (doc.go, "Stages and the plan", says what each decides).
func Stages() []string {
	names := make([]string, len(stages))
	for i, s := range stages {
		names[i] = s.name
	}
	return names
}

// ErrUnknownStage is wrapped by the error for a name in Config.PrintAfter that is not a stage.
var ErrUnknownStage = errors.New("unknown lowering stage")

// SelectStages parses a Config.PrintAfter value: stage names separated by commas, or "all" for
// every stage ("" selects none). It returns the selected names in stage order; an unknown name
// is an error wrapping ErrUnknownStage that lists the valid ones.
func SelectStages(s string) ([]string, error) {
	want := map[string]bool{}
	for _, n := range strings.Split(s, ",") {
		n = strings.TrimSpace(n)
		switch {
		case n == "":
		case n == "all":
			for _, st := range stages {
				want[st.name] = true
			}
		case stageIndex(n) < 0:
			return nil, fmt.Errorf("%w %q; stages are: %s (or all)", ErrUnknownStage, n, strings.Join(Stages(), ", "))
		default:
			want[n] = true
		}
	}
	var out []string
	for _, st := range stages {
		if want[st.name] {
			out = append(out, st.name)
		}
	}
	return out, nil
}

// stageIndex returns the position of the stage named name in the table, or -1.
func stageIndex(name string) int {
	for i, s := range stages {
		if s.name == name {
			return i
		}
	}
	return -1
}

// runStages runs the stages on ec in table order, printing the plan after the stages in print
// (a set of names) to w.
func (ec *entryCtx) runStages(print map[string]bool, w io.Writer) error {
	for _, s := range stages {
		if err := s.run(ec); err != nil {
			return err
		}
		if print[s.name] {
			if w == nil {
				w = os.Stderr
			}
			text := fmt.Sprintf("// -----// Lowering Dump After %s //----- //\n%s", s.name, ec.buildPlan(s.name))
			if _, err := io.WriteString(w, text); err != nil {
				return fmt.Errorf("printing the plan after %s: %w", s.name, err)
			}
		}
	}
	return nil
}

// stageRegions decides the region of every value the module stores in the workspace: the box of
// the elements its producer writes and its readers read (region.go). It reads the ops'
// (DIE-restricted) domains, access and out maps, and fills ec.regions; with
// Config.CheckRequired it also checks that DIE's required volumes contain every read.
func (ec *entryCtx) stageRegions() error {
	ec.regions = ec.computeRegions()
	if !ec.mc.cfg.CheckRequired {
		return nil
	}
	return ec.checkRequired(ec.mc.cfg.Required)
}

// stageBuffers decides where every value lives: the workspace slots of the intermediates and
// of the ops' scratch, shared by buffers whose lifetimes do not overlap (plan.go); the epilogue
// chains of the tiled contractions, whose consumers get no buffer of their own (epilogue.go);
// the values written in place into their padded copies (alias.go); and the constants, private
// globals of the module unless Config.ExternalWeights puts them in the weights argument. It
// reads the regions and the kernels' forms (a contraction takes epilogues only on register
// tiles), and fills ec.plan, ec.epi, ec.fusedInto, ec.alias, ec.aliasCopies and ec.consts.
func (ec *entryCtx) stageBuffers() error {
	ec.plan = ec.planBuffers()
	// epilogues are planned from the kernels' forms, whose keys need the plan's workspace
	// buffers; fusing one moves its result's lifetime, not its buffer, so plan again
	ec.planEpilogues()
	if ec.planAliases(); len(ec.fusedInto) > 0 || len(ec.alias) > 0 {
		ec.plan = ec.planBuffers()
	}
	if ec.weights == nil {
		// in graph order, before any kernel: globals are numbered in creation order
		for _, c := range ec.g.Consts {
			ec.constGlobal(c)
		}
	}
	return nil
}

// stageKernels emits the kernel of every op that is not an epilogue of another op's kernel:
// it decides the op's strategy (strategy.go, contract.go, intdot.go, guard_split.go,
// transpose.go) and shares the kernel of an earlier op or entry with the same structural key
// (dedup.go). It reads the regions, buffers, epilogue chains and in-place values, checks ctx
// between kernels, and fills ec.strategies and ec.kernels.
func (ec *entryCtx) stageKernels() error {
	ec.kernelsAt = len(ec.mc.m.Funcs)
	ec.kernels = make([]*kernelSig, len(ec.g.Ops))
	for i, op := range ec.g.Ops {
		if err := ec.ctx.Err(); err != nil {
			return err
		}
		if p := ec.fusedInto[op]; p != nil {
			ec.strategies = append(ec.strategies, "epilogue of %"+p.Result.Name)
			ec.choices = append(ec.choices, "epilogue (computed by the kernel of %"+p.Result.Name+")")
			continue
		}
		sig, err := ec.emitKernel(i, op)
		if err != nil {
			return fmt.Errorf("op %%%s (%s): %w", op.Result.Name, op.Kind, err)
		}
		ec.kernels[i] = sig
		ec.recordSplit(op, sig)
		if ec.mc.cfg.Profile && ec.prof == nil {
			// the counters follow the first kernel's globals, where the entry's first timed
			// call created them when kernels were emitted during the entry
			ec.profileCounters()
		}
	}
	return nil
}

// stageEntry emits the entry, which checks the symbolic dims, places every buffer and calls
// the kernels in op order (entry.go), then ENTRY_workspace_size and, with Config.Profile,
// ENTRY_profile. It reads everything the stages before it filled. The entry is moved before
// the kernels in the module, where readers of the text (and golden files) expect it.
func (ec *entryCtx) stageEntry() error {
	mc := ec.mc
	n := len(mc.m.Funcs)
	if _, err := ec.emitEntry(); err != nil {
		return err
	}
	fs, k := mc.m.Funcs, ec.kernelsAt
	mc.m.Funcs = append(append(fs[:k:k], fs[n:]...), fs[k:n]...)
	if _, err := ec.emitWorkspaceSize(); err != nil {
		return err
	}
	if mc.cfg.Profile {
		ec.emitProfile()
	}
	ec.dropUnreadConsts()
	return nil
}
