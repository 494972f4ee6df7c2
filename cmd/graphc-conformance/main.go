// Command graphc-conformance runs the ONNX backend node tests through graphc and prints a per-op
// table and the line "N passed, N failed, N skipped".
//
//	go run ./cmd/graphc-conformance [-suite DIR] [-run FILTER] [-v]
//	    [-mode=eval|x86|hexagon|hvx|aarch64] [-mcpu=CPU] [-vec=BYTES] [-batch=N]
//
// Without -suite it searches (internal/conformance/suite.go): $GRAPHC_ONNX_TESTS, then
// ../shared/onnx-node-tests beside the repository, then the repository's .onnx-tests/node that
// `make onnx-tests` checks out, then Debian's libonnx-testdata (/usr/share/libonnx-testdata/data/node);
// with none of them it says how to get one and exits 2. -suite=debian names Debian's suite.
//
// -mode=eval runs the reference evaluator; -mode=x86 runs every test that passes in the
// evaluator as compiled x86-64 code; -mode=hexagon runs them as scalar hexagonv67 code under
// qemu-hexagon (-float-only keeps the floating-point ones); -mode=hvx runs them as hexagonv67
// code with its default 128-byte HVX (integer loops vectorised, float loops scalar) under
// qemu-hexagon; -mode=hvx-build only builds them all for hexagonv68 with HVX (qemu cannot run
// HVX floating point); -mode=aarch64 runs them as AArch64 code for -mcpu under qemu-aarch64.
// -vec forces explicit vectors of that many bytes (e.g. 128, the HVX width)
// in the compiled modes.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/graphc/graphc/internal/conformance"
	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/passes"
)

func main() {
	suite := flag.String("suite", "", "directory of the ONNX node tests, or \"debian\" for libonnx-testdata's (default: $"+conformance.EnvSuite+", then ../shared/onnx-node-tests beside the repository, then `make onnx-tests`' checkout, then Debian's)")
	filter := flag.String("run", "", "only tests whose name contains this")
	verbose := flag.Bool("v", false, "list every failure with its reason")
	pipeline := flag.String("pipeline", passes.DefaultPipeline, "passes to run before execution")
	mode := flag.String("mode", "eval", "eval (reference evaluator), x86 (compiled baseline x86-64), native (compiled for the host's best ISA, AVX-512 where it has it; GRAPHC_HOST_CPU=x86-64-v3 caps it), hexagon (compiled scalar hexagonv67 under qemu-hexagon), hvx (hexagonv67 with integer HVX under qemu-hexagon), hvx-build (hexagonv68+HVX modules built, not run) or aarch64 (compiled for -mcpu under qemu-aarch64)")
	mcpu := flag.String("mcpu", "", "-mode=aarch64: the Arm CPU (generic, cortex-a76, cortex-x2 ...; default generic)")
	vec := flag.Int("vec", 0, "compiled modes: force explicit vectors of this many bytes (0: the target's default)")
	batch := flag.Int("batch", 64, "compiled modes: test cases per executable")
	skips := flag.Bool("skips", false, "list every skipped test with its reason")
	floatOnly := flag.Bool("float-only", false, "compiled modes: run only the tests whose inputs and outputs are all floating point")
	keep := flag.String("keep", "", "compiled modes: keep the build directories (modules, drivers, executables) under this directory")
	flag.Parse()
	if err := findSuite(suite); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ps, err := passes.ParsePipeline(*pipeline)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	prep := func(ctx context.Context, g *ir.Graph) error {
		_, err := passes.Run(ctx, g, ps, &passes.Options{VerifyEach: true})
		return err
	}
	ctx := context.Background()
	var rs []conformance.Result
	switch *mode {
	case "eval":
		rs, err = conformance.RunAll(ctx, *suite, *filter, prep, conformance.EvalExecutor)
	case "x86", "native", "hexagon", "hvx", "hvx-build", "aarch64":
		m := e2e.Host()
		switch *mode {
		case "native":
			m = e2e.Native()
		case "hexagon":
			m = e2e.HexagonScalar()
		case "hvx":
			m = e2e.HexagonHVX()
		case "hvx-build":
			m = e2e.Machine{Target: "hexagon"} // hexagonv68 + HVX: built, not run
		case "aarch64":
			if why := e2e.AArch64Missing(); why != "" {
				fmt.Fprintf(os.Stderr, "-mode=aarch64: %s\n", why)
				os.Exit(1)
			}
			m = e2e.AArch64(*mcpu)
		}
		m.VectorBytes = *vec
		if ok, why := m.CanExecute(); !ok && *mode != "hvx-build" {
			fmt.Fprintf(os.Stderr, "-mode=%s (%s): %s\n", *mode, m, why)
			os.Exit(2)
		}
		rs, err = conformance.RunAllCompiled(ctx, *suite, *filter, prep, conformance.CompiledOptions{
			Machine: m, BatchSize: *batch, FloatOnly: *floatOnly, Dir: *keep, BuildOnly: *mode == "hvx-build",
			Progress: func(s string) { fmt.Fprintln(os.Stderr, s) },
		})
	default:
		fmt.Fprintf(os.Stderr, "-mode=%s: want eval, x86, native, hexagon, hvx, hvx-build or aarch64\n", *mode)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if *skips {
		for _, r := range rs {
			if r.Status == conformance.Skip {
				fmt.Printf("skip %s (%s): %s\n", r.Test, r.Op, r.Reason)
			}
		}
	}
	fmt.Print(conformance.Table(rs, *verbose))
}

// findSuite resolves -suite: "" runs the default search, "debian" Debian's suite.
func findSuite(suite *string) error {
	var s conformance.Suite
	var err error
	switch *suite {
	case "":
		s, err = conformance.FindSuite(".")
	case "debian":
		s, err = conformance.FindDebianSuite()
	default:
		return nil
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "node tests: %s (%s)\n", s.Dir, s.From)
	*suite = s.Dir
	return nil
}
