package graphc_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// transformerLayers builds a model of about n ops: n/20 transformer layers (attention with a
// causal mask, softmax, residuals and a 4× MLP: 20 ops each) on a 16×32 sequence.
func transformerLayers(n int) *onnxgen.Model {
	return onnxgen.TransformerLayers(max(n/20, 1), 16, 32)
}

// BenchmarkCompileScaling measures import + default pipeline + LLVM emission (module built and
// printed) for models of 100, 1,000 and 10,000 ops of two families: MLP layers and transformer
// layers (issue 11: 1,000 ops in ≤ 1 s, linear growth). Metrics, per compile: the wall time of
// every pass and phase (ms), the process's CPU time (cpu-ms: every thread, the GC's included;
// a better gauge than wall time on a loaded machine), µs per op, and the distinct kernels.
func BenchmarkCompileScaling(b *testing.B) {
	families := []struct {
		name  string
		build func(n int) *onnxgen.Model
	}{{"mlp", mlpLayers}, {"transformer", transformerLayers}}
	for _, fam := range families {
		for _, n := range []int{100, 1000, 10000} {
			b.Run(fmt.Sprintf("%s-%d-ops", fam.name, n), func(b *testing.B) {
				p := filepath.Join(b.TempDir(), "m.onnx")
				if err := fam.build(n).Write(p); err != nil {
					b.Fatal(err)
				}
				ms := map[string]float64{}
				var ops, kernels int
				var cpu time.Duration
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					c0 := cpuTime()
					res, err := graphc.Compile(context.Background(), p)
					cpu += cpuTime() - c0
					if err != nil {
						b.Fatal(err)
					}
					for name, st := range res.Passes.State.Stats {
						ms[name] += st.Time.Seconds() * 1e3
					}
					ms["import"] += res.Times.Import.Seconds() * 1e3
					ms["lower"] += res.Times.Lower.Seconds() * 1e3
					ms["print"] += res.Times.Print.Seconds() * 1e3
					if i == 0 {
						b.StopTimer()
						ops = len(res.Graph.Ops)
						kernels = strings.Count(res.LLVM, "\ndefine internal i32 @main_graph.k")
						b.StartTimer()
					}
				}
				b.StopTimer()
				for name, t := range ms {
					b.ReportMetric(t/float64(b.N), name+"-ms")
				}
				b.ReportMetric(cpu.Seconds()*1e3/float64(b.N), "cpu-ms")
				b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(ops), "µs/op")
				b.ReportMetric(float64(kernels), "kernels")
			})
		}
	}
}
