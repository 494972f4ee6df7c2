// This file holds graphc's float32 math: exp, log, tanh, sigmoid and erf as straight-line
// polynomial code on float or <n x float> registers, emitted inline into the kernel body, so
// that loops over them run on the target's vectors (AVX2, AVX-512, HVX) instead of calling the
// float64 runtime lane by lane. No call, no table, no float<->int conversion instruction (powers
// of two and exponents move through the bit patterns, rounding to an integer through the
// 1.5·2^23 trick). A multiply followed by an add is one llvm.fma where the target has a
// hardware fused multiply-add for floats and their vectors (Target.FusedMathFeature: x86-64
// with FMA3, AArch64), else a rounded fmul then fadd (baseline x86-64, Hexagon, whose HVX has
// no vector FMA). Both forms round the same on every target that uses them, so targets of the
// same FMA capability compute the same bits: x86-64 and Hexagon without FMA, x86-64-v3 and
// AArch64 with it (TestMathBitsEqualAcrossTargets).
//
// The coefficients are near-minimax fits (lower/vecmath_fit.py: Lawson's iteratively
// reweighted least squares on Chebyshev nodes, in float64, then rounded to float32); the fits'
// own errors are far below float32 rounding (exp 3·10^-9 relative, log 6·10^-9, tanh 4·10^-9,
// erf 1.2·10^-9, erfc 2.6·10^-10 absolute), so the bounds below come from float32 rounding.
// Maximum errors against the correctly rounded result, measured by TestMathAccuracy over 10^6
// arguments per function in the ranges where it is not constant (stated in lower/doc.go):
// exp ≤ 1 ulp (subnormal results included), log ≤ 1 ulp, tanh ≤ 1 ulp, sigmoid ≤ 2 ulp, erf
// ≤ 2 ulp. On HVX vectors, which have no division (LLVM turns one into a scalar sfrecipa
// sequence per lane), quotients use a Newton reciprocal: tanh ≤ 2 ulp, sigmoid ≤ 3 ulp.
// Special values follow the evaluator: NaN in, NaN out; exp(±Inf) = +Inf, 0; log(0) = -Inf,
// log(x < 0) = NaN, log(+Inf) = +Inf; tanh, sigmoid and erf saturate exactly.

package lower

import (
	"math"

	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Polynomial coefficients (float32), lowest degree first; see vecmath_fit.py.
var (
	// e^r = 1 + r + r²·P(r), |r| <= ln2/2
	vexpP = []float64{0.4999999403953552, 0.1666652113199234, 0.04166838899254799, 0.008368710055947304, 0.0013814610429108143}
	// log(1+z) = z - z²/2 + z³·P(z), sqrt(1/2)-1 <= z < sqrt(2)-1
	vlogP = []float64{0.3333333134651184, -0.250008225440979, 0.20001226663589478, -0.16623356938362122,
		0.14201761782169342, -0.131601944565773, 0.12761549651622772, -0.07634429633617401}
	// tanh(x) = x + x³·P(x²), |x| < 0.625
	vtanhP = []float64{-0.3333328068256378, 0.13331441581249237, -0.05373971536755562, 0.02063908986747265, -0.005704990588128567}
	// erf(x) = x·P(x²), |x| <= 1
	verfP = []float64{1.1283791065216064, -0.3761262595653534, 0.1128358542919159, -0.026853816583752632,
		0.00518833426758647, -0.0008010247838683426, 7.854025898268446e-05}
	// erfc(x)·e^(x²) = Q(1/x), 1 <= x <= 4
	verfcQ = []float64{0.00020110666810069233, 0.5590953826904297, 0.04602079093456268, -0.4964953064918518,
		0.5662845373153687, -0.3496088683605194, 0.12013465166091919, -0.018048690631985664}
)

const (
	// ln2 split so that k·vln2Hi is exact for |k| < 2^15 (vln2Hi has 9 significant bits)
	vln2Hi = 0.693359375
	vln2Lo = -2.12194440e-4
	// adding vRoundMagic (1.5·2^23) to a float of magnitude below 2^22 rounds it to an integer
	// in the low mantissa bits: its bit pattern minus vRoundMagic's is that integer
	vRoundMagic     = 12582912.0
	vRoundMagicBits = 0x4B400000
)

// vf emits float32 math on registers of type t: float or <n x float>.
type vf struct {
	fb *funcBuilder
	t  types.Type // float or <n x float>
	it types.Type // i32 or <n x i32>
}

func newVF(fb *funcBuilder, t types.Type) vf {
	return vf{fb: fb, t: t, it: intTypeLike(t)}
}

// isF32 reports whether t is float or a vector of float.
func isF32(t types.Type) bool {
	if vt, ok := t.(*types.VectorType); ok {
		return vt.ElemType == types.Float
	}
	return t == types.Float
}

func (v vf) c(x float64) value.Value             { return floatConstOf(v.t, x) }
func (v vf) ic(x int64) value.Value              { return intConstOf(v.it, x) }
func (v vf) add(a, b value.Value) value.Value    { return v.fb.cur.NewFAdd(a, b) }
func (v vf) sub(a, b value.Value) value.Value    { return v.fb.cur.NewFSub(a, b) }
func (v vf) mul(a, b value.Value) value.Value    { return v.fb.cur.NewFMul(a, b) }
func (v vf) div(a, b value.Value) value.Value    { return v.fb.cur.NewFDiv(a, b) }
func (v vf) lt(a, b value.Value) value.Value     { return v.fb.cur.NewFCmp(enum.FPredOLT, a, b) }
func (v vf) gt(a, b value.Value) value.Value     { return v.fb.cur.NewFCmp(enum.FPredOGT, a, b) }
func (v vf) ge(a, b value.Value) value.Value     { return v.fb.cur.NewFCmp(enum.FPredOGE, a, b) }
func (v vf) le(a, b value.Value) value.Value     { return v.fb.cur.NewFCmp(enum.FPredOLE, a, b) }
func (v vf) eq(a, b value.Value) value.Value     { return v.fb.cur.NewFCmp(enum.FPredOEQ, a, b) }
func (v vf) sel(c, a, b value.Value) value.Value { return v.fb.sel(c, a, b) }
func (v vf) bits(a value.Value) value.Value      { return v.fb.cur.NewBitCast(a, v.it) }
func (v vf) float(a value.Value) value.Value     { return v.fb.cur.NewBitCast(a, v.t) }
func (v vf) iadd(a, b value.Value) value.Value   { return v.fb.cur.NewAdd(a, b) }
func (v vf) isub(a, b value.Value) value.Value   { return v.fb.cur.NewSub(a, b) }

// fma returns a·b + c: one rounding through llvm.fma where the module fuses math
// (moduleCtx.fusedMath), else a rounded product then a rounded sum.
func (v vf) fma(a, b, c value.Value) value.Value {
	if !v.fb.mc.fusedMath {
		return v.add(v.mul(a, b), c)
	}
	f := v.fb.mc.intrinsic("llvm.fma."+intrinsicSuffix(v.t), v.t, v.t, v.t, v.t)
	return v.fb.cur.NewCall(f, a, b, c)
}

// isNaN is one unordered compare, or a test of the bit pattern where the target says so (HVX
// cannot select on unordered vector compares).
func (v vf) isNaN(a value.Value) value.Value {
	if !v.fb.mc.tgt.NaNTestByBits {
		return v.fb.cur.NewFCmp(enum.FPredUNO, a, a)
	}
	mag := v.fb.cur.NewAnd(v.bits(a), v.ic(math.MaxInt32))
	return v.fb.cur.NewICmp(enum.IPredUGT, mag, v.ic(0x7f800000))
}

func (v vf) abs(a value.Value) value.Value { return v.fb.fabs(a) }

// copysign returns |a| with the sign of b.
func (v vf) copysign(a, b value.Value) value.Value {
	c := v.fb.cur
	mag := c.NewAnd(v.bits(a), v.ic(math.MaxInt32))
	sign := c.NewAnd(v.bits(b), v.ic(math.MinInt32))
	return v.float(c.NewOr(mag, sign))
}

// poly returns cs[0] + t·(cs[1] + t·(...)) in Horner order.
func (v vf) poly(t value.Value, cs []float64) value.Value {
	r := v.c(cs[len(cs)-1])
	for i := len(cs) - 2; i >= 0; i-- {
		r = v.fma(r, t, v.c(cs[i]))
	}
	return r
}

// estrin returns cs[0] + t·cs[1] + t²·cs[2] + ... for t2 = t·t, grouped in pairs
// (cs[2i] + t·cs[2i+1]) combined by powers of t²: a shorter dependence chain than Horner's.
func (v vf) estrin(t, t2 value.Value, cs []float64) value.Value {
	var ps []value.Value
	for i := 0; i < len(cs); i += 2 {
		if i+1 < len(cs) {
			ps = append(ps, v.fma(t, v.c(cs[i+1]), v.c(cs[i])))
		} else {
			ps = append(ps, v.c(cs[i]))
		}
	}
	r := ps[len(ps)-1]
	for i := len(ps) - 2; i >= 0; i-- {
		r = v.fma(r, t2, ps[i])
	}
	return r
}

// clamp returns a limited to [lo, hi] (NaN stays NaN: both compares are false).
func (v vf) clamp(a value.Value, lo, hi float64) value.Value {
	a = v.sel(v.lt(a, v.c(lo)), v.c(lo), a)
	return v.sel(v.gt(a, v.c(hi)), v.c(hi), a)
}

// quot returns a/b for a positive normal b below 2^126: a division, or on vectors of targets
// without a vector division (HVX, where LLVM emits one scalar sfrecipa sequence per lane) a
// times a Newton reciprocal of b (moduleCtx.newtonRecip).
func (v vf) quot(a, b value.Value) value.Value {
	if _, vec := v.t.(*types.VectorType); vec && v.fb.mc.newtonRecip {
		return v.mul(a, v.recip(b))
	}
	return v.div(a, b)
}

// recip returns 1/x for a positive normal x below 2^126 without a division: a seed from the
// bit pattern (within 12.5%), then four Newton steps r·(2 - x·r), each squaring the relative
// error, to within an ulp or two of 1/x.
func (v vf) recip(x value.Value) value.Value {
	r := v.float(v.isub(v.ic(0x7EF311C3), v.bits(x)))
	for i := 0; i < 4; i++ {
		r = v.mul(r, v.sub(v.c(2), v.mul(x, r)))
	}
	return r
}

// pow2 returns 2^n for an i32 n in [-126, 127].
func (v vf) pow2(n value.Value) value.Value {
	return v.float(v.fb.cur.NewShl(v.iadd(n, v.ic(127)), v.ic(23)))
}

// exp is e^x: x = k·ln2 + r with k = round(x/ln2) and |r| <= ln2/2 (Cody–Waite), e^r by its
// polynomial, then exact scalings by powers of two so that subnormal results round once.
func (v vf) exp(x value.Value) value.Value {
	return v.sel(v.isNaN(x), x, v.expIn(x, math.Inf(-1), math.Inf(1)))
}

// expIn is exp for an argument known to lie in [lo, hi] or to be NaN, whose result the caller
// replaces for a NaN argument (expIn's result is then unspecified). The known range drops the
// steps it makes idle: the clamps outside it, and the second scaling where every k = round(x/ln2)
// of the range has a normal 2^k (tanh's e^(2|x|), erfc's e^(-x²)) or a normal 2^(k+64)
// (sigmoid's e^-|x|, k >= -150: the product p·2^(k+64) is exact, so scaling it by 2^-64
// rounds once, as the two half scalings of exp do). Every argument in the range gets exp's bits.
func (v vf) expIn(x value.Value, lo, hi float64) value.Value {
	c := v.fb.cur
	xc := x
	if lo < -104 {
		xc = v.sel(v.lt(xc, v.c(-104)), v.c(-104), xc) // e^-104 rounds to 0
	}
	if hi > 89 {
		xc = v.sel(v.gt(xc, v.c(89)), v.c(89), xc) // e^89 overflows
	}
	lo, hi = max(lo, -104), min(hi, 89)
	t := v.fma(xc, v.c(math.Log2E), v.c(vRoundMagic))
	k := v.isub(v.bits(t), v.ic(vRoundMagicBits))
	kf := v.sub(t, v.c(vRoundMagic))
	// kf·vln2Hi and its difference with xc are exact (Sterbenz), so the first step rounds
	// nowhere with or without fusion
	r := v.fma(kf, v.c(-vln2Lo), v.sub(xc, v.mul(kf, v.c(vln2Hi))))
	r2 := v.mul(r, r)
	p := v.add(v.fma(r2, v.estrin(r, r2, vexpP), r), v.c(1))
	// k's range, one wider on each side than round(x·log2(e)) can reach
	kLo, kHi := math.Floor(lo*math.Log2E)-1, math.Ceil(hi*math.Log2E)+1
	switch {
	case kLo >= -126 && kHi <= 127:
		return v.mul(p, v.pow2(k))
	case kLo >= -126-64 && kHi <= 127-64:
		return v.mul(v.mul(p, v.pow2(v.iadd(k, v.ic(64)))), v.c(0x1p-64))
	}
	k1 := c.NewAShr(k, v.ic(1))
	k2 := v.isub(k, k1)
	return v.mul(v.mul(p, v.pow2(k1)), v.pow2(k2))
}

// log is the natural logarithm: x = m·2^e with m in [sqrt(1/2), sqrt(2)), log(m) = log1p(m-1)
// by its polynomial (m-1 is exact), plus e·ln2 in two parts.
func (v vf) log(x value.Value) value.Value {
	c := v.fb.cur
	sub := v.lt(x, v.c(0x1p-126))
	xn := v.sel(sub, v.mul(x, v.c(0x1p23)), x) // subnormals become normal
	b := v.bits(xn)
	e := v.isub(c.NewAShr(b, v.ic(23)), v.ic(126))
	e = v.isub(e, v.sel(sub, v.ic(23), v.ic(0)))
	m := v.float(c.NewOr(c.NewAnd(b, v.ic(0x007fffff)), v.ic(0x3f000000))) // [0.5, 1)
	lowM := v.lt(m, v.c(math.Sqrt2/2))
	e = v.isub(e, v.sel(lowM, v.ic(1), v.ic(0)))
	z := v.sub(v.sel(lowM, v.add(m, m), m), v.c(1))
	// e as a float through the bit pattern: e + 1.5·2^23 is exact
	ef := v.sub(v.float(v.iadd(e, v.ic(vRoundMagicBits))), v.c(vRoundMagic))
	z2 := v.mul(z, z)
	y := v.mul(v.mul(z, z2), v.poly(z, vlogP))
	// (y - z2·0.5 is y + z2·(-0.5) bit for bit: negation is exact)
	y = v.fma(ef, v.c(vln2Lo), y)
	y = v.fma(z2, v.c(-0.5), y)
	r := v.fma(ef, v.c(vln2Hi), v.add(z, y))
	// special cases: NaN and x < 0 give NaN, 0 gives -Inf, +Inf gives +Inf
	r = v.sel(v.eq(x, v.c(0)), v.c(math.Inf(-1)), r)
	r = v.sel(v.eq(x, v.c(math.Inf(1))), x, r)
	r = v.sel(v.lt(x, v.c(0)), v.c(math.NaN()), r)
	return v.sel(v.isNaN(x), x, r)
}

// tanh is x + x³·P(x²) below 0.625 in magnitude, else ±(1 - 2/(e^(2|x|) + 1)) (1 from 10 on).
func (v vf) tanh(x value.Value) value.Value {
	a := v.abs(x)
	x2 := v.mul(x, x)
	small := v.fma(v.mul(x, x2), v.poly(x2, vtanhP), x)
	ac := v.clamp(a, 0, 10)
	e := v.expIn(v.add(ac, ac), 0, 20)
	big := v.copysign(v.sub(v.c(1), v.quot(v.c(2), v.add(e, v.c(1)))), x)
	r := v.sel(v.lt(a, v.c(0.625)), small, big)
	return v.sel(v.isNaN(x), x, r)
}

// sigmoid is 1/(1 + e^-x) for x >= 0 and e^x/(1 + e^x) below, with e = e^-|x| <= 1, so that
// nothing overflows.
func (v vf) sigmoid(x value.Value) value.Value {
	e := v.expIn(v.fb.cur.NewFNeg(v.abs(x)), math.Inf(-1), 0)
	num := v.sel(v.ge(x, v.c(0)), v.c(1), e)
	r := v.quot(num, v.add(e, v.c(1)))
	return v.sel(v.isNaN(x), x, r)
}

// erf is x·P(x²) up to 1 in magnitude, else ±(1 - e^(-x²)·Q(1/|x|)) (1 from 4 on, where erfc
// is below half an ulp of 1).
func (v vf) erf(x value.Value) value.Value {
	a := v.abs(x)
	small := v.mul(x, v.poly(v.mul(x, x), verfP))
	ac := v.clamp(a, 1, 4)
	q := v.poly(v.quot(v.c(1), ac), verfcQ)
	e := v.expIn(v.fb.cur.NewFNeg(v.mul(ac, ac)), -16, -1)
	big := v.copysign(v.fma(v.fb.cur.NewFNeg(e), q, v.c(1)), x) // 1 - erfc, erfc = e·q
	r := v.sel(v.le(a, v.c(1)), small, big)
	return v.sel(v.isNaN(x), x, r)
}
