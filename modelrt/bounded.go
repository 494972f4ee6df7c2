// This file handles bounded dims: extents the entry computes from the data (NonZero's count,
// TopK's computed k), each with a bound known when the module was built. They are not
// arguments: outputs that depend on them are allocated at the bounds, the entry stores each
// value in a scalar int64 output, and Run returns the outputs cut to the computed extents.

package modelrt

import (
	"fmt"
	"maps"
	"math"
)

// AtBounds returns dims with every bounded dim at its bound: the dims to allocate the outputs
// of RunInto with.
func (s *Signature) AtBounds(dims map[string]int64) map[string]int64 {
	if len(s.Bounded) == 0 {
		return dims
	}
	out := maps.Clone(dims)
	if out == nil {
		out = map[string]int64{}
	}
	for _, b := range s.Bounded {
		out[b.Param] = b.Bound
	}
	return out
}

// trimBounded cuts the outputs, allocated at the bounds, to the extents the entry computed.
func (s *Signature) trimBounded(outs []*Tensor, dims map[string]int64) ([]*Tensor, error) {
	if len(s.Bounded) == 0 {
		return outs, nil
	}
	got := maps.Clone(dims)
	if got == nil {
		got = map[string]int64{}
	}
	for _, b := range s.Bounded {
		if b.Output < 0 || b.Output >= len(outs) || len(outs[b.Output].data) != 8 {
			return nil, fmt.Errorf("modelrt: bounded dim %s: output #%d is not a scalar int64", b.Param, b.Output)
		}
		v, err := Data[int64](outs[b.Output])
		if err != nil {
			return nil, err
		}
		if v[0] < 0 || v[0] > b.Bound {
			return nil, fmt.Errorf("modelrt: bounded dim %s = %d outside [0, %d]", b.Param, v[0], b.Bound)
		}
		got[b.Param] = v[0]
	}
	for i, o := range s.Outputs {
		shape, err := o.ShapeFor(got)
		if err != nil {
			return nil, fmt.Errorf("modelrt: output %q: %w", o.Name, err)
		}
		n, err := elements(shape)
		if err != nil || n > math.MaxInt64/8 {
			return nil, fmt.Errorf("modelrt: output %q: shape %v", o.Name, shape)
		}
		bytes := int(n) * o.DType.Size()
		if bytes > len(outs[i].data) {
			return nil, fmt.Errorf("modelrt: output %q: %d bytes for the computed shape %v, %d allocated", o.Name, bytes, shape, len(outs[i].data))
		}
		outs[i] = &Tensor{DType: outs[i].DType, Shape: shape, data: outs[i].data[:bytes]}
	}
	return outs, nil
}
