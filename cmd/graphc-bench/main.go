// Command graphc-bench times graphc-compiled code against onnxruntime (npm onnxruntime-node,
// one intra-op thread) and against graphc without optimization (--pipeline=), in one run on one
// machine (`make bench`). It prints a table of median times, GFLOP/s and the ratios
// graphc/onnxruntime and die/no-die: for synthetic models built in Go, or with -real for the
// real-model set that models/export.py exports from PyTorch (each checked against PyTorch's
// outputs first; geometric means per family).
//
//	go run ./cmd/graphc-bench [-models matmul,trilu,...] [-cache DIR] [-no-ort]
//	go run ./cmd/graphc-bench -real [-models resnet18,gpt2_last] [-model-dir DIR]
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
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
	// dieOnly: time the default pipeline only
	dieOnly bool
	// floor, when set, is the bytes a memory-bound model must read (a GEMV's matrix): the row
	// adds the time of a plain read of as many bytes and the ratio to it
	floor int64
}

var models = []benchModel{
	{"matmul", func() *onnxgen.Model { return onnxgen.MatMul(512, 512, 512) },
		map[string][]int64{"A": {512, 512}, "B": {512, 512}}, 2 * 512 * 512 * 512 / 1e9, 2 * 512 * 512 * 512 / 1e9, false, 0},
	{"matmul_trilu", func() *onnxgen.Model { return onnxgen.MatMulTrilu(512, true) },
		map[string][]int64{"A": {512, 512}, "B": {512, 512}}, 2 * 512 * (512 * 513 / 2) / 1e9, 2 * 512 * 512 * 512 / 1e9, false, 0},
	{"logits_last_row", func() *onnxgen.Model { return onnxgen.LastRowLogits(128, 4096, 32000) },
		map[string][]int64{"H": {128, 4096}, "W": {4096, 32000}}, 2 * 4096 * 32000 / 1e9, 2 * 128 * 4096 * 32000 / 1e9, false, 4096 * 32000 * 4},
	{"logits_last_row_small", func() *onnxgen.Model { return onnxgen.LastRowLogits(64, 1024, 8000) },
		map[string][]int64{"H": {64, 1024}, "W": {1024, 8000}}, 2 * 1024 * 8000 / 1e9, 2 * 64 * 1024 * 8000 / 1e9, false, 1024 * 8000 * 4},
	linearModel(128, 256, 16384), // the language-model head of the gpt2 and llama exports
	linearModel(1, 1024, 8000),
	linearModel(8, 1024, 4096),
	linearModel(16, 1024, 4096),
	linearModel(32, 1024, 4096),
	linearModel(64, 1024, 4096),
	linearModel(128, 1024, 4096),
	linearModel(1024, 256, 4096), // gpt2_long's language-model head
	linearModel(197, 768, 3072),  // the MLP of ViT-B/16's encoder (reduction in kc chunks)
	linearModel(197, 3072, 768),
	// onnxruntime's 4-bit MatMulNBits GEMV (a decode step's linear layer): the floor is the read
	// of the packed weights alone (half a byte per weight), as issue 34 states it
	nbitsModel(1, 4096, 11008, 32, true),
	nbitsModel(1, 4096, 11008, 32, false),
	nbitsModel(1, 4096, 4096, 128, true),
	// a few rows and a prefill's: the GEMV form below nbits-gemm's threshold, the GEMM above
	nbitsModel(4, 4096, 4096, 32, true),
	nbitsModel(8, 4096, 4096, 32, true),
	nbitsModel(12, 4096, 4096, 32, true),
	nbitsModel(16, 4096, 4096, 32, true),
	nbitsModel(64, 4096, 4096, 32, true),
	// the same at accuracy_level 4, as deployed models carry it: A quantized to int8 per block
	// (onnxruntime's CompInt8; graphc's integer form of the GEMV)
	nbitsModelLevel(1, 4096, 11008, 32, true, 4),
	nbitsModelLevel(1, 4096, 11008, 32, false, 4),
	nbitsModelLevel(1, 4096, 4096, 128, true, 4),
	nbitsModelLevel(4, 4096, 4096, 32, true, 4),
	nbitsModelLevel(64, 4096, 4096, 32, true, 4),
	{"conv3x3_relu", func() *onnxgen.Model { return onnxgen.ConvRelu(3, 224, 16) },
		map[string][]int64{"X": {1, 3, 224, 224}}, 2 * 16 * 224 * 224 * 27 / 1e9, 2 * 16 * 224 * 224 * 27 / 1e9, false, 0},
	// int8 against f32: onnxruntime's QLinearMatMul / QLinearConv against graphc's integer
	// kernels (work counted as 2 ops per multiply-add), beside the same shapes in f32
	{"matmul_f32_w", func() *onnxgen.Model { return onnxgen.MatMulConstB(512, 512, 512) },
		map[string][]int64{"A": {512, 512}}, 2 * 512 * 512 * 512 / 1e9, 2 * 512 * 512 * 512 / 1e9, false, 0},
	{"qmatmul_u8s8", func() *onnxgen.Model { return onnxgen.QLinearMatMul(512, 512, 512) },
		map[string][]int64{"A": {512, 512}}, 2 * 512 * 512 * 512 / 1e9, 2 * 512 * 512 * 512 / 1e9, false, 0},
	{"conv3x3_56x64_f32", func() *onnxgen.Model { return onnxgen.Conv3x3(64, 56, 64) },
		map[string][]int64{"X": {1, 64, 56, 56}}, 2 * 64 * 56 * 56 * 64 * 9 / 1e9, 2 * 64 * 56 * 56 * 64 * 9 / 1e9, false, 0},
	{"qconv3x3_56x64", func() *onnxgen.Model { return onnxgen.QLinearConv(64, 56, 64) },
		map[string][]int64{"X": {1, 64, 56, 56}}, 2 * 64 * 56 * 56 * 64 * 9 / 1e9, 2 * 64 * 56 * 56 * 64 * 9 / 1e9, false, 0},
	{"transformer_block", func() *onnxgen.Model { return onnxgen.TransformerBlock(128, 256) },
		map[string][]int64{"x": {128, 256}}, transformerFlops(128, 256, true), transformerFlops(128, 256, false), false, 0},
	// selections whose count is a bounded dim (issue 35), on random inputs (about half selected)
	{"nonzero_1024", func() *onnxgen.Model { return onnxgen.NonZeroMask(1024) },
		map[string][]int64{"X": {1024}}, 0, 0, false, 0},
	{"compress_1024", func() *onnxgen.Model { return onnxgen.CompressMask(1024) },
		map[string][]int64{"X": {1024}}, 0, 0, false, 0},
	{"nonzero_16384", func() *onnxgen.Model { return onnxgen.NonZeroMask(16384) },
		map[string][]int64{"X": {16384}}, 0, 0, false, 0},
}

// randomInputs are the models timed on random inputs in [-1, 1) (as onnxruntime's), not zeros:
// those whose work depends on the data.
var randomInputs = map[string]bool{"nonzero_1024": true, "compress_1024": true, "nonzero_16384": true}

// convShape is one row of the conv table (-convs): the shapes real CNNs run.
type convShape struct {
	name                                 string
	c, hw, m, k, stride, pad, dil, group int
	// oneD: a 1-D convolution over hw samples (audio nets); transposed: a ConvTranspose
	oneD, transposed bool
}

var convShapes = []convShape{
	{"1x1 56² 64→256", 64, 56, 256, 1, 1, 0, 1, 1, false, false},
	{"1x1 14² 1024→256", 1024, 14, 256, 1, 1, 0, 1, 1, false, false},
	{"1x1 s2 56² 256→512", 256, 56, 512, 1, 2, 0, 1, 1, false, false},
	{"1x1 7² 2048→512", 2048, 7, 512, 1, 1, 0, 1, 1, false, false},
	{"1x1 7² 512→2048", 512, 7, 2048, 1, 1, 0, 1, 1, false, false},
	{"3x3 56² 64", 64, 56, 64, 3, 1, 1, 1, 1, false, false},
	{"3x3 28² 128", 128, 28, 128, 3, 1, 1, 1, 1, false, false},
	{"3x3 14² 256", 256, 14, 256, 3, 1, 1, 1, 1, false, false},
	{"3x3 7² 512", 512, 7, 512, 3, 1, 1, 1, 1, false, false},
	{"3x3 s2 28² 128→256", 128, 28, 256, 3, 2, 1, 1, 1, false, false},
	{"7x7 s2 stem 224² 3→64", 3, 224, 64, 7, 2, 3, 1, 1, false, false},
	{"dw 3x3 112² 32", 32, 112, 32, 3, 1, 1, 1, 32, false, false},
	{"dw 3x3 s2 112² 96", 96, 112, 96, 3, 2, 1, 1, 96, false, false},
	{"dw 5x5 14² 480", 480, 14, 480, 5, 1, 2, 1, 480, false, false},
	{"grouped 3x3 56² 128 g32", 128, 56, 128, 3, 1, 1, 1, 32, false, false},
	{"dilated 3x3 28² 256 d2", 256, 28, 256, 3, 1, 2, 2, 1, false, false},
	// 1-D convolutions of audio nets (models/audio.py), to hold beside the 2-D rows of the
	// same work: wav2letter's 250-tap stem and 32-tap layer, wav2vec2's extractor, dilated
	// depthwise and 1x1 TCN layers, transposed decoders
	{"1d k250 s160 8000 1→250", 1, 8000, 250, 250, 160, 45, 1, 1, true, false},
	{"1d k32 51 250→2000", 250, 51, 2000, 32, 1, 16, 1, 1, true, false},
	{"1d k10 s5 8000 1→512", 1, 8000, 512, 10, 5, 0, 1, 1, true, false},
	{"1d k3 s2 1599 512", 512, 1599, 512, 3, 2, 0, 1, 1, true, false},
	{"1d k3 500 256", 256, 500, 256, 3, 1, 1, 1, 1, true, false},
	{"1d k2 500 128", 128, 500, 128, 2, 1, 0, 1, 1, true, false},
	{"1d k3 500 128", 128, 500, 128, 3, 1, 1, 1, 1, true, false},
	{"1d 1x1 1001 128→256", 128, 1001, 256, 1, 1, 0, 1, 1, true, false},
	{"1d dw k3 d8 500 256", 256, 500, 256, 3, 1, 8, 8, 256, true, false},
	{"1d dw k31 200 144", 144, 200, 144, 31, 1, 15, 1, 144, true, false},
	{"1d grouped k128 g16 50 256", 256, 50, 256, 128, 1, 64, 1, 16, true, false},
	{"1d convT k8 s4 500 128", 128, 500, 128, 8, 4, 2, 1, 1, true, true},
	{"1d convT k16 s8 1001 128→1", 128, 1001, 1, 16, 8, 0, 1, 1, true, true},
}

// convModels returns the conv table's rows as benchmark models (timed with the default
// pipeline only: --pipeline= is the NCHW path the table is meant to leave behind). With
// pooled, the 2-D rows read a channels-last activation (onnxgen.ConvAfterPool: the
// convolution as a CNN runs it, where the table's own rows read the NCHW graph input in place),
// named with a "pooled" suffix (-profile gives the convolution's time alone); the 1-D rows are
// left out.
func convModels(pooled bool) []benchModel {
	var out []benchModel
	for _, s := range convShapes {
		o := (s.hw+2*s.pad-s.dil*(s.k-1)-1)/s.stride + 1
		gf := 2 * float64(s.m*o*o*(s.c/s.group)*s.k*s.k) / 1e9
		if s.oneD {
			gf = 2 * float64(s.m*o*(s.c/s.group)*s.k) / 1e9
			if s.transposed { // every input sample meets every tap
				gf = 2 * float64(s.hw*s.c*(s.m/s.group)*s.k) / 1e9
			}
			out = append(out, benchModel{name: s.name, build: func() *onnxgen.Model {
				return onnxgen.Conv1D(s.c, s.hw, s.m, s.k, s.stride, s.pad, s.dil, s.group, s.transposed)
			}, shapes: map[string][]int64{"X": {1, int64(s.c), int64(s.hw)}}, gflop: gf, fullGF: gf, dieOnly: true})
			continue
		}
		if pooled {
			if !s.oneD {
				out = append(out, benchModel{name: s.name + " pooled", build: func() *onnxgen.Model {
					return onnxgen.ConvAfterPool(s.c, s.hw, s.m, s.k, s.stride, s.pad, s.dil, s.group)
				}, shapes: map[string][]int64{"X": {1, int64(s.c), int64(s.hw), int64(s.hw)}}, gflop: gf, fullGF: gf, dieOnly: true})
			}
			continue
		}
		out = append(out, benchModel{name: s.name, build: func() *onnxgen.Model {
			return onnxgen.Conv(s.c, s.hw, s.m, s.k, s.stride, s.pad, s.dil, s.group)
		}, shapes: map[string][]int64{"X": {1, int64(s.c), int64(s.hw), int64(s.hw)}}, gflop: gf, fullGF: gf, dieOnly: true})
	}
	return out
}

// linearModel is a linear layer with constant weights, m×k · k×n.
func linearModel(m, k, n int) benchModel {
	gf := 2 * float64(m) * float64(k) * float64(n) / 1e9
	bm := benchModel{name: fmt.Sprintf("linear_%dx%dx%d", m, k, n), build: func() *onnxgen.Model { return onnxgen.Linear(m, k, n) },
		shapes: map[string][]int64{"A": {int64(m), int64(k)}}, gflop: gf, fullGF: gf}
	if m == 1 {
		bm.floor = int64(k) * int64(n) * 4 // a GEMV reads its matrix once
	}
	return bm
}

// nbitsModel is a MatMulNBits layer m×k · k×n with 4-bit weights in blocks of block.
func nbitsModel(m, k, n, block int, zp bool) benchModel {
	return nbitsModelLevel(m, k, n, block, zp, 0)
}

// nbitsModelLevel is nbitsModel at onnxruntime's accuracy_level level (named _acc4 at 4).
func nbitsModelLevel(m, k, n, block int, zp bool, level int) benchModel {
	gf := 2 * float64(m) * float64(k) * float64(n) / 1e9
	name := fmt.Sprintf("nbits4_%dx%dx%d_b%d", m, k, n, block)
	if !zp {
		name += "_nozp"
	}
	if level != 0 {
		name += fmt.Sprintf("_acc%d", level)
	}
	nb := onnxgen.NBits{M: m, K: k, N: n, Block: block, ZeroPoints: zp, AccuracyLevel: level}
	bm := benchModel{name: name, build: nb.Model,
		shapes: map[string][]int64{"A": {int64(m), int64(k)}}, gflop: gf, fullGF: gf}
	if m == 1 {
		bm.floor = int64(k) * int64(n) / 2
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
	flag.StringVar(&realPipeline, "pipeline", realPipeline, "with -real: the pipeline of the graphc column")
	flag.IntVar(&realSet, "set", 0, "with -real: the data set timed (a decoder's prefill 0, decode 1)")
	flag.StringVar(&realRequire, "require", "", "with -real: the required region of the graphc column, as --require (e.g. \"logits[0, s, v] : s = S - 1\"); its outputs are checked there only")
	flag.StringVar(&benchCPU, "mcpu", "native", "the CPU the models are compiled for (e.g. haswell or x86-64-v3: AVX2 without AVX-512)")
	cputime := flag.Bool("cputime", false, "measure process CPU time instead of wall time (graphc and onnxruntime alike): steadier on a loaded machine")
	convs := flag.Bool("convs", false, "benchmark the conv shape table (1x1, 3x3 at 56/28/14/7, strided, 7x7 stem, depthwise, grouped, dilated) instead of the synthetic models")
	pooled := flag.Bool("pooled", false, "with -convs: the 2-D rows behind a 3x3 max pool, so that the convolution reads a channels-last activation as inside a CNN (rows named \"... pooled\"; -profile times the convolution alone)")
	memory := flag.Bool("mem", false, "measure graphc's peak resident set compiling the real-model set and a 100,000-op chain (-models chain,resnet18 for some) against issue 25's targets; -mem-flags adds graphc flags")
	memChain := flag.String("mem-write-chain", "", "write the 100,000-op chain of -mem to this file and exit (used by -mem)")
	memFlags := flag.String("mem-flags", "", "with -mem: extra graphc flags, space-separated (e.g. --weights=w.bin)")
	threads := flag.String("threads", "1", "comma-separated thread counts (\"cores\": the host's online CPUs; repeated counts are timed once): graphc's default pool (GRAPHC_NUM_THREADS) and onnxruntime's intra-op threads, each model timed at each (with -cputime, the CPU time of all threads)")
	flag.IntVar(&floorCalls, "floor-calls", floorCalls, "rows with a read floor (a GEMV): the timed calls of the kernel and of each read, warm and cold")
	profile := flag.Int("profile", 0, "after each model, build it with --profile and print its N slowest ops (time per call, ONNX node, kernel strategy)")
	flag.BoolVar(&profileOnly, "profile-only", false, "with -real and -profile: build each model once, with --profile, and time only that build (its whole call) and onnxruntime: for models whose compile takes minutes")
	flag.BoolVar(&profileVsNone, "profile-vs-none", false, "with -profile: also profile the build without optimisation (--pipeline=) and print, per ONNX node, the time of both builds and their kernels (where the default pipeline loses)")
	mcaCPUs := flag.String("mca", "", "print llvm-mca's predictions of the AArch64 kernels' hot loops (512³ matmul, 3×3 conv at 56²×64, their int8 forms) on these Arm CPUs (comma-separated, e.g. cortex-a76,cortex-x2) against their peak, and exit")
	flag.Parse()
	if *mcaCPUs != "" {
		if err := runMCA(context.Background(), *mcaCPUs); err != nil {
			fail(err)
		}
		return
	}
	benchThreads = nil
	for _, f := range strings.Split(*threads, ",") {
		f = strings.TrimSpace(f)
		if f == "cores" {
			f = strconv.Itoa(runtime.NumCPU())
		}
		t, err := strconv.Atoi(f)
		if err != nil || t < 1 {
			fmt.Fprintf(os.Stderr, "-threads: %q is not a thread count\n", f)
			os.Exit(2)
		}
		if !slices.Contains(benchThreads, t) {
			benchThreads = append(benchThreads, t)
		}
	}
	setThreads(benchThreads[0])
	if *cputime {
		useCPUTime = true
		os.Setenv("GRAPHC_BENCH_CPUTIME", "1")
	}
	if err := os.MkdirAll(*cache, 0o755); err != nil {
		fail(err)
	}
	want := map[string]bool{}
	for _, m := range strings.Split(*only, ",") {
		if m != "" {
			want[m] = true
		}
	}
	if *memChain != "" {
		if err := writeChain(*memChain); err != nil {
			fail(err)
		}
		return
	}
	if *memory {
		if err := runMem(context.Background(), *modelDir, *cache, want, strings.Fields(*memFlags)); err != nil {
			fail(err)
		}
		return
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
	if *real {
		if err := runReal(context.Background(), *modelDir, *cache, want, ort, *minTime, *samples, *noDIE, *profile); err != nil {
			fail(err)
		}
		return
	}
	table := models
	if *convs {
		table = convModels(*pooled)
		fmt.Printf("conv shapes (Conv+bias+Relu, batch 1); CPU: %s\n", cpuName())
	}
	fmt.Printf("%-24s %10s %10s %10s %9s %9s %8s %8s\n", "model", "graphc ms", "no-die ms", "ort ms", "GFLOP/s", "ort GF/s", "g/ort", "die/nodie")
	var logSum float64
	var nRatio int
	worst, worstName := 0.0, ""
	for _, bm := range table {
		if len(want) > 0 && !want[bm.name] {
			continue
		}
		row, ratio, err := runModel(bm, *cache, ort, *minTime, *samples, *profile)
		if err != nil {
			fmt.Printf("%-24s error: %v\n", bm.name, firstLine(err.Error()))
			continue
		}
		if row != "" {
			fmt.Println(row)
		}
		if ratio > 0 {
			logSum += math.Log(ratio)
			nRatio++
			if ratio > worst {
				worst, worstName = ratio, bm.name
			}
		}
	}
	if *convs && nRatio > 0 {
		fmt.Printf("conv shapes: graphc/onnxruntime geometric mean %.2f over %d shapes, worst %.2f (%s)\n", math.Exp(logSum/float64(nRatio)), nRatio, worst, worstName)
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

// benchCPU is the --mcpu of the synthetic models (-mcpu).
var benchCPU = "native"

func runModel(bm benchModel, cache string, ort *ortRunner, minTime time.Duration, samples, profile int) (string, float64, error) {
	ctx := context.Background()
	dir := filepath.Join(cache, sanitize(bm.name))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", 0, err
	}
	path := filepath.Join(dir, "model.onnx")
	if err := bm.build().Write(path); err != nil {
		return "", 0, err
	}
	times := map[string]float64{}
	configs := []struct{ name, pipeline string }{{"die", passes.DefaultPipeline}, {"nodie", ""}}
	if bm.dieOnly {
		configs = configs[:1]
	}
	for _, cfg := range configs {
		res, err := graphc.Compile(ctx, path, graphc.WithPipeline(cfg.pipeline), graphc.WithCPU(benchCPU), graphc.WithoutLLVMText())
		if err != nil {
			return "", 0, err
		}
		sub := filepath.Join(dir, cfg.name)
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return "", 0, err
		}
		prog, err := e2e.Build(ctx, sub, res.Graph, res.Module, "-O3", "-march="+benchCPU)
		if err != nil {
			return "", 0, err
		}
		var inputs []*ir.Tensor
		rng := rand.New(rand.NewPCG(1, 2))
		for _, in := range res.Graph.Inputs {
			s, ok := in.Type.StaticShape()
			if !ok {
				return "", 0, fmt.Errorf("input %s has a symbolic shape", in.Name)
			}
			if randomInputs[bm.name] {
				inputs = append(inputs, e2e.RandomTensor(rng, in.Type.Elem, s))
			} else {
				inputs = append(inputs, ir.NewTensor(in.Type.Elem, s))
			}
		}
		// outputs of bounded extent are allocated at the bound
		bounds := map[string]int64{}
		for _, b := range res.Graph.Bounded {
			bounds[b.Param] = b.Bound
		}
		ms, err := timeProgram(ctx, prog, inputs, bounds, minTime, samples)
		if err != nil {
			return "", 0, err
		}
		times[cfg.name] = ms
	}
	ortMS := 0.0
	if ort != nil {
		var err error
		ortMS, err = ort.time(path, bm.shapes, minTime, samples)
		if err != nil {
			return "", 0, fmt.Errorf("onnxruntime: %w", err)
		}
	}
	nodie, ratio := "-", "-"
	if t, ok := times["nodie"]; ok {
		nodie, ratio = fmt.Sprintf("%.3f", t), fmt.Sprintf("%.2f", times["die"]/t)
	}
	row := fmt.Sprintf("%-24s %10.3f %10s %10s %9.1f %9s %8s %8s", bm.name, times["die"], nodie, fmtMS(ortMS),
		bm.gflop/(times["die"]/1e3), fmtGF(bm.fullGF, ortMS), fmtRatio(times["die"], ortMS), ratio)
	if bm.floor > 0 {
		fl, err := floorRun(ctx, path, dir, benchThreads[0])
		if err != nil {
			return "", 0, err
		}
		row += "\n" + fl
	}
	if profile > 0 {
		fmt.Println(row)
		row = ""
		err := profileModel(ctx, path, dir, bm.name, func(g *ir.Graph) ([]*ir.Tensor, map[string]int64, error) {
			var ins []*ir.Tensor
			rng := rand.New(rand.NewPCG(1, 2))
			bounds := map[string]int64{}
			for _, b := range g.Bounded {
				bounds[b.Param] = b.Bound
			}
			for _, in := range g.Inputs {
				s, _ := in.Type.StaticShape()
				if randomInputs[bm.name] {
					ins = append(ins, e2e.RandomTensor(rng, in.Type.Elem, s))
				} else {
					ins = append(ins, ir.NewTensor(in.Type.Elem, s))
				}
			}
			return ins, bounds, nil
		}, minTime, profile)
		if err != nil {
			return "", 0, fmt.Errorf("profile: %w", err)
		}
	}
	r := 0.0
	if ortMS > 0 {
		r = times["die"] / ortMS
	}
	return row, r, nil
}

// sanitize turns a row name into a directory name.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, s)
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
func timeProgram(ctx context.Context, p *e2e.Program, inputs []*ir.Tensor, params map[string]int64, minTime time.Duration, samples int) (float64, error) {
	_, ns, err := p.Run(ctx, inputs, params, 3)
	if err != nil {
		return 0, err
	}
	reps := int(float64(minTime.Nanoseconds())/max(ns, 1)) + 2
	var ts []float64
	for i := 0; i < samples; i++ {
		_, ns, err := p.Run(ctx, inputs, params, reps)
		if err != nil {
			return 0, err
		}
		ts = append(ts, measured(p, ns)/1e6)
	}
	return median(ts), nil
}

// benchThreads are the thread counts of -threads.
var benchThreads = []int{1}

// useCPUTime: report process CPU time (-cputime).
var useCPUTime bool

// measured returns the time per call of the program's last run: wall ns, or CPU ns.
func measured(p *e2e.Program, wall float64) float64 {
	if useCPUTime && p.CPU > 0 {
		return p.CPU
	}
	return wall
}

// median returns the median of ts (which it sorts).
func median(ts []float64) float64 {
	sort.Float64s(ts)
	return ts[len(ts)/2]
}
