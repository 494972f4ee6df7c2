// This file gives the bounded dims (ir.BoundedDim) their values: each takes the value of its
// scalar output as soon as that is computed, checked against its bound.

package eval

import (
	"fmt"

	"github.com/graphc/graphc/ir"
)

// defineBounded sets params of the bounded dims whose values are computed and not yet set.
func defineBounded(g *ir.Graph, vals map[*ir.Value]*ir.Tensor, params map[string]int64) error {
	for _, b := range g.Bounded {
		if _, ok := params[b.Param]; ok {
			continue
		}
		t := vals[g.BoundedValue(b)]
		if t == nil {
			continue
		}
		if t.Len() != 1 {
			return fmt.Errorf("bounded dim %s: its value has %d elements", b.Param, t.Len())
		}
		n := t.Int(0)
		if err := ir.CheckBoundedValue(b, n); err != nil {
			return err
		}
		params[b.Param] = n
	}
	return nil
}

// usesBounded reports whether op's requirements mention a bounded dim.
func usesBounded(g *ir.Graph, op *ir.Op) bool {
	for _, c := range op.Requires {
		if g.UsesBounded(c.Aff) {
			return true
		}
	}
	return false
}
