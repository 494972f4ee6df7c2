package graphc_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
)

// mlpLayers builds a model of n ops: repeated (MatMul, Add bias, Relu) layers of width 64 on a
// batch of 8, weights as initializers.
func mlpLayers(n int) *onnxgen.Model {
	r := rand.New(rand.NewPCG(1, 2))
	m := onnxgen.New("mlp", 17)
	m.Input("x", ir.F32, 8, 64)
	prev := "x"
	for i := 0; i*3 < n; i++ {
		w, b := fmt.Sprintf("w%d", i), fmt.Sprintf("b%d", i)
		wt := ir.NewTensor(ir.F32, []int64{64, 64})
		for k := range wt.F {
			wt.F[k] = ir.RoundFloat(ir.F32, r.Float64()*0.2-0.1)
		}
		m.Init(w, wt)
		m.Init(b, ir.NewTensor(ir.F32, []int64{64}))
		mm, add, act := fmt.Sprintf("mm%d", i), fmt.Sprintf("add%d", i), fmt.Sprintf("act%d", i)
		m.Node("MatMul", mm, []string{prev, w}, []string{mm})
		m.Node("Add", add, []string{mm, b}, []string{add})
		m.Node("Relu", act, []string{add}, []string{act})
		prev = act
	}
	m.Output(prev, ir.F32, 8, 64)
	return m
}

// BenchmarkCompileScaling measures import + default pipeline + LLVM emission for models of 100,
// 1,000 and 10,000 ops (issue 11: 1,000 ops in ≤ 1 s, linear growth). Per-pass times are
// reported as metrics (ms).
func BenchmarkCompileScaling(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprintf("mlp-%d-ops", n), func(b *testing.B) {
			p := filepath.Join(b.TempDir(), "m.onnx")
			if err := mlpLayers(n).Write(p); err != nil {
				b.Fatal(err)
			}
			passTime := map[string]float64{}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res, err := graphc.Compile(context.Background(), p)
				if err != nil {
					b.Fatal(err)
				}
				for name, st := range res.Passes.State.Stats {
					passTime[name] += st.Time.Seconds() * 1e3
				}
			}
			for name, ms := range passTime {
				b.ReportMetric(ms/float64(b.N), name+"-ms")
			}
		})
	}
}
