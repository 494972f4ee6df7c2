package onnx_test

// This file checks TopK's two forms (rounds of extremum searches for small k, ranks for large
// k) against a direct stable sort, with repeated values and infinities.

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
)

func TestTopKForms(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 50))
	const rows, n = 3, 40
	x := ir.NewTensor(ir.F32, []int64{rows, n})
	for i := range x.F {
		x.F[i] = float64(r.IntN(7) - 3) // many ties
	}
	x.F[5], x.F[9], x.F[n+3] = math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, k := range []int64{3, 33} { // 3: rounds; 33: ranks
		for _, largest := range []int64{1, 0} {
			m := onnxgen.TopK(rows, n, k, largest)
			out := runModel(t, m.Proto(), map[string]*ir.Tensor{"X": x})
			for row := 0; row < rows; row++ {
				idx := make([]int, n)
				for i := range idx {
					idx[i] = i
				}
				v := x.F[row*n : (row+1)*n]
				sort.SliceStable(idx, func(a, b int) bool {
					if largest != 0 {
						return v[idx[a]] > v[idx[b]]
					}
					return v[idx[a]] < v[idx[b]]
				})
				for j := int64(0); j < k; j++ {
					require.Equal(t, int64(idx[j]), out[1].I[int64(row)*k+j], "k %d largest %d row %d rank %d", k, largest, row, j)
					require.Equal(t, v[idx[j]], out[0].F[int64(row)*k+j])
				}
			}
		}
	}
}
