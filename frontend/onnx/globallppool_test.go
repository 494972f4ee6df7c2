package onnx_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
)

// TestGlobalLpPool: (Σ |x|^p)^(1/p) over the spatial positions of each channel, for p = 1, 2, 3.
func TestGlobalLpPool(t *testing.T) {
	vals := []float64{1, -2, 3, 0.5, -4, 2, 1, 1, 0, 2, 0.25, -3}
	x := tensor(ir.F32, []int64{1, 2, 2, 3}, vals...)
	for _, p := range []int64{1, 2, 3} {
		m := onnxgen.New("m", 18)
		m.Input("X", ir.F32, 1, 2, 2, 3)
		m.Node("GlobalLpPool", "g", []string{"X"}, []string{"Y"}, onnxgen.IntAttr("p", p))
		m.Output("Y", ir.F32, 1, 2, 1, 1)
		out := runModel(t, m.Proto(), map[string]*ir.Tensor{"X": x})
		require.Equal(t, []int64{1, 2, 1, 1}, out[0].Shape)
		for c := 0; c < 2; c++ {
			s := 0.0
			for _, v := range vals[6*c : 6*c+6] {
				s += math.Pow(math.Abs(v), float64(p))
			}
			require.InDelta(t, math.Pow(s, 1/float64(p)), out[0].F[c], 1e-5, "p=%d channel %d", p, c)
		}
	}
}
