package onnx_test

// This file tests the ops with data-dependent output shapes computed at import: Unique along
// an axis is refused with a NeedConstError naming the input while its data is only known at
// run time; NonZero, Compress and Unique without axis over run-time data take a bounded dim
// (bounded_test.go).

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/frontend/onnx"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
)

func TestDataDependentShapes(t *testing.T) {
	m := onnxgen.New("nz", 13)
	m.Input("X", ir.F32, 2, 3)
	m.Node("NonZero", "nz", []string{"X"}, []string{"Y"})
	m.Output("Y", ir.I64, 2, "n")
	// a run-time input gives a bounded dim (bounded_test.go); Unique along an axis still needs
	// its input
	un := onnxgen.New("un", 13)
	un.Input("X", ir.F32, 2, 3)
	un.Node("Unique", "un", []string{"X"}, []string{"Y"}, onnxgen.IntAttr("axis", 0))
	un.Output("Y", ir.F32, "n", 3)
	_, err := onnx.Import(un.Proto(), "un.onnx")
	var nc *onnx.NeedConstError
	require.ErrorAs(t, err, &nc)
	require.Equal(t, []string{"X"}, nc.Inputs())
	require.ErrorContains(t, err, "its values decide the output's shape")
	x := tensor(ir.F32, []int64{2, 3}, 0, 1, 0, 2, 0, 3)
	g, err := onnx.Import(m.Proto(), "nz.onnx", onnx.WithConstInput("X", x))
	require.NoError(t, err)
	require.Equal(t, []int64{0, 1, 1, 1, 0, 2}, g.Outputs[0].Data.I, "rows then columns of the non-zeros")

	// Unique along axis 0 of [[1, 2], [3, 4], [1, 2]], sorted: two rows
	u := onnxgen.New("u", 13)
	u.Node("Unique", "u", []string{"X"}, []string{"Y", "I", "V", "C"}, onnxgen.IntAttr("axis", 0))
	u.Input("X", ir.I64, 3, 2)
	u.Output("Y", ir.I64, 2, 2)
	u.Output("I", ir.I64, 2)
	u.Output("V", ir.I64, 3)
	u.Output("C", ir.I64, 2)
	ux := tensor(ir.I64, []int64{3, 2}, 3, 4, 1, 2, 3, 4)
	g, err = onnx.Import(u.Proto(), "u.onnx", onnx.WithConstInput("X", ux))
	require.NoError(t, err)
	require.Equal(t, []int64{1, 2, 3, 4}, g.Outputs[0].Data.I)
	require.Equal(t, []int64{1, 0}, g.Outputs[1].Data.I, "first occurrences")
	require.Equal(t, []int64{1, 0, 1}, g.Outputs[2].Data.I, "inverse")
	require.Equal(t, []int64{1, 2}, g.Outputs[3].Data.I, "counts")

	// Compress with a constant condition over data known at run time: a gather
	c := onnxgen.New("c", 13)
	c.Input("X", ir.F32, 3, 2)
	c.Init("cond", tensor(ir.Bool, []int64{3}, 1, 0, 1))
	c.Node("Compress", "c", []string{"X", "cond"}, []string{"Y"}, onnxgen.IntAttr("axis", 0))
	c.Output("Y", ir.F32, 2, 2)
	out := runModel(t, c.Proto(), map[string]*ir.Tensor{"X": tensor(ir.F32, []int64{3, 2}, 1, 2, 3, 4, 5, 6)})
	require.Equal(t, []float64{1, 2, 5, 6}, out[0].F)
}
