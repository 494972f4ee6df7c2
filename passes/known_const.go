// This file turns ir.ConstRegions, the exact descriptions of where a constant mask holds each
// of its values, into the known regions known-values propagates.

package passes

import (
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
	"github.com/graphc/graphc/volume"
)

// KnownRegion says that the elements of a value in Region (a set over its index space, whose
// dims are unnamed) equal Value.
type KnownRegion struct {
	Region volume.Set
	Value  eval.Partial
}

// constFacts returns the known regions of constant t (see ir.ConstRegions); the reason is
// non-empty when t was too large to analyse.
func constFacts(t *ir.Tensor, params []string) ([]KnownRegion, string) {
	rs, reason := ir.ConstRegions(t, params)
	var out []KnownRegion
	for _, r := range rs {
		v := eval.KnownF(r.F)
		if !t.Elem.IsFloat() {
			v = eval.KnownI(r.I)
		}
		out = append(out, KnownRegion{Region: r.Region, Value: v})
	}
	return out, reason
}
