// This file runs the node tests as compiled code: every test that passes in the evaluator is
// lowered, built with many others into one executable (one clang invocation per batch), run on
// the host or under qemu-hexagon, and compared with its expected outputs by the same runner and
// tolerances as the evaluator mode.

package conformance

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/ir"
)

// CompiledOptions configures RunAllCompiled.
type CompiledOptions struct {
	Machine e2e.Machine
	// BatchSize is the number of test cases built into one executable (default 64).
	BatchSize int
	// FloatOnly keeps only the tests whose inputs and outputs are all floating point;
	// IntOnly those with an integer (or bool) input or output.
	FloatOnly, IntOnly bool
	// Every, when > 1, compiles only every Every-th eligible test (a representative subset for
	// CI; the others are reported as skipped).
	Every int
	// Dir holds the build directories (default: a temporary directory, removed afterwards).
	Dir string
	// BuildOnly compiles the batches without running them (HVX floating point, which qemu 7.2
	// cannot execute); a test passes when its module builds.
	BuildOnly bool
	// Jobs is the number of batches built and run at once (default 2).
	Jobs int
	// Progress, when set, receives one line per batch.
	Progress func(string)
	// Evaluated, when set, is pass 1 for the same root, filter and prep (Evaluate): a suite
	// compiled for several machines is imported, prepared and evaluated once.
	Evaluated *Evaluated
}

// Evaluated is pass 1 of RunAllCompiled: every test under a root (whose name contains a
// filter) run in the evaluator after prep, with the graph and inputs of each data set.
type Evaluated struct {
	root, filter string
	dirs         []string
	res          []Result
	sets         [][]*captured
}

// Results returns the evaluator's result of each test, as RunAll with EvalExecutor gives them.
func (ev *Evaluated) Results() []Result { return append([]Result(nil), ev.res...) }

// Evaluate runs pass 1 of RunAllCompiled: every test under root whose name contains filter in
// the evaluator after prep, keeping each data set's graph and inputs for the compiled runs. The
// graphs are only read afterwards (lowering and the evaluator do not change them), so one
// Evaluated serves any number of RunAllCompiled calls, one at a time.
func Evaluate(ctx context.Context, root, filter string, prep Prepare) (*Evaluated, error) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	ev := &Evaluated{root: root, filter: filter}
	var mu sync.Mutex
	for _, e := range ents {
		if !e.IsDir() || !strings.Contains(e.Name(), filter) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		dir := filepath.Join(root, e.Name())
		var mine []*captured
		capture := func(ctx context.Context, g *ir.Graph, inputs []*ir.Tensor, set string) ([]*ir.Tensor, error) {
			mu.Lock()
			mine = append(mine, &captured{set: set, graph: g, inputs: inputs})
			mu.Unlock()
			return EvalExecutor(ctx, g, inputs, set)
		}
		r := RunTest(ctx, dir, prep, capture)
		ev.dirs = append(ev.dirs, dir)
		ev.res = append(ev.res, r)
		ev.sets = append(ev.sets, mine)
	}
	return ev, nil
}

// captured is one test data set as the evaluator ran it.
type captured struct {
	set    string
	graph  *ir.Graph
	inputs []*ir.Tensor
}

// RunAllCompiled runs every test under root whose name contains filter as compiled code. Tests
// that do not pass in the evaluator are reported as skipped with the evaluator's reason.
func RunAllCompiled(ctx context.Context, root, filter string, prep Prepare, opts CompiledOptions) ([]Result, error) {
	if opts.BatchSize <= 0 {
		opts.BatchSize = 64
	}
	// pass 1: the evaluator, capturing each data set's graph and inputs
	ev := opts.Evaluated
	if ev == nil || ev.root != root || ev.filter != filter {
		var err error
		if ev, err = Evaluate(ctx, root, filter, prep); err != nil {
			return nil, err
		}
	}
	var mu sync.Mutex
	var cases []*captured
	byTest := map[string][]*captured{}
	dirs, evalRes := ev.dirs, ev.res
	eligible := 0
	sampledOut := map[string]bool{}
	for i, dir := range dirs {
		r, mine := evalRes[i], ev.sets[i]
		if r.Status == Pass && (!opts.FloatOnly || allFloat(mine)) && (!opts.IntOnly || !allFloat(mine)) {
			eligible++
			if opts.Every <= 1 || eligible%opts.Every == 1 {
				byTest[dir] = mine
				cases = append(cases, mine...)
			} else {
				sampledOut[dir] = true
			}
		}
	}
	// compile and run in batches
	outputs := map[string]e2e.Result{}
	base := opts.Dir
	if base == "" {
		tmp, err := os.MkdirTemp("", "graphc-conformance-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		base = tmp
	}
	if opts.Jobs <= 0 {
		opts.Jobs = 2
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, opts.Jobs)
	for b := 0; b*opts.BatchSize < len(cases); b++ {
		chunk := cases[b*opts.BatchSize : min((b+1)*opts.BatchSize, len(cases))]
		wg.Add(1)
		sem <- struct{}{}
		go func(b int) {
			defer func() { <-sem; wg.Done() }()
			res := runChunk(ctx, filepath.Join(base, fmt.Sprintf("batch%03d", b)), opts.Machine, chunk, opts.BuildOnly)
			mu.Lock()
			for i, c := range chunk {
				outputs[c.set] = res[i]
			}
			if opts.Progress != nil {
				opts.Progress(fmt.Sprintf("batch %d: %d cases", b, len(chunk)))
			}
			mu.Unlock()
		}(b)
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// pass 2: compare the compiled outputs with the expected ones
	lookup := func(ctx context.Context, g *ir.Graph, in []*ir.Tensor, set string) ([]*ir.Tensor, error) {
		r, ok := outputs[set]
		switch {
		case ok && r.Err == nil && opts.BuildOnly:
			return EvalExecutor(ctx, g, in, set) // built: compare the evaluator's outputs
		case !ok:
			return nil, fmt.Errorf("no compiled result for %s", set)
		case r.Err != nil:
			return nil, r.Err
		case r.Status != 0:
			return nil, fmt.Errorf("compiled entry returned status %d", r.Status)
		}
		return r.Outputs, nil
	}
	var out []Result
	for i, dir := range dirs {
		r := evalRes[i]
		if _, ok := byTest[dir]; !ok {
			switch {
			case sampledOut[dir]:
				r.Status, r.Reason = Skip, "not in the sampled subset"
			case r.Status == Pass && opts.IntOnly:
				r.Status, r.Reason = Skip, "not an integer test"
			case r.Status == Pass:
				r.Status, r.Reason = Skip, "not a floating-point test"
			default:
				r.Status, r.Reason = Skip, "evaluator: "+r.Status.String()+": "+r.Reason
			}
			out = append(out, r)
			continue
		}
		out = append(out, RunTest(ctx, dir, prep, lookup))
	}
	return out, nil
}

// runChunk builds and runs a batch; when the batch does not build, each case is built alone so
// that one bad module fails only its own test.
func runChunk(ctx context.Context, dir string, m e2e.Machine, chunk []*captured, buildOnly bool) []e2e.Result {
	cs := make([]*e2e.Case, len(chunk))
	for i, c := range chunk {
		cs[i] = &e2e.Case{Graph: c.graph, Inputs: c.inputs}
	}
	p, err := e2e.BuildBatch(ctx, dir, m, cs)
	if err == nil {
		if buildOnly {
			return p.Built()
		}
		return p.Run(ctx)
	}
	res := make([]e2e.Result, len(chunk))
	if len(chunk) == 1 {
		res[0].Err = err
		return res
	}
	for i := range chunk {
		res[i] = runChunk(ctx, filepath.Join(dir, fmt.Sprint(i)), m, chunk[i:i+1], buildOnly)[0]
	}
	return res
}

// allFloat reports whether every input and output of the captured sets is floating point.
func allFloat(cs []*captured) bool {
	for _, c := range cs {
		for _, v := range append(append([]*ir.Value{}, c.graph.Inputs...), c.graph.Outputs...) {
			if !v.Type.Elem.IsFloat() {
				return false
			}
		}
	}
	return len(cs) > 0
}
