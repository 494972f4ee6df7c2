package ir_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
)

// TestSliceConstantBoundsRequireFit slices a symbolic extent N with constant bounds. ONNX would
// clamp them, which a quasi-affine extent cannot express, so the op requires the elements it
// reads to lie inside the axis (as a symbolic end does): where N is too small the evaluator
// refuses with the requirement instead of reading past the operand, and where it is large
// enough the slice reads exactly the hand-computed elements.
func TestSliceConstantBoundsRequireFit(t *testing.T) {
	for _, tc := range []struct {
		name, slice, typ string
		requires         []string
		small, fits      int64
		want             func(n int64) []float64 // the result on x = 0, 1, …, n-1
	}{
		{"constant_end", `{axes = [0], ends = [8], starts = [0], steps = [1]}`, "f32[8]",
			[]string{"N - 8 >= 0"}, 4, 10, func(int64) []float64 { return []float64{0, 1, 2, 3, 4, 5, 6, 7} }},
		{"start_from_the_end", `{axes = [0], ends = [9223372036854775807], starts = [-3], steps = [1]}`, "f32[3]",
			[]string{"N - 3 >= 0"}, 2, 5, func(n int64) []float64 { return []float64{float64(n - 3), float64(n - 2), float64(n - 1)} }},
		{"reverse_from_a_constant", `{axes = [0], ends = [-9223372036854775807], starts = [5], steps = [-2]}`, "f32[3]",
			[]string{"N - 6 >= 0"}, 5, 7, func(int64) []float64 { return []float64{5, 3, 1} }},
		{"reverse_to_the_end", `{axes = [0], ends = [-5], starts = [9223372036854775807], steps = [-1]}`, "f32[4]",
			[]string{"N - 4 >= 0"}, 3, 6, func(n int64) []float64 {
				return []float64{float64(n - 1), float64(n - 2), float64(n - 3), float64(n - 4)}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := ir.Parse(`graph @g[N](%x: f32[N]) {
  %y = slice(%x) ` + tc.slice + ` : ` + tc.typ + `
  return %y
}`)
			require.NoError(t, err)
			var got []string
			for _, c := range g.Ops[0].Requires {
				got = append(got, ir.RequirementString(c))
			}
			require.Equal(t, tc.requires, got)
			input := func(n int64) map[string]*ir.Tensor {
				x := ir.NewTensor(ir.F32, []int64{n})
				for i := range x.F {
					x.F[i] = float64(i)
				}
				return map[string]*ir.Tensor{"x": x}
			}
			_, err = eval.Run(g, input(tc.small))
			require.ErrorContains(t, err, "violate the requirement "+tc.requires[0])
			out, err := eval.Run(g, input(tc.fits))
			require.NoError(t, err)
			require.Equal(t, tc.want(tc.fits), out[0].F)
		})
	}
}
