// This file builds onnxruntime's MatMulNBits (com.microsoft) as a benchmark model: random
// packed 4-bit weights with per-block scales and optional packed zero points.

package onnxgen

import (
	"math/rand/v2"

	"github.com/graphc/graphc/ir"
)

// MatMulNBits is Y[m, n] = A[m, k] · W[k, n] with W stored as MatMulNBits' 4-bit blocks of
// block weights along k (k a multiple of block).
func MatMulNBits(m, k, n, block int, zeroPoints bool) *Model {
	r := rand.New(rand.NewPCG(34, 35))
	md := New("matmul_nbits", 21)
	md.Input("A", ir.F32, m, k)
	kb := k / block
	b := ir.NewTensor(ir.U8, []int64{int64(n), int64(kb), int64(block / 2)})
	for i := range b.I {
		b.I[i] = int64(r.IntN(256))
	}
	md.Init("B", b)
	s := ir.NewTensor(ir.F32, []int64{int64(n * kb)})
	for i := range s.F {
		s.F[i] = float64(float32(0.001 + 0.01*r.Float64()))
	}
	md.Init("scales", s)
	ins := []string{"A", "B", "scales"}
	if zeroPoints {
		z := ir.NewTensor(ir.U8, []int64{int64(n * ((kb + 1) / 2))})
		for i := range z.I {
			z.I[i] = int64(r.IntN(256))
		}
		md.Init("zp", z)
		ins = append(ins, "zp")
	}
	md.DomainNode("com.microsoft", "MatMulNBits", "gemv", ins, []string{"Y"},
		IntAttr("K", int64(k)), IntAttr("N", int64(n)), IntAttr("bits", 4), IntAttr("block_size", int64(block)))
	md.Output("Y", ir.F32, m, n)
	return md
}
