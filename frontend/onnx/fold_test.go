package onnx_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/frontend/onnx"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
)

// TestFoldGenerators: a small ConstantOfShape folds into a constant that later shape
// computations can read; a large one stays a fill instead of being embedded.
func TestFoldGenerators(t *testing.T) {
	for _, tc := range []struct {
		shape  []int64
		folded bool
	}{{[]int64{2, 3}, true}, {[]int64{64, 64}, false}} {
		m := onnxgen.New("c", 13)
		m.Init("s", i64(tc.shape...))
		m.Node("ConstantOfShape", "c", []string{"s"}, []string{"Y"})
		dims := make([]any, len(tc.shape))
		for i, d := range tc.shape {
			dims[i] = d
		}
		m.Output("Y", ir.F32, dims...)
		g, err := onnx.Import(m.Proto(), "c.onnx")
		require.NoError(t, err)
		require.NoError(t, ir.Verify(g))
		require.Equal(t, tc.folded, g.Outputs[0].IsConst(), "%s", g)
		require.Equal(t, ir.StaticType(ir.F32, tc.shape...).String(), g.Outputs[0].Type.String())
	}
}

// TestResizeOpset10 follows onnxruntime's opset-10 rounding: asymmetric coordinates,
// truncation when upsampling, ceiling when downsampling.
func TestResizeOpset10(t *testing.T) {
	for _, tc := range []struct {
		scale float32
		in    []float64
		want  []float64
	}{
		{2, []float64{1, 2, 3}, []float64{1, 1, 2, 2, 3, 3}},
		{0.6, []float64{0, 1, 2, 3, 4}, []float64{0, 2, 4}}, // x/0.6 = 0, 1.67, 3.33
	} {
		m := onnxgen.New("r", 10)
		n := len(tc.in)
		m.Input("X", ir.F32, 1, n)
		sc := ir.NewTensor(ir.F32, []int64{2})
		sc.F[0], sc.F[1] = 1, float64(tc.scale)
		m.Init("scales", sc)
		m.Node("Resize", "r", []string{"X", "scales"}, []string{"Y"})
		m.Output("Y", ir.F32, 1, len(tc.want))
		g, err := onnx.Import(m.Proto(), "r.onnx")
		require.NoError(t, err)
		x := ir.NewTensor(ir.F32, []int64{1, int64(n)})
		copy(x.F, tc.in)
		require.Equal(t, tc.want, run(t, g, x).F)
	}
}
