// This file holds the helpers of lower's tests: building generic ops, inputs with special
// values, verifying modules with opt (19 and 14) and llir's parser, and running graphs as
// compiled code against the reference evaluator.

package lower_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"weak"

	"github.com/llir/llvm/asm"
	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
	"github.com/graphc/graphc/lower"
)

// genericSpec describes a generic op over named inputs.
type genericSpec struct {
	inputs   []ir.TensorType
	domain   string
	access   []string
	out      string
	body     string
	typ      string
	reduce   string
	init     float64
	argdim   int64
	iterator []string
}

// genericGraph builds a graph with one generic op.
func genericGraph(s genericSpec) (*ir.Graph, error) {
	g := ir.NewGraph("g")
	var ins []*ir.Value
	for i, t := range s.inputs {
		ins = append(ins, g.AddInput(fmt.Sprintf("x%d", i), t))
	}
	attrs := ir.Attrs{
		"type": ir.StringAttr(s.typ), "domain": ir.StringAttr(s.domain), "access": ir.StringsAttr(s.access...),
		"out": ir.StringAttr(s.out), "body": ir.StringAttr(s.body),
	}
	if s.reduce != "" {
		attrs["reduce"] = ir.StringAttr(s.reduce)
		attrs["init"] = ir.FloatAttr(s.init)
		attrs["argdim"] = ir.IntAttr(s.argdim)
	}
	if s.iterator != nil {
		attrs["iterators"] = ir.StringsAttr(s.iterator...)
	}
	op, err := g.NewOp("generic", "r", ins, attrs)
	if err != nil {
		return nil, err
	}
	g.Outputs = []*ir.Value{op.Result}
	if err := ir.Verify(g); err != nil {
		return nil, err
	}
	return g, nil
}

// specialFloats are values every float test sees. (Not 709.5: Go's amd64 assembly math.Exp
// returns +Inf for x in (709.44, 709.78), where exp is finite; the compiled code is right.)
var specialFloats = []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, 1.5, 2.5, -2.5, 3, -3,
	math.Inf(1), math.Inf(-1), math.NaN(), 1e-30, -1e30, 100, -100, 1e-5, 0.75, 7, 709, -745}

// inputsFor returns inputs for g: random values, with the special values first when special.
func inputsFor(r *rand.Rand, g *ir.Graph, params map[string]int64, special bool) []*ir.Tensor {
	var out []*ir.Tensor
	for k, in := range g.Inputs {
		s, err := in.Type.EvalShape(params)
		if err != nil {
			panic(err)
		}
		t := e2e.RandomTensor(r, in.Type.Elem, s)
		if special && t.Elem.IsFloat() {
			for i := range t.F {
				if (i+k*5)%3 == 0 {
					t.F[i] = ir.RoundFloat(t.Elem, specialFloats[(i/3+k*7)%len(specialFloats)])
				} else {
					t.F[i] = ir.RoundFloat(t.Elem, t.F[i]*4)
				}
			}
		}
		out = append(out, t)
	}
	return out
}

// evalCase runs the evaluator on a case. The reference is computed once per case: tests run
// the same cases on several machines (baseline x86-64, native, Hexagon, AArch64), and the
// evaluator was half the Go side of such a test. The cache holds a case weakly, so an entry
// goes when its case does.
func evalCase(c *e2e.Case) ([]*ir.Tensor, error) {
	key := weak.Make(c)
	evalCache.Lock()
	r, ok := evalCache.m[key]
	if !ok {
		r = &evalResult{}
		evalCache.m[key] = r
		runtime.AddCleanup(c, func(k weak.Pointer[e2e.Case]) {
			evalCache.Lock()
			delete(evalCache.m, k)
			evalCache.Unlock()
		}, key)
	}
	evalCache.Unlock()
	r.once.Do(func() {
		in := map[string]*ir.Tensor{}
		for i, v := range c.Graph.Inputs {
			in[v.Name] = c.Inputs[i]
		}
		r.outs, r.err = eval.Run(c.Graph, in, eval.WithParams(c.Params))
	})
	return r.outs, r.err
}

// evalResult is the evaluator's answer for one case, computed once.
type evalResult struct {
	once sync.Once
	outs []*ir.Tensor
	err  error
}

var evalCache = struct {
	sync.Mutex
	m map[weak.Pointer[e2e.Case]]*evalResult
}{m: map[weak.Pointer[e2e.Case]]*evalResult{}}

// tolerance is the comparison tolerance per element type: the runtime's functions differ from
// Go's (assembly exp and log on amd64) by at most a few ulps.
func tolerance(t ir.DType) (rtol, atol float64) {
	switch t {
	case ir.F32:
		return 4e-7, 1e-37
	case ir.F16:
		return 1e-3, 1e-7
	}
	return 1e-14, 1e-300
}

// reassocTolerance is the tolerance for outputs that sum floats in vector lanes
// (lower.Config.OrderedReductions off): a reassociated sum of n terms is within
// (n-1)·ε·Σ|xᵢ| of the evaluator's, which for the tests' terms in [-1, 1] and n up to a few
// hundred stays below 10^-5 of |sum| except where the sum cancels (hence atol).
func reassocTolerance(t ir.DType) (rtol, atol float64) {
	switch t {
	case ir.F32:
		return 1e-5, 1e-6
	case ir.F64:
		return 1e-12, 1e-14
	}
	return tolerance(t)
}

// runCases builds the cases for machine m in one program and compares each with the
// evaluator: outputs within tolerance, or a non-zero status where the evaluator fails.
func runCases(t *testing.T, m e2e.Machine, names []string, cases []*e2e.Case) {
	t.Helper()
	runCasesTol(t, m, names, cases, tolerance)
}

// runCasesTol is runCases with the given tolerance per element type. Code for a CPU the host
// cannot run (e2e.CanRun: its extensions, GRAPHC_HOST_CPU's cap) is built and verified only; a
// machine the cap does not change is skipped in CI's capped rerun (e2e.SkipUncapped).
func runCasesTol(t *testing.T, m e2e.Machine, names []string, cases []*e2e.Case, tol func(ir.DType) (rtol, atol float64)) {
	t.Helper()
	if e2e.SkipUncapped(t, m) {
		return
	}
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	if m.Target == "hexagon" {
		if _, err := exec.LookPath("qemu-hexagon"); err != nil {
			t.Skip("qemu-hexagon not installed")
		}
	}
	if why := e2e.AArch64Missing(); m.Target == "aarch64" && why != "" {
		t.Skip("AArch64 under qemu: " + why)
	}
	ctx := context.Background()
	dir := t.TempDir()
	p, err := e2e.BuildBatch(ctx, dir, m, cases)
	require.NoError(t, err)
	verifyModule(t, p.Mod.String(), filepath.Join(dir, "model.ll"))
	if !e2e.CanRun(t, m) {
		// built and verified (opt, clang's code generation), not run
		t.Logf("%s: %d cases compiled, not executed", m, len(cases))
		return
	}
	res := p.Run(ctx)
	for i, c := range cases {
		want, everr := evalCase(c)
		got := res[i]
		if got.Err != nil {
			t.Errorf("%s: %v", names[i], got.Err)
			continue
		}
		if everr != nil {
			if got.Status == 0 {
				t.Errorf("%s: the evaluator fails (%v) but the compiled code returned 0", names[i], everr)
			}
			continue
		}
		if got.Status != 0 {
			t.Errorf("%s: status %d, the evaluator succeeds", names[i], got.Status)
			continue
		}
		for k := range want {
			rtol, atol := tol(want[k].Elem)
			if err := e2e.Compare(got.Outputs[k], want[k], rtol, atol, nil); err != nil {
				t.Errorf("%s: output %d: %v", names[i], k, err)
			}
		}
	}
}

// verifyModule re-parses the module with llir and verifies it with opt-19 and opt-14 when
// installed.
func verifyModule(t *testing.T, text, path string) {
	t.Helper()
	if path == "" {
		path = filepath.Join(t.TempDir(), "m.ll")
	}
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	if _, err := asm.ParseString(path, text); err != nil {
		t.Errorf("llir cannot re-parse the module: %v", err)
	}
	for _, opt := range []string{"opt-19", "opt-14"} {
		bin, err := exec.LookPath(opt)
		if err != nil {
			continue
		}
		out, err := exec.Command(bin, "-passes=verify", "-disable-output", path).CombinedOutput()
		if err != nil {
			if opt == "opt-14" && strings.Contains(string(out), "Unknown command line argument") {
				out, err = exec.Command(bin, "-verify", "-disable-output", path).CombinedOutput()
			}
			if err != nil {
				t.Errorf("%s rejects the module: %v\n%s", opt, err, firstLines(string(out), 20))
			}
		}
	}
}

func firstLines(s string, n int) string {
	ls := strings.Split(s, "\n")
	if len(ls) > n {
		ls = ls[:n]
	}
	return strings.Join(ls, "\n")
}

var errSkip = errors.New("skip")

// loweredModule lowers g for target and returns the module text.
func loweredModule(t *testing.T, g *ir.Graph, cfg lower.Config) string {
	t.Helper()
	mod, err := lower.Lower(context.Background(), g, cfg)
	require.NoError(t, err)
	return mod.String()
}

// runFileAtWidths runs every graph of testdata/lowering/file on random inputs (a PCG seeded
// 32, seed) against the evaluator, with 256-bit and with 512-bit vectors.
func runFileAtWidths(t *testing.T, file string, seed uint64) {
	t.Helper()
	names, gs := fileGraphs(t, file)
	r := rand.New(rand.NewPCG(32, seed))
	var ecs []*e2e.Case
	for _, g := range gs {
		ecs = append(ecs, &e2e.Case{Graph: g, Inputs: inputsFor(r, g, nil, false)})
	}
	m := e2e.Host()
	m.VectorBytes = 32
	runCases(t, m, names, ecs)
	m.VectorBytes = 64
	runCases(t, m, names, ecs)
}
