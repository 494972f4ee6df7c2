// This file tests the split of the integer dot-product and matmul_nbits kernels over threads
// (parallel_tiles.go): the quantized products and convolutions of intdot_test.go (NCHW, and
// channels-last after the default pipeline) and the matmul_nbits graphs of nbits_gemm_test.go
// plus GEMV ones (a decode row, a few rows, nibble lanes), built with every split kernel cut
// into its smallest chunks, must give the same output bits at 1, 2, 3 and 4 threads of the
// default pool, the evaluator's values, and on Hexagon (HVX vrmpy, under qemu, through a
// caller's parallel-for) the bits of the serial build.

package lower_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/lower"
	"github.com/graphc/graphc/passes"
)

// nbitsGEMVCases take the GEMV form (K whole chunks of 32; fewer rows than the GEMM form
// needs): a decode row with N not a multiple of the column steps, 4 rows (a group sharing the
// unpacked weights) and 8-bit weights.
var nbitsGEMVCases = []nbitsCase{
	{name: "gemv_b4_zp_1row", aShape: []string{"1"}, K: 128, N: 45, bits: 4, block: 32, zp: true, runs: []map[string]int64{nil}},
	{name: "gemv_b4_5rows", aShape: []string{"5"}, K: 64, N: 29, bits: 4, block: 16, runs: []map[string]int64{nil}},
	{name: "gemv_b8_zp_2rows", aShape: []string{"1", "2"}, K: 96, N: 23, bits: 8, block: 32, zp: true, runs: []map[string]int64{nil}},
}

// quantizedSplitCases returns the cases: names, graphs with random inputs, and whether each
// graph's quantized kernel must be split (a depthwise convolution over NCHW stays serial).
func quantizedSplitCases(t *testing.T) (names []string, cases []*e2e.Case, split []bool) {
	r := rand.New(rand.NewPCG(33, 1))
	quantIn := func(g *ir.Graph, params map[string]int64) []*ir.Tensor {
		in := inputsFor(r, g, params, false)
		for _, x := range in {
			if lo, hi, ok := ir.QuantRange(x.Elem); ok {
				for i := range x.I {
					x.I[i] = int64(lo) + r.Int64N(int64(hi-lo)+1)
				}
			}
		}
		return in
	}
	ps, err := passes.ParsePipeline(passes.DefaultPipeline)
	require.NoError(t, err)
	dn, dgs := intDotGraphs(t)
	for i, g := range dgs {
		names = append(names, dn[i])
		cases = append(cases, &e2e.Case{Graph: g, Inputs: quantIn(g, nil)})
		split = append(split, !strings.HasPrefix(dn[i], "depthwise"))
	}
	// the convolutions channels-last (TestIntDotNHWC: an elementwise producer makes the input
	// an intermediate, which the pass stores NHWC)
	dn, dgs = intDotGraphs(t)
	for i, g := range dgs {
		if !strings.HasPrefix(dn[i], "conv") && !strings.HasPrefix(dn[i], "depthwise") {
			continue
		}
		x := g.Inputs[0]
		pre, err := ir.MakeOp(g.Params, "max", "pre", []*ir.Value{x, x}, nil)
		require.NoError(t, err)
		pre.Result.Name = "pre"
		for _, op := range g.Ops {
			for k, o := range op.Operands {
				if o == x {
					op.Operands[k] = pre.Result
				}
			}
		}
		g.Ops = append([]*ir.Op{pre}, g.Ops...)
		require.NoError(t, ir.Verify(g))
		_, err = passes.Run(context.Background(), g, ps, &passes.Options{VerifyEach: true})
		require.NoError(t, err)
		names = append(names, dn[i]+"-nhwc")
		cases = append(cases, &e2e.Case{Graph: g, Inputs: quantIn(g, nil)})
		split = append(split, true)
	}
	for _, c := range append(append([]nbitsCase(nil), nbitsGEMMCases...), nbitsGEMVCases...) {
		g, err := ir.Parse(c.graph(r))
		require.NoError(t, err, c.name)
		for _, p := range c.runs {
			names = append(names, fmt.Sprintf("%s%v", c.name, p))
			cases = append(cases, &e2e.Case{Graph: g, Inputs: inputsFor(r, g, p, false), Params: p})
			split = append(split, true)
		}
	}
	return names, cases, split
}

// TestParallelQuantized: the quantized kernels split at 1-4 threads (see the file comment).
func TestParallelQuantized(t *testing.T) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	names, cases, split := quantizedSplitCases(t)
	for _, m := range []e2e.Machine{e2e.Host(), {Target: "x86-64", CPU: "x86-64-v3"}} {
		t.Run(m.String(), func(t *testing.T) {
			m.Threads, m.SplitAll = lower.ThreadsPool, true
			requireQuantizedSplit(t, m, names, cases, split)
			requireThreadBits(t, m, names, cases)
		})
	}
}

// requireThreadBits builds the cases for m (its Threads and SplitAll set), runs them on the
// default pool at 1, 2, 3 and 4 threads and requires the evaluator's values (within
// reassocTolerance) and the same bits at every count.
func requireThreadBits(t *testing.T, m e2e.Machine, names []string, cases []*e2e.Case) {
	ctx := context.Background()
	p, err := e2e.BuildBatch(ctx, t.TempDir(), m, cases)
	require.NoError(t, err)
	if !e2e.CanRun(t, m) {
		return
	}
	var first []e2e.Result
	for _, threads := range []int{1, 2, 3, 4} {
		t.Setenv("GRAPHC_NUM_THREADS", fmt.Sprint(threads))
		res := p.Run(ctx)
		for i, rs := range res {
			require.NoError(t, rs.Err, "%s at %d threads", names[i], threads)
			require.Zero(t, rs.Status, "%s at %d threads", names[i], threads)
			if first == nil {
				want, err := evalCase(cases[i])
				require.NoError(t, err, names[i])
				for k := range rs.Outputs {
					rtol, atol := reassocTolerance(want[k].Elem)
					require.NoError(t, e2e.Compare(rs.Outputs[k], want[k], rtol, atol, nil), "%s output %d", names[i], k)
				}
				continue
			}
			for k := range rs.Outputs {
				require.True(t, bytes.Equal(first[i].Outputs[k].Bytes(), rs.Outputs[k].Bytes()),
					"%s output %d differs at %d threads from 1 thread", names[i], k, threads)
			}
		}
		if first == nil {
			first = res
		}
	}
}

// consistentGraph: a product whose register tiles split its 960 columns (60 tiles of 16
// against 9 of 6 rows), an output (so that the tanh after it is a kernel of its own, not its
// epilogue), then an elementwise tanh, whose nest alone would split its 49 rows (its columns
// are its vector level), and a sum over the rows, whose one level is the columns.
const consistentGraph = `graph @c(%x: f32[49, 32], %w: f32[32, 960]) {
  %y = matmul(%x, %w) : f32[49, 960]
  %t = tanh(%y) : f32[49, 960]
  %s = reduce_sum(%t) {axes = [0]} : f32[1, 960]
  return %y, %t, %s
}`

// TestConsistentSplits: the tanh splits its columns as the product before it did, so that
// each thread reads the columns it computed (parallel.go's consistentLevel); the outputs are
// the evaluator's and bit-identical at 1-4 threads.
func TestConsistentSplits(t *testing.T) {
	g, err := ir.Parse(consistentGraph)
	require.NoError(t, err)
	m := e2e.Machine{Target: "x86-64", CPU: "x86-64-v3", Threads: lower.ThreadsPool, SplitAll: true}
	cfg, err := m.Config()
	require.NoError(t, err)
	mod, err := lower.Lower(context.Background(), g, cfg)
	require.NoError(t, err)
	dims := map[string]int{}
	for _, op := range mod.Entries[0].Plan.Ops {
		require.True(t, op.Split, "%s: %s", op.Result, op.Strategy)
		dims[op.Result] = op.SplitDim
		if op.Result == "y" {
			require.Contains(t, op.Strategy, "register-tiles")
		}
	}
	require.Equal(t, 1, dims["y"], "the product splits its columns: %v", dims)
	require.Equal(t, 1, dims["t"], "the tanh splits the columns, as the product did: %v", dims)
	r := rand.New(rand.NewPCG(33, 3))
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	requireThreadBits(t, m, []string{"consistent"}, []*e2e.Case{{Graph: g, Inputs: inputsFor(r, g, nil, false)}})
}

// TestParallelQuantizedHexagon: the kernels as Hexagon code under qemu-hexagon, split through
// the driver's own parallel-for (every chunk in turn, the last first), give the bits of the
// serial build: every case on hexagonv67 with HVX (the integer kernels on vrmpy, matmul_nbits
// as scalar float code: qemu cannot run HVX floating point), and matmul_nbits on scalar
// hexagonv67 (without HVX the integer products take no dot-product kernel).
func TestParallelQuantizedHexagon(t *testing.T) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	if _, err := exec.LookPath("qemu-hexagon"); err != nil {
		t.Skip("qemu-hexagon not installed")
	}
	names, cases, split := quantizedSplitCases(t)
	for _, m := range []e2e.Machine{e2e.HexagonHVX(), e2e.HexagonScalar()} {
		t.Run(m.String(), func(t *testing.T) {
			// the cases with a quantized kernel on m (the GEMM form of matmul_nbits, which alone
			// takes K = 100, has no Hexagon form)
			cfg, err := m.Config()
			require.NoError(t, err)
			var in []*e2e.Case
			var inNames []string
			var inSplit []bool
			for i, c := range cases {
				if m.Attrs != "" && c.Graph.Outputs[0].Type.Elem == ir.I32 {
					continue
				}
				mod, err := lower.Lower(context.Background(), c.Graph, cfg)
				require.NoError(t, err, names[i])
				if quantizedKernel(mod) {
					in, inNames, inSplit = append(in, c), append(inNames, names[i]), append(inSplit, split[i])
				}
			}
			require.NotEmpty(t, in)
			ctx := context.Background()
			serial, err := e2e.BuildBatch(ctx, t.TempDir(), m, in)
			require.NoError(t, err)
			want := serial.Run(ctx)
			m.Threads, m.SplitAll, m.CallerPool = lower.ThreadsCaller, true, true
			p, err := e2e.BuildBatch(ctx, t.TempDir(), m, in)
			require.NoError(t, err)
			requireQuantizedSplit(t, m, inNames, in, inSplit)
			for i, rs := range p.Run(ctx) {
				require.NoError(t, rs.Err, inNames[i])
				require.NoError(t, want[i].Err, inNames[i])
				require.Zero(t, rs.Status, inNames[i])
				for k := range rs.Outputs {
					require.True(t, bytes.Equal(want[i].Outputs[k].Bytes(), rs.Outputs[k].Bytes()), "%s output %d: split differs from serial", inNames[i], k)
				}
			}
		})
	}
}

// requireQuantizedSplit requires that the int-dot or nbits kernel of each case is split over
// threads on m exactly when split says so.
func requireQuantizedSplit(t *testing.T, m e2e.Machine, names []string, cases []*e2e.Case, split []bool) {
	cfg, err := m.Config()
	require.NoError(t, err)
	for i, c := range cases {
		mod, err := lower.Lower(context.Background(), c.Graph, cfg)
		require.NoError(t, err, names[i])
		require.True(t, quantizedKernel(mod), "%s: a quantized kernel", names[i])
		for _, op := range mod.Entries[0].Plan.Ops {
			if strings.Contains(op.Strategy, "int-dot") || strings.Contains(op.Strategy, "nbits") {
				require.Equal(t, split[i], op.Split, "%s: %s split", names[i], op.Strategy)
			}
		}
	}
}

// quantizedKernel reports whether mod has an integer dot-product or matmul_nbits kernel.
func quantizedKernel(mod *lower.Module) bool {
	for _, op := range mod.Entries[0].Plan.Ops {
		if strings.Contains(op.Strategy, "int-dot") || strings.Contains(op.Strategy, "nbits") {
			return true
		}
	}
	return false
}

// packedGraph: products whose register tiles pack their weight panels and read each panel
// with 130 rows (22 row tiles of 6): y's 16 column tiles of 16 are split (each task copies
// the panels of its own columns once), z's 4 column tiles too few for threads, so z splits its
// rows.
//
// h, 4 heads of 4 column tiles, splits the 16 pairs of a column tile and a head (a two-level
// split, levelClamp: each task copies the panels of its own pairs); c, a 1×1 convolution
// a product of 7 rows of 7 into 7 column tiles of 16, not packed, splits the 49 pairs of a
// column tile and a row.
const packedGraph = `graph @p(%x: f32[130, 256], %w: f32[256, 256], %v: f32[256, 64], %q: f32[4, 130, 256], %k: f32[4, 256, 64], %a: f32[7, 7, 32], %b: f32[32, 112]) {
  %y = matmul(%x, %w) : f32[130, 256]
  %z = matmul(%x, %v) : f32[130, 64]
  %h = matmul(%q, %k) : f32[4, 130, 64]
  %c = matmul(%a, %b) : f32[7, 7, 112]
  return %y, %z, %h, %c
}`

// TestPackedSplitsColumns: a register-tile kernel with packed panels read by few rows splits
// its column tiles when it has enough of them (contraction.repacksWhenSplit), its rows when
// not; the outputs are the evaluator's and bit-identical at 1-4 threads.
func TestPackedSplitsColumns(t *testing.T) {
	g, err := ir.Parse(packedGraph)
	require.NoError(t, err)
	m := e2e.Machine{Target: "x86-64", CPU: "x86-64-v3", Threads: lower.ThreadsPool, SplitAll: true}
	cfg, err := m.Config()
	require.NoError(t, err)
	mod, err := lower.Lower(context.Background(), g, cfg)
	require.NoError(t, err)
	dims := map[string]int{}
	for _, op := range mod.Entries[0].Plan.Ops {
		require.True(t, op.Split, "%s: %s", op.Result, op.Strategy)
		if op.Result != "c" {
			require.Contains(t, op.Strategy, "packed=[1]", op.Result)
		}
		dims[op.Result] = op.SplitDim
	}
	require.Equal(t, map[string]int{"y": 1, "z": 0, "h": 2, "c": 0}, dims)
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	r := rand.New(rand.NewPCG(33, 4))
	in := inputsFor(r, g, nil, false)
	for _, x := range in {
		// non-negative terms: sums of 256 products within reassocTolerance of the evaluator's
		for i, f := range x.F {
			x.F[i] = math.Abs(f)
		}
	}
	requireThreadBits(t, m, []string{"packed"}, []*e2e.Case{{Graph: g, Inputs: in}})
}
