package onnx_test

// This file tests the bounded dims of torchvision's postprocessing idioms: an If with a
// run-time condition whose branches give different extents (nothing, or a NonZero selection)
// and a Slice whose constant end clamps on a bounded extent (keep[:k]), against the same model
// with its data known at import (the reference path), for selections shorter and longer than
// the end.

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/frontend/onnx"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
)

// ifSelectModel: Y = (If C then [] else NonZero(X > 0)[0])[:4].
func ifSelectModel() *onnxgen.Model {
	m := onnxgen.New("ifsel", 13)
	m.Input("C", ir.Bool)
	m.Input("X", ir.F32, 9)
	m.Init("zero", tensor(ir.F32, []int64{}, 0))
	m.Init("axis0", tensor(ir.I64, []int64{1}, 0))
	m.Init("empty", tensor(ir.I64, []int64{0}))
	m.Init("s0", tensor(ir.I64, []int64{1}, 0))
	m.Init("s4", tensor(ir.I64, []int64{1}, 4))
	then := subgraph("then", nil, []string{"t"}, node("Identity", []string{"empty"}, []string{"t"}))
	els := subgraph("else", nil, []string{"e"},
		node("Greater", []string{"X", "zero"}, []string{"m"}),
		node("NonZero", []string{"m"}, []string{"nz"}),
		node("Squeeze", []string{"nz", "axis0"}, []string{"e"}))
	m.G.Node = append(m.G.Node,
		node("If", []string{"C"}, []string{"K"}, graphAttr("then_branch", then), graphAttr("else_branch", els)),
		node("Slice", []string{"K", "s0", "s4"}, []string{"Y"}))
	m.Output("Y", ir.I64, "n")
	return m
}

func TestIfDifferingExtentsAndClampedSlice(t *testing.T) {
	g, err := onnx.Import(ifSelectModel().Proto(), "ifsel.onnx")
	require.NoError(t, err)
	require.NoError(t, ir.Verify(g))
	require.GreaterOrEqual(t, len(g.Bounded), 3, "NonZero's count, the If's extent and the slice's min(n, 4)")
	for _, tc := range []struct {
		cond float64
		x    []float64
	}{
		{0, []float64{1, -1, 2, 0, 3, 4, 5, -2, 6}},   // 6 selected, cut to 4
		{0, []float64{-1, -1, 2, 0, 0, 0, 0, -2, 6}},  // 2 selected
		{0, []float64{-1, -1, -2, 0, 0, 0, 0, -2, 0}}, // none
		{1, []float64{1, 1, 1, 1, 1, 1, 1, 1, 1}},     // the empty branch
	} {
		cond := tensor(ir.Bool, []int64{}, tc.cond)
		x := tensor(ir.F32, []int64{9}, tc.x...)
		want := runModel(t, ifSelectModel().Proto(), nil, onnx.WithConstInput("C", cond), onnx.WithConstInput("X", x))
		got, err := eval.Run(g, map[string]*ir.Tensor{"C": cond, "X": x})
		require.NoError(t, err)
		require.Equal(t, want[0].Shape, got[0].Shape, "%+v", tc)
		require.Equal(t, want[0].I, got[0].I, "%+v", tc)
	}
}
