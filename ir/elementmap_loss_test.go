package ir_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// TestNLLPickApproximation checks the over-approximated maps of nll_pick's data-dependent
// reads: every class of the input at the position's sample and spatial index, and every weight.
func TestNLLPickApproximation(t *testing.T) {
	g := ir.NewGraph("t")
	g.AddParam("N")
	x := g.AddInput("x", ir.TensorType{Elem: ir.F32, Shape: []volume.Aff{volume.AffParam("N"), volume.AffConst(3), volume.AffConst(2)}})
	tg := g.AddInput("t", ir.TensorType{Elem: ir.I64, Shape: []volume.Aff{volume.AffParam("N"), volume.AffConst(2)}})
	w := g.AddInput("w", ir.StaticType(ir.F32, 3))
	op, err := g.NewOp("nll_pick", "", []*ir.Value{x, tg, w}, nil)
	require.NoError(t, err)
	require.True(t, op.Access[0].Approx)
	require.True(t, op.Access[2].Approx)
	want, err := volume.ParseMap("[N] -> { [n, d] -> [n, c, d] : 0 <= n < N and 0 <= d < 2 and 0 <= c < 3 }")
	require.NoError(t, err)
	require.True(t, op.ElementMap(g.Params, 0).IsEqual(want) == volume.Yes, "got %s", op.ElementMap(g.Params, 0))
	wantW, err := volume.ParseMap("[N] -> { [n, d] -> [c] : 0 <= n < N and 0 <= d < 2 and 0 <= c < 3 }")
	require.NoError(t, err)
	require.True(t, op.ElementMap(g.Params, 2).IsEqual(wantW) == volume.Yes, "got %s", op.ElementMap(g.Params, 2))
}
