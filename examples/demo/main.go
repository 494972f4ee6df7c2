// Command demo compiles the bundled MatMul+Trilu model with graphc, builds it with clang-19 as
// a shared library, loads and calls it with package modelrt (what graphc run is built on) on
// random inputs, checks it against a Go reference implementation and prints what dead
// iteration elimination removed and what it saved:
//
//	go run ./examples/demo            (or: make demo, which then shows graphc run on the model)
package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/lower"
	"github.com/graphc/graphc/modelrt"
	"github.com/graphc/graphc/passes"
)

const model = "testdata/models/matmul_trilu.onnx"

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run() error {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(1, 2))
	const n = 512
	a, b := make([]float32, n*n), make([]float32, n*n)
	for i := range a {
		a[i], b[i] = r.Float32()*2-1, r.Float32()*2-1
	}
	want := reference(a, b, n)
	dir, err := os.MkdirTemp("", "graphc-demo")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	times := map[string]time.Duration{}
	for _, pipeline := range []string{passes.DefaultPipeline, ""} {
		label := "with die"
		if pipeline == "" {
			label = "without die (--pipeline=)"
		}
		res, err := graphc.Compile(ctx, model, graphc.WithPipeline(pipeline), graphc.WithSignature())
		if err != nil {
			return err
		}
		if pipeline != "" {
			fmt.Print(res.DeadReport)
		}
		so, err := lower.Build(ctx, res.Module, "lib")
		if err != nil {
			return err
		}
		lib := filepath.Join(dir, fmt.Sprintf("model%d.so", len(times)))
		if err := os.WriteFile(lib, so, 0o755); err != nil {
			return err
		}
		m, err := modelrt.Load(lib)
		if err != nil {
			return err
		}
		defer m.Close()
		inputs := []*modelrt.Tensor{modelrt.New([]int64{n, n}, a), modelrt.New([]int64{n, n}, b)}
		outs, err := m.Run(ctx, inputs...)
		if err != nil {
			return err
		}
		y, err := modelrt.Data[float32](outs[0])
		if err != nil {
			return err
		}
		// f32 sums of 512 products in the same order: the results agree to rounding.
		for i := range y {
			if d := y[i] - want[i]; d > 1e-4 || d < -1e-4 {
				return fmt.Errorf("%s: compiled result differs from the Go reference at %d: %g, want %g", label, i, y[i], want[i])
			}
		}
		// the best of 5 calls, each into the same outputs
		best := time.Duration(1 << 62)
		for i := 0; i < 5; i++ {
			t0 := time.Now()
			if err := m.RunInto(ctx, inputs, outs); err != nil {
				return err
			}
			best = min(best, time.Since(t0))
		}
		times[label] = best
		fmt.Printf("%-28s matches the Go reference; %.2f ms per call\n", label+":", float64(best.Microseconds())/1e3)
	}
	fmt.Printf("time with die / time without: %.2f\n", float64(times["with die"])/float64(times["without die (--pipeline=)"]))
	return nil
}

// reference computes Trilu_upper(A·B) in float32, summing over k in order.
func reference(a, b []float32, n int) []float32 {
	y := make([]float32, n*n)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			var s float32
			for k := 0; k < n; k++ {
				s += a[i*n+k] * b[k*n+j]
			}
			y[i*n+j] = s
		}
	}
	return y
}
