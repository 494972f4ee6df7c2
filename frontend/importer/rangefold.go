// This file holds Range folded at import, shared by ONNX's and TensorFlow's Range: the
// constant start, start + delta, … before limit.

package importer

import (
	"fmt"
	"math"
	"math/big"

	"github.com/graphc/graphc/ir"
)

// RangeTensor returns start, start + delta, … up to limit (excluded) as a 1-D constant of
// start's element type, from three one-element constants; invalid is the format's ErrInvalid.
// A float range has max(ceil((limit - start) / delta), 0) elements, each rounded to the type;
// an integer range is counted exactly (whatever the magnitudes) and its elements wrap in the
// type, as the formats' integer arithmetic does. A zero delta, or more than MaxFoldElements
// elements (a constant is built in memory), is an error.
func RangeTensor(start, limit, delta *ir.Tensor, invalid error) (*ir.Tensor, error) {
	for i, t := range []*ir.Tensor{start, limit, delta} {
		if t.Len() != 1 {
			return nil, fmt.Errorf("%w: %s must be a scalar, got %d elements", invalid, [...]string{"start", "limit", "delta"}[i], t.Len())
		}
	}
	elem := start.Elem
	var n int64
	if elem.IsFloat() {
		s, l, d := start.Float(0), limit.Float(0), delta.Float(0)
		if d == 0 {
			return nil, fmt.Errorf("%w: delta is 0", invalid)
		}
		f := math.Ceil((l - s) / d)
		if !(f <= MaxFoldElements) { // NaN too
			return nil, rangeTooLong(invalid, start, limit, delta)
		}
		n = int64(max(f, 0))
		out := ir.NewTensor(elem, []int64{n})
		for i := range n {
			out.F[i] = ir.RoundFloat(elem, s+float64(i)*d)
		}
		return out, nil
	}
	s, l, d := start.Int(0), limit.Int(0), delta.Int(0)
	if d == 0 {
		return nil, fmt.Errorf("%w: delta is 0", invalid)
	}
	// ceil((l - s) / d) in big integers: l - s overflows int64 for extreme bounds
	num := new(big.Int).Sub(big.NewInt(l), big.NewInt(s))
	q, r := new(big.Int).QuoRem(num, big.NewInt(d), new(big.Int))
	if r.Sign() != 0 && (num.Sign() > 0) == (d > 0) {
		q.Add(q, big.NewInt(1)) // truncation went towards 0, below the positive quotient
	}
	if q.Cmp(big.NewInt(MaxFoldElements)) > 0 {
		return nil, rangeTooLong(invalid, start, limit, delta)
	}
	n = max(q.Int64(), 0)
	out := ir.NewTensor(elem, []int64{n})
	for i := range n {
		out.I[i] = elem.WrapInt(s + i*d)
	}
	return out, nil
}

func rangeTooLong(invalid error, start, limit, delta *ir.Tensor) error {
	return fmt.Errorf("%w: range(%v, %v, %v) has more than %d elements, the most a constant folded at import may have",
		invalid, start.Float(0), limit.Float(0), delta.Float(0), MaxFoldElements)
}
