package passes_test

// This file checks that DIE stays exact with bounded dims (ir.BoundedDim): when only the first k
// rows of a sorted tensor are needed, k computed at run time, the ops after k's computation keep
// exactly the iterations that write those rows for every k within the bound (the ranks all of
// theirs unless k = 0), the op before k's computation keeps all of its, and the evaluator gives
// the same required outputs before and after.

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

// topKRows is TopK along axis 0 of x (all 8 rows: ranks, then each element scattered to its
// rank), then exp, then the first k rows, k the run-time value of kin. %early runs before k is
// computed: its domain may not depend on k.
const topKRows = `graph @topk_rows[k <= 8 from %k](%x: f32[8, 4], %kin: i64[1]) {
  %early = neg(%x) : f32[8, 4]
  %k = reshape(%kin) {shape = "[]"} : i64[]
  %r = sort_rank(%early, %early) {axis = 0, descending = 1} : i64[8, 4]
  %z = fill() {type = "f32[8, 4]", value = -0.0} : f32[8, 4]
  %v = scatter_elements(%z, %r, %early) {axis = 0, reduction = "add"} : f32[8, 4]
  %y = exp(%v) : f32[8, 4]
  %w = slice(%y) {axes = [0], ends = [0], starts = [0], sym_ends = ["k"]} : f32[k, 4]
  return %w, %k
}`

func TestDIEBoundedDim(t *testing.T) {
	ref, err := ir.Parse(topKRows)
	require.NoError(t, err)
	require.NoError(t, ir.Verify(ref))
	g, err := ir.Parse(topKRows)
	require.NoError(t, err)
	ps, err := passes.ParsePipeline("die")
	require.NoError(t, err)
	_, err = passes.Run(context.Background(), g, ps, &passes.Options{VerifyEach: true})
	require.NoError(t, err)
	require.Equal(t, g.String(), mustParse(t, g.String()).String(), "the printed form round-trips")
	ops := map[string]*ir.Op{}
	for _, op := range g.Ops {
		ops[op.Result.Name] = op
	}
	require.False(t, ops["early"].IsRestricted(), "before k is known every row is computed")
	rng := rand.New(rand.NewPCG(35, 2))
	for k := int64(0); k <= 8; k++ {
		// the iterations that write rows < k of their result, nothing else
		for _, name := range []string{"v", "y"} {
			op := ops[name]
			live := op.Full.Intersect(volume.SetFromConstraints(g.Params, "", op.Dims,
				[]volume.Constraint{volume.LT(volume.AffDim(0), volume.AffConst(k))}))
			got := op.Domain.FixParam("k", k)
			want := live.FixParam("k", k)
			require.True(t, got.IsEqual(want) == volume.Yes, "k = %d: %%%s runs %s, the live iterations are %s", k, name, got, want)
			n, err := got.Card(nil)
			require.NoError(t, err)
			full, err := op.Full.FixParam("k", k).Card(nil)
			require.NoError(t, err)
			require.Equal(t, full*k/8, n, "k = %d: %%%s keeps k of its 8 rows", k, name)
		}
		// every rank decides which element lands in the first rows, unless there are none
		r := ops["r"]
		if k == 0 {
			require.True(t, r.Domain.FixParam("k", 0).IsEmpty() == volume.Yes)
		} else {
			require.True(t, r.Domain.FixParam("k", k).IsEqual(r.Full.FixParam("k", k)) == volume.Yes, "k = %d", k)
		}
		// the required outputs are the evaluator's before and after
		x := e2e.RandomTensor(rng, ir.F32, []int64{8, 4})
		kin := ir.NewTensor(ir.I64, []int64{1})
		kin.I[0] = k
		in := map[string]*ir.Tensor{"x": x, "kin": kin}
		want, err := eval.Run(ref, in)
		require.NoError(t, err)
		got, err := eval.Run(g, in)
		require.NoError(t, err)
		require.Equal(t, want[0].Shape, got[0].Shape)
		require.Equal(t, want[0].F, got[0].F, "k = %d", k)
		require.Equal(t, k, got[1].I[0])
	}
}

func mustParse(t *testing.T, s string) *ir.Graph {
	t.Helper()
	g, err := ir.Parse(s)
	require.NoError(t, err)
	return g
}
