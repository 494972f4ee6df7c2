// Command graphc-bench times graphc-compiled code against onnxruntime (npm onnxruntime-node,
// one intra-op thread) and against graphc without optimization (--pipeline=), in one run on one
// machine (`make bench`). It prints a table of median times, GFLOP/s and the ratios
// graphc/onnxruntime and die/no-die: for synthetic models built in Go, or with -real for the
// real-model set that models/export.py exports from PyTorch (each checked against PyTorch's
// outputs first; geometric means per family).
//
//	go run ./cmd/graphc-bench [-models matmul,trilu,...] [-cache DIR] [-no-ort]
//	go run ./cmd/graphc-bench -real [-models resnet18,gpt2_last] [-model-dir DIR]
//	go run ./cmd/graphc-bench -profile gpt2 [-top 25]   # per-kernel profile of one real model
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/internal/realmodel"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/passes"
)

// benchModel is one row of the table.
type benchModel struct {
	name   string
	build  func() *onnxgen.Model
	shapes map[string][]int64 // input shapes (for onnxruntime's random inputs)
	gflop  float64            // floating-point work of the required outputs, in GFLOP
	fullGF float64            // work of the whole computation (what onnxruntime does)
	// floor, when set, is the bytes a memory-bound model must read (a GEMV's matrix): the row
	// adds the time of a plain read of as many bytes and the ratio to it
	floor int64
}

var models = []benchModel{
	{"matmul", func() *onnxgen.Model { return onnxgen.MatMul(512, 512, 512) },
		map[string][]int64{"A": {512, 512}, "B": {512, 512}}, 2 * 512 * 512 * 512 / 1e9, 2 * 512 * 512 * 512 / 1e9, 0},
	{"matmul_trilu", func() *onnxgen.Model { return onnxgen.MatMulTrilu(512, true) },
		map[string][]int64{"A": {512, 512}, "B": {512, 512}}, 2 * 512 * (512 * 513 / 2) / 1e9, 2 * 512 * 512 * 512 / 1e9, 0},
	{"logits_last_row", func() *onnxgen.Model { return onnxgen.LastRowLogits(128, 4096, 32000) },
		map[string][]int64{"H": {128, 4096}, "W": {4096, 32000}}, 2 * 4096 * 32000 / 1e9, 2 * 128 * 4096 * 32000 / 1e9, 4096 * 32000 * 4},
	{"logits_last_row_small", func() *onnxgen.Model { return onnxgen.LastRowLogits(64, 1024, 8000) },
		map[string][]int64{"H": {64, 1024}, "W": {1024, 8000}}, 2 * 1024 * 8000 / 1e9, 2 * 64 * 1024 * 8000 / 1e9, 1024 * 8000 * 4},
	linearModel(128, 256, 16384), // the language-model head of the gpt2 and llama exports
	linearModel(1, 1024, 8000),
	linearModel(8, 1024, 4096),
	linearModel(16, 1024, 4096),
	linearModel(32, 1024, 4096),
	linearModel(64, 1024, 4096),
	linearModel(128, 1024, 4096),
	{"conv3x3_relu", func() *onnxgen.Model { return onnxgen.ConvRelu(3, 224, 16) },
		map[string][]int64{"X": {1, 3, 224, 224}}, 2 * 16 * 224 * 224 * 27 / 1e9, 2 * 16 * 224 * 224 * 27 / 1e9, 0},
	{"transformer_block", func() *onnxgen.Model { return onnxgen.TransformerBlock(128, 256) },
		map[string][]int64{"x": {128, 256}}, transformerFlops(128, 256, true), transformerFlops(128, 256, false), 0},
}

// linearModel is a linear layer with constant weights, m×k · k×n.
func linearModel(m, k, n int) benchModel {
	gf := 2 * float64(m) * float64(k) * float64(n) / 1e9
	bm := benchModel{fmt.Sprintf("linear_%dx%dx%d", m, k, n), func() *onnxgen.Model { return onnxgen.Linear(m, k, n) },
		map[string][]int64{"A": {int64(m), int64(k)}}, gf, gf, 0}
	if m == 1 {
		bm.floor = int64(k) * int64(n) * 4 // a GEMV reads its matrix once
	}
	return bm
}

func transformerFlops(s, h float64, causal bool) float64 {
	f := 3*2*s*h*h + 2*s*h*h + 2*2*s*4*h*h // q, k, v, o projections and the MLP
	qk := 2 * s * s * h
	if causal {
		qk = 2 * s * (s + 1) / 2 * h
	}
	return (f + qk + 2*s*s*h) / 1e9
}

func main() {
	only := flag.String("models", "", "comma-separated models (default: all)")
	cache := flag.String("cache", defaultCache(), "directory for the models, builds and onnxruntime")
	noORT := flag.Bool("no-ort", false, "do not run onnxruntime")
	minTime := flag.Duration("min-time", 300*time.Millisecond, "minimum measured time per sample")
	samples := flag.Int("samples", 5, "samples per measurement (the median is reported)")
	real := flag.Bool("real", false, "benchmark the real-model set (models/export.py) instead of the synthetic models")
	modelDir := flag.String("model-dir", realmodel.DefaultDir(), "where models/export.py wrote the real-model set")
	noDIE := flag.Bool("no-nodie", false, "with -real: do not compile and time --pipeline= too")
	profile := flag.String("profile", "", "print the per-kernel profile (perf cpu-clock) of this real model and exit")
	top := flag.Int("top", 25, "with -profile: the kernels shown")
	flag.Parse()
	if *profile != "" {
		if err := profileReal(context.Background(), *modelDir, *cache, *profile, max(*minTime, time.Second), *top); err != nil {
			fail(err)
		}
		return
	}
	if err := os.MkdirAll(*cache, 0o755); err != nil {
		fail(err)
	}
	var ort *ortRunner
	if !*noORT {
		var err error
		ort, err = newORT(*cache)
		if err != nil {
			fmt.Fprintf(os.Stderr, "onnxruntime unavailable (%v); run with -no-ort to skip it\n", err)
			os.Exit(1)
		}
	}
	want := map[string]bool{}
	for _, m := range strings.Split(*only, ",") {
		if m != "" {
			want[m] = true
		}
	}
	if *real {
		if err := runReal(context.Background(), *modelDir, *cache, want, ort, *minTime, *samples, *noDIE); err != nil {
			fail(err)
		}
		return
	}
	fmt.Printf("%-22s %10s %10s %10s %9s %9s %8s %8s\n", "model", "graphc ms", "no-die ms", "ort ms", "GFLOP/s", "ort GF/s", "g/ort", "die/nodie")
	for _, bm := range models {
		if len(want) > 0 && !want[bm.name] {
			continue
		}
		row, err := runModel(bm, *cache, ort, *minTime, *samples)
		if err != nil {
			fmt.Printf("%-22s error: %v\n", bm.name, firstLine(err.Error()))
			continue
		}
		fmt.Println(row)
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func defaultCache() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "graphc-bench")
	}
	return filepath.Join(os.TempDir(), "graphc-bench")
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "graphc-bench:", err)
	os.Exit(1)
}

func runModel(bm benchModel, cache string, ort *ortRunner, minTime time.Duration, samples int) (string, error) {
	ctx := context.Background()
	dir := filepath.Join(cache, bm.name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, bm.name+".onnx")
	if err := bm.build().Write(path); err != nil {
		return "", err
	}
	times := map[string]float64{}
	for _, cfg := range []struct{ name, pipeline string }{{"die", passes.DefaultPipeline}, {"nodie", ""}} {
		res, err := graphc.Compile(ctx, path, graphc.WithPipeline(cfg.pipeline), graphc.WithCPU("native"))
		if err != nil {
			return "", err
		}
		sub := filepath.Join(dir, cfg.name)
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return "", err
		}
		prog, err := e2e.Build(ctx, sub, res.Graph, res.Module, "-O3", "-march=native")
		if err != nil {
			return "", err
		}
		var inputs []*ir.Tensor
		for _, in := range res.Graph.Inputs {
			s, ok := in.Type.StaticShape()
			if !ok {
				return "", fmt.Errorf("input %s has a symbolic shape", in.Name)
			}
			inputs = append(inputs, ir.NewTensor(in.Type.Elem, s))
		}
		ms, err := timeProgram(ctx, prog, inputs, minTime, samples)
		if err != nil {
			return "", err
		}
		times[cfg.name] = ms
	}
	ortMS := 0.0
	if ort != nil {
		var err error
		ortMS, err = ort.time(path, bm.shapes, minTime, samples)
		if err != nil {
			return "", fmt.Errorf("onnxruntime: %w", err)
		}
	}
	row := fmt.Sprintf("%-22s %10.3f %10.3f %10s %9.1f %9s %8s %8.2f", bm.name, times["die"], times["nodie"], fmtMS(ortMS),
		bm.gflop/(times["die"]/1e3), fmtGF(bm.fullGF, ortMS), fmtRatio(times["die"], ortMS), times["die"]/times["nodie"])
	if bm.floor > 0 {
		ms, err := readFloor(ctx, cache, bm.floor, minTime, samples)
		if err != nil {
			return "", err
		}
		row += fmt.Sprintf("   read of %.1f MB: %.3f ms, graphc/read %.2f", float64(bm.floor)/1e6, ms, times["die"]/ms)
	}
	return row, nil
}

func fmtMS(ms float64) string {
	if ms == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", ms)
}

func fmtGF(gf, ms float64) string {
	if ms == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", gf/(ms/1e3))
}

func fmtRatio(a, b float64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", a/b)
}

// timeProgram returns the median over samples of the mean time per call (ms), each sample
// running enough calls to last minTime.
func timeProgram(ctx context.Context, p *e2e.Program, inputs []*ir.Tensor, minTime time.Duration, samples int) (float64, error) {
	_, ns, err := p.Run(ctx, inputs, nil, 3)
	if err != nil {
		return 0, err
	}
	reps := int(float64(minTime.Nanoseconds())/max(ns, 1)) + 2
	var ts []float64
	for i := 0; i < samples; i++ {
		_, ns, err := p.Run(ctx, inputs, nil, reps)
		if err != nil {
			return 0, err
		}
		ts = append(ts, ns/1e6)
	}
	return median(ts), nil
}

// median returns the median of ts (which it sorts).
func median(ts []float64) float64 {
	sort.Float64s(ts)
	return ts[len(ts)/2]
}
