// This file vectorises requantization on vector units without floating point (HVX before v68):
// y = saturate(round_half_even(f32(f32(acc) · m)) + zp), the requantize op's body, computed
// exactly in 32-bit integer lanes. The f32 operations are emulated bit for bit: f32(acc) rounds
// |acc| to 24 significant bits; the product of that and m's 24-bit mantissa M is exact in two
// 24-bit limbs; the f32 rounding of the product keeps 24 significant bits (a single-lane value
// v); the rounding to an integer rounds v right by the remaining exponent. Both roundings are to
// nearest even, as the evaluator's; products whose magnitude reaches 2^17 saturate whatever the
// zero point (the quantized ranges lie within [-2^15, 2^16)). Zero, NaN and infinite
// multipliers take the evaluator's results (NaN converts to 0). The algorithm was checked
// against the float semantics on 25 million cases, a million exact ties among them.

package lower

import (
	"fmt"

	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/ir"
)

// requantForm is a matched requantization body.
type requantForm struct {
	acc, m, zp *ir.Scalar // the reads of the accumulator (i32), multiplier (f32), zero point
	lo, hi     int64      // saturation bounds
}

// matchRequant matches cast<T>(clamp(round(f32(acc) · m) + f32(zp), lo, hi)).
func matchRequant(s *ir.Scalar) (requantForm, bool) {
	var f requantForm
	if s.Op != ir.SCast || !s.Type.IsInt() || s.Type == ir.Bool || s.Type == ir.I64 {
		return f, false
	}
	lo, hi, ok := ir.ClampRange(s.Args[0])
	if !ok || s.Args[0].Type != ir.F32 {
		return f, false
	}
	v := s.Args[0].Args[2].Args[2] // the clamped value (ClampRange checked the shape)
	if v.Op != ir.SAdd || v.Args[0].Op != ir.SRound || v.Args[1].Op != ir.SCast {
		return f, false
	}
	mul := v.Args[0].Args[0]
	if mul.Op != ir.SMul || mul.Args[0].Op != ir.SCast || mul.Args[0].Args[0].Op != ir.SRead || mul.Args[0].Args[0].Type != ir.I32 ||
		mul.Args[1].Op != ir.SRead || mul.Args[1].Type != ir.F32 {
		return f, false
	}
	zp := v.Args[1].Args[0]
	if zp.Op != ir.SRead || !zp.Type.IsInt() || zp.Type == ir.Bool || zp.Type == ir.I64 || zp.Type == ir.I32 {
		return f, false
	}
	if lo < -(1<<15) || hi >= 1<<16 {
		return f, false // the saturation shortcut needs |y| < 2^16
	}
	return requantForm{acc: mul.Args[0].Args[0], m: mul.Args[1], zp: zp, lo: int64(lo), hi: int64(hi)}, true
}

// intRequant reports whether op's body is a requantization the module computes in integer
// vectors (its vector unit has no floating point).
func (mc *moduleCtx) intRequant(op *ir.Op) bool {
	if mc.vecFloat || mc.vecBytes == 0 {
		return false
	}
	_, ok := matchRequant(op.Body)
	return ok
}

// emitIntRequant emits the body f on bc.vl lanes in integer arithmetic and returns the result
// vector of type t.
func (bc *bodyCtx) emitIntRequant(f requantForm, t ir.DType) (value.Value, error) {
	c := bc.cur
	acc, err := bc.emit(f.acc)
	if err != nil {
		return nil, err
	}
	zp, err := bc.emit(f.zp)
	if err != nil {
		return nil, err
	}
	mb := bc.floatBits(f.m)
	vt := types.NewVector(uint64(bc.vl), types.I32)
	k := func(v int64) value.Value { return intConstOf(vt, v) }
	sel := func(cond, x, y value.Value) value.Value { return c().NewSelect(cond, x, y) }
	icmp := func(p enum.IPred, x, y value.Value) value.Value { return c().NewICmp(p, x, y) }
	ctlz := bc.fb.mc.intrinsic(fmt.Sprintf("llvm.ctlz.v%di32", bc.vl), vt, vt, types.I1)
	msb := func(x value.Value) value.Value { // 31 - clz (-1 for 0)
		return c().NewSub(k(31), c().NewCall(ctlz, x, constant.False))
	}
	smax0 := func(x value.Value) value.Value { return sel(icmp(enum.IPredSGT, x, k(0)), x, k(0)) }
	clampShift := func(x value.Value, hi int64) value.Value { // into [0, hi]: shifts past the width are poison
		x = smax0(x)
		return sel(icmp(enum.IPredSGT, x, k(hi)), k(hi), x)
	}
	// rne returns x >> s rounded to nearest even (s in [0, 31], x unsigned)
	rne := func(x, s value.Value) value.Value {
		fl := c().NewLShr(x, s)
		rem := c().NewAnd(x, c().NewSub(c().NewShl(k(1), s), k(1)))
		half := c().NewLShr(c().NewShl(k(1), s), k(1))
		odd := icmp(enum.IPredNE, c().NewAnd(fl, k(1)), k(0))
		var up value.Value = c().NewOr(icmp(enum.IPredUGT, rem, half), c().NewAnd(icmp(enum.IPredEQ, rem, half), odd))
		up = c().NewAnd(up, icmp(enum.IPredNE, s, k(0)))
		return c().NewAdd(fl, c().NewZExt(up, vt))
	}
	// the multiplier's fields
	e := c().NewAnd(c().NewLShr(mb, k(23)), k(0xff))
	frac := c().NewAnd(mb, k(0x7fffff))
	denorm := icmp(enum.IPredEQ, e, k(0))
	M := sel(denorm, frac, c().NewOr(frac, k(0x800000)))
	tExp := sel(denorm, k(149), c().NewSub(k(150), e))
	mNeg := icmp(enum.IPredSLT, mb, k(0))
	// |acc| and the sign of the product
	aNeg := icmp(enum.IPredSLT, acc, k(0))
	u := sel(aNeg, c().NewSub(k(0), acc), acc)
	neg := c().NewXor(aNeg, mNeg)
	// f32(acc) = v0 · 2^s0
	s0 := smax0(c().NewSub(msb(u), k(23)))
	v0 := rne(u, s0)
	tt := c().NewSub(tExp, s0)
	// q = v0 · M in 24-bit limbs
	uh, ul := c().NewLShr(v0, k(12)), c().NewAnd(v0, k(0xfff))
	mh, ml := c().NewLShr(M, k(12)), c().NewAnd(M, k(0xfff))
	p3 := c().NewMul(uh, mh)
	p2 := c().NewAdd(c().NewMul(uh, ml), c().NewMul(ul, mh))
	p1 := c().NewMul(ul, ml)
	lo24 := c().NewAdd(p1, c().NewShl(c().NewAnd(p2, k(0xfff)), k(12)))
	qlo := c().NewAnd(lo24, k(0xffffff))
	qhi := c().NewAdd(c().NewAdd(p3, c().NewLShr(p2, k(12))), c().NewLShr(lo24, k(24)))
	kq := sel(icmp(enum.IPredNE, qhi, k(0)), c().NewAdd(msb(qhi), k(24)), msb(qlo))
	sat := icmp(enum.IPredSGE, kq, c().NewAdd(tt, k(17)))
	// the product rounded to 24 significant bits: v = rne(q >> s1)
	s1 := clampShift(c().NewSub(kq, k(23)), 24)
	fl := c().NewOr(c().NewShl(qhi, c().NewSub(k(24), s1)), c().NewLShr(qlo, s1))
	rem := c().NewAnd(qlo, c().NewSub(c().NewShl(k(1), s1), k(1)))
	half := c().NewLShr(c().NewShl(k(1), s1), k(1))
	odd := icmp(enum.IPredNE, c().NewAnd(fl, k(1)), k(0))
	var up value.Value = c().NewOr(icmp(enum.IPredUGT, rem, half), c().NewAnd(icmp(enum.IPredEQ, rem, half), odd))
	up = c().NewAnd(up, icmp(enum.IPredNE, s1, k(0)))
	v := c().NewAdd(fl, c().NewZExt(up, vt))
	// rounded to an integer: R = rne(v >> d), d = t - s1 (>= 7 unless saturated)
	R := rne(v, clampShift(c().NewSub(tt, s1), 31))
	r := sel(neg, c().NewSub(k(0), R), R)
	// the zero point, saturation and the special multipliers
	var z value.Value = c().NewSExt(zp, vt)
	if f.zp.Type.IsUnsigned() {
		z = c().NewZExt(zp, vt)
	}
	var y value.Value = c().NewAdd(r, z)
	y = sel(icmp(enum.IPredSLT, y, k(f.lo)), k(f.lo), y)
	y = sel(icmp(enum.IPredSGT, y, k(f.hi)), k(f.hi), y)
	satv := sel(neg, k(f.lo), k(f.hi))
	y = sel(sat, satv, y)
	zero := c().NewOr(icmp(enum.IPredEQ, u, k(0)), icmp(enum.IPredEQ, M, k(0)))
	zc := sel(icmp(enum.IPredSLT, z, k(f.lo)), k(f.lo), z)
	zc = sel(icmp(enum.IPredSGT, zc, k(f.hi)), k(f.hi), zc)
	y = sel(zero, zc, y)
	// e = 255: NaN (or 0 · inf) converts to 0, inf · acc saturates
	special := icmp(enum.IPredEQ, e, k(0xff))
	nan := c().NewOr(icmp(enum.IPredNE, frac, k(0)), icmp(enum.IPredEQ, u, k(0)))
	y = sel(special, sel(nan, k(0), satv), y)
	return bc.fb.narrow(y, bc.ty(t)), nil
}

// floatBits returns the bits of a float read as an i32 vector, without float vectors: a
// broadcast scalar when the read is invariant along the vector, else an integer vector load.
func (bc *bodyCtx) floatBits(s *ir.Scalar) value.Value {
	kb, fb := bc.kb, bc.fb
	w := kb.ops[s.Arg]
	idx := kb.op.Access[s.Arg].Pieces[0].Index
	off := fb.offset(w, fb.indexAt(idx, bc.dims))
	p := fb.cur.NewBitCast(fb.elemPtr(w, off), types.NewPointer(types.I32))
	if accessStrideIn(w.v.Type, idx, bc.inner) == strideInvariant {
		ld := fb.cur.NewLoad(types.I32, p)
		ld.Align = 4
		return bc.splatValue(ld)
	}
	vt := types.NewVector(uint64(bc.vl), types.I32)
	ld := fb.cur.NewLoad(vt, fb.cur.NewBitCast(p, types.NewPointer(vt)))
	ld.Align = 4
	return ld
}
