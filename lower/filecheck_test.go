// This file runs the lowering CHECK tests: every testdata/lowering/*.graph holds graphs and
// "// RUN:" lines of graphc flags, each lowering a graph once and matching the output against
// the CHECK lines (internal/filecheck), so that a test states the part of the module or plan it
// is about (the tile loop, the vector type, the intrinsic, a strategy) rather than comparing a
// whole module:
//
//	// RUN: graphc --target=x86-64 --mcpu=skylake-avx512 --emit=llvm %s
//	// RUN: graphc --target=x86-64 --mcpu=skylake-avx512 --emit=plan --check-prefix=PLAN %s
//	// RUN: graphc --mcpu=haswell --print-lowering-after=buffers --check-prefix=BUF %s
//
// A file may hold several graphs separated by "// -----" lines, as the pass tests do: the RUN
// lines before the first separator apply to every case that has none of its own, and each
// case's CHECK lines are matched against its own output (a table of graphs checked under the
// same flags, e.g. which contractions take register tiles on every vector width).
//
// Flags: --target, --mcpu, --mattr, --entry, --emit=llvm|plan|header (default llvm),
// --print-lowering-after=STAGE (the output is then the dump graphc writes to stderr, Config.
// PrintAfter), --pipeline=PASS,... (the graph is lowered as written by default), --require=
// (with a pipeline that runs die), --profile, and lowering options that the CLI does not have:
// --no-epilogues, --ordered-reductions, --vector-bytes=N (Config.VectorBytes). --check-prefix
// selects the CHECK lines (default CHECK); --implicit-check-not=PATTERN fails when PATTERN
// occurs anywhere in the output (as FileCheck's). Every module is re-parsed by llir and
// verified by opt when it is installed. Check lines of a prefix that no RUN line of their case
// names fail the test (a RUN line dropped or renamed must not silence its checks), and so does
// a RUN line whose prefix has no check lines in a case, so comments do not start with
// "// WORD:".

package lower_test

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/filecheck"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/lower"
	"github.com/graphc/graphc/passes"
)

// directivePrefix finds the prefixes of a file's check lines ("// HVX-NEXT: ..." gives HVX).
var directivePrefix = regexp.MustCompile(`(?m)^// ([A-Z][A-Z0-9]*)(?:-NEXT|-SAME|-NOT|-LABEL)?:`)

// graphName finds a case's graph name.
var graphName = regexp.MustCompile(`(?m)^graph @([\w.-]+)`)

// lowerRun is one RUN line.
type lowerRun struct {
	cfg      lower.Config
	emit     string
	pipeline string
	requires []string
	prefix   string
	// absent are the --implicit-check-not patterns
	absent []string
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
		case "--entry":
			r.cfg.Entry = val
		case "--emit":
			if val != "llvm" && val != "plan" && val != "header" {
				return nil, fmt.Errorf("--emit=%s: want llvm, plan or header", val)
			}
			r.emit = val
		case "--print-lowering-after":
			if _, err := lower.SelectStages(val); err != nil {
				return nil, err
			}
			r.cfg.PrintAfter = val
		case "--pipeline":
			r.pipeline = val
		case "--require":
			r.requires = append(r.requires, val)
		case "--no-epilogues":
			r.cfg.NoEpilogues = true
		case "--ordered-reductions":
			r.cfg.OrderedReductions = true
		case "--profile":
			r.cfg.Profile = true
		case "--vector-bytes":
			n, err := strconv.Atoi(val)
			if err != nil {
				return nil, fmt.Errorf("--vector-bytes=%s: %w", val, err)
			}
			r.cfg.VectorBytes = n
		case "--check-prefix":
			r.prefix = val
		case "--implicit-check-not":
			r.absent = append(r.absent, val)
		default:
			return nil, fmt.Errorf("unknown RUN argument %q", a)
		}
	}
	if len(r.requires) > 0 && !strings.Contains(r.pipeline, "die") {
		return nil, fmt.Errorf("--require needs a --pipeline that runs die")
	}
	tg, err := lower.LoadTarget(target)
	if err != nil {
		return nil, err
	}
	r.cfg.Target = tg
	return r, nil
}

// runGraph parses src and runs the RUN line's pipeline (with its --require lines) on it; name
// labels failures.
func runGraph(t *testing.T, src string, run *lowerRun, name string) *ir.Graph {
	t.Helper()
	g, err := ir.Parse(src)
	require.NoError(t, err, name)
	require.NoError(t, ir.Verify(g), name)
	if run.pipeline == "" {
		return g
	}
	ps, err := passes.ParsePipeline(run.pipeline)
	require.NoError(t, err, name)
	opts := &passes.Options{VerifyEach: true}
	for _, r := range run.requires {
		rq, err := passes.ParseRequirement(g, r)
		require.NoError(t, err, r)
		opts.Require = append(opts.Require, rq)
	}
	_, err = passes.Run(context.Background(), g, ps, opts)
	require.NoError(t, err, name)
	return g
}

// lowerOutput lowers src as run says and returns the module text, the plan, the header or the
// dumps of --print-lowering-after.
func lowerOutput(t *testing.T, src string, run *lowerRun) string {
	t.Helper()
	g := runGraph(t, src, run, "")
	cfg := run.cfg
	var dump bytes.Buffer
	cfg.Dump = &dump
	mod, err := lower.Lower(context.Background(), g, cfg)
	require.NoError(t, err)
	switch {
	case cfg.PrintAfter != "":
		return dump.String()
	case run.emit == "plan":
		return mod.Plan()
	case run.emit == "header":
		return mod.Header
	}
	text := mod.String()
	verifyModule(t, text, "")
	return text
}

// checkAbsent fails when one of the --implicit-check-not patterns occurs in out.
func checkAbsent(out string, patterns []string) error {
	for _, p := range patterns {
		re, err := filecheck.Pattern(p)
		if err != nil {
			return err
		}
		for _, l := range strings.Split(out, "\n") {
			if re.MatchString(l) {
				return fmt.Errorf("--implicit-check-not=%q matched line %q", p, l)
			}
		}
	}
	return nil
}

// loweringCase is one graph of a test file with the RUN lines that apply to it.
type loweringCase struct {
	name string
	src  string
	runs []string
}

// loweringCases splits a test file into its cases ("// -----" separators); a case without RUN
// lines takes the file's (those before the first separator). A case's text starts with as many
// empty lines as the file has before it, so that messages give the file's line numbers.
func loweringCases(src string) []loweringCase {
	chunks := strings.Split(src, "\n// -----")
	fileRuns := filecheck.RunLines(chunks[0])
	var cases []loweringCase
	lines := 0
	for i, c := range chunks {
		c = strings.Repeat("\n", lines) + c
		lines = strings.Count(c, "\n") + 1
		m := graphName.FindStringSubmatch(c)
		if m == nil {
			continue // a header of RUN lines and comments
		}
		runs := filecheck.RunLines(c)
		if len(runs) == 0 || i == 0 {
			runs = fileRuns
		}
		name := m[1]
		if len(chunks) > 1 {
			name = fmt.Sprintf("%d_%s", i, m[1])
		}
		cases = append(cases, loweringCase{name: name, src: c, runs: runs})
	}
	return cases
}

func TestLoweringFiles(t *testing.T) {
	files, err := filepath.Glob("../testdata/lowering/*.graph")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".graph"), func(t *testing.T) {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			cases := loweringCases(string(data))
			require.NotEmpty(t, cases, "%s has no graph", f)
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					require.NotEmpty(t, c.runs, "%s has no RUN line", f)
					used := map[string]bool{"RUN": true}
					for _, line := range c.runs {
						run, err := parseLowerRun(line)
						require.NoError(t, err, line)
						used[cmp.Or(run.prefix, "CHECK")] = true
						out := lowerOutput(t, c.src, run)
						if err := filecheck.Check(c.src, out, run.prefix); err != nil {
							t.Errorf("RUN: %s\n%s: %v\n--- output ---\n%s", line, f, err, out)
						}
						if err := checkAbsent(out, run.absent); err != nil {
							t.Errorf("RUN: %s\n%s: %v", line, f, err)
						}
					}
					for _, m := range directivePrefix.FindAllStringSubmatch(c.src, -1) {
						require.True(t, used[m[1]], "%s: %s: lines that no RUN line checks (--check-prefix=%s)", f, m[1], m[1])
					}
				})
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
	_, err = parseLowerRun("graphc --print-lowering-after=tiles %s")
	require.ErrorIs(t, err, lower.ErrUnknownStage)
	_, err = parseLowerRun("graphc --require='c[i] : i = 0' %s")
	require.ErrorContains(t, err, "--require needs a --pipeline that runs die")
	run, err = parseLowerRun("graphc --target=x86-64 --mcpu=skylake-avx512 --implicit-check-not='<8 x float>' --implicit-check-not='<16 x float>' %s")
	require.NoError(t, err)
	require.NoError(t, checkAbsent(out, run.absent[:1]))
	require.Error(t, checkAbsent(out, run.absent))
	run, err = parseLowerRun("graphc --print-lowering-after=regions --check-prefix=R %s")
	require.NoError(t, err)
	dump := lowerOutput(t, src, run)
	require.NoError(t, filecheck.Check("// R: plan main_graph (after regions)\n// R-NEXT: op 0 %c = add f32[64]\n// R-NEXT: region: whole", dump, "R"))
	require.Error(t, filecheck.Check("// R: buffer: output 0", dump, "R"), "nothing but regions after regions")
}

// TestLoweringCases: the cases of a file are its graphs; RUN lines before the first separator
// apply to the cases without their own; a case's text keeps the file's line numbers.
func TestLoweringCases(t *testing.T) {
	src := `// RUN: graphc --emit=plan %s
// a header without a graph

// -----
graph @a(%x: f32[4]) {
  %y = neg(%x) : f32[4]
  return %y
}
// CHECK: strategy:

// -----
// RUN: graphc --target=hexagon --emit=plan %s
graph @b(%x: f32[4]) {
  %y = abs(%x) : f32[4]
  return %y
}
// CHECK: strategy:
`
	cs := loweringCases(src)
	require.Len(t, cs, 2)
	assert.Equal(t, "1_a", cs[0].name)
	assert.Equal(t, []string{"graphc --emit=plan %s"}, cs[0].runs)
	assert.Equal(t, []string{"graphc --target=hexagon --emit=plan %s"}, cs[1].runs)
	ds := filecheck.Directives(cs[1].src, "")
	require.Len(t, ds, 1)
	assert.Equal(t, 17, ds[0].Line, "the file's line number")
	// a case with no check line for a RUN line's prefix fails rather than passing unchecked
	run, err := parseLowerRun(cs[0].runs[0] + " --check-prefix=OTHER")
	require.NoError(t, err)
	require.Error(t, filecheck.Check(cs[0].src, lowerOutput(t, cs[0].src, run), run.prefix))
}

// fileGraphs returns the graphs of testdata/lowering/file, named after their graph names, each
// as the first RUN line of its case lowers it (after that line's --pipeline and --require): the
// semantic tests run the graphs whose lowering the file's CHECK lines state, so that the two
// cannot drift apart.
func fileGraphs(t *testing.T, file string) (names []string, gs []*ir.Graph) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("../testdata/lowering", file))
	require.NoError(t, err)
	for _, c := range loweringCases(string(data)) {
		require.NotEmpty(t, c.runs, "%s: %s has no RUN line", file, c.name)
		run, err := parseLowerRun(c.runs[0])
		require.NoError(t, err, c.runs[0])
		g := runGraph(t, c.src, run, c.name)
		names = append(names, g.Name)
		gs = append(gs, g)
	}
	require.NotEmpty(t, gs, file)
	return names, gs
}
