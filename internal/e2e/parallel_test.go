package e2e_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/internal/randgraph"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
	"github.com/graphc/graphc/lower"
	"github.com/graphc/graphc/passes"
)

// TestParallelBitIdentical builds random graphs with every kernel that can be split over
// threads split into its smallest chunks (lower.Config.SplitAll), runs them on the default
// pool at 1, 2, 3 and 4 threads (GRAPHC_NUM_THREADS) and requires the same output bits at
// every count, and the evaluator's values (the tolerance of TestRandomGraphsCompiled).
func TestParallelBitIdentical(t *testing.T) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	cases, wants := parallelCases(t, max(20, *compiledGraphs/2), randgraph.Graph)
	checkThreadCounts(t, e2e.Host(), cases, wants, 1e-5, 1e-6)
}

// TestParallelCNNs is TestParallelBitIdentical on random convolutional networks
// (randgraph.CNN: register tiles along channels with epilogues, pools, padding copies written
// in place, residuals), for AVX-512 with FMA: compared with the evaluator at
// TestRandomCNNs's tolerance.
func TestParallelCNNs(t *testing.T) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	cases, wants := parallelCases(t, 16, randgraph.CNN)
	checkThreadCounts(t, e2e.Machine{Target: "x86-64", CPU: "skylake-avx512"}, cases, wants, 1e-5, 1e-4)
}

// checkThreadCounts builds the cases for m with every splittable kernel split into its
// smallest chunks, runs them on the default pool at 1, 2, 3 and 4 threads and requires the
// same bits at every count, and the evaluator's values within rtol and atol.
func checkThreadCounts(t *testing.T, m e2e.Machine, cases []*e2e.Case, wants [][]*ir.Tensor, rtol, atol float64) {
	m.Threads, m.SplitAll = lower.ThreadsPool, true
	p, err := e2e.BuildBatch(context.Background(), t.TempDir(), m, cases)
	require.NoError(t, err) // built and verified on every host
	if !e2e.CanRun(t, m) {
		return
	}
	tasks := splitKernels(t, p, len(cases))
	var first []e2e.Result
	for _, threads := range []int{1, 2, 3, 4} {
		t.Setenv("GRAPHC_NUM_THREADS", fmt.Sprint(threads))
		res := p.Run(context.Background())
		for i, rs := range res {
			require.NoError(t, rs.Err, "case %d at %d threads\n%s", i, threads, cases[i].Graph)
			if first == nil {
				require.Zero(t, rs.Status, "case %d", i)
				for k := range rs.Outputs {
					require.NoError(t, e2e.Compare(rs.Outputs[k], wants[i][k], rtol, atol, nil), "case %d output %d\n%s", i, k, cases[i].Graph)
				}
				continue
			}
			require.Equal(t, first[i].Status, rs.Status, "case %d at %d threads", i, threads)
			for k := range rs.Outputs {
				require.True(t, bytes.Equal(first[i].Outputs[k].Bytes(), rs.Outputs[k].Bytes()),
					"case %d output %d differs at %d threads from 1 thread\n%s", i, k, threads, cases[i].Graph)
			}
		}
		if first == nil {
			first = res
		}
	}
	t.Logf("%d graphs, %d split kernels, bit-identical at 1-4 threads", len(cases), tasks)
}

// TestParallelHexagon runs the split kernels as Hexagon code under qemu-hexagon (scalar
// hexagonv67, and hexagonv67 with integer HVX): the modules are freestanding (no pool), so the
// driver passes ENTRY_parallel a parallel-for of its own that runs every chunk of a region in
// turn, the last first. The outputs must have the bits of the same graphs built without
// threads, and the evaluator's values.
func TestParallelHexagon(t *testing.T) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	if _, err := exec.LookPath("qemu-hexagon"); err != nil {
		t.Skip("qemu-hexagon not installed")
	}
	cases, wants := parallelCases(t, max(12, *compiledGraphs/8), randgraph.Graph)
	for _, m := range []e2e.Machine{e2e.HexagonScalar(), e2e.HexagonHVX()} {
		t.Run(m.String(), func(t *testing.T) {
			serial, err := e2e.BuildBatch(context.Background(), t.TempDir(), m, cases)
			require.NoError(t, err)
			want := serial.Run(context.Background())
			m.Threads, m.SplitAll, m.CallerPool = lower.ThreadsCaller, true, true
			p, err := e2e.BuildBatch(context.Background(), t.TempDir(), m, cases)
			require.NoError(t, err)
			tasks := splitKernels(t, p, len(cases))
			for i, rs := range p.Run(context.Background()) {
				require.NoError(t, rs.Err, "case %d\n%s", i, cases[i].Graph)
				require.NoError(t, want[i].Err, "case %d\n%s", i, cases[i].Graph)
				require.Equal(t, want[i].Status, rs.Status, "case %d", i)
				for k := range rs.Outputs {
					require.NoError(t, e2e.Compare(rs.Outputs[k], wants[i][k], 1e-5, 1e-6, nil), "case %d output %d\n%s", i, k, cases[i].Graph)
					require.True(t, bytes.Equal(want[i].Outputs[k].Bytes(), rs.Outputs[k].Bytes()),
						"case %d output %d: split differs from serial\n%s", i, k, cases[i].Graph)
				}
			}
			t.Logf("%d graphs, %d split kernels, bit-identical to the serial build", len(cases), tasks)
		})
	}
}

// splitKernels counts the task functions of p's module and requires more than half as many
// as graphs: the tests mean something only if kernels were split.
func splitKernels(t *testing.T, p *e2e.BatchProgram, graphs int) int {
	tasks := 0
	for _, f := range p.Mod.LLVM.Funcs {
		if strings.HasSuffix(f.Name(), ".task") {
			tasks++
		}
	}
	require.Greater(t, tasks, graphs/2, "split kernels in %d graphs", graphs)
	return tasks
}

// parallelCases returns random graphs without symbolic dims, through the default pipeline,
// of gen with random inputs and the evaluator's outputs.
func parallelCases(t *testing.T, graphs int, gen func(*rand.Rand) *ir.Graph) ([]*e2e.Case, [][]*ir.Tensor) {
	ps, err := passes.ParsePipeline(passes.DefaultPipeline)
	require.NoError(t, err)
	var cases []*e2e.Case
	var wants [][]*ir.Tensor
	for seed := range graphs {
		r := rand.New(rand.NewPCG(uint64(seed), 33))
		g := gen(r)
		if len(g.Params) > 0 {
			continue
		}
		text := g.String()
		orig, err := ir.Parse(text)
		require.NoError(t, err)
		_, err = passes.Run(context.Background(), g, ps, &passes.Options{VerifyEach: true})
		require.NoError(t, err, "seed %d\n%s", seed, text)
		var inputs []*ir.Tensor
		byName := map[string]*ir.Tensor{}
		for _, in := range orig.Inputs {
			s, _ := in.Type.StaticShape()
			tt := e2e.RandomTensor(r, in.Type.Elem, s)
			inputs = append(inputs, tt)
			byName[in.Name] = tt
		}
		want, err := eval.Run(orig, byName)
		if err != nil {
			continue
		}
		cases = append(cases, &e2e.Case{Graph: g, Inputs: inputs})
		wants = append(wants, want)
	}
	return cases, wants
}

// kindsGraph has a kernel of each kind that is split over threads in regions of its own: a
// channels-first to channels-last transpose (split over rows) and a 2-D one (split over whole
// blocks of its read dim), padding copies split along their guards (one region per part), a
// convolution whose tiles leave a border nest (two regions), and an elementwise tanh.
const kindsGraph = `graph @k(%x: f32[1, 21, 19, 37], %m: f32[37, 45], %s: f32[1, 8, 9, 11], %c: f32[1, 16, 13, 13], %w: f32[24, 16, 3, 3]) {
  %t = transpose(%x) {perm = [0, 2, 3, 1]} : f32[1, 19, 37, 21]
  %u = transpose(%m) : f32[45, 37]
  %p0 = pad(%s) {pads = [0, 0, 1, 2, 0, 0, 1, 0], value = -1.0} : f32[1, 8, 11, 13]
  %p1 = pad(%p0) {mode = "edge", pads = [0, 0, 2, 0, 0, 0, 0, 1]} : f32[1, 8, 13, 14]
  %p2 = pad(%p1) {mode = "reflect", pads = [0, 0, 1, 1, 0, 0, 1, 1]} : f32[1, 8, 15, 16]
  %y = conv(%c, %w) {pads = [1, 1, 1, 1]} : f32[1, 24, 13, 13]
  %e = tanh(%y) : f32[1, 24, 13, 13]
  return %t, %u, %p2, %e
}`

// TestParallelKinds runs kindsGraph with every kernel split into its smallest chunks at 1-4
// threads (checkThreadCounts: the same bits at every count, the evaluator's values), and
// requires that the transposes, the padding copies split along their guards and the
// convolution with a border nest were split.
func TestParallelKinds(t *testing.T) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	g, err := ir.Parse(kindsGraph)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(7, 33))
	byName := map[string]*ir.Tensor{}
	var inputs []*ir.Tensor
	for _, in := range g.Inputs {
		s, _ := in.Type.StaticShape()
		tt := e2e.RandomTensor(r, in.Type.Elem, s)
		inputs = append(inputs, tt)
		byName[in.Name] = tt
	}
	want, err := eval.Run(g, byName)
	require.NoError(t, err)
	m := e2e.Host()
	m.Threads, m.SplitAll = lower.ThreadsPool, true
	cfg, err := m.Config()
	require.NoError(t, err)
	mod, err := lower.Lower(context.Background(), g, cfg)
	require.NoError(t, err)
	kinds := map[string]int{}
	for _, op := range mod.Entries[0].Plan.Ops {
		if !op.Split {
			continue
		}
		for _, k := range []string{"transpose", "guard-split", "+border"} {
			if strings.Contains(op.Strategy, k) {
				kinds[k]++
			}
		}
	}
	require.Equal(t, 2, kinds["transpose"], "split transposes")
	require.Positive(t, kinds["guard-split"], "split padding copies")
	require.Positive(t, kinds["+border"], "split convolutions with a border nest")
	checkThreadCounts(t, e2e.Host(), []*e2e.Case{{Graph: g, Inputs: inputs}}, [][]*ir.Tensor{want}, 1e-5, 1e-5)
}
