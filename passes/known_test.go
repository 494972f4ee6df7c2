package passes_test

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
	"github.com/graphc/graphc/passes"
)

// causalAttention is masked_fill attention with a constant causal mask, as exports write it.
const causalAttention = `graph @causal(%q: f32[4, 8], %k: f32[8, 4], %v: f32[4, 8]) {
  %mask = constant dense<[0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0]> : i1[4, 4]
  %ninf = constant dense<[-inf]> : f32[]
  %s = matmul(%q, %k) : f32[4, 4]
  %w = where(%mask, %ninf, %s) : f32[4, 4]
  %m = reduce_max(%w) {axes = [1]} : f32[4, 1]
  %d = sub(%w, %m) : f32[4, 4]
  %e = exp(%d) : f32[4, 4]
  %z = reduce_sum(%e) {axes = [1]} : f32[4, 1]
  %p = div(%e, %z) : f32[4, 4]
  %y = matmul(%p, %v) : f32[4, 8]
  return %y
}`

// TestZeroSkipSwitch: with zero-skipping, P·V skips the masked weights, which are 0; an
// infinite value in V behind the mask then no longer turns the row into NaN (0·inf). That is
// the documented assumption (unknown values are finite). --no-zero-skip (NoZeroSkip) keeps
// IEEE semantics: the same input gives the evaluator's NaNs, bit for bit, and on finite inputs
// both agree with the evaluator.
func TestZeroSkipSwitch(t *testing.T) {
	inputs := func(withInf bool) map[string]*ir.Tensor {
		q, k, v := ir.NewTensor(ir.F32, []int64{4, 8}), ir.NewTensor(ir.F32, []int64{8, 4}), ir.NewTensor(ir.F32, []int64{4, 8})
		for i := range q.F {
			q.F[i] = float64(i%7) * 0.25
			k.F[i] = float64(i%5) * -0.5
			v.F[i] = float64(i%3) - 1
		}
		if withInf {
			v.F[3*8+2] = math.Inf(1) // row 3 of V: masked for query rows 0..2
		}
		return map[string]*ir.Tensor{"q": q, "k": k, "v": v}
	}
	run := func(noZeroSkip bool, in map[string]*ir.Tensor) []float64 {
		g, err := ir.Parse(causalAttention)
		require.NoError(t, err)
		ps, err := passes.ParsePipeline(passes.DefaultPipeline)
		require.NoError(t, err)
		_, err = passes.Run(context.Background(), g, ps, &passes.Options{VerifyEach: true, NoZeroSkip: noZeroSkip})
		require.NoError(t, err)
		out, err := eval.Run(g, in)
		require.NoError(t, err)
		return out[0].F
	}
	orig, err := ir.Parse(causalAttention)
	require.NoError(t, err)
	ref, err := eval.Run(orig, inputs(true))
	require.NoError(t, err)
	require.True(t, math.IsNaN(ref[0].F[2]), "IEEE: 0·inf in row 0, column 2")

	skip := run(false, inputs(true))
	require.False(t, math.IsNaN(skip[2]), "zero-skipping never multiplies the masked weight")
	exact := run(true, inputs(true))
	for i := range exact {
		require.True(t, sameBits(exact[i], ref[0].F[i]), "element %d: %v, evaluator %v", i, exact[i], ref[0].F[i])
	}
	// finite inputs: both agree with the evaluator
	fin, err := eval.Run(orig, inputs(false))
	require.NoError(t, err)
	for _, noZeroSkip := range []bool{false, true} {
		got := run(noZeroSkip, inputs(false))
		for i := range got {
			require.True(t, sameBits(got[i], fin[0].F[i]), "no-zero-skip=%v element %d", noZeroSkip, i)
		}
	}
}
