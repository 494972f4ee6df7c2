package passes_test

// This file checks that DIE is exact through a gather whose index is a position computed from
// symbolic dims, with a sign they decide: the last token of a chunk as total_sequence_length
// - 1 - past_length, total and past read from shapes (Shape(attention_mask)[1] and
// Shape(past_key)[2]). A negative index counts from the end (ONNX), so the product keeps the
// one row T - 1 - P, or S + T - 1 - P when that is negative, for every binding.

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
	"github.com/graphc/graphc/passes"
	"github.com/graphc/graphc/volume"
)

const chunkLastRow = `graph @chunk_last[S, P, T](%h: f32[S, 16], %w: f32[16, 32], %past: f32[P, 16], %mask: i64[T]) {
  %hw = matmul(%h, %w) : f32[S, 32]
  %idx = values() {type = "i64[]", values = ["T - 1 - P"]} : i64[]
  %last = gather(%hw, %idx) {axis = 0} : f32[32]
  return %last
}`

func TestDIEGatherAtComputedPosition(t *testing.T) {
	ref := mustParse(t, chunkLastRow)
	require.NoError(t, ir.Verify(ref))
	g := mustParse(t, chunkLastRow)
	ps, err := passes.ParsePipeline(passes.DefaultPipeline)
	require.NoError(t, err)
	_, err = passes.Run(context.Background(), g, ps, &passes.Options{VerifyEach: true})
	require.NoError(t, err)
	var hw *ir.Op
	for _, op := range g.Ops {
		if op.Result.Name == "hw" {
			hw = op
		}
	}
	require.NotNil(t, hw)
	rng := rand.New(rand.NewPCG(34, 3))
	for _, p := range []map[string]int64{{"S": 64, "P": 0, "T": 64}, {"S": 5, "P": 7, "T": 12}, {"S": 5, "P": 7, "T": 9}, {"S": 4, "P": 3, "T": 1}, {"S": 6, "P": 2, "T": 0}} {
		S, P, T := p["S"], p["P"], p["T"]
		row := T - 1 - P
		if row < 0 {
			row += S
		}
		// one row of the product, row, for 32 columns and 16 terms each
		bound := hw.Domain
		for name, v := range p {
			bound = bound.FixParam(name, v)
		}
		want := volume.SetFromConstraints(nil, "", hw.Dims, []volume.Constraint{
			volume.EQ(volume.AffDim(0), volume.AffConst(row)),
			volume.GE(volume.AffDim(1), volume.AffConst(0)), volume.LT(volume.AffDim(1), volume.AffConst(32)),
			volume.GE(volume.AffDim(2), volume.AffConst(0)), volume.LT(volume.AffDim(2), volume.AffConst(16))})
		require.True(t, bound.IsEqual(want) == volume.Yes, "%v: the product runs %s, wants row %d", p, bound, row)
		// the required output is the evaluator's before and after
		in := map[string]*ir.Tensor{
			"h": e2e.RandomTensor(rng, ir.F32, []int64{S, 16}), "w": e2e.RandomTensor(rng, ir.F32, []int64{16, 32}),
			"past": e2e.RandomTensor(rng, ir.F32, []int64{P, 16}), "mask": e2e.RandomTensor(rng, ir.I64, []int64{T}),
		}
		got, err := eval.Run(g, in, eval.WithParams(p))
		require.NoError(t, err)
		exp, err := eval.Run(ref, in, eval.WithParams(p))
		require.NoError(t, err)
		require.Equal(t, exp[0].F, got[0].F, "%v", p)
	}
}
