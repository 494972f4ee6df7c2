package graphc_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/lower"
	"github.com/graphc/graphc/passes"
)

// Compile a model with the default pipeline and see what dead iteration elimination removed.
func ExampleCompile() {
	res, err := graphc.Compile(context.Background(), "testdata/models/matmul_trilu.onnx")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(res.Graph.Ops[0])
	fmt.Println()
	fmt.Println(strings.Contains(res.LLVM, "define i32 @main_graph("))
	// Output:
	// %C = matmul(%A, %B) : f32[512, 512] loc("matmul")
	//       domain { [i, j, k] : i >= 0 and i <= j < 512 and 0 <= k < 512 }
	// true
}

// Only the last row of the output is needed: DIE keeps one row of the matmul.
func ExampleWithRequire() {
	res, err := graphc.Compile(context.Background(), "testdata/models/matmul_trilu.onnx",
		graphc.WithRequire("Y[i, j] : i = 511"), graphc.WithoutLowering())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Graph.Ops[0].Domain)
	// Output:
	// { [i, j, k] : i = 511 and j = 511 and 0 <= k < 512 }
}

// A toolchain with its own pipeline: import, run the passes it wants, lower.
func Example_ownPipeline() {
	ctx := context.Background()
	g, err := graphc.Load(ctx, "testdata/models/matmul_trilu.onnx")
	if err != nil {
		fmt.Println(err)
		return
	}
	ps, _ := passes.ParsePipeline("die,dce")
	if _, err := passes.Run(ctx, g, ps, &passes.Options{VerifyEach: true}); err != nil {
		fmt.Println(err)
		return
	}
	t, _ := lower.LoadTarget("hexagon")
	mod, err := lower.Lower(context.Background(), g, lower.Config{Target: t, Entry: "tri"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(mod.LLVM.TargetTriple, mod.Entry)
	// Output:
	// hexagon-unknown-linux-musl tri
}

// TestCCallerExample compiles and runs the C caller of the README (examples/c-caller).
func TestCCallerExample(t *testing.T) {
	clang, err := e2e.Clang()
	if err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	dir := t.TempDir()
	res, err := graphc.Compile(ctx, "testdata/models/matmul_trilu.onnx")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "model.ll"), []byte(res.LLVM), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "model.h"), []byte(res.Header), 0o644))
	src, err := filepath.Abs("examples/c-caller/main.c")
	require.NoError(t, err)
	exe := filepath.Join(dir, "caller")
	out, err := exec.Command(clang, "-O2", "-Wall", "-Werror", "-I", dir, src, filepath.Join(dir, "model.ll"), "-o", exe).CombinedOutput()
	require.NoError(t, err, string(out))
	out, err = exec.Command(exe).CombinedOutput()
	require.NoError(t, err, string(out))
	// y[0][1] = Σk a[0][k]·b[k][1], computed here in float32 like the module
	var y01 float32
	for k := 0; k < 512; k++ {
		y01 += (float32((0*512+k)%7) - 3) * (float32((k*512+1)%5) * 0.5)
	}
	require.Contains(t, string(out), fmt.Sprintf("y[0][1] = %g, y[1][0] = 0,", y01))
	_ = ir.F32
}

// TestCCallerBoundedExample compiles and runs the README's caller of a module with a bounded
// dim (examples/c-caller-bounded): outputs allocated at the bound, the extent returned.
func TestCCallerBoundedExample(t *testing.T) {
	clang, err := e2e.Clang()
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	res, err := graphc.Compile(context.Background(), "testdata/models/nonzero.onnx")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "model.ll"), []byte(res.LLVM), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "model.h"), []byte(res.Header), 0o644))
	src, err := filepath.Abs("examples/c-caller-bounded/main.c")
	require.NoError(t, err)
	exe := filepath.Join(dir, "caller")
	out, err := exec.Command(clang, "-O2", "-Wall", "-Werror", "-I", dir, src, filepath.Join(dir, "model.ll"), "-o", exe).CombinedOutput()
	require.NoError(t, err, string(out))
	out, err = exec.Command(exe).CombinedOutput()
	require.NoError(t, err, string(out))
	require.Equal(t, "3 non-zeros: (0, 1) (2, 2) (3, 5)\n", string(out))
}
