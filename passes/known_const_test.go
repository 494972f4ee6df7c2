package passes

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// maskTensor builds a constant of the given shape whose element at index x is f(x).
func maskTensor(elem ir.DType, shape []int64, f func(x []int64) float64) *ir.Tensor {
	t := ir.NewTensor(elem, shape)
	x := make([]int64, len(shape))
	for i := 0; i < t.Len(); i++ {
		v := f(x)
		if elem.IsFloat() {
			t.F[i] = v
		} else {
			t.I[i] = int64(v)
		}
		for d := len(x) - 1; d >= 0; d-- {
			if x[d]++; x[d] < shape[d] {
				break
			}
			x[d] = 0
		}
	}
	return t
}

// TestConstFacts checks the structure found in masks against the elements themselves: every
// region of a value holds exactly the indices of that value (brute force), for the patterns
// exporters write and for patterns that must be left alone.
func TestConstFacts(t *testing.T) {
	ninf := math.Inf(-1)
	cases := []struct {
		name  string
		t     *ir.Tensor
		facts int // regions expected (0: no structure found)
	}{
		{"tril_ones_4d", maskTensor(ir.F32, []int64{1, 1, 6, 6}, func(x []int64) float64 { return b2f(x[3] <= x[2]) }), 2},
		{"causal_bool", maskTensor(ir.Bool, []int64{5, 7}, func(x []int64) float64 { return b2f(x[1] > x[0]) }), 2},
		{"triu_neginf_offset", maskTensor(ir.F32, []int64{6, 9}, func(x []int64) float64 {
			if x[1]-x[0] >= 3 {
				return ninf
			}
			return 0
		}), 2},
		{"band", maskTensor(ir.F32, []int64{7, 7}, func(x []int64) float64 { return b2f(x[1]-x[0] <= 1 && x[0]-x[1] <= 2) }), 2},
		{"box_rows", maskTensor(ir.Bool, []int64{4, 5}, func(x []int64) float64 { return b2f(x[0] >= 2) }), 2},
		{"checkerboard", maskTensor(ir.F32, []int64{5, 6}, func(x []int64) float64 { return b2f((x[0]+x[1])%2 == 0) }), 2},
		{"stripes_mod3", maskTensor(ir.Bool, []int64{4, 9}, func(x []int64) float64 { return b2f(x[1]%3 == 1) }), 2},
		{"three_values", maskTensor(ir.F32, []int64{6, 6}, func(x []int64) float64 {
			switch {
			case x[1] > x[0]:
				return ninf
			case x[1] == x[0]:
				return 1
			}
			return 0
		}), 3},
		{"single_value", maskTensor(ir.F32, []int64{3, 4}, func([]int64) float64 { return ninf }), 1},
		{"blocks_fall_back", maskTensor(ir.Bool, []int64{6, 6}, func(x []int64) float64 { return b2f(x[0]/3 == x[1]/3) }), 0},
		{"weights", maskTensor(ir.F32, []int64{4, 4}, func(x []int64) float64 { return float64(x[0]*4 + x[1]) }), 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			facts, reason := constFacts(c.t, nil)
			require.Empty(t, reason)
			require.Len(t, facts, c.facts)
			for _, f := range facts {
				// every element of the tensor: in the region exactly when it has the value
				x := make([]int64, len(c.t.Shape))
				for i := 0; i < c.t.Len(); i++ {
					var has bool
					if c.t.Elem.IsFloat() {
						has = math.Float64bits(c.t.F[i]) == math.Float64bits(f.Value.F)
					} else {
						has = c.t.I[i] == f.Value.I
					}
					require.Equal(t, volume.TriOf(has), f.Region.Contains("", x, nil), "element %v, region %s", x, f.Region)
					for d := len(x) - 1; d >= 0; d-- {
						if x[d]++; x[d] < c.t.Shape[d] {
							break
						}
						x[d] = 0
					}
				}
			}
		})
	}
}

// TestConstFactsParametric keeps the symbolic dims of the graph in the regions (they are
// slices of the constant's space, which has none of them).
func TestConstFactsParametric(t *testing.T) {
	m := maskTensor(ir.Bool, []int64{4, 4}, func(x []int64) float64 { return b2f(x[1] > x[0]) })
	facts, _ := constFacts(m, []string{"T"})
	require.Len(t, facts, 2)
	want := volume.MustParseSet("[T] -> { [i, j] : 0 <= i < j < 4 }")
	var found bool
	for _, f := range facts {
		if f.Value.I == 1 {
			found = true
			require.True(t, f.Region.IsEqual(want) == volume.Yes, "%s", f.Region)
		}
	}
	require.True(t, found)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// TestConstFactsTooLarge: a constant beyond the analysis limit is data, and the pass says so.
func TestConstFactsTooLarge(t *testing.T) {
	defer func(n int64) { ir.MaxConstRegionElems = n }(ir.MaxConstRegionElems)
	ir.MaxConstRegionElems = 15
	m := maskTensor(ir.Bool, []int64{4, 4}, func(x []int64) float64 { return b2f(x[1] > x[0]) })
	facts, reason := constFacts(m, nil)
	require.Empty(t, facts)
	require.Contains(t, reason, "16 elements, more than the 15 analysed")
	g, err := ir.Parse(`graph @g(%x: f32[4, 4]) {
  %m = constant dense<[0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0]> : i1[4, 4]
  %c = constant dense<[0.0]> : f32[]
  %y = where(%m, %c, %x) : f32[4, 4]
  return %y
}`)
	require.NoError(t, err)
	st := &State{Opts: &Options{}, Stats: map[string]*Stats{}}
	require.NoError(t, runKnownValues(t.Context(), g, st))
	require.Len(t, st.Diags, 1)
	require.Contains(t, st.Diags[0].String(), "constant not analysed for known values: 16 elements")
}

// TestConstFactsTooLargeWeights: a constant beyond the analysis limit with many distinct values
// (a weight tensor, which the analysis would not describe either) is skipped without a warning.
func TestConstFactsTooLargeWeights(t *testing.T) {
	defer func(n int64) { ir.MaxConstRegionElems = n }(ir.MaxConstRegionElems)
	ir.MaxConstRegionElems = 15
	w := maskTensor(ir.F32, []int64{4, 4}, func(x []int64) float64 { return float64(x[0]*4 + x[1]) })
	facts, reason := constFacts(w, nil)
	require.Empty(t, facts)
	require.Empty(t, reason)
}
