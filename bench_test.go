package graphc_test

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/passes"
)

// BenchmarkMatMulTrilu compares the compiled 512×512·512×512 MatMul+Trilu with and without
// die in one run: die-ms and nodie-ms are the mean times per call measured by the driver
// (clock_gettime around the calls, after a warm-up call), ratio is die/nodie (≈ 0.5 expected:
// DIE removes 49.9% of the matmul's iterations).
func BenchmarkMatMulTrilu(b *testing.B) {
	if _, err := e2e.Clang(); err != nil {
		b.Skip(err)
	}
	ctx := context.Background()
	dir := b.TempDir()
	path := filepath.Join(dir, "mt.onnx")
	if err := onnxgen.MatMulTrilu(512, true).Write(path); err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	ins := []*ir.Tensor{e2e.RandomTensor(r, ir.F32, []int64{512, 512}), e2e.RandomTensor(r, ir.F32, []int64{512, 512})}
	progs := map[string]*e2e.Program{}
	for name, pipeline := range map[string]string{"die": passes.DefaultPipeline, "nodie": ""} {
		res, err := graphc.Compile(ctx, path, graphc.WithPipeline(pipeline))
		if err != nil {
			b.Fatal(err)
		}
		sub := filepath.Join(dir, name)
		if err := mkdir(sub); err != nil {
			b.Fatal(err)
		}
		p, err := e2e.Build(ctx, sub, res.Graph, res.Module)
		if err != nil {
			b.Fatal(err)
		}
		progs[name] = p
	}
	b.ResetTimer()
	var die, nodie float64
	for i := 0; i < b.N; i++ {
		_, d, err := progs["die"].Run(ctx, ins, nil, 4)
		if err != nil {
			b.Fatal(err)
		}
		_, nd, err := progs["nodie"].Run(ctx, ins, nil, 4)
		if err != nil {
			b.Fatal(err)
		}
		die += d
		nodie += nd
	}
	b.ReportMetric(die/float64(b.N)/1e6, "die-ms")
	b.ReportMetric(nodie/float64(b.N)/1e6, "nodie-ms")
	b.ReportMetric(die/nodie, "ratio")
}
