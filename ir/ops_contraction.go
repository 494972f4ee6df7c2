// This file declares the contraction ops: matmul with numpy batch broadcasting.

package ir

import "github.com/graphc/graphc/volume"

func init() {
	register(&OpDef{
		Name:        "matmul",
		Summary:     "matrix product with numpy semantics: batch broadcasting, 1-D operands promoted",
		Example:     "%c = matmul(%a, %b) : f32[512, 512]",
		MinOperands: 2, MaxOperands: 2,
		Build: buildMatmul,
	})
}

// buildMatmul: C[batch..., i, j] += A[batch..., i, k] * B[batch..., k, j].
func buildMatmul(b *Builder) error {
	if a, bt := b.In(0), b.In(1); a.Elem != bt.Elem {
		return b.Errorf("element types differ: %s and %s", a.Elem, bt.Elem)
	}
	_, err := matmulForm(b)
	return err
}

// matmulForm fills in the generic form of a matmul of operands 0 and 1 (accesses of those two
// only, body A·B in their type) and returns the number of batch dims nb: the iteration dims
// are batch..., i, j, k with i = nb, j = nb+1, k = nb+2.
func matmulForm(b *Builder) (int, error) {
	a, bt := b.In(0), b.In(1)
	if a.Rank() == 0 || bt.Rank() == 0 {
		return 0, b.Errorf("operands must have rank >= 1, got %s and %s", a, bt)
	}
	aVec, bVec := a.Rank() == 1, bt.Rank() == 1
	aRows, aInner := volume.AffConst(1), a.Shape[a.Rank()-1]
	if !aVec {
		aRows = a.Shape[a.Rank()-2]
	}
	bInner, bCols := bt.Shape[0], volume.AffConst(1)
	if !bVec {
		bInner, bCols = bt.Shape[bt.Rank()-2], bt.Shape[bt.Rank()-1]
	}
	if !aInner.Equal(bInner) {
		return 0, b.Errorf("contraction dimensions differ: %s has %s, %s has %s", a, aInner.String(), bt, bInner.String())
	}
	// batch broadcasting
	aBatch := a.Shape[:max(a.Rank()-2, 0)]
	bBatch := bt.Shape[:max(bt.Rank()-2, 0)]
	nb := max(len(aBatch), len(bBatch))
	batch := make([]volume.Aff, nb)
	for i := range batch {
		batch[i] = volume.AffConst(1)
	}
	merge := func(s []volume.Aff, which string) error {
		off := nb - len(s)
		for i, d := range s {
			cur := batch[off+i]
			c, cok := cur.IsConst()
			v, vok := d.IsConst()
			switch {
			case vok && v == 1:
			case cok && c == 1:
				batch[off+i] = d
			case cur.Equal(d):
			default:
				return b.Errorf("batch dimensions of %s do not broadcast: %s vs %s", which, d.String(), cur.String())
			}
		}
		return nil
	}
	if err := merge(aBatch, "operand #0"); err != nil {
		return 0, err
	}
	if err := merge(bBatch, "operand #1"); err != nil {
		return 0, err
	}
	// iteration space: batch..., i, j, k
	dims := make([]string, 0, nb+3)
	for i := 0; i < nb; i++ {
		dims = append(dims, "b"+string(rune('0'+i%10)))
	}
	dims = append(dims, "i", "j", "k")
	ext := append(append([]volume.Aff{}, batch...), aRows, bCols, aInner)
	iters := make([]IterKind, len(dims))
	iters[len(iters)-1] = Reduction
	b.SetBox(dims, ext, iters)
	bi, bj, bk := nb, nb+1, nb+2
	batchIdx := func(s []volume.Aff) []volume.Aff {
		off := nb - len(s)
		idx := make([]volume.Aff, len(s))
		for i, d := range s {
			if v, ok := d.IsConst(); ok && v == 1 {
				idx[i] = volume.AffConst(0)
			} else {
				idx[i] = volume.AffDim(off + i)
			}
		}
		return idx
	}
	aIdx := batchIdx(aBatch)
	if !aVec {
		aIdx = append(aIdx, volume.AffDim(bi))
	}
	aIdx = append(aIdx, volume.AffDim(bk))
	bIdx := append(batchIdx(bBatch), volume.AffDim(bk))
	if !bVec {
		bIdx = append(bIdx, volume.AffDim(bj))
	}
	outIdx := identity(0, nb)
	outShape := append([]volume.Aff{}, batch...)
	if !aVec {
		outIdx = append(outIdx, volume.AffDim(bi))
		outShape = append(outShape, aRows)
	}
	if !bVec {
		outIdx = append(outIdx, volume.AffDim(bj))
		outShape = append(outShape, bCols)
	}
	b.Op.Access = []Access{AffAccess(aIdx...), AffAccess(bIdx...)}
	b.Op.Out = AffAccess(outIdx...)
	b.Op.Body = Bin(SMul, Read(0, a.Elem), Read(1, bt.Elem))
	b.Op.Reduce = ReduceSum
	b.Result = TensorType{Elem: a.Elem, Shape: outShape}
	return nb, nil
}
