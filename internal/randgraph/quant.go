// This file adds the quantization family to the random graph builders: a float value quantized
// to u8 or i8 (per tensor or per axis), multiplied by constant 8-bit weights into i32
// (matmul_integer, the integer kernels' form), requantized and dequantized back to float, so
// that the passes' semantic tests and the compiled random graphs cover the quantized ops
// through DIE's restricted domains. Scales are powers of two so that the float results are
// exact and the comparison is bit for bit.

package randgraph

import (
	"math/rand/v2"

	"github.com/graphc/graphc/ir"
)

func init() {
	Makers = append(Makers, quantMatmul, quantRoundTrip)
}

// constScalar returns a rank-0 constant.
func constScalar(g *ir.Graph, t ir.DType, v float64) *ir.Value {
	x := ir.NewTensor(t, nil)
	if t.IsFloat() {
		x.F[0] = v
	} else {
		x.I[0] = int64(v)
	}
	return g.AddConst("c", x)
}

// quantType returns u8 or i8 and a zero point in its range.
func quantType(r *rand.Rand) (ir.DType, float64) {
	if r.IntN(2) == 0 {
		return ir.U8, float64(r.IntN(256))
	}
	return ir.I8, float64(r.IntN(256) - 128)
}

// pow2 returns 2^e for e in [lo, hi].
func pow2(r *rand.Rand, lo, hi int) float64 {
	e := lo + r.IntN(hi-lo+1)
	v := 1.0
	for ; e > 0; e-- {
		v *= 2
	}
	for ; e < 0; e++ {
		v /= 2
	}
	return v
}

// quantMatmul: dequantize(requantize(matmul_integer(quantize(a), W))) of a float matrix a.
func quantMatmul(r *rand.Rand, g *ir.Graph, vals []*ir.Value) *ir.Op {
	a := Pick(r, vals)
	if a.Type.Elem != ir.F32 || a.Type.Rank() != 2 {
		return nil
	}
	s, ok := a.Type.StaticShape()
	if !ok || s[1] == 0 {
		return nil
	}
	xt, xz := quantType(r)
	q := TryOp(g, "quantize_linear", []*ir.Value{a, constScalar(g, ir.F32, pow2(r, -6, -2)), constScalar(g, xt, xz)}, nil)
	if q == nil {
		return nil
	}
	wt, wz := quantType(r)
	n := int64(1 + r.IntN(40))
	w := ir.NewTensor(wt, []int64{s[1], n})
	lo, hi, _ := ir.QuantRange(wt)
	for i := range w.I {
		w.I[i] = int64(lo) + r.Int64N(int64(hi-lo)+1)
	}
	acc := TryOp(g, "matmul_integer", []*ir.Value{q.Result, g.AddConst("w", w), constScalar(g, xt, xz), constScalar(g, wt, wz)}, nil)
	if acc == nil {
		return nil
	}
	yt, yz := quantType(r)
	ys := pow2(r, -4, 0)
	y := TryOp(g, "requantize", []*ir.Value{acc.Result, constScalar(g, ir.F32, pow2(r, -14, -8)), constScalar(g, yt, yz)}, nil)
	if y == nil {
		return nil
	}
	return TryOp(g, "dequantize_linear", []*ir.Value{y.Result, constScalar(g, ir.F32, ys), constScalar(g, yt, yz)}, nil)
}

// quantRoundTrip: dequantize(quantize(v)) per axis, with one power-of-two scale per index.
func quantRoundTrip(r *rand.Rand, g *ir.Graph, vals []*ir.Value) *ir.Op {
	v := Pick(r, vals)
	if v.Type.Elem != ir.F32 || v.Type.Rank() == 0 {
		return nil
	}
	axis := r.IntN(v.Type.Rank())
	d, ok := v.Type.Dim(axis)
	if !ok || d == 0 {
		return nil
	}
	qt, _ := quantType(r)
	scale := ir.NewTensor(ir.F32, []int64{d})
	zp := ir.NewTensor(qt, []int64{d})
	lo, hi, _ := ir.QuantRange(qt)
	for i := range scale.F {
		scale.F[i] = pow2(r, -7, -1)
		zp.I[i] = int64(lo) + r.Int64N(int64(hi-lo)+1)
	}
	sv, zv := g.AddConst("s", scale), g.AddConst("z", zp)
	attrs := ir.Attrs{"axis": ir.IntAttr(int64(axis))}
	q := TryOp(g, "quantize_linear", []*ir.Value{v, sv, zv}, attrs)
	if q == nil {
		return nil
	}
	return TryOp(g, "dequantize_linear", []*ir.Value{q.Result, sv, zv}, attrs)
}
