// This file declares argsort, an algorithm op (ops_algo.go): the permutation that sorts each
// row (the last axis) by decreasing (or increasing) value, equal values by index. The order
// is total: NaN comes before every number when descending (after, ascending), NaNs by index.
// It is the O(L·log L) ranking of TopK over long rows and of NonMaxSuppression's candidates,
// where sort_rank compares every pair.

package ir

import (
	"math"
	"slices"
)

func init() {
	register(&OpDef{
		Name: "argsort",
		Summary: "p[.., k] = the index of the k-th element of the row x[.., :] in decreasing (or increasing) order, " +
			"equal elements by index, NaN first when decreasing (an algorithm: a heap sort when compiled)",
		Example:     "%p = argsort(%x) {descending = 1} : i64[2, 5]",
		MinOperands: 1, MaxOperands: 1,
		Attrs: []AttrDef{
			{Name: "descending", Kind: AttrInt, Default: dflt(IntAttr(1)), Doc: "1 puts the largest first, 0 the smallest"},
		},
		Build:     buildArgsort,
		Algorithm: &Algorithm{Eval: evalArgsort},
	})
}

func buildArgsort(b *Builder) error {
	x := b.In(0)
	r := x.Rank()
	if r == 0 || !x.Elem.IsFloat() && x.Elem.IsUnsigned() {
		return b.Errorf("operand %s must be a signed or float tensor of rank >= 1", x)
	}
	keep := make([]int, r)
	for a := range keep {
		keep[a] = a
	}
	keep[r-1] = -1 // every element of the row
	return setAlgorithmForm(b, TensorType{Elem: I64, Shape: x.Shape}, [][]int{keep})
}

// SortsBefore reports whether value a at index i comes before value b at index j in
// argsort's order (descending or not).
func SortsBefore(a, b float64, i, j int64, descending bool) bool {
	na, nb := math.IsNaN(a), math.IsNaN(b)
	switch {
	case na && nb:
		return i < j
	case na || nb:
		return na == descending
	case a == b:
		return i < j
	case descending:
		return a > b
	}
	return a < b
}

func evalArgsort(op *Op, ins []*Tensor, shape []int64) (*Tensor, error) {
	x := ins[0]
	if err := algoShape(op, shape, x.Shape...); err != nil {
		return nil, err
	}
	res := NewTensor(I64, shape)
	n := shape[len(shape)-1]
	desc := op.Attrs.Int("descending", 1) != 0
	row := make([]int64, n)
	for base := int64(0); base < int64(len(res.I)); base += n {
		for i := range row {
			row[i] = int64(i)
		}
		slices.SortFunc(row, func(i, j int64) int {
			if SortsBefore(x.Float(int(base+i)), x.Float(int(base+j)), i, j, desc) {
				return -1
			}
			if i == j {
				return 0
			}
			return 1
		})
		copy(res.I[base:base+n], row)
	}
	return res, nil
}
