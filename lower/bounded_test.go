package lower_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/llir/llvm/ir/types"
	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/lower"
)

// TestBoundedExtentMustGrow: an extent that shrinks as a bounded dim grows (8 - k) cannot live
// in a buffer sized at the bound; lowering refuses it by name.
func TestBoundedExtentMustGrow(t *testing.T) {
	g, err := ir.Parse(`graph @g[k <= 8 from %k](%x: f32[8], %kin: i64[1]) {
  %k = reshape(%kin) {shape = "[]"} : i64[]
  %w = slice(%x) {axes = [0], ends = [8], starts = [0], sym_starts = ["k"]} : f32[-k + 8]
  return %w, %k
}`)
	require.NoError(t, err)
	require.NoError(t, ir.Verify(g))
	tgt, err := lower.LoadTarget("x86-64")
	require.NoError(t, err)
	_, err = lower.Lower(context.Background(), g, lower.Config{Target: tgt})
	require.ErrorContains(t, err, "%w of type f32[-k + 8]: the extent -k + 8 decreases as a bounded dim grows (buffers are sized at the bound)")
}

// TestKernelsTakeTheirDims: a kernel takes the symbolic dims its code uses, not every dim of
// the graph (a detector has hundreds of run-time sizes; 7,364 kernels with 272 i64 arguments
// each made a 611 MB module), in the entry's order, and the entry passes it those. The split
// twin of a kernel takes the same ones. Code that is emitted but dead does not count: the first
// operand of a concatenation, written in place at offset 0, computes the concatenation's
// extent k + j for its view, which only its strides could use.
func TestKernelsTakeTheirDims(t *testing.T) {
	g, err := ir.Parse(`graph @g[N, M, k <= 8 from %k, j <= 64 from %j](%x: f32[N, 8], %y: f32[M, 64, 64], %kin: i64[1], %jin: i64[1]) {
  %k = reshape(%kin) {shape = "[]"} : i64[]
  %j = reshape(%jin) {shape = "[]"} : i64[]
  %e = exp(%x) : f32[N, 8]
  %w = slice(%e) {axes = [1], ends = [0], starts = [0], sym_ends = ["k"]} : f32[N, k]
  %v = slice(%y) {axes = [1], ends = [0], starts = [0], sym_ends = ["j"]} : f32[M, j, 64]
  %s = tanh(%v) : f32[M, j, 64]
  return %w, %s, %k, %j
}`)
	require.NoError(t, err)
	require.NoError(t, ir.Verify(g))
	for _, threads := range []lower.ThreadMode{lower.ThreadsNone, lower.ThreadsPool} {
		got := kernelDims(t, g, threads)
		require.Nil(t, got["reshape"], "the reshapes use no dim")
		// exp computes the columns the slice reads (k of them: the value's region)
		require.Equal(t, []string{"N", "k"}, got["exp"])
		require.Equal(t, []string{"M", "j"}, got["tanh"])
		if threads != lower.ThreadsNone {
			require.Equal(t, []string{"M", "j", "pb", "pe", "region"}, got["tanh.par"], "the twin: the serial kernel's dims, then its own")
		}
	}
	g, err = ir.Parse(`graph @g[k <= 8 from %k, j <= 6 from %j](%x: f32[8], %y: f32[6], %kin: i64[1], %jin: i64[1]) {
  %k = reshape(%kin) {shape = "[]"} : i64[]
  %j = reshape(%jin) {shape = "[]"} : i64[]
  %a = slice(%x) {axes = [0], ends = [0], starts = [0], sym_ends = ["k"]} : f32[k]
  %ea = exp(%a) : f32[k]
  %b = slice(%y) {axes = [0], ends = [0], starts = [0], sym_ends = ["j"]} : f32[j]
  %eb = neg(%b) : f32[j]
  %c = concat(%ea, %eb) {axis = 0} : f32[k + j]
  %t = tanh(%c) : f32[k + j]
  return %t, %k, %j
}`)
	require.NoError(t, err)
	require.NoError(t, ir.Verify(g))
	got := kernelDims(t, g, lower.ThreadsNone)
	require.Equal(t, []string{"k"}, got["exp"], "written at offset 0 of the concatenation")
	require.Equal(t, []string{"k", "j"}, got["neg"], "written at offset k")
}

// kernelDims lowers g and returns the i64 arguments of each kernel, by the kind of the op it
// computes (KIND.par for a split twin).
func kernelDims(t *testing.T, g *ir.Graph, threads lower.ThreadMode) map[string][]string {
	tgt, err := lower.LoadTarget("x86-64")
	require.NoError(t, err)
	mod, err := lower.Lower(context.Background(), g, lower.Config{Target: tgt, Threads: threads})
	require.NoError(t, err)
	got := map[string][]string{}
	for _, f := range mod.LLVM.Funcs {
		name := f.Name()
		if !strings.HasPrefix(name, "main_graph.k") || strings.HasSuffix(name, ".task") {
			continue
		}
		var dims []string
		for _, p := range f.Params {
			if p.Typ == types.I64 {
				dims = append(dims, p.Name())
			}
		}
		op := strings.Split(name, ".")[2]
		got[op+map[bool]string{true: ".par"}[strings.HasSuffix(name, ".par")]] = dims
	}
	return got
}

// TestShrinkingIntermediateRuns: intermediates whose extent shrinks as a bounded dim grows
// (8 - k; Mask R-CNN's paste pads each mask with 320 - y1 rows) are lowered, sized by
// sizingType, and the compiled code matches the evaluator for every k.
func TestShrinkingIntermediateRuns(t *testing.T) {
	src := `graph @g[k <= 8 from %k](%x: f32[8], %kin: i64[1]) {
  %k = reshape(%kin) {shape = "[]"} : i64[]
  %w = slice(%x) {axes = [0], ends = [8], starts = [0], sym_starts = ["k"]} : f32[-k + 8]
  %e = exp(%w) : f32[-k + 8]
  %f = neg(%w) : f32[-k + 8]
  %s = reduce_sum(%e) {axes = [0], keepdims = 0} : f32[]
  %u = reduce_max(%f) {axes = [0], keepdims = 0} : f32[]
  %v = reduce_max(%e) {axes = [0], keepdims = 0} : f32[]
  %z = reduce_sum(%f) {axes = [0], keepdims = 0} : f32[]
  %a = add(%s, %u) : f32[]
  %b = add(%v, %z) : f32[]
  %r = mul(%a, %b) : f32[]
  return %r, %k
}`
	var names []string
	var cases []*e2e.Case
	r := rand.New(rand.NewPCG(35, 9))
	for k := int64(0); k <= 8; k++ {
		g, err := ir.Parse(src)
		require.NoError(t, err)
		kin := ir.NewTensor(ir.I64, []int64{1})
		kin.I[0] = k
		names = append(names, fmt.Sprintf("k=%d", k))
		cases = append(cases, &e2e.Case{Graph: g, Inputs: []*ir.Tensor{e2e.RandomTensor(r, ir.F32, []int64{8}), kin}})
	}
	runCases(t, e2e.Host(), names, cases)
}
