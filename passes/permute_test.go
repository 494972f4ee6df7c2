package passes

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// naivePermute is the reference: every result element read from its source index.
func naivePermute(src []byte, srcShape []int64, perm []int, sz int64) []byte {
	rank := len(srcShape)
	st := make([]int64, rank)
	s := int64(1)
	for d := rank - 1; d >= 0; d-- {
		st[d] = s
		s *= srcShape[d]
	}
	shape := make([]int64, rank)
	for i, p := range perm {
		shape[i] = srcShape[p]
	}
	var dst []byte
	forEachIndex(shape, func(idx []int64) {
		var o int64
		for i, x := range idx {
			o += x * st[perm[i]]
		}
		dst = append(dst, src[o*sz:(o+1)*sz]...)
	})
	return dst
}

// TestPermuteBytes: the tiled transpose equals the element-by-element one for ranks 0 to 5,
// random permutations, extents of 0, 1, tile edges and beyond, elements of 1, 2, 4 and
// 8 bytes.
func TestPermuteBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 2))
	extents := []int64{1, 2, 3, 31, 32, 33, 70}
	for trial := range 400 {
		rank := trial % 6
		shape := make([]int64, rank)
		n := int64(1)
		for d := range shape {
			shape[d] = extents[r.IntN(len(extents))]
			if n*shape[d] > 20000 {
				shape[d] = 1 + r.Int64N(3)
			}
			if trial%97 == 5 && d == 0 {
				shape[d] = 0
			}
			n *= shape[d]
		}
		perm := r.Perm(rank)
		sz := []int64{1, 2, 4, 8}[r.IntN(4)]
		src := make([]byte, n*sz)
		for i := range src {
			src[i] = byte(r.Uint32())
		}
		want := naivePermute(src, shape, perm, sz)
		got := make([]byte, len(src))
		if len(src) > 0 {
			permuteBytes(got, src, shape, perm, sz)
		}
		require.Equal(t, len(want), len(got))
		if len(want) > 0 {
			require.Equal(t, want, got, "shape %v perm %v sz %d", shape, perm, sz)
		}
	}
}
