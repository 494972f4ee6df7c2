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

// runCompiled runs the suite for m and fails on any test that passes in the evaluator but not
// as compiled code.
func runCompiled(t *testing.T, opts CompiledOptions) {
	needSuite(t)
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
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
