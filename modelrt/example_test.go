package modelrt_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/lower"
	"github.com/graphc/graphc/modelrt"
)

// Compile a model, build it as a shared library and call it, in one Go program.
func Example() {
	ctx := context.Background()
	res, err := graphc.Compile(ctx, "../testdata/models/matmul_trilu.onnx", graphc.WithSignature())
	if err != nil {
		log.Fatal(err)
	}
	so, err := lower.Build(ctx, res.Module, "lib") // clang-19 -shared
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "modelrt-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	lib := filepath.Join(dir, "model.so")
	if err := os.WriteFile(lib, so, 0o755); err != nil {
		log.Fatal(err)
	}

	m, err := modelrt.Load(lib)
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	for _, in := range m.Signature().Inputs {
		fmt.Printf("input %s: %s%s\n", in.Name, in.DType, modelrt.ShapeString(in.Shape))
	}
	const n = 512
	a, b := make([]float32, n*n), make([]float32, n*n)
	for i := range a {
		a[i] = float32(i%7) - 3
		b[i] = float32(i%5) * 0.5
	}
	outs, err := m.Run(ctx, modelrt.New([]int64{n, n}, a), modelrt.New([]int64{n, n}, b))
	if err != nil {
		log.Fatal(err)
	}
	y, err := modelrt.Data[float32](outs[0])
	if err != nil {
		log.Fatal(err)
	}
	// y[1][0] is below the diagonal: Trilu zeroed it, and DIE never computed it
	fmt.Printf("Y: %s%v, y[0][1] = %g, y[1][0] = %g\n", outs[0].DType, outs[0].Shape, y[1], y[n])
	// (TestExample checks the output where clang-19 is installed:)
	// input A: f32[512, 512]
	// input B: f32[512, 512]
	// Y: f32[512 512], y[0][1] = -3, y[1][0] = 0
}

// TestExample runs Example and checks what it prints; an Example with an Output comment could
// not be skipped on a host without clang.
func TestExample(t *testing.T) {
	if _, err := lower.FindTool("GRAPHC_CLANG", "clang"); err != nil {
		t.Skipf("no clang to build the example's library: %v", err)
	}
	r, w, err := os.Pipe()
	require.NoError(t, err)
	stdout := os.Stdout
	os.Stdout = w
	done := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		done <- string(b)
	}()
	func() {
		defer func() { os.Stdout = stdout }()
		Example()
	}()
	w.Close()
	assert.Equal(t, "input A: f32[512, 512]\ninput B: f32[512, 512]\nY: f32[512 512], y[0][1] = -3, y[1][0] = 0\n", <-done)
}
