// This file generates random input tensors for tests.

package e2e

import (
	"math/rand/v2"

	"github.com/graphc/graphc/ir"
)

// RandomTensor returns a tensor of the given type and shape with values in [-1, 1) (floats) or
// [-5, 5] (integers), from a seeded generator.
func RandomTensor(r *rand.Rand, elem ir.DType, shape []int64) *ir.Tensor {
	t := ir.NewTensor(elem, shape)
	for i := range t.F {
		t.F[i] = ir.RoundFloat(elem, r.Float64()*2-1)
	}
	for i := range t.I {
		switch elem {
		case ir.Bool:
			t.I[i] = int64(r.IntN(2))
		case ir.U8, ir.U16, ir.U32, ir.U64:
			t.I[i] = int64(r.IntN(11))
		default:
			t.I[i] = int64(r.IntN(11) - 5)
		}
	}
	return t
}
