package lower_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/lower"
	"github.com/graphc/graphc/passes"
)

// contractionCase is a graph whose contractions take the register-tile strategy, with the
// required region of its output (empty: all of it).
type contractionCase struct {
	name, text, require string
	tiles               bool // whether the first op must use register tiles
}

var contractionCases = []contractionCase{
	{"dense_odd", `graph @g(%A: f32[37, 53], %B: f32[53, 45]) {
  %C = matmul(%A, %B) : f32[37, 45]
  return %C
}`, "", true},
	{"dense_kc_chunks", `graph @g(%A: f32[13, 600], %B: f32[600, 70]) {
  %C = matmul(%A, %B) : f32[13, 70]
  return %C
}`, "", true},
	{"dense_f64", `graph @g(%A: f64[9, 20], %B: f64[20, 19]) {
  %C = matmul(%A, %B) : f64[9, 19]
  return %C
}`, "", true},
	// one row of tiles over a 1.25 MB operand: chunks of 16 reduction rows (streamed)
	{"gemv_stream", `graph @g(%A: f32[3, 600], %B: f32[600, 521]) {
  %C = matmul(%A, %B) : f32[3, 521]
  return %C
}`, "", true},
	// attention's P·V with a head dim of 32 and of 64: 12×32 and 6×64 tiles on AVX-512
	{"narrow_pv", `graph @g(%P: f32[2, 50, 70], %V: f32[2, 70, 32]) {
  %C = matmul(%P, %V) : f32[2, 50, 32]
  return %C
}`, "", true},
	{"wide_pv", `graph @g(%P: f32[2, 50, 70], %V: f32[2, 70, 64]) {
  %C = matmul(%P, %V) : f32[2, 50, 64]
  return %C
}`, "", true},
	{"packed_kc_chunks", `graph @g(%A: f32[40, 600], %B: f32[600, 517]) {
  %C = matmul(%A, %B) : f32[40, 517]
  return %C
}`, "", true},
	{"packed_f64", `graph @g(%A: f64[35, 64], %B: f64[64, 128]) {
  %C = matmul(%A, %B) : f64[35, 128]
  return %C
}`, "", true},
	{"packed_batch_triangle", `graph @g(%A: f32[2, 36, 600], %B: f32[2, 600, 256]) {
  %C = matmul(%A, %B) : f32[2, 36, 256]
  %Y = trilu(%C) {k = 0, upper = 1} : f32[2, 36, 256]
  return %Y
}`, "", true},
	{"triangle_upper", `graph @g(%A: f32[50, 40], %B: f32[40, 70]) {
  %C = matmul(%A, %B) : f32[50, 70]
  %Y = trilu(%C) {k = 0, upper = 1} : f32[50, 70]
  return %Y
}`, "", true},
	{"triangle_lower_offset", `graph @g(%A: f32[45, 33], %B: f32[33, 45]) {
  %C = matmul(%A, %B) : f32[45, 45]
  %Y = trilu(%C) {k = 3, upper = 0} : f32[45, 45]
  return %Y
}`, "", true},
	{"batch", `graph @g(%A: f32[3, 20, 30], %B: f32[3, 30, 40]) {
  %C = matmul(%A, %B) : f32[3, 20, 40]
  %Y = trilu(%C) {k = 0, upper = 1} : f32[3, 20, 40]
  return %Y
}`, "", true},
	{"last_row", `graph @g(%A: f32[20, 64], %B: f32[64, 100]) {
  %C = matmul(%A, %B) : f32[20, 100]
  return %C
}`, "C[i, j] : i = 19", true},
	{"tile_region", `graph @g(%A: f32[40, 16], %B: f32[16, 90]) {
  %C = matmul(%A, %B) : f32[40, 90]
  return %C
}`, "C[i, j] : 7 <= i < 30 and 11 <= j < 77", true},
	{"checkerboard", `graph @g(%A: f32[24, 16], %B: f32[16, 40]) {
  %C = matmul(%A, %B) : f32[24, 40]
  %Y = relu(%C) : f32[24, 40]
  return %Y
}`, "Y[i, j] : (i + j) mod 2 = 0", true},
	{"diagonal_stays_scalar", `graph @g(%A: f32[40, 16], %B: f32[16, 40]) {
  %C = matmul(%A, %B) : f32[40, 40]
  return %C
}`, "C[i, j] : i = j", false},
	{"conv_valid", `graph @g(%x: f32[2, 3, 12, 40], %w: f32[8, 3, 3, 3]) {
  %y = conv(%x, %w) : f32[2, 8, 10, 38]
  return %y
}`, "", true},
	{"conv_pads_bias", `graph @g(%x: f32[1, 3, 20, 37], %w: f32[16, 3, 3, 3], %b: f32[16]) {
  %y = conv(%x, %w, %b) {pads = [1, 1, 1, 1]} : f32[1, 16, 20, 37]
  %r = relu(%y) : f32[1, 16, 20, 37]
  return %r
}`, "", true},
	{"conv_bias_valid", `graph @g(%x: f32[1, 4, 9, 30], %w: f32[6, 4, 2, 2], %b: f32[6]) {
  %y = conv(%x, %w, %b) : f32[1, 6, 8, 29]
  return %y
}`, "", true},
	{"conv_strided_pads", `graph @g(%x: f32[2, 2, 17, 41], %w: f32[5, 2, 3, 3]) {
  %y = conv(%x, %w) {pads = [1, 2, 1, 0], strides = [2, 1]} : f32[2, 5, 9, 41]
  return %y
}`, "", true},
	// Q·Kᵀ with the transpose folded into the access: K is read strided along j and gathered
	// into the panels
	{"transposed_b", `graph @g(%A: f32[37, 32], %B: f32[70, 32]) {
  %C = generic(%A, %B) {access = ["{ [i, j, k] -> [i, k] }", "{ [i, j, k] -> [j, k] }"], body = "mul(in0, in1)", domain = "{ [i, j, k] : 0 <= i < 37 and 0 <= j < 70 and 0 <= k < 32 }", iterators = ["parallel", "parallel", "reduction"], out = "{ [i, j, k] -> [i, j] }", reduce = "sum", type = "f32[37, 70]"} : f32[37, 70]
  return %C
}`, "", true},
	{"transposed_b_heads_causal", `graph @g(%Q: f32[40, 4, 16], %K: f32[40, 4, 16]) {
  %S = generic(%Q, %K) {access = ["{ [h, i, j, k] -> [i, h, k] }", "{ [h, i, j, k] -> [j, h, k] }"], body = "mul(in0, in1)", domain = "{ [h, i, j, k] : 0 <= h < 4 and 0 <= i < 40 and 0 <= j < 40 and 0 <= k < 16 }", iterators = ["parallel", "parallel", "parallel", "reduction"], out = "{ [h, i, j, k] -> [h, i, j] }", reduce = "sum", type = "f32[4, 40, 40]"} : f32[4, 40, 40]
  %Y = trilu(%S) {k = 0, upper = 0} : f32[4, 40, 40]
  return %Y
}`, "", true},
	{"transposed_b_kc_chunks", `graph @g(%A: f32[20, 600], %B: f32[50, 600]) {
  %C = generic(%A, %B) {access = ["{ [i, j, k] -> [i, k] }", "{ [i, j, k] -> [j, k] }"], body = "mul(in0, in1)", domain = "{ [i, j, k] : 0 <= i < 20 and 0 <= j < 50 and 0 <= k < 600 }", iterators = ["parallel", "parallel", "reduction"], out = "{ [i, j, k] -> [i, j] }", reduce = "sum", type = "f32[20, 50]"} : f32[20, 50]
  return %C
}`, "", true},
	// P·V of causal attention after known-values: the reduction range depends on the row
	// (k <= i); tiles share the prefix up to their first row, the ragged rest is a border
	{"causal_pv", `graph @g(%p: f32[2, 37, 37], %v: f32[2, 37, 40]) {
  %y = matmul(%p, %v) : f32[2, 37, 40]
      domain { [b, i, j, k] : 0 <= b < 2 and 0 <= i < 37 and 0 <= j < 40 and 0 <= k <= i }
  return %y
}`, "", true},
	{"causal_pv_kc_offset", `graph @g(%p: f32[600, 603], %v: f32[603, 20]) {
  %y = matmul(%p, %v) : f32[600, 20]
      domain { [i, j, k] : 0 <= i < 600 and 0 <= j < 20 and 1 <= k <= i + 2 }
  return %y
}`, "", true},
	// a sliding window (i - 3 <= k <= i): the lower bound moves with the row, no shared prefix
	{"window_pv_stays_per_point", `graph @g(%p: f32[30, 30], %v: f32[30, 16]) {
  %y = matmul(%p, %v) : f32[30, 16]
      domain { [i, j, k] : 0 <= i < 30 and 0 <= j < 16 and 0 <= k <= i and k >= i - 3 }
  return %y
}`, "", false},
	{"packed_conv_pads_bias", `graph @g(%x: f32[2, 16, 6, 256], %w: f32[34, 16, 3, 1], %b: f32[34]) {
  %y = conv(%x, %w, %b) {pads = [1, 1, 1, 1]} : f32[2, 34, 6, 258]
  return %y
}`, "", true},
}

// packedCases are the contractions whose B-like read is copied into panels on every CPU (the
// others' panels stay in L1 in place).
var packedCases = map[string]bool{"packed_kc_chunks": true, "packed_f64": true, "packed_batch_triangle": true, "packed_conv_pads_bias": true,
	"transposed_b": true, "transposed_b_heads_causal": true, "transposed_b_kc_chunks": true}

func contractionGraph(t *testing.T, c contractionCase) *ir.Graph {
	t.Helper()
	g, err := ir.Parse(c.text)
	require.NoError(t, err, c.name)
	opts := &passes.Options{VerifyEach: true}
	if c.require != "" {
		rq, err := passes.ParseRequirement(g, c.require)
		require.NoError(t, err, c.name)
		opts.Require = append(opts.Require, rq)
	}
	ps, err := passes.ParsePipeline(passes.DefaultPipeline)
	require.NoError(t, err)
	_, err = passes.Run(context.Background(), g, ps, opts)
	require.NoError(t, err, c.name)
	return g
}

// TestContractionStrategy checks which contractions take register tiles, for every vector
// width.
func TestContractionStrategy(t *testing.T) {
	for _, cpu := range []string{"x86-64", "haswell", "skylake-avx512"} {
		for _, c := range contractionCases {
			g := contractionGraph(t, c)
			tgt, err := lower.LoadTarget("x86-64")
			require.NoError(t, err)
			m, err := lower.Lower(context.Background(), g, lower.Config{Target: tgt, CPU: cpu})
			require.NoError(t, err, c.name)
			t.Logf("%s on %s: %s", c.name, cpu, m.Entries[0].Strategies[0])
			got := strings.HasPrefix(m.Entries[0].Strategies[0], "register-tiles")
			require.Equal(t, c.tiles, got, "%s on %s: %v", c.name, cpu, m.Entries[0].Strategies)
			if packedCases[c.name] {
				require.Contains(t, m.Entries[0].Strategies[0], "packed=", "%s on %s", c.name, cpu)
			}
		}
	}
}

// TestContractionKernels runs the register-tile kernels against the evaluator: with SSE2
// vectors and no FMA (the x86-64 baseline: the evaluator's bits), and on the host CPU with its
// widest vectors and fused multiply-adds (one rounding per term: compared within the error
// bound of a float sum).
func TestContractionKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 7))
	var names []string
	var cases []*e2e.Case
	for _, c := range contractionCases {
		g := contractionGraph(t, c)
		names = append(names, c.name)
		cases = append(cases, &e2e.Case{Graph: g, Inputs: inputsFor(r, g, nil, false)})
	}
	runCases(t, e2e.Host(), names, cases)
	native := e2e.Machine{Target: "x86-64", CPU: "native", CFlags: []string{"-march=native"}}
	runCasesTol(t, native, names, cases, func(d ir.DType) (float64, float64) {
		if d == ir.F64 {
			return 1e-13, 1e-13
		}
		return 1e-5, 1e-4 // sums of up to 600 products of [-1, 1] values
	})
}

// symbolicContractionCases are contractions with symbolic extents, run at every binding of
// symbolicBindings: rows (a language-model head over T tokens), columns (Q·Kᵀ over T keys),
// the reduction (P·V over T keys), several at once, and DIE's restricted domains.
var symbolicContractionCases = []contractionCase{
	{"sym_rows", `graph @g[T](%A: f32[1, T, 70], %B: f32[70, 100]) {
  %C = matmul(%A, %B) : f32[1, T, 100]
  return %C
}`, "", true},
	{"sym_rows_kc_chunks", `graph @g[T](%A: f32[T, 600], %B: f32[600, 53]) {
  %C = matmul(%A, %B) : f32[T, 53]
  return %C
}`, "", true},
	{"sym_rows_packed", `graph @g[T](%A: f32[T, 64], %B: f32[64, 512]) {
  %C = matmul(%A, %B) : f32[T, 512]
  return %C
}`, "", true},
	{"sym_rows_epilogue", `graph @g[T](%A: f32[T, 40], %B: f32[40, 60], %b: f32[60]) {
  %C = matmul(%A, %B) : f32[T, 60]
  %Y = add(%C, %b) : f32[T, 60]
  %R = relu(%Y) : f32[T, 60]
  return %R
}`, "", true},
	// a 1.25 MB operand: one row of tiles (T <= mr) streams it in chunks of 16
	{"sym_rows_stream", `graph @g[T](%A: f32[T, 600], %B: f32[600, 521]) {
  %C = matmul(%A, %B) : f32[T, 521]
  return %C
}`, "", true},
	{"sym_last_row", `graph @g[T](%A: f32[T, 64], %B: f32[64, 100]) {
  %C = matmul(%A, %B) : f32[T, 100]
  return %C
}`, "C[i, j] : i = T - 1", true},
	{"sym_cols", `graph @g[T](%Q: f32[20, 16], %K: f32[T, 16]) {
  %S = generic(%Q, %K) {access = ["{ [i, j, k] -> [i, k] }", "[T] -> { [i, j, k] -> [j, k] }"], body = "mul(in0, in1)", domain = "[T] -> { [i, j, k] : 0 <= i < 20 and 0 <= j < T and 0 <= k < 16 }", iterators = ["parallel", "parallel", "reduction"], out = "{ [i, j, k] -> [i, j] }", reduce = "sum", type = "f32[20, T]"} : f32[20, T]
  return %S
}`, "", true},
	{"sym_qk_causal", `graph @g[T](%Q: f32[T, 2, 16], %K: f32[T, 2, 16]) {
  %S = generic(%Q, %K) {access = ["[T] -> { [h, i, j, k] -> [i, h, k] }", "[T] -> { [h, i, j, k] -> [j, h, k] }"], body = "mul(in0, in1)", domain = "[T] -> { [h, i, j, k] : 0 <= h < 2 and 0 <= i < T and 0 <= j < T and 0 <= k < 16 }", iterators = ["parallel", "parallel", "parallel", "reduction"], out = "[T] -> { [h, i, j, k] -> [h, i, j] }", reduce = "sum", type = "f32[2, T, T]"} : f32[2, T, T]
  %Y = trilu(%S) {k = 0, upper = 0} : f32[2, T, T]
  return %Y
}`, "", true},
	{"sym_reduction", `graph @g[T](%P: f32[2, 30, T], %V: f32[2, T, 40]) {
  %C = matmul(%P, %V) : f32[2, 30, 40]
  return %C
}`, "", true},
	{"sym_causal_pv", `graph @g[T](%p: f32[2, T, T], %v: f32[2, T, 40]) {
  %y = matmul(%p, %v) : f32[2, T, 40]
      domain [T] -> { [b, i, j, k] : 0 <= b < 2 and 0 <= i < T and 0 <= j < 40 and 0 <= k <= i }
  return %y
}`, "", true},
}

// symbolicBindings are the values of T the symbolic cases run at: below one tile, around the
// tile heights and widths of every vector width, and a large odd one.
var symbolicBindings = []int64{1, 5, 8, 13, 48, 50, 97, 300}

// TestSymbolicContractionStrategy checks that contractions with symbolic extents take
// register tiles for every vector width.
func TestSymbolicContractionStrategy(t *testing.T) {
	for _, cpu := range []string{"x86-64", "haswell", "skylake-avx512"} {
		for _, c := range symbolicContractionCases {
			g := contractionGraph(t, c)
			tgt, err := lower.LoadTarget("x86-64")
			require.NoError(t, err)
			m, err := lower.Lower(context.Background(), g, lower.Config{Target: tgt, CPU: cpu})
			require.NoError(t, err, c.name)
			t.Logf("%s on %s: %s", c.name, cpu, m.Entries[0].Strategies)
			got := strings.HasPrefix(m.Entries[0].Strategies[0], "register-tiles")
			require.Equal(t, c.tiles, got, "%s on %s: %v", c.name, cpu, m.Entries[0].Strategies)
			if c.name == "sym_rows_stream" {
				require.Contains(t, m.Entries[0].Strategies[0], "(kc=16) +rows<=", cpu)
			}
		}
	}
}

// TestSymbolicContractionKernels runs the symbolic cases at every binding against the
// evaluator: bit for bit with the baseline CPU, within a float sum's bound natively.
func TestSymbolicContractionKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 13))
	var names []string
	var cases []*e2e.Case
	for _, c := range symbolicContractionCases {
		g := contractionGraph(t, c)
		for _, T := range symbolicBindings {
			ps := map[string]int64{"T": T}
			names = append(names, fmt.Sprintf("%s/T=%d", c.name, T))
			cases = append(cases, &e2e.Case{Graph: g, Params: ps, Inputs: inputsFor(r, g, ps, false)})
		}
	}
	runCases(t, e2e.Host(), names, cases)
	native := e2e.Machine{Target: "x86-64", CPU: "native", CFlags: []string{"-march=native"}}
	runCasesTol(t, native, names, cases, func(d ir.DType) (float64, float64) {
		if d == ir.F64 {
			return 1e-13, 1e-13
		}
		return 1e-5, 1e-4
	})
}

// TestSymbolicBatchContractionKernels runs contractions with two symbolic dims (a dynamic
// batch and sequence, as the dynamic-axes exports have) at several bindings of both.
func TestSymbolicBatchContractionKernels(t *testing.T) {
	cases := []contractionCase{
		{"sym_batch_rows", `graph @g[B, T](%A: f32[B, T, 40], %W: f32[40, 70]) {
  %C = matmul(%A, %W) : f32[B, T, 70]
  return %C
}`, "", true},
		{"sym_batch_last_row", `graph @g[B, T](%A: f32[B, T, 64], %W: f32[64, 5000]) {
  %C = matmul(%A, %W) : f32[B, T, 5000]
  return %C
}`, "C[b, i, j] : i = T - 1", true},
		{"sym_batch_stream", `graph @g[B, T](%A: f32[B, T, 64], %W: f32[64, 5000]) {
  %C = matmul(%A, %W) : f32[B, T, 5000]
  return %C
}`, "", true},
	}
	r := rand.New(rand.NewPCG(17, 19))
	var names []string
	var ecs []*e2e.Case
	tgt, err := lower.LoadTarget("x86-64")
	require.NoError(t, err)
	for _, c := range cases {
		g := contractionGraph(t, c)
		m, err := lower.Lower(context.Background(), g, lower.Config{Target: tgt, CPU: "skylake-avx512"})
		require.NoError(t, err, c.name)
		require.True(t, strings.HasPrefix(m.Entries[0].Strategies[0], "register-tiles"), "%s: %v", c.name, m.Entries[0].Strategies)
		for _, b := range []int64{1, 3} {
			for _, T := range []int64{1, 7, 30} {
				ps := map[string]int64{"B": b, "T": T}
				names = append(names, fmt.Sprintf("%s/B=%d/T=%d", c.name, b, T))
				ecs = append(ecs, &e2e.Case{Graph: g, Params: ps, Inputs: inputsFor(r, g, ps, false)})
			}
		}
	}
	runCases(t, e2e.Host(), names, ecs)
	native := e2e.Machine{Target: "x86-64", CPU: "native", CFlags: []string{"-march=native"}}
	runCasesTol(t, native, names, ecs, func(ir.DType) (float64, float64) { return 1e-5, 1e-4 })
}
