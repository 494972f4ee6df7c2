package onnx_test

// This file tests Slice with starts and ends computed at run time (bounded values): ONNX
// counts a negative start or end from the end of the axis and clamps both to the extent, which
// the imported graph must do at run time too, against the same model with the values known at
// import (the reference path).

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/frontend/onnx"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
)

// sliceRuntimeModel: Y = X[clip(S, -12, 12) : clip(E, -12, 12)] over X [10], or
// X[clip(S, -12, 12):] (the end INT64_MAX) when toEnd.
func sliceRuntimeModel(toEnd bool) *onnxgen.Model {
	m := onnxgen.New("slicert", 13)
	m.Input("X", ir.F32, 10)
	m.Input("S", ir.I64, 1)
	m.Init("lo", tensor(ir.I64, []int64{}, -12))
	m.Init("hi", tensor(ir.I64, []int64{}, 12))
	m.G.Node = append(m.G.Node, node("Clip", []string{"S", "lo", "hi"}, []string{"SC"}))
	if toEnd {
		end := ir.NewTensor(ir.I64, []int64{1})
		end.I[0] = math.MaxInt64 // not through tensor's float64, which does not hold it
		m.Init("EC", end)
	} else {
		m.Input("E", ir.I64, 1)
		m.G.Node = append(m.G.Node, node("Clip", []string{"E", "lo", "hi"}, []string{"EC"}))
	}
	m.G.Node = append(m.G.Node, node("Slice", []string{"X", "SC", "EC"}, []string{"Y"}))
	m.Output("Y", ir.F32, "n")
	return m
}

func TestSliceRuntimeNegativeStart(t *testing.T) {
	x := tensor(ir.F32, []int64{10}, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9)
	for _, toEnd := range []bool{false, true} {
		g, err := onnx.Import(sliceRuntimeModel(toEnd).Proto(), "slicert.onnx")
		require.NoError(t, err)
		require.NoError(t, ir.Verify(g))
		for _, tc := range [][2]float64{{2, 7}, {-3, 10}, {-3, -1}, {-12, 4}, {0, 12}, {-8, -8}, {5, 2}, {-1, 3}, {12, 12}, {-10, 0}} {
			s := tensor(ir.I64, []int64{1}, tc[0])
			e := tensor(ir.I64, []int64{1}, tc[1])
			opts := []onnx.Option{onnx.WithConstInput("X", x), onnx.WithConstInput("S", s)}
			in := map[string]*ir.Tensor{"X": x, "S": s}
			if !toEnd {
				opts = append(opts, onnx.WithConstInput("E", e))
				in["E"] = e
			}
			want := runModel(t, sliceRuntimeModel(toEnd).Proto(), nil, opts...)
			got, err := eval.Run(g, in)
			require.NoError(t, err, "start %v, end %v, to the end %v", tc[0], tc[1], toEnd)
			require.Equal(t, want[0].Shape, got[0].Shape, "start %v, end %v, to the end %v", tc[0], tc[1], toEnd)
			require.Equal(t, want[0].F, got[0].F, "start %v, end %v, to the end %v", tc[0], tc[1], toEnd)
		}
	}
}

// TestNonZeroOfRuntimeSlice: NonZero over X[clip(S):clip(E)], whose extent end − start (two
// bounded dims, the start's counted negatively) is at most the end's bound (torchvision's
// RoI heads select the boxes above the threshold from such a slice of the scores).
func TestNonZeroOfRuntimeSlice(t *testing.T) {
	m := sliceRuntimeModel(false)
	m.G.Node = append(m.G.Node, node("NonZero", []string{"Y"}, []string{"NZ"}))
	m.G.Output = nil
	m.Output("NZ", ir.I64, 1, "k")
	x := tensor(ir.F32, []int64{10}, 0, 1, 0, 3, 4, 0, 6, 7, 0, 9)
	g, err := onnx.Import(m.Proto(), "nzslice.onnx")
	require.NoError(t, err)
	require.NoError(t, ir.Verify(g))
	require.Equal(t, int64(10), g.Bounded[len(g.Bounded)-1].Bound, "at most the extent")
	for _, tc := range [][2]float64{{2, 7}, {-3, 10}, {0, 12}, {5, 2}, {-12, 4}, {12, 12}} {
		s := tensor(ir.I64, []int64{1}, tc[0])
		e := tensor(ir.I64, []int64{1}, tc[1])
		want := runModel(t, m.Proto(), nil, onnx.WithConstInput("X", x), onnx.WithConstInput("S", s), onnx.WithConstInput("E", e))
		got, err := eval.Run(g, map[string]*ir.Tensor{"X": x, "S": s, "E": e})
		require.NoError(t, err, "start %v, end %v", tc[0], tc[1])
		require.Equal(t, want[0].Shape, got[0].Shape, "start %v, end %v", tc[0], tc[1])
		require.Equal(t, want[0].I, got[0].I, "start %v, end %v", tc[0], tc[1])
	}
}
