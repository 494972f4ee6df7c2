// This file declares sort_rank, the position of each element along an axis in the sorted order
// (ties by index): a reduction that counts, for element i, the elements j that come before it.
// TopK is sort_rank followed by scatters of the elements and their indices to their ranks.

package ir

import "github.com/graphc/graphc/volume"

func init() {
	register(&OpDef{
		Name: "sort_rank",
		Summary: "rank[.., i, ..] = number of j along axis with x[j] before x[i] in the order (descending or ascending; " +
			"equal elements by index); both operands are the same tensor, read at i and at j",
		Example:     "%r = sort_rank(%x, %x) {axis = 1, descending = 1} : i64[2, 5]",
		MinOperands: 2, MaxOperands: 2,
		Attrs: []AttrDef{
			{Name: "axis", Kind: AttrInt, Default: dflt(IntAttr(-1)), Doc: "the sorted axis"},
			{Name: "descending", Kind: AttrInt, Default: dflt(IntAttr(1)), Doc: "1 ranks the largest first, 0 the smallest"},
		},
		Build: buildSortRank,
	})
}

// buildSortRank: iteration [x.., j] with j the compared position along axis (a reduction).
func buildSortRank(b *Builder) error {
	x := b.In(0)
	if !b.In(1).Equal(x) {
		return b.Errorf("operands %s and %s must be the same tensor", x, b.In(1))
	}
	r := x.Rank()
	if r == 0 {
		return b.Errorf("operand must have rank >= 1")
	}
	axis, err := normAxis(b.Op.Attrs.Int("axis", -1), r)
	if err != nil {
		return b.Errorf("%v", err)
	}
	ext := append(append([]volume.Aff(nil), x.Shape...), x.Shape[axis])
	iters := make([]IterKind, r+1)
	iters[r] = Reduction
	b.SetBox(dimNames(r+1), ext, iters)
	other := identity(0, r)
	other[axis] = volume.AffDim(r)
	b.Op.Access = []Access{AffAccess(identity(0, r)...), AffAccess(other...)}
	b.Op.Out = AffAccess(identity(0, r)...)
	xi, xj := Read(0, x.Elem), Read(1, x.Elem)
	first := SGt
	if b.Op.Attrs.Int("descending", 1) == 0 {
		first = SLt
	}
	before := Bin(SOr, Bin(first, xj, xi), Bin(SAnd, Bin(SEq, xj, xi), Bin(SLt, Index(r), Index(axis))))
	b.Op.Body = Select(before, ConstI(I64, 1), ConstI(I64, 0))
	b.Op.Reduce = ReduceSum
	b.Result = TensorType{Elem: I64, Shape: x.Shape}
	return nil
}
