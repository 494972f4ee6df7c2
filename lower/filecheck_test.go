// This file runs the lowering CHECK tests: every testdata/lowering/*.graph holds one graph and
// "// RUN:" lines of graphc flags, each lowering the graph once and matching the output against
// the file's CHECK lines (internal/filecheck), so that a test states the part of the module or
// plan it is about (the tile loop, the vector type, the intrinsic) rather than comparing a
// whole module:
//
//	// RUN: graphc --target=x86-64 --mcpu=skylake-avx512 --emit=llvm %s
//	// RUN: graphc --target=x86-64 --mcpu=skylake-avx512 --emit=plan --check-prefix=PLAN %s
//
// Flags: --target, --mcpu, --mattr, --emit=llvm|plan (default llvm), --pipeline=PASS,... (the
// graph is lowered as written by default), --no-epilogues, --ordered-reductions,
// --check-prefix (default CHECK). Every module is re-parsed by llir and verified by opt. Check
// lines of a prefix that no RUN line names fail the test (a RUN line dropped or renamed must not
// silence its checks), so comments do not start with "// WORD:".

package lower_test

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/filecheck"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/lower"
	"github.com/graphc/graphc/passes"
)

// directivePrefix finds the prefixes of a file's check lines ("// HVX-NEXT: ..." gives HVX).
var directivePrefix = regexp.MustCompile(`(?m)^// ([A-Z][A-Z0-9]*)(?:-NEXT|-SAME|-NOT|-LABEL)?:`)

// lowerRun is one RUN line.
type lowerRun struct {
	cfg      lower.Config
	emit     string
	pipeline string
	prefix   string
}

func parseLowerRun(line string) (*lowerRun, error) {
	r := &lowerRun{emit: "llvm"}
	target := "x86-64"
	for _, a := range filecheck.SplitArgs(line) {
		name, val, _ := strings.Cut(a, "=")
		switch name {
		case "graphc", "%s":
		case "--target":
			target = val
		case "--mcpu":
			r.cfg.CPU = val
		case "--mattr":
			r.cfg.Attrs = val
		case "--emit":
			if val != "llvm" && val != "plan" {
				return nil, fmt.Errorf("--emit=%s: want llvm or plan", val)
			}
			r.emit = val
		case "--pipeline":
			r.pipeline = val
		case "--no-epilogues":
			r.cfg.NoEpilogues = true
		case "--ordered-reductions":
			r.cfg.OrderedReductions = true
		case "--check-prefix":
			r.prefix = val
		default:
			return nil, fmt.Errorf("unknown RUN argument %q", a)
		}
	}
	tg, err := lower.LoadTarget(target)
	if err != nil {
		return nil, err
	}
	r.cfg.Target = tg
	return r, nil
}

// lowerOutput lowers src as run says and returns the module text or the plan.
func lowerOutput(t *testing.T, src string, run *lowerRun) string {
	t.Helper()
	g, err := ir.Parse(src)
	require.NoError(t, err)
	require.NoError(t, ir.Verify(g))
	if run.pipeline != "" {
		ps, err := passes.ParsePipeline(run.pipeline)
		require.NoError(t, err)
		_, err = passes.Run(context.Background(), g, ps, &passes.Options{VerifyEach: true})
		require.NoError(t, err)
	}
	mod, err := lower.Lower(context.Background(), g, run.cfg)
	require.NoError(t, err)
	if run.emit == "plan" {
		return mod.Plan()
	}
	text := mod.String()
	verifyModule(t, text, "")
	return text
}

func TestLoweringFiles(t *testing.T) {
	files, err := filepath.Glob("../testdata/lowering/*.graph")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".graph"), func(t *testing.T) {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			src := string(data)
			runs := filecheck.RunLines(src)
			require.NotEmpty(t, runs, "%s has no RUN line", f)
			used := map[string]bool{"RUN": true}
			for _, line := range runs {
				run, err := parseLowerRun(line)
				require.NoError(t, err, line)
				used[cmp.Or(run.prefix, "CHECK")] = true
				out := lowerOutput(t, src, run)
				if err := filecheck.Check(src, out, run.prefix); err != nil {
					t.Errorf("RUN: %s\n%s: %v\n--- output ---\n%s", line, f, err, out)
				}
			}
			for _, m := range directivePrefix.FindAllStringSubmatch(src, -1) {
				require.True(t, used[m[1]], "%s: %s: lines that no RUN line checks (--check-prefix=%s)", f, m[1], m[1])
			}
		})
	}
}

// TestLoweringFilesCanFail: a wrong CHECK line on real output fails (the vector width of an
// AVX-512 add is 16 floats, not 8; a HVX kernel has no x86 intrinsic).
func TestLoweringFilesCanFail(t *testing.T) {
	src := `graph @add(%a: f32[64], %b: f32[64]) {
  %c = add(%a, %b) : f32[64]
  return %c
}
`
	run, err := parseLowerRun("graphc --target=x86-64 --mcpu=skylake-avx512 %s")
	require.NoError(t, err)
	out := lowerOutput(t, src, run)
	require.NoError(t, filecheck.Check("// CHECK: fadd <16 x float>", out, ""))
	require.Error(t, filecheck.Check("// CHECK: fadd <8 x float>", out, ""))
	require.Error(t, filecheck.Check("// CHECK: define i32 @main_graph(\n// CHECK-NOT: call\n// CHECK: ret i32 0", out, ""))
	run, err = parseLowerRun("graphc --target=x86-64 --emit=plan --check-prefix=PLAN %s")
	require.NoError(t, err)
	plan := lowerOutput(t, src, run)
	require.NoError(t, filecheck.Check("// PLAN: op 0 %c = add f32[64]\n// PLAN: buffer: output 0", plan, "PLAN"))
	require.Error(t, filecheck.Check("// PLAN: op 0 %c = add f32[64]\n// PLAN-NEXT: buffer: output 0", plan, "PLAN"))
	_, err = parseLowerRun("graphc --emit=asm %s")
	require.Error(t, err)
}
