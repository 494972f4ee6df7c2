// This file compares tensors within a tolerance.

package e2e

import (
	"fmt"
	"math"

	"github.com/graphc/graphc/ir"
)

// Compare checks that got matches want elementwise: |got - want| <= atol + rtol*|want| for
// floats (NaNs must match), exact equality for integers. mask, when non-nil, selects the
// elements to compare (the required region).
func Compare(got, want *ir.Tensor, rtol, atol float64, mask func(i int) bool) error {
	if got.Elem != want.Elem || got.Len() != want.Len() {
		return fmt.Errorf("got %s%v, want %s%v", got.Elem, got.Shape, want.Elem, want.Shape)
	}
	got, want = got.Decoded(), want.Decoded() // loaded tensors may keep their bytes
	bad, first := 0, ""
	for i := 0; i < got.Len(); i++ {
		if mask != nil && !mask(i) {
			continue
		}
		ok := true
		if got.Elem.IsFloat() {
			g, w := got.F[i], want.F[i]
			switch {
			case math.IsNaN(w):
				ok = math.IsNaN(g)
			case math.IsInf(w, 0):
				ok = g == w
			default:
				ok = math.Abs(g-w) <= atol+rtol*math.Abs(w)
			}
			if !ok && first == "" {
				first = fmt.Sprintf("element %d: got %v, want %v", i, g, w)
			}
		} else if got.I[i] != want.I[i] {
			ok = false
			if first == "" {
				first = fmt.Sprintf("element %d: got %d, want %d", i, got.I[i], want.I[i])
			}
		}
		if !ok {
			bad++
		}
	}
	if bad > 0 {
		return fmt.Errorf("%d of %d elements differ; first: %s", bad, got.Len(), first)
	}
	return nil
}
