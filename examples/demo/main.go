// Command demo compiles the bundled MatMul+Trilu model with graphc, builds it with clang-19,
// runs it on random inputs, checks it against a Go reference implementation and prints what
// dead iteration elimination removed and what it saved:
//
//	go run ./examples/demo            (or: make demo)
package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/ir"
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
	a := e2e.RandomTensor(r, ir.F32, []int64{n, n})
	b := e2e.RandomTensor(r, ir.F32, []int64{n, n})
	want := reference(a, b, n)
	times := map[string]float64{}
	for _, pipeline := range []string{passes.DefaultPipeline, ""} {
		res, err := graphc.Compile(ctx, model, graphc.WithPipeline(pipeline))
		if err != nil {
			return err
		}
		label := "with die"
		if pipeline == "" {
			label = "without die (--pipeline=)"
		} else {
			fmt.Print(res.DeadReport)
		}
		dir, err := os.MkdirTemp("", "graphc-demo")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		prog, err := e2e.Build(ctx, dir, res.Graph, res.Module)
		if err != nil {
			return err
		}
		out, ns, err := prog.Run(ctx, []*ir.Tensor{a, b}, nil, 5)
		if err != nil {
			return err
		}
		// f32 sums of 512 products in the same order: the results agree to rounding.
		if err := e2e.Compare(out[0], want, 1e-5, 1e-5, nil); err != nil {
			return fmt.Errorf("%s: compiled result differs from the Go reference: %w", label, err)
		}
		times[label] = ns
		fmt.Printf("%-28s matches the Go reference; %.2f ms per call\n", label+":", ns/1e6)
	}
	fmt.Printf("time with die / time without: %.2f\n", times["with die"]/times["without die (--pipeline=)"])
	return nil
}

// reference computes Trilu_upper(A·B) in float32, summing over k in order.
func reference(a, b *ir.Tensor, n int) *ir.Tensor {
	y := ir.NewTensor(ir.F32, []int64{int64(n), int64(n)})
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			var s float32
			for k := 0; k < n; k++ {
				s += float32(a.F[i*n+k]) * float32(b.F[k*n+j])
			}
			y.F[i*n+j] = float64(s)
		}
	}
	return y
}
