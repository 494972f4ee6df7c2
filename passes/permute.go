// This file transposes constant tensors (fold-constants' weight transposes). A transpose
// whose innermost result dim is not the source's innermost reads the source at a stride: done
// element by element in result order it touches a new cache line (and often a new page) per
// element, 1.7 s of VGG-11's 5 s compile for its 411 MB classifier weight. The copy is
// therefore done in square tiles of the two dims involved, each read and written along
// cache lines.

package passes

import (
	"encoding/binary"
	"slices"

	"github.com/graphc/graphc/ir"
)

// permuteTile is the side of the tiles (in elements) of a strided transpose: a tile's rows of
// source and of result (permuteTile elements of up to 8 bytes each) stay in the L1 cache.
const permuteTile = 32

// permuteTensor returns t transposed by perm (result dim i is t's dim perm[i]), as raw bytes.
func permuteTensor(t *ir.Tensor, perm []int) *ir.Tensor {
	sz := int64(t.Elem.Size())
	src := t.Bytes()
	rank := len(t.Shape)
	shape := make([]int64, rank)
	for i, p := range perm {
		shape[i] = t.Shape[p]
	}
	dst := make([]byte, len(src))
	if len(src) > 0 {
		permuteBytes(dst, src, t.Shape, perm, sz)
	}
	out, err := ir.TensorFromRaw(t.Elem, shape, dst)
	if err != nil {
		panic(err) // same size as t
	}
	return out
}

// permuteBytes writes src (of shape srcShape, elements of sz bytes, row-major) to dst
// transposed by perm. The result's innermost dim j reads the source at stride
// stride[perm[j]]; when that is not 1, the result dim q with perm[q] = the source's innermost
// (stride 1) is tiled with j, so that a tile reads permuteTile source rows and writes
// permuteTile result rows.
func permuteBytes(dst, src []byte, srcShape []int64, perm []int, sz int64) {
	rank := len(srcShape)
	shape := make([]int64, rank)   // the result's shape
	sstride := make([]int64, rank) // source strides (elements) of the result's dims
	dstride := make([]int64, rank) // result strides (elements)
	{
		st := make([]int64, rank)
		s := int64(1)
		for d := rank - 1; d >= 0; d-- {
			st[d] = s
			s *= srcShape[d]
		}
		for i, p := range perm {
			shape[i], sstride[i] = srcShape[p], st[p]
		}
		s = 1
		for d := rank - 1; d >= 0; d-- {
			dstride[d] = s
			s *= shape[d]
		}
	}
	j := rank - 1
	if rank == 0 || sstride[j] == 1 {
		// rows are contiguous in both: one copy per row
		n := int64(1)
		if rank > 0 {
			n = shape[j]
		}
		forEachIndex(shape[:max(rank-1, 0)], func(idx []int64) {
			var so, do int64
			for i, x := range idx {
				so += x * sstride[i]
				do += x * dstride[i]
			}
			copy(dst[do*sz:(do+n)*sz], src[so*sz:(so+n)*sz])
		})
		return
	}
	q := slices.Index(perm, rank-1) // not j: sstride[q] = 1
	// the other dims, looped over outside the tiles
	outer := make([]int, 0, rank)
	for i := 0; i < rank; i++ {
		if i != j && i != q {
			outer = append(outer, i)
		}
	}
	oshape := make([]int64, len(outer))
	for k, i := range outer {
		oshape[k] = shape[i]
	}
	nq, nj := shape[q], shape[j]
	sj, dq := sstride[j], dstride[q] // sstride[q] = 1, dstride[j] = 1
	forEachIndex(oshape, func(idx []int64) {
		var so, do int64
		for k, x := range idx {
			so += x * sstride[outer[k]]
			do += x * dstride[outer[k]]
		}
		for q0 := int64(0); q0 < nq; q0 += permuteTile {
			q1 := min(q0+permuteTile, nq)
			for j0 := int64(0); j0 < nj; j0 += permuteTile {
				j1 := min(j0+permuteTile, nj)
				for x := q0; x < q1; x++ {
					d := (do + x*dq + j0) * sz
					s := (so + x + j0*sj) * sz
					if sz == 4 { // most weights: one load and store, no copy call
						for y := j0; y < j1; y++ {
							binary.NativeEndian.PutUint32(dst[d:], binary.NativeEndian.Uint32(src[s:]))
							d += 4
							s += sj * 4
						}
						continue
					}
					for y := j0; y < j1; y++ {
						copy(dst[d:d+sz], src[s:s+sz])
						d += sz
						s += sj * sz
					}
				}
			}
		}
	})
}

// forEachIndex calls f with every index of shape in row-major order (once, with an empty
// index, for rank 0; never when a dim is 0).
func forEachIndex(shape []int64, f func(idx []int64)) {
	for _, n := range shape {
		if n == 0 {
			return
		}
	}
	idx := make([]int64, len(shape))
	for {
		f(idx)
		i := len(shape) - 1
		for ; i >= 0; i-- {
			if idx[i]++; idx[i] < shape[i] {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			return
		}
	}
}
