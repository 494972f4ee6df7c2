package conformance

// This file runs the node tests as compiled code: every test that passes in the evaluator must
// pass as x86-64 code, the floating-point ones as scalar hexagonv67 code and the integer ones as
// hexagonv67 code with integer HVX under qemu-hexagon; the modules must also build for
// hexagonv68 with HVX (a sampled third of the scalar Hexagon ones and of the builds unless
// -conformance-full; `make conformance-hexagon` runs them all).

import (
	"context"
	"flag"
	"os/exec"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/passes"
)

var conformanceFull = flag.Bool("conformance-full", false, "run every floating-point node test under qemu-hexagon")

func defaultPrep(t *testing.T) Prepare {
	ps, err := passes.ParsePipeline(passes.DefaultPipeline)
	if err != nil {
		t.Fatal(err)
	}
	return func(ctx context.Context, g *ir.Graph) error {
		_, err := passes.Run(ctx, g, ps, &passes.Options{VerifyEach: true})
		return err
	}
}

// evaluated is the current suite run once in the evaluator after the default pipeline, shared
// by TestConformanceEvaluator and every compiled run (each used to import, prepare and evaluate
// the whole suite again before building its sample).
var evaluated = struct {
	once sync.Once
	ev   *Evaluated
	err  error
}{}

// evaluatedSuite returns the shared evaluation of the current suite.
func evaluatedSuite(t *testing.T) *Evaluated {
	t.Helper()
	needSuite(t)
	prep := defaultPrep(t)
	evaluated.once.Do(func() { evaluated.ev, evaluated.err = Evaluate(context.Background(), suite, "", prep) })
	if evaluated.err != nil {
		t.Fatal(evaluated.err)
	}
	return evaluated.ev
}

// runCompiled runs the suite for m and fails on any test that passes in the evaluator but not
// as compiled code.
func runCompiled(t *testing.T, opts CompiledOptions) {
	needSuite(t)
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	opts.Evaluated = evaluatedSuite(t)
	if !opts.BuildOnly && !e2e.CanRun(t, opts.Machine) {
		// code the host cannot execute is still built
		opts.BuildOnly = true
	}
	rs, err := RunAllCompiled(context.Background(), suite, "", defaultPrep(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	p, f, s := Summary(rs)
	t.Logf("%s: %d passed, %d failed, %d skipped", opts.Machine, p, f, s)
	if f > 0 {
		t.Errorf("%d tests pass in the evaluator but fail as %s code:\n%s", f, opts.Machine, Table(rs, true))
	}
	if p == 0 {
		t.Errorf("no test ran as compiled code")
	}
}

func TestConformanceCompiledX86(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs every evaluator-passing node test")
	}
	runCompiled(t, CompiledOptions{Machine: e2e.Host()})
}

// TestConformanceCompiledNative runs the node tests as code for the host's best ISA (AVX-512 on
// the machines we measure on; under GRAPHC_HOST_CPU, that CPU's): the widths and kernels real
// models get, which baseline x86-64 (SSE2) code does not exercise. A sampled half unless
// -conformance-full.
func TestConformanceCompiledNative(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs node tests")
	}
	every := 2
	if *conformanceFull {
		every = 1
	}
	runCompiled(t, CompiledOptions{Machine: e2e.Native(), Every: every})
}

func TestConformanceCompiledHexagon(t *testing.T) {
	if testing.Short() {
		t.Skip("runs node tests under qemu-hexagon")
	}
	if _, err := exec.LookPath("qemu-hexagon"); err != nil {
		t.Skip("qemu-hexagon not installed")
	}
	every := 3
	if *conformanceFull {
		every = 1
	}
	runCompiled(t, CompiledOptions{Machine: e2e.HexagonScalar(), FloatOnly: true, Every: every})
}

// TestConformanceCompiledHVX runs the node tests with integer inputs or outputs as hexagonv67
// code with its default 128-byte HVX under qemu-hexagon: their integer loops are real HVX code
// (all of them: about 380 tests, under a minute).
func TestConformanceCompiledHVX(t *testing.T) {
	if testing.Short() {
		t.Skip("runs node tests under qemu-hexagon")
	}
	if _, err := exec.LookPath("qemu-hexagon"); err != nil {
		t.Skip("qemu-hexagon not installed")
	}
	runCompiled(t, CompiledOptions{Machine: e2e.HexagonHVX(), IntOnly: true})
}

func TestConformanceHVXBuilds(t *testing.T) {
	// qemu cannot run HVX floating point: every (sampled) module is built for hexagonv68+HVX
	if testing.Short() {
		t.Skip("builds node tests for hexagonv68+HVX")
	}
	every := 3
	if *conformanceFull {
		every = 1
	}
	runCompiled(t, CompiledOptions{Machine: e2e.Machine{Target: "hexagon"}, BuildOnly: true, Every: every})
}

// TestConformanceQuantization: the node tests of the seven quantization ops (QuantizeLinear,
// DequantizeLinear, DynamicQuantizeLinear, QLinearMatMul, QLinearConv, MatMulInteger,
// ConvInteger) pass in the evaluator, as x86-64 code, as scalar hexagonv67 code and as
// hexagonv67 code with integer HVX under qemu-hexagon, every element type the suite uses
// included (float8, float4, the packed int4/uint4 and int2/uint2).
func TestConformanceQuantization(t *testing.T) {
	needSuite(t)
	filters := []string{"quantizelinear", "qlinear", "integer"}
	// 45 tests match the filters (the float8, float4, int4 and int2 variants and the expanded
	// DynamicQuantizeLinear graphs included), and every one runs and passes
	const want = 45
	run := func(t *testing.T, compiled func(filter string) ([]Result, error)) {
		pass := 0
		for _, f := range filters {
			rs, err := compiled(f)
			require.NoError(t, err)
			p, fail, _ := Summary(rs)
			require.Zero(t, fail, Table(rs, true))
			pass += p
		}
		require.Equal(t, want, pass)
	}
	t.Run("eval", func(t *testing.T) {
		run(t, func(f string) ([]Result, error) {
			return RunAll(context.Background(), suite, f, defaultPrep(t), EvalExecutor)
		})
	})
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	machines := []e2e.Machine{e2e.Host()}
	if _, err := exec.LookPath("qemu-hexagon"); err == nil {
		machines = append(machines, e2e.HexagonScalar(), e2e.HexagonHVX())
	}
	for _, m := range machines {
		t.Run(m.String()+m.Attrs, func(t *testing.T) {
			run(t, func(f string) ([]Result, error) {
				return RunAllCompiled(context.Background(), suite, f, defaultPrep(t), CompiledOptions{Machine: m})
			})
		})
	}
}

// TestSharedEvaluation: RunAllCompiled gives the same results with a shared Evaluate as with
// its own pass 1, the shared results are RunAll's in the evaluator, and an Evaluated of
// another filter is not taken for this one.
func TestSharedEvaluation(t *testing.T) {
	needSuite(t)
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	ev, err := Evaluate(ctx, suite, "test_relu", defaultPrep(t))
	require.NoError(t, err)
	evalOnly, err := RunAll(ctx, suite, "test_relu", defaultPrep(t), EvalExecutor)
	require.NoError(t, err)
	require.Equal(t, evalOnly, ev.Results())
	own, err := RunAllCompiled(ctx, suite, "test_relu", defaultPrep(t), CompiledOptions{Machine: e2e.Host()})
	require.NoError(t, err)
	shared, err := RunAllCompiled(ctx, suite, "test_relu", defaultPrep(t), CompiledOptions{Machine: e2e.Host(), Evaluated: ev})
	require.NoError(t, err)
	require.Equal(t, own, shared)
	p, _, _ := Summary(shared)
	require.Equal(t, 2, p, Table(shared, true))
	other, err := Evaluate(ctx, suite, "test_abs", defaultPrep(t))
	require.NoError(t, err)
	mixed, err := RunAllCompiled(ctx, suite, "test_relu", defaultPrep(t), CompiledOptions{Machine: e2e.Host(), Evaluated: other})
	require.NoError(t, err)
	require.Equal(t, own, mixed)
}
