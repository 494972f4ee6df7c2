package conformance

// This file runs the node tests as compiled code: every test that passes in the evaluator must
// pass as x86-64 code, and the floating-point ones as hexagonv67 code under qemu-hexagon; the
// modules must also build for hexagonv68 with HVX (a sampled third of the Hexagon ones unless
// -conformance-full; `make conformance-hexagon` runs them all).

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"testing"

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
	if _, err := os.Stat(suite); err != nil {
		t.Skipf("ONNX node tests not found at %s", suite)
	}
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
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
