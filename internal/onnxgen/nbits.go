// This file builds onnxruntime's MatMulNBits (com.microsoft) as a benchmark and test model:
// random packed 4-bit weights with per-block scales and optional packed zero points.

package onnxgen

import (
	"math/rand/v2"

	"github.com/graphc/graphc/ir"
)

// NBits describes a MatMulNBits model: Y[M, N] = A[M, K] · W[K, N], W in 4-bit blocks of
// Block weights along K (the last block padded when K is not a multiple of Block), with
// packed zero points or not, at onnxruntime's AccuracyLevel (0: float32; 4: A quantized to
// int8). Seed varies the random weights.
type NBits struct {
	M, K, N, Block int
	ZeroPoints     bool
	AccuracyLevel  int
	Seed           uint64
}

// MatMulNBits is Y[m, n] = A[m, k] · W[k, n] with W stored as MatMulNBits' 4-bit blocks of
// block weights along k, at accuracy_level 0.
func MatMulNBits(m, k, n, block int, zeroPoints bool) *Model {
	return NBits{M: m, K: k, N: n, Block: block, ZeroPoints: zeroPoints}.Model()
}

// Model builds the model nb describes.
func (nb NBits) Model() *Model {
	r := rand.New(rand.NewPCG(34, 35+nb.Seed))
	md := New("matmul_nbits", 21)
	md.Input("A", ir.F32, nb.M, nb.K)
	kb := (nb.K + nb.Block - 1) / nb.Block
	b := ir.NewTensor(ir.U8, []int64{int64(nb.N), int64(kb), int64(nb.Block / 2)})
	for i := range b.I {
		b.I[i] = int64(r.IntN(256))
	}
	md.Init("B", b)
	s := ir.NewTensor(ir.F32, []int64{int64(nb.N * kb)})
	for i := range s.F {
		s.F[i] = float64(float32(0.001 + 0.01*r.Float64()))
	}
	md.Init("scales", s)
	ins := []string{"A", "B", "scales"}
	if nb.ZeroPoints {
		z := ir.NewTensor(ir.U8, []int64{int64(nb.N * ((kb + 1) / 2))})
		for i := range z.I {
			z.I[i] = int64(r.IntN(256))
		}
		md.Init("zp", z)
		ins = append(ins, "zp")
	}
	attrs := []Attr{IntAttr("K", int64(nb.K)), IntAttr("N", int64(nb.N)), IntAttr("bits", 4), IntAttr("block_size", int64(nb.Block))}
	if nb.AccuracyLevel != 0 {
		attrs = append(attrs, IntAttr("accuracy_level", int64(nb.AccuracyLevel)))
	}
	md.DomainNode("com.microsoft", "MatMulNBits", "gemv", ins, []string{"Y"}, attrs...)
	md.Output("Y", ir.F32, nb.M, nb.N)
	return md
}
