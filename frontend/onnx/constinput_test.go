package onnx_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/frontend/onnx"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
)

// reshapeByInput is a Reshape whose target shape is a graph input.
func reshapeByInput() *onnxgen.Model {
	m := onnxgen.New("r", 13)
	m.Input("X", ir.F32, 2, 6)
	m.Input("shape", ir.I64, 2)
	m.Node("Reshape", "r", []string{"X", "shape"}, []string{"Y"})
	m.Output("Y", ir.F32, 3, 4)
	return m
}

func TestNeedConstError(t *testing.T) {
	_, err := onnx.Import(reshapeByInput().Proto(), "r.onnx")
	require.EqualError(t, err, `r.onnx: node "r" (Reshape, opset 13): unsupported: input "shape" (shape) must be known at compile time `+
		`(an initializer, a Constant, or computed from shapes); it is a graph input: bind its value at compile time`)
	require.ErrorIs(t, err, onnx.ErrUnsupported)
	var nc *onnx.NeedConstError
	require.True(t, errors.As(err, &nc))
	require.Equal(t, "shape", nc.Input)
	require.True(t, nc.GraphInput)
}

func TestNeedConstComputed(t *testing.T) {
	// the pads of a Pad computed from data at run time
	m := onnxgen.New("p", 13)
	m.Input("X", ir.F32, 2)
	m.Input("P", ir.I64, 2)
	m.Node("Relu", "relu", []string{"P"}, []string{"Q"})
	m.Node("Pad", "pad", []string{"X", "Q"}, []string{"Y"})
	m.Output("Y", ir.F32, 4)
	_, err := onnx.Import(m.Proto(), "p.onnx")
	require.EqualError(t, err, `p.onnx: node "pad" (Pad, opset 13): unsupported: input "Q" (pads) must be known at compile time `+
		`(an initializer, a Constant, or computed from shapes); it is computed from the graph inputs ["P"]: bind them at compile time`)
	var nc *onnx.NeedConstError
	require.True(t, errors.As(err, &nc))
	require.Equal(t, []string{"P"}, nc.Inputs())
	// binding the input it depends on makes the pads fold at import
	g, err := onnx.Import(m.Proto(), "p.onnx", onnx.WithConstInput("P", i64(-1, 2)))
	require.NoError(t, err)
	x := ir.NewTensor(ir.F32, []int64{2})
	x.F[0], x.F[1] = 3, 4
	require.Equal(t, []float64{3, 4, 0, 0}, run(t, g, x).F)
}

func TestWithConstInput(t *testing.T) {
	g, err := onnx.Import(reshapeByInput().Proto(), "r.onnx", onnx.WithConstInput("shape", i64(3, -1)))
	require.NoError(t, err)
	require.Len(t, g.Inputs, 1, "the bound input is no longer an argument")
	require.Equal(t, "f32[3, 4]", g.Outputs[0].Type.String())
	x := ir.NewTensor(ir.F32, []int64{2, 6})
	for i := range x.F {
		x.F[i] = float64(i)
	}
	require.Equal(t, x.F, run(t, g, x).F)
}

// TestImportErrors checks the messages of malformed or unsupported shape operands.
func TestImportErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		build func(m *onnxgen.Model)
		err   string
	}{
		{"reshape two -1", func(m *onnxgen.Model) {
			m.Init("s", i64(-1, -1))
			m.Node("Reshape", "n", []string{"X", "s"}, []string{"Y"})
		}, `t.onnx: node "n" (Reshape, opset 13): invalid model: more than one -1 in the shape [-1, -1]`},
		{"reshape size", func(m *onnxgen.Model) {
			m.Init("s", i64(5, -1))
			m.Node("Reshape", "n", []string{"X", "s"}, []string{"Y"})
		}, `t.onnx: node "n" (Reshape, opset 13): invalid model: 12 elements do not reshape into multiples of 5`},
		{"squeeze non-unit", func(m *onnxgen.Model) {
			m.Init("a", i64(0))
			m.Node("Squeeze", "n", []string{"X", "a"}, []string{"Y"})
		}, `t.onnx: node "n" (Squeeze, opset 13): invalid model: cannot squeeze axis 0 of extent 3`},
		{"split sizes", func(m *onnxgen.Model) {
			m.Init("s", i64(1, 1))
			m.Node("Split", "n", []string{"X", "s"}, []string{"Y", "Z"})
		}, `t.onnx: node "n" (Split, opset 13): invalid model: split sizes [1 1] sum to 2, the extent is 3`},
		{"concat axis", func(m *onnxgen.Model) {
			m.Node("Concat", "n", []string{"X", "X"}, []string{"Y"})
		}, `t.onnx: node "n" (Concat, opset 13): invalid model: Concat needs the axis attribute`},
		{"reflect too wide", func(m *onnxgen.Model) {
			m.Init("p", i64(0, 4, 0, 0))
			m.Node("Pad", "n", []string{"X", "p"}, []string{"Y"}, onnxgen.StringAttr("mode", "reflect"))
		}, `t.onnx: node "n" (Pad, opset 13): pad: reflect pads 4 and 0 of dimension 1 must be smaller than its extent 4`},
		{"axis range", func(m *onnxgen.Model) {
			m.Node("Transpose", "n", []string{"X"}, []string{"Y"}, onnxgen.IntsAttr("perm", 0, 0))
		}, `t.onnx: node "n" (Transpose, opset 13): transpose: perm [0 0] is not a permutation of 0..1`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := onnxgen.New("t", 13)
			m.Input("X", ir.F32, 3, 4)
			tc.build(m)
			m.Output("Y", ir.F32, 3, 4)
			_, err := onnx.Import(m.Proto(), "t.onnx")
			require.EqualError(t, err, tc.err)
		})
	}
}
