// This file declares nonzero_positions, an algorithm op (ops_algo.go): the positions of the
// non-zero elements of a 1-D tensor in order, -1 past their count. It is the stream compaction
// under NonZero, Compress, NonMaxSuppression's kept boxes and Unique's run starts over long
// inputs: one pass of L elements when compiled, where the same selection in generic ops (a
// running sum by doubling and a binary search of it for every selected rank) took L·log L +
// n·log L steps (RetinaNet's NonZero over 100·100·9·91 scores: 23 passes of 8 M elements).

package ir

func init() {
	register(&OpDef{
		Name: "nonzero_positions",
		Summary: "p[k] = the position of the k-th non-zero element of the 1-D x (row order), -1 for k at or past their count " +
			"(an algorithm: one pass when compiled)",
		Example:     "%p = nonzero_positions(%m) : i64[6]",
		MinOperands: 1, MaxOperands: 1,
		Build:     buildNonzeroPositions,
		Algorithm: &Algorithm{Eval: evalNonzeroPositions},
	})
}

func buildNonzeroPositions(b *Builder) error {
	x := b.In(0)
	if x.Rank() != 1 {
		return b.Errorf("operand %s must be 1-D", x)
	}
	// p[k] may read any element of x (the k-th non-zero is anywhere at or after k)
	return setAlgorithmForm(b, TensorType{Elem: I64, Shape: x.Shape}, [][]int{{-1}})
}

func evalNonzeroPositions(op *Op, ins []*Tensor, shape []int64) (*Tensor, error) {
	x := ins[0]
	if err := algoShape(op, shape, x.Shape...); err != nil {
		return nil, err
	}
	res := NewTensor(I64, shape)
	k := 0
	for i := range x.Len() {
		if x.Float(i) != 0 { // NaN is non-zero, as NonZero counts it
			res.I[k] = int64(i)
			k++
		}
	}
	for ; k < len(res.I); k++ {
		res.I[k] = -1
	}
	return res, nil
}
