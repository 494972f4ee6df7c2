package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/lower"
	"github.com/graphc/graphc/passes"
)

var graphcBin string

var update = flag.Bool("update", false, "rewrite golden files")

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "graphc-cli")
	if err != nil {
		panic(err)
	}
	graphcBin = filepath.Join(dir, "graphc")
	if out, err := exec.Command("go", "build", "-o", graphcBin, ".").CombinedOutput(); err != nil {
		panic(string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// graphc runs the binary as a subprocess.
func runCLI(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(graphcBin, args...)
	cmd.Dir = dir
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code = 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

func writeModel(t *testing.T, dir, name string, m *onnxgen.Model) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, m.Write(p))
	return p
}

func TestCompileDefaultOutputAndDump(t *testing.T) {
	dir := t.TempDir()
	writeModel(t, dir, "mt.onnx", onnxgen.MatMulTrilu(16, true))
	_, stderr, code := runCLI(t, dir, "mt.onnx", "--print-ir-after=die", "--report-dead")
	require.Equal(t, 0, code, stderr)
	require.FileExists(t, filepath.Join(dir, "mt.ll"))
	require.Contains(t, stderr, "IR Dump After die")
	require.Contains(t, stderr, "domain { [i, j, k] : i >= 0 and i <= j < 16 and 0 <= k < 16 }")
	require.Contains(t, stderr, "%C (matmul): 1920 of 4096 iterations dead (46.9%)")
	ll, err := os.ReadFile(filepath.Join(dir, "mt.ll"))
	require.NoError(t, err)
	require.Contains(t, string(ll), "define i32 @main_graph(")
	require.Contains(t, string(ll), "define i64 @main_graph_workspace_size(")
}

func TestEntryAndStdout(t *testing.T) {
	dir := t.TempDir()
	writeModel(t, dir, "mt.onnx", onnxgen.MatMulTrilu(8, false))
	out, stderr, code := runCLI(t, dir, "--entry=my_net", "-o", "-", "mt.onnx", "--target=x86-64")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "define i32 @my_net(")
	require.Contains(t, out, "define i64 @my_net_workspace_size(")
	require.Contains(t, out, `target triple = "x86_64-pc-linux-gnu"`)
}

func TestEmptyPipelineKeepsFullDomain(t *testing.T) {
	dir := t.TempDir()
	writeModel(t, dir, "mt.onnx", onnxgen.MatMulTrilu(8, true))
	out, stderr, code := runCLI(t, dir, "mt.onnx", "--pipeline=", "--emit=ir", "-o", "-")
	require.Equal(t, 0, code, stderr)
	require.NotContains(t, out, "domain", "no pass ran: no domain is restricted")
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "junk.onnx"), []byte("this is not a protobuf \xff\xff\xff"), 0o644))
	unsupported := onnxgen.New("u", 14)
	unsupported.Input("X", ir.F32, 4)
	unsupported.Node("StringNormalizer", "my_strnorm", []string{"X"}, []string{"Y"})
	unsupported.Output("Y", ir.F32, 4)
	writeModel(t, dir, "unsupported.onnx", unsupported)
	writeModel(t, dir, "mt.onnx", onnxgen.MatMulTrilu(4, true))
	cases := []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"missing.onnx"}, 1, []string{"missing.onnx", "no such file"}},
		{[]string{"junk.onnx"}, 1, []string{"junk.onnx", "not an ONNX model"}},
		{[]string{"unsupported.onnx"}, 1, []string{"unsupported.onnx", `node "my_strnorm"`, "StringNormalizer", "opset 14", "graphc ops lists the supported ops"}},
		// mistakes in how graphc is asked are usage errors (2), whatever flag carries them
		{[]string{"mt.onnx", "--pipeline=die,dcee"}, 2, []string{`unknown pass "dcee"`, `did you mean "dce"`}},
		{[]string{"mt.onnx", "--print-ir-after=dei"}, 2, []string{`did you mean "die"`}},
		{[]string{"mt.onnx", "--pipeline=remove-empty,die,dce", "--print-ir-after=fuse"}, 2, []string{"fuse is not in the pipeline"}},
		{[]string{"mt.onnx", "--print-lowering-after=regoins"}, 2, []string{`--print-lowering-after=regoins: unknown lowering stage "regoins" (did you mean "regions"?); stages are: regions, buffers, kernels, entry (or all)`}},
		{[]string{"mt.onnx", "--print-lowering-after=tiles"}, 2, []string{`unknown lowering stage "tiles"; stages are: regions, buffers, kernels, entry (or all)`}},
		{[]string{"mt.onnx", "--emit=ir", "--print-lowering-after=regions"}, 2, []string{"--print-lowering-after=regions: nothing is lowered"}},
		{[]string{"mt.onnx", "--require=Z[i, j] : i = 0"}, 2, []string{`"Z" is not an output`}},
		{[]string{"mt.onnx", "--pipeline=", "--require=Y[i, j] : i = 0"}, 2, []string{"has no die pass"}},
		{[]string{"mt.onnx", "--target=arm"}, 2, []string{`--target=arm: unknown target (targets: x86-64, aarch64, hexagon`}},
		{[]string{"mt.onnx", "--dim", "N=3"}, 2, []string{"--dim N: the model has no such dim (no symbolic dims)"}},
		{[]string{"mt.onnx", "--dim", "N=-5"}, 2, []string{"--dim N=-5: a dimension cannot be negative"}},
		{[]string{"--bogus", "mt.onnx"}, 2, []string{"bogus"}},
		{[]string{"--reprot-dead", "mt.onnx"}, 2, []string{"did you mean --report-dead?"}},
		{[]string{}, 2, []string{"expected exactly one MODEL"}},
		{[]string{"a.onnx", "b.onnx"}, 2, []string{"expected exactly one MODEL"}},
		{[]string{"mt.onnx", "--emit=exe"}, 2, []string{"--emit=exe"}},
		{[]string{"."}, 2, []string{". is a directory; MODEL is a model file"}},
		{[]string{"-O3", "mt.onnx"}, 2, []string{"graphc has no optimisation levels"}},
		{[]string{"ops", "mt.onnx"}, 2, []string{"graphc ops takes no arguments but --ir"}},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, stderr, code := runCLI(t, dir, tc.args...)
			require.Equal(t, tc.code, code, stderr)
			for _, w := range tc.want {
				require.Contains(t, stderr, w)
			}
			require.NotContains(t, stderr, "goroutine", "no panic dump")
			require.Equal(t, 1, strings.Count(strings.TrimSpace(stderr), "\n")+1, "one-line error: %q", stderr)
		})
	}
}

func TestRequireLastRow(t *testing.T) {
	dir := t.TempDir()
	writeModel(t, dir, "mt.onnx", onnxgen.MatMulTrilu(16, true))
	out, stderr, code := runCLI(t, dir, "mt.onnx", "--require=Y[i, j] : i = 15", "--emit=ir", "-o", "-")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "domain { [i, j, k] : i = 15 and j = 15 and 0 <= k < 16 }")
}

// TestPrintIRAfterAllGolden pins the dump of every pass of the default pipeline
// (go test ./cmd/graphc -run Golden -update rewrites it).
func TestPrintIRAfterAllGolden(t *testing.T) {
	_, stderr, code := runCLI(t, "testdata", "print_all.graph", "--print-ir-after-all", "--emit=ir", "-o", os.DevNull)
	require.Equal(t, 0, code, stderr)
	golden := filepath.Join("testdata", "print_all.golden")
	if *update {
		require.NoError(t, os.WriteFile(golden, []byte(stderr), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	require.Equal(t, string(want), stderr)
}

// TestPrintLoweringAfter: --print-lowering-after=STAGE writes the plan known after the stage to
// stderr, under a header like the passes' dumps; after entry it is the plan --emit=plan prints,
// and the module is the same with the flag and without it.
func TestPrintLoweringAfter(t *testing.T) {
	dir := t.TempDir()
	writeModel(t, dir, "mt.onnx", onnxgen.MatMulTrilu(16, true))
	stdout, stderr, code := runCLI(t, dir, "mt.onnx", "--require=Y[i, j] : i = 15", "--print-lowering-after=regions", "-o", "-")
	require.Equal(t, 0, code, stderr)
	require.True(t, strings.HasPrefix(stderr, "// -----// Lowering Dump After regions //----- //\nplan main_graph (after regions): x86-64"), stderr)
	require.Contains(t, stderr, "region: [15..15, ")
	require.NotContains(t, stderr, "buffer:")
	require.NotContains(t, stderr, "strategy:")
	plain, stderr, code := runCLI(t, dir, "mt.onnx", "--require=Y[i, j] : i = 15", "-o", "-")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, plain, stdout, "the dump changes nothing in the module")

	plan, stderr, code := runCLI(t, dir, "mt.onnx", "--emit=plan", "-o", "-")
	require.Equal(t, 0, code, stderr)
	_, stderr, code = runCLI(t, dir, "mt.onnx", "--print-lowering-after=entry", "--print-lowering-after=buffers", "-o", os.DevNull)
	require.Equal(t, 0, code, stderr)
	buffers, entry, ok := strings.Cut(stderr, "// -----// Lowering Dump After entry //----- //\n")
	require.True(t, ok, stderr)
	require.True(t, strings.HasPrefix(buffers, "// -----// Lowering Dump After buffers //----- //\nplan main_graph (after buffers): "), buffers)
	require.Equal(t, plan, entry, "after entry: the plan")

	_, stderr, code = runCLI(t, dir, "mt.onnx", "--print-lowering-after-all", "-o", os.DevNull)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, 4, strings.Count(stderr, "// -----// Lowering Dump After "), stderr)
}

// TestTensorFlowPaperExamples imports the DIE paper's TensorFlow graphs and shows the
// triangular and diagonal domains after die.
func TestTensorFlowPaperExamples(t *testing.T) {
	models, _ := filepath.Abs("../../testdata/models/tf")
	_, stderr, code := runCLI(t, models, "matmul_bandpart.pbtxt", "--print-ir-after=die", "--emit=ir", "-o", os.DevNull)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "domain { [i, j, k] : i >= 0 and i <= j < 64 and 0 <= k < 32 }")
	_, stderr, code = runCLI(t, models, "matmul_diagpart.pbtxt", "--print-ir-after=die", "--emit=ir", "-o", os.DevNull)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "domain { [i, j, k] : j = i and 0 <= j < 48 and 0 <= k < 16 }")
	_, stderr, code = runCLI(t, models, "matmul_transpose_bandpart.pbtxt", "--print-ir-after=die", "--emit=ir", "-o", os.DevNull)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, `einsum(%inputA, %inputB) {equation = "ik,jk->ij"} : f32[64, 64]`)
	require.Contains(t, stderr, "domain { [i, j, k] : i >= 0 and i <= j < 64 and 0 <= k < 32 }")
	// the last row of the logits: one row of the product
	_, stderr, code = runCLI(t, models, "last_row_logits.pbtxt", "--print-ir-after=die", "--emit=ir", "-o", os.DevNull)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "domain { [i, j, k] : i = 15 and 0 <= j < 32 and 0 <= k < 8 }")
	_, stderr, code = runCLI(t, models, "matmul_bandpart.pbtxt", "--outputs=nosuch", "-o", os.DevNull)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, `no node named "nosuch"`)
}

// TestHelpAndVersion: --help lists every flag the way LLVM tools spell them, with examples;
// version names the tool and the Go version.
func TestHelpAndVersion(t *testing.T) {
	for _, h := range []string{"--help", "-h", "-help"} {
		stdout, stderr, code := runCLI(t, t.TempDir(), h)
		require.Equal(t, 0, code, stderr)
		require.Contains(t, stdout, "usage: graphc [flags] MODEL")
		require.Contains(t, stdout, "Examples:")
		for _, f := range []string{"-o FILE", "--target=x86-64|aarch64|hexagon", "--mcpu=CPU|native", "--mattr=", "--entry=NAME",
			"--emit=llvm|ir|header|asm|obj|lib|dot|svg", "--pipeline=", "--print-ir-before=PASS", "--print-ir-after=PASS",
			"--print-ir-before-all", "--print-ir-after-all", "--print-lowering-after=STAGE", "--print-lowering-after-all", "--require=", "--dim NAME=VALUE", "--outputs=",
			"--report-dead", "--pass-timing", "--verify-each", "--op=NAME", "-h, --help"} {
			require.Contains(t, stdout, "\n  "+f, "--help lists %s", f)
		}
	}
	for _, v := range []string{"version", "--version"} {
		stdout, stderr, code := runCLI(t, t.TempDir(), v)
		require.Equal(t, 0, code, stderr)
		require.Regexp(t, `^graphc \S+.* go1\.\d+`, stdout)
	}
}

// TestRequireMistakes: a syntax error in --require points into the user's text (not the braces
// graphc adds around it), and a region holding no element of the output is warned about.
func TestRequireMistakes(t *testing.T) {
	dir := t.TempDir()
	writeModel(t, dir, "mt.onnx", onnxgen.MatMulTrilu(16, true))
	_, stderr, code := runCLI(t, dir, "mt.onnx", "--require=Y[i, j] : i = ", "-o", os.DevNull)
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, `expected an expression at the end of the requirement`)
	_, stderr, code = runCLI(t, dir, "mt.onnx", "--require=Y[i, j] : i = ) 3", "-o", os.DevNull)
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, `(at ")", offset 14)`)
	_, stderr, code = runCLI(t, dir, "mt.onnx", "--require=Y[i, j] : i = 600", "-o", os.DevNull)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "the required region holds no element of the output's index domain")
}

// TestHelpAndPasses: graphc help is --help; graphc passes lists every pass (fuse included)
// with the default pipeline.
func TestHelpAndPasses(t *testing.T) {
	out, stderr, code := runCLI(t, t.TempDir(), "help")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "usage: graphc [flags] MODEL")
	require.Contains(t, out, "--pipeline")
	out, stderr, code = runCLI(t, t.TempDir(), "passes")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "default pipeline: "+passes.DefaultPipeline)
	for _, p := range passes.Names() {
		require.Contains(t, out, p+" ")
	}
}

// TestOpsIR: graphc ops --ir lists the IR's op catalogue (what docs/ir-format.md points to)
// with what the catalogue documents: summaries, examples and attribute docs.
func TestOpsIR(t *testing.T) {
	out, stderr, code := runCLI(t, t.TempDir(), "ops", "--ir")
	require.Equal(t, 0, code, stderr)
	for _, d := range ir.Ops() {
		require.Contains(t, out, "  "+d.Name+" ")
		require.Contains(t, out, d.Summary)
		if d.Example != "" {
			require.Contains(t, out, "example: "+d.Example)
		}
		for _, a := range d.Attrs {
			require.Contains(t, out, "- "+a.Name)
			require.Contains(t, out, a.Doc)
		}
	}
}

// TestWeightsFlag checks --weights: the module has no constant, the file starts with its magic
// and has the size the header announces, and the header declares the extra argument.
func TestWeightsFlag(t *testing.T) {
	dir := t.TempDir()
	writeModel(t, dir, "mlp.onnx", onnxgen.Linear(4, 64, 48))
	_, stderr, code := runCLI(t, dir, "mlp.onnx", "--weights=w.bin", "-o", "m.ll")
	require.Equal(t, 0, code, stderr)
	ll, err := os.ReadFile(filepath.Join(dir, "m.ll"))
	require.NoError(t, err)
	require.NotContains(t, string(ll), " constant [")
	require.Contains(t, string(ll), "i8* noalias nocapture readonly %weights")
	w, err := os.ReadFile(filepath.Join(dir, "w.bin"))
	require.NoError(t, err)
	require.Equal(t, "GRAPHCW1", string(w[:8]))
	h, stderr, code := runCLI(t, dir, "mlp.onnx", "--weights=w2.bin", "--emit=header", "-o", "-")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, h, "void *workspace, const void *weights);")
	require.Contains(t, h, fmt.Sprintf("#define MAIN_GRAPH_WEIGHTS_BYTES %dLL", len(w)))
}

// TestFailedCompileLeavesNoOutput: the module is streamed to a temporary file that replaces -o
// only once complete.
func TestFailedCompileLeavesNoOutput(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.graph"), []byte("graph @g(%x: f32[2]) {\n  %y = nosuchop(%x) : f32[2]\n  return %y\n}\n"), 0o644))
	_, _, code := runCLI(t, dir, "bad.graph", "-o", "out.ll")
	require.NotEqual(t, 0, code)
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range ents {
		require.Equal(t, "bad.graph", e.Name(), "nothing but the model is left")
	}
}

// TestEmitPlan: --emit=plan prints what lowering decided per op, after the passes and with the
// CPU's widths, to the .plan file by default; the requirement's last row shrinks the product's
// region to that row.
func TestEmitPlan(t *testing.T) {
	dir := t.TempDir()
	writeModel(t, dir, "mt.onnx", onnxgen.MatMulTrilu(16, true))
	out, stderr, code := runCLI(t, dir, "mt.onnx", "--emit=plan", "--mcpu=skylake-avx512", "--require=Y[i, j] : i = 15", "-o", "-")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "plan main_graph: x86-64 cpu=skylake-avx512 vector-bytes=64 tile-bytes=64\n")
	require.Contains(t, out, "op 0 %C = matmul f32[16, 16]\n  region: [15..15, 0..15]\n")
	require.Contains(t, out, "  buffer: output 0\n")
	require.NotContains(t, out, "define", "the plan, not the module")
	_, stderr, code = runCLI(t, dir, "mt.onnx", "--emit=plan", "--target=hexagon")
	require.Equal(t, 0, code, stderr)
	plan, err := os.ReadFile(filepath.Join(dir, "mt.plan"))
	require.NoError(t, err)
	require.Contains(t, string(plan), "plan main_graph: hexagon cpu=hexagonv68 vector-bytes=128 tile-bytes=0\n")
	require.Contains(t, string(plan), "kernel: main_graph.k0.matmul")
}

// TestUnknownFeature checks that a feature LLVM does not know (a typo in --mattr) is a usage
// error, not a warning LLVM prints and ignores: the CLI knows LLVM's features (flags.go).
func TestUnknownFeature(t *testing.T) {
	if _, err := lower.FindTool("GRAPHC_CLANG", "clang"); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	writeModel(t, dir, "mt.onnx", onnxgen.MatMulTrilu(4, true))
	_, stderr, code := runCLI(t, dir, "mt.onnx", "--mattr=+avx2,+nonsense", "--emit=obj", "-o", "mt.o")
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, `unknown feature "nonsense"`)
	require.NotContains(t, stderr, `"avx2"`)
	_, err := os.Stat(filepath.Join(dir, "mt.o"))
	require.True(t, os.IsNotExist(err), "no output file on error")
	_, stderr, code = runCLI(t, dir, "mt.onnx", "--mattr=+avx2", "--emit=obj", "-o", "mt.o")
	require.Equal(t, 0, code, stderr)
}
