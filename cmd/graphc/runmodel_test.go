package main

// Tests of graphc run: inputs from .npy files, a test data set and at random; outputs written
// as .npy and compared; timing; bad inputs; Hexagon under qemu.

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/conformance"
	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/modelrt"
)

func needClang(t *testing.T) {
	t.Helper()
	if _, err := e2e.Clang(); err != nil {
		t.Skipf("graphc run needs clang-19: %v", err)
	}
}

// writeNpyF32 writes a float32 array.
func writeNpyF32(t *testing.T, path string, shape []int64, data []float32) {
	t.Helper()
	require.NoError(t, writeNpy(path, modelrt.New(shape, data)))
}

// TestRunNpyInputsAndOutputDir runs MatMul+Trilu on .npy inputs and checks the written output
// against the product computed here.
func TestRunNpyInputsAndOutputDir(t *testing.T) {
	needClang(t)
	dir := t.TempDir()
	const n = 16
	writeModel(t, dir, "mt.onnx", onnxgen.MatMulTrilu(n, true))
	a, b := make([]float32, n*n), make([]float32, n*n)
	for i := range a {
		a[i], b[i] = float32(i%7-3), float32(i%5)*0.5
	}
	writeNpyF32(t, filepath.Join(dir, "a.npy"), []int64{n, n}, a)
	writeNpyF32(t, filepath.Join(dir, "b.npy"), []int64{n, n}, b)
	stdout, stderr, code := runCLI(t, dir, "run", "mt.onnx", "--input", "A=a.npy", "--input", "in1=b.npy", "--output-dir", "out")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, `output "Y": f32[16 16]`)
	assert.Contains(t, stdout, "NaN 0")
	arr, err := readNpy(filepath.Join(dir, "out", "Y.npy"))
	require.NoError(t, err)
	require.Equal(t, "<f4", arr.descr)
	require.Equal(t, []int64{n, n}, arr.shape)
	y, err := modelrt.Data[float32](modelrt.FromBytes(ir.F32, arr.shape, arr.data))
	require.NoError(t, err)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			var want float32
			if j >= i {
				for k := 0; k < n; k++ {
					want += a[i*n+k] * b[k*n+j]
				}
			}
			require.Equal(t, want, y[i*n+j], "Y[%d][%d]", i, j)
		}
	}
	// the outputs just written are the expected outputs of the same run
	stdout, stderr, code = runCLI(t, dir, "run", "mt.onnx", "--input", "A=a.npy", "--input", "B=b.npy", "--expect=out")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "all 1 outputs match")
	// and not those of other inputs: exit status 1, the worst element named
	stdout, stderr, code = runCLI(t, dir, "run", "mt.onnx", "--input", "A=b.npy", "--input", "B=a.npy", "--expect=out/Y.npy")
	require.Equal(t, 1, code, stderr)
	assert.Contains(t, stdout, `output "Y": MISMATCH:`)
	assert.Contains(t, stdout, "worst at [")
	assert.Contains(t, stderr, "1 of 1 outputs differ from the expected outputs")
}

// TestRunNumpyFiles reads arrays NumPy wrote and writes arrays NumPy reads.
func TestRunNumpyFiles(t *testing.T) {
	needClang(t)
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import numpy").Run(); err != nil {
		t.Skipf("no numpy for %s: %v", py, err)
	}
	dir := t.TempDir()
	writeModel(t, dir, "mt.onnx", onnxgen.MatMulTrilu(8, true))
	script := `import numpy as np, subprocess, sys
a = (np.arange(64, dtype=np.float32).reshape(8, 8) % 7) - 3
b = (np.arange(64, dtype=np.float32).reshape(8, 8) % 5) * 0.5
np.save("a.npy", a); np.save("b.npy", b)
subprocess.run([sys.argv[1], "run", "mt.onnx", "--input", "A=a.npy", "--input", "B=b.npy", "--output-dir", "out"], check=True, stdout=subprocess.DEVNULL)
y = np.load("out/Y.npy")
assert y.dtype == np.float32 and y.shape == (8, 8), (y.dtype, y.shape)
assert np.array_equal(y, np.triu(a @ b)), y
print("ok")
`
	cmd := exec.Command(py, "-c", script, graphcBin)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "ok")
}

// TestRunTestDataSet runs committed models on their test data sets, and an ONNX node test.
func TestRunTestDataSet(t *testing.T) {
	needClang(t)
	for _, m := range []string{"../../testdata/realmodels/cnn_tiny", "../../testdata/realmodels/gpt2_tiny_dyn"} {
		stdout, stderr, code := runCLI(t, ".", "run", m+"/model.onnx", m+"/test_data_set_0", "--expect")
		require.Equal(t, 0, code, "%s: %s", m, stderr)
		assert.Contains(t, stdout, "outputs match", m)
	}
	// a TensorProto given with --input, and one expected file
	m := "../../testdata/realmodels/cnn_tiny"
	stdout, stderr, code := runCLI(t, ".", "run", m+"/model.onnx", "--input", "in0="+m+"/test_data_set_0/input_0.pb", "--expect="+m+"/test_data_set_0/output_0.pb")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "all 1 outputs match")
	suite, err := conformance.FindSuite(".")
	if err != nil {
		t.Logf("SKIP the node test: %v", err)
		return
	}
	node := filepath.Join(suite.Dir, "test_gemm_all_attributes")
	stdout, stderr, code = runCLI(t, ".", "run", node+"/model.onnx", node+"/test_data_set_0", "--expect")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "all 1 outputs match")
}

// TestRunRandomAndBench: random inputs (symbolic ones need --dim) and --bench.
func TestRunRandomAndBench(t *testing.T) {
	needClang(t)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sym.graph"), []byte(`graph @g[N](%x: f32[N, 4], %k: i32[4]) {
  %y = relu(%x) : f32[N, 4]
  %c = cast(%k) {to = "f32"} : f32[4]
  %z = add(%y, %c) : f32[N, 4]
  return %z
}
`), 0o644))
	_, stderr, code := runCLI(t, dir, "run", "sym.graph", "--input", "random")
	require.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, `input "x" is random but its shape [N, 4] is symbolic`)
	assert.Contains(t, stderr, "--dim NAME=VALUE")
	stdout, stderr, code := runCLI(t, dir, "run", "sym.graph", "--dim", "N=3", "--input", "random", "--range=-2,2", "--seed", "7", "--bench", "4")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, `output "z": f32[3 4]`)
	assert.Regexp(t, `bench: 4 calls after 3 warm-up: min [0-9.]+ ms, median [0-9.]+ ms, max [0-9.]+ ms per call`, stdout)
	assert.Regexp(t, `; workspace [0-9]+ bytes; default pool, `, stdout) // --threads=pool is the default
	// a --dim typo is refused before anything large is allocated
	_, stderr, code = runCLI(t, dir, "run", "sym.graph", "--dim", "N=100000000000", "--input", "random")
	require.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, `input "x": a random f32[100000000000 4] would take more than the 4294967296 bytes`)
	// seeded: the same summary twice
	again, _, _ := runCLI(t, dir, "run", "sym.graph", "--dim", "N=3", "--input", "random", "--range=-2,2", "--seed", "7")
	first := func(s string) string { _, v, _ := cut(s, "values:"); l, _, _ := cut(v, "\n"); return l }
	assert.Equal(t, first(stdout), first(again))
}

func cut(s, sep string) (string, string, bool) {
	for i := 0; i+len(sep) <= len(s); i++ {
		if s[i:i+len(sep)] == sep {
			return s[:i], s[i+len(sep):], true
		}
	}
	return s, "", false
}

// TestRunBadInputs: each bad input is an error naming the input and what was expected, never a
// crash.
func TestRunBadInputs(t *testing.T) {
	needClang(t)
	dir := t.TempDir()
	writeModel(t, dir, "mt.onnx", onnxgen.MatMulTrilu(8, true))
	writeNpyF32(t, filepath.Join(dir, "ok.npy"), []int64{8, 8}, make([]float32, 64))
	writeNpyF32(t, filepath.Join(dir, "shape.npy"), []int64{8, 7}, make([]float32, 56))
	require.NoError(t, writeNpy(filepath.Join(dir, "f64.npy"), modelrt.New([]int64{8, 8}, make([]float64, 64))))
	full, err := os.ReadFile(filepath.Join(dir, "ok.npy"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "trunc.npy"), full[:len(full)-5], 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "junk.npy"), []byte("not numpy"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "junk.pb"), []byte{0xff, 0xff, 0xff}, 0o644))
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--input", "A=ok.npy", "--input", "B=shape.npy"}, 1, `input "B" (in1) has shape [8 7], the model's is [8, 8]`},
		{[]string{"--input", "A=ok.npy", "--input", "B=f64.npy"}, 1, `input "B": f64.npy: the array is f64 (<f8), the model takes f32`},
		{[]string{"--input", "A=trunc.npy", "--input", "B=ok.npy"}, 1, `input "A": trunc.npy: truncated: shape [8 8] of <f4 needs 256 data bytes, the file has 251`},
		{[]string{"--input", "A=junk.npy", "--input", "B=ok.npy"}, 1, `input "A": junk.npy: not a .npy file`},
		{[]string{"--input", "A=junk.pb", "--input", "B=ok.npy"}, 1, `input "A": junk.pb: not an ONNX TensorProto`},
		{[]string{"--input", "A=missing.npy", "--input", "B=ok.npy"}, 1, `missing.npy: no such file`},
		{[]string{"--input", "A=ok.npy"}, 2, `no value for input B (f32[8, 8])`},
		{[]string{"--input", "X=ok.npy", "--input", "random"}, 2, `the model has no input "X"; its inputs are A: f32[8, 8], B: f32[8, 8]`},
		{[]string{"--input", "A"}, 2, `--input "A": want NAME=FILE`},
		{[]string{"--input", "random", "--expect"}, 2, `--expect without a value compares with a test data set's outputs`},
		{[]string{"--input", "random", "--range=3,1"}, 2, `--range=3,1: want LO,HI`},
	} {
		_, stderr, code := runCLI(t, dir, append([]string{"run", "mt.onnx"}, tc.args...)...)
		assert.Equal(t, tc.code, code, "%v: %s", tc.args, stderr)
		assert.Contains(t, stderr, tc.want, "%v", tc.args)
		assert.NotContains(t, stderr, "internal error", "%v", tc.args)
	}
	_, stderr, code := runCLI(t, dir, "run", "mt.onnx", dir)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "not an ONNX test data set")
}

// TestRunHexagon runs a node test's data set as Hexagon code under qemu-hexagon.
func TestRunHexagon(t *testing.T) {
	needClang(t)
	if _, err := exec.LookPath("qemu-hexagon"); err != nil {
		t.Skipf("no qemu-hexagon: %v", err)
	}
	m := "../../testdata/realmodels/cnn_tiny"
	stdout, stderr, code := runCLI(t, ".", "run", "--target=hexagon", m+"/model.onnx", m+"/test_data_set_0", "--expect", "--atol=1e-4")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "run under qemu-hexagon -cpu v67: correctness only, not timed")
	assert.Contains(t, stdout, "all 1 outputs match")
	_, stderr, code = runCLI(t, ".", "run", "--target=hexagon", m+"/model.onnx", m+"/test_data_set_0", "--bench", "3")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "its timings mean nothing")
}

// TestRunAArch64 runs a data set as cortex-a76 code under qemu-aarch64.
func TestRunAArch64(t *testing.T) {
	needClang(t)
	if why := e2e.AArch64Missing(); why != "" {
		t.Skip("AArch64 under qemu: " + why)
	}
	m := "../../testdata/realmodels/cnn_tiny"
	stdout, stderr, code := runCLI(t, ".", "run", "--target=aarch64", "--mcpu=cortex-a76", m+"/model.onnx", m+"/test_data_set_0", "--expect", "--atol=1e-4")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "aarch64, cpu=cortex-a76, run under qemu-aarch64: correctness only, not timed")
	assert.Contains(t, stdout, "all 1 outputs match")
	_, stderr, code = runCLI(t, ".", "run", "--target=aarch64", m+"/model.onnx", m+"/test_data_set_0", "--bench", "3")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "its timings mean nothing")
}

// readmeInput is testdata/readme/x.npy, the input of the README's graphc run example (the
// X: f32[4, 64] of testdata/readme/linear.onnx): x[i][j] = (i·64 + j) mod 7 - 3.
func readmeInput() *modelrt.Tensor {
	x := make([]float32, 4*64)
	for i := range x {
		x[i] = float32(i%7 - 3)
	}
	return modelrt.New([]int64{4, 64}, x)
}

func TestReadmeInput(t *testing.T) {
	path := filepath.Join("..", "..", "testdata", "readme", "x.npy")
	fresh := filepath.Join(t.TempDir(), "x.npy")
	require.NoError(t, writeNpy(fresh, readmeInput()))
	if *update {
		require.NoError(t, writeNpy(path, readmeInput()))
	}
	want, err := os.ReadFile(fresh)
	require.NoError(t, err)
	have, err := os.ReadFile(path)
	require.NoError(t, err, "go test ./cmd/graphc -run TestReadmeInput -update writes it")
	require.Equal(t, want, have, "%s is stale: go test ./cmd/graphc -run TestReadmeInput -update", path)
}

// TestRunBindsShapeInputs: an input whose values decide a shape (Reshape's shape) is bound at
// compile time to the value --input gives, and the model runs on the others.
func TestRunBindsShapeInputs(t *testing.T) {
	needClang(t)
	dir := t.TempDir()
	m := onnxgen.New("reshape", 17)
	m.Input("X", ir.F32, 2, 6)
	m.Input("S", ir.I64, 2)
	m.Node("Reshape", "reshape", []string{"X", "S"}, []string{"Y"})
	m.Output("Y", ir.F32, 3, 4)
	writeModel(t, dir, "reshape.onnx", m)
	require.NoError(t, writeNpy(filepath.Join(dir, "s.npy"), modelrt.New([]int64{2}, []int64{3, -1})))
	stdout, stderr, code := runCLI(t, dir, "run", "reshape.onnx", "--input", "X=random", "--input", "S=s.npy")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, `input "S" is bound at compile time to s.npy`)
	assert.Contains(t, stdout, `output "Y": f32[3 4]`)
	_, stderr, code = runCLI(t, dir, "run", "reshape.onnx", "--input", "random")
	require.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, `input "S" (shape) must be known at compile time`)
	assert.Contains(t, stderr, "give its value with --input NAME=FILE or a test data set, and graphc run binds it")
}
