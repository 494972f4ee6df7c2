// This file handles the outputs of graphs with bounded dims (ir.BoundedDim): they are allocated
// at the bounds, and the computed extents come back in the dims' scalar outputs.

package e2e

import (
	"fmt"
	"maps"

	"github.com/graphc/graphc/ir"
)

// AtBounds returns params with every bounded dim of g at its bound (a caller's params win):
// the shapes to allocate the outputs with.
func AtBounds(g *ir.Graph, params map[string]int64) map[string]int64 {
	if len(g.Bounded) == 0 {
		return params
	}
	out := maps.Clone(params)
	if out == nil {
		out = map[string]int64{}
	}
	for _, b := range g.Bounded {
		if _, ok := out[b.Param]; !ok {
			out[b.Param] = b.Bound
		}
	}
	return out
}

// TrimBounded cuts the outputs read at the bounds to the extents the entry computed: each
// output's first elements, with its shape for the values in the bounded dims' outputs.
func TrimBounded(g *ir.Graph, params map[string]int64, outs []*ir.Tensor) ([]*ir.Tensor, error) {
	if len(g.Bounded) == 0 {
		return outs, nil
	}
	ps := maps.Clone(params)
	if ps == nil {
		ps = map[string]int64{}
	}
	for _, b := range g.Bounded {
		t := outs[b.Output]
		if t == nil || t.Len() != 1 {
			return nil, fmt.Errorf("bounded dim %s: no value", b.Param)
		}
		ps[b.Param] = t.Int(0)
	}
	res := make([]*ir.Tensor, len(outs))
	for i, o := range g.Outputs {
		s, err := o.Type.EvalShape(ps)
		if err != nil {
			return nil, fmt.Errorf("output %%%s: %w", o.Name, err)
		}
		n := ir.NumElements(s)
		if n > int64(outs[i].Len()) {
			return nil, fmt.Errorf("output %%%s: %d elements for the computed shape %v, %d allocated", o.Name, n, s, outs[i].Len())
		}
		raw := outs[i].Bytes()
		t, err := ir.TensorFromBytes(o.Type.Elem, s, raw[:n*int64(o.Type.Elem.Size())])
		if err != nil {
			return nil, err
		}
		res[i] = t
	}
	return res, nil
}
