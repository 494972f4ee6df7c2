package onnx_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/frontend/onnx"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
)

// TestGroupNormAsPyTorchExportsIt: Reshape to [N, G, -1], InstanceNormalization, Reshape back
// (nn.GroupNorm before opset 18) computes what GroupNormalization computes, for one group,
// several, and two spatial dims; the import normalises X in its own shape (one generic op
// whose statistics are read at the channel's group), not through the flat view.
func TestGroupNormAsPyTorchExportsIt(t *testing.T) {
	for _, tc := range []struct {
		shape []int64
		g     int64
	}{{[]int64{2, 6, 5}, 3}, {[]int64{1, 4, 7}, 1}, {[]int64{2, 8, 2, 3}, 4}} {
		t.Run(fmt.Sprint(tc.shape, tc.g), func(t *testing.T) {
			exported := onnxgen.New("gn_export", 17)
			exported.Input("X", ir.F32, anyDims(tc.shape)...)
			exported.Input("S", ir.F32, tc.g)
			exported.Input("B", ir.F32, tc.g)
			exported.Init("flat", tensor(ir.I64, []int64{3}, float64(tc.shape[0]), float64(tc.g), -1))
			back := make([]float64, len(tc.shape))
			for i, d := range tc.shape {
				back[i] = float64(d)
			}
			exported.Init("back", tensor(ir.I64, []int64{int64(len(tc.shape))}, back...))
			exported.Node("Reshape", "r1", []string{"X", "flat"}, []string{"F"})
			exported.Node("InstanceNormalization", "in", []string{"F", "S", "B"}, []string{"N"}, onnxgen.FloatAttr("epsilon", 1e-5))
			exported.Node("Reshape", "r2", []string{"N", "back"}, []string{"Y"})
			exported.Output("Y", ir.F32, anyDims(tc.shape)...)

			native := onnxgen.New("gn", 18)
			native.Input("X", ir.F32, anyDims(tc.shape)...)
			native.Input("S", ir.F32, tc.g)
			native.Input("B", ir.F32, tc.g)
			native.Node("GroupNormalization", "gn", []string{"X", "S", "B"}, []string{"Y"}, onnxgen.IntAttr("num_groups", tc.g))
			native.Output("Y", ir.F32, anyDims(tc.shape)...)

			n := int64(1)
			for _, d := range tc.shape {
				n *= d
			}
			x := tensor(ir.F32, tc.shape)
			for i := range x.F {
				x.F[i] = float64((i*i*7)%23)/4 - 2.5
			}
			s, b := tensor(ir.F32, []int64{tc.g}), tensor(ir.F32, []int64{tc.g})
			for i := range s.F {
				s.F[i], b.F[i] = 1.5-float64(i), float64(i)/2-0.25
			}
			in := map[string]*ir.Tensor{"X": x, "S": s, "B": b}
			want := runModel(t, native.Proto(), in)
			got := runModel(t, exported.Proto(), in)
			require.Len(t, got[0].F, int(n))
			require.InDeltaSlice(t, want[0].F, got[0].F, 1e-5)
			data, err := exported.Bytes()
			require.NoError(t, err)
			g, err := onnx.Read(bytes.NewReader(data), "gn_export.onnx")
			require.NoError(t, err)
			var kinds []string
			for _, op := range g.Ops {
				kinds = append(kinds, op.Kind+":"+op.Result.Name)
			}
			require.Contains(t, fmt.Sprint(kinds), "_groupnorm", "normalised in X's shape")
			require.NotContains(t, fmt.Sprint(kinds), "batch_norm", "not through the flat view")
		})
	}
}

func anyDims(shape []int64) []any {
	out := make([]any, len(shape))
	for i, d := range shape {
		out[i] = d
	}
	return out
}
