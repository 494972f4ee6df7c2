package onnx_test

// This file tests Reshape with a target shape computed at run time from bounded values (a
// count clipped to constants): the target's elements are the same expressions of bounded dims
// as the data's extents (boundedints.go), so the reshape is exact for every value within the
// bound. Each import is checked against the same model with the value known at import.

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/frontend/onnx"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
)

// reshapeBoundedModel: Y = X[0 : clip(S, 0, 12)] of X [12, 4], then Z = Reshape(Y, SHP) with
// SHP the concatenation of shape (initializer names, or "SC" the clipped count, "SC4" four
// times it, "T" a count clipped from another input).
func reshapeBoundedModel(shape []string, rank int) *onnxgen.Model {
	m := onnxgen.New("rb", 13)
	m.Input("X", ir.F32, 12, 4)
	m.Input("S", ir.I64, 1)
	m.Input("U", ir.I64, 1)
	m.Init("lo", tensor(ir.I64, []int64{}, 0))
	m.Init("hi", tensor(ir.I64, []int64{}, 12))
	m.Init("zero", tensor(ir.I64, []int64{1}, 0))
	m.Init("one", tensor(ir.I64, []int64{1}, 1))
	m.Init("two", tensor(ir.I64, []int64{1}, 2))
	m.Init("four", tensor(ir.I64, []int64{1}, 4))
	m.Init("m1", tensor(ir.I64, []int64{1}, -1))
	m.Node("Clip", "clip", []string{"S", "lo", "hi"}, []string{"SC"})
	m.Node("Clip", "clipu", []string{"U", "lo", "hi"}, []string{"T"})
	m.Node("Mul", "mul", []string{"SC", "four"}, []string{"SC4"})
	m.Node("Slice", "sl", []string{"X", "zero", "SC"}, []string{"Y"})
	m.Node("Concat", "cc", shape, []string{"SHP"}, onnxgen.IntAttr("axis", 0))
	m.Node("Reshape", "rs", []string{"Y", "SHP"}, []string{"Z"})
	dims := make([]any, rank)
	for i := range dims {
		dims[i] = "d" + string(rune('0'+i))
	}
	m.Output("Z", ir.F32, dims...)
	return m
}

func TestReshapeBoundedValues(t *testing.T) {
	x := ir.NewTensor(ir.F32, []int64{12, 4})
	for i := range x.F {
		x.F[i] = float64(i) - 7.5
	}
	for _, tc := range []struct {
		shape []string
		want  string // the imported output's type
	}{
		{[]string{"SC", "four"}, "f32[SC_v0, 4]"},
		{[]string{"SC", "m1"}, "f32[SC_v0, 4]"},
		{[]string{"SC4"}, "f32[4SC_v0]"},
		{[]string{"SC", "two", "two"}, "f32[SC_v0, 2, 2]"},
		{[]string{"SC", "two", "m1"}, "f32[SC_v0, 2, 2]"},
		{[]string{"m1", "one"}, "f32[4SC_v0, 1]"}, // the shape a constant: as before
	} {
		m := reshapeBoundedModel(tc.shape, len(tc.shape))
		g, err := onnx.Import(m.Proto(), "rb.onnx")
		require.NoError(t, err, "%v", tc.shape)
		require.NoError(t, ir.Verify(g))
		require.Equal(t, tc.want, g.Outputs[0].Type.String(), "%v", tc.shape)
		require.Len(t, g.Bounded, 1, "the count, one bounded dim for the slice and the shape")
		for _, s := range []float64{-3, 0, 5, 12, 20} { // none, some, the bound (12) and beyond
			sv := tensor(ir.I64, []int64{1}, s)
			u := tensor(ir.I64, []int64{1}, 3)
			got, err := eval.Run(g, map[string]*ir.Tensor{"X": x, "S": sv, "U": u})
			require.NoError(t, err, "%v, S = %g", tc.shape, s)
			if s <= 0 && slices.Contains(tc.shape, "m1") && slices.Contains(tc.shape, "SC") {
				// no element: ONNX cannot infer the -1 next to the zero (onnxruntime fails);
				// the bounded dims infer it for every count, 0 included
				require.Zero(t, got[0].Len(), "%v, S = %g", tc.shape, s)
				continue
			}
			want := runModel(t, m.Proto(), map[string]*ir.Tensor{"X": x, "U": u}, onnx.WithConstInput("S", sv))
			require.Equal(t, want[0].Shape, got[0].Shape, "%v, S = %g", tc.shape, s)
			require.Equal(t, want[0].F, got[0].F, "%v, S = %g", tc.shape, s)
		}
	}
	// a target from another value (a count clipped from U) cannot be shown to hold the data's
	// elements: an error naming the node
	_, err := onnx.Import(reshapeBoundedModel([]string{"T", "four"}, 2).Proto(), "rb.onnx")
	require.ErrorContains(t, err, `node "rs" (Reshape`)
}

// TestReshapeOfNonZeroShape: a target computed from the Shape of a bounded extent
// (Concat(Shape(NonZero(X))[1:], [-1])) is an expression of the bounded dim.
func TestReshapeOfNonZeroShape(t *testing.T) {
	m := onnxgen.New("rn", 13)
	m.Input("X", ir.F32, 12)
	m.Init("s1", tensor(ir.I64, []int64{1}, 1))
	m.Init("s2", tensor(ir.I64, []int64{1}, 2))
	m.Init("m1", tensor(ir.I64, []int64{1}, -1))
	m.Init("zero", tensor(ir.I64, []int64{1}, 0))
	m.Node("NonZero", "nz", []string{"X"}, []string{"NZ"})
	m.Node("Shape", "sh", []string{"NZ"}, []string{"SH"})
	m.Node("Slice", "sl", []string{"SH", "s1", "s2"}, []string{"N"})
	m.Node("Squeeze", "sq", []string{"NZ", "zero"}, []string{"I"})
	m.Node("Gather", "ga", []string{"X", "I"}, []string{"SEL"})
	m.Node("Concat", "cc", []string{"N", "m1"}, []string{"SHP"}, onnxgen.IntAttr("axis", 0))
	m.Node("Reshape", "rs", []string{"SEL", "SHP"}, []string{"Y"})
	m.Output("Y", ir.F32, "n", 1)
	g, err := onnx.Import(m.Proto(), "rn.onnx")
	require.NoError(t, err)
	require.NoError(t, ir.Verify(g))
	for _, mode := range []int{0, 1, 2} { // none, all (the bound), some non-zero
		x := ir.NewTensor(ir.F32, []int64{12})
		want := []float64{}
		for i := range x.F {
			if mode == 1 || mode == 2 && i%3 == 0 {
				x.F[i] = float64(i + 1)
				want = append(want, x.F[i])
			}
		}
		got, err := eval.Run(g, map[string]*ir.Tensor{"X": x})
		require.NoError(t, err)
		require.Equal(t, []int64{int64(len(want)), 1}, got[0].Shape)
		require.Equal(t, want, append([]float64{}, got[0].F...))
	}
}
