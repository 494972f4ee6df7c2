// This file holds the runtime's exact operations, written on integers so that they need no
// instruction the target lacks: correctly rounded f64 division and square root (Hexagon has
// neither inline), fmod (exact, musl's algorithm), floor/ceil/round-half-even, int64 division
// and remainder by a variable, integer power, and binary16 conversions.

package lower

import (
	"math"

	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// unpack returns f in [2^52, 2^53) and E with x = f·2^E, for finite non-zero x (subnormals
// normalised).
func (m mb) unpack(x value.Value) (value.Value, value.Value) {
	b := m.bits(x)
	e := m.and(m.lshr(b, i64(52)), i64(0x7ff))
	f := m.and(b, i64(1<<52-1))
	sub := m.icmp(enum.IPredEQ, e, i64(0))
	lz := m.isub(m.ctlz(f), i64(11))
	lz = m.sel(sub, lz, i64(0))
	fs := m.shl(f, lz)
	e = m.sel(sub, m.isub(i64(1), lz), e)
	f = m.sel(sub, fs, m.or(f, i64(1<<52)))
	return f, m.isub(e, i64(1075))
}

// roundPack returns the double nearest (ties to even) to sig·2^(e-62) (+ a non-zero tail
// when sticky), sig in [2^62, 2^63), with sign bit sign, handling overflow and subnormals.
func (m mb) roundPack(sign, e, sig, sticky value.Value) value.Value {
	biased := m.iadd(e, i64(1023))
	// normal
	m53 := m.lshr(sig, i64(10))
	rb := m.and(sig, i64(0x3ff))
	odd := m.icmp(enum.IPredNE, m.and(m53, i64(1)), i64(0))
	up := m.or(m.icmp(enum.IPredUGT, rb, i64(0x200)),
		m.and(m.icmp(enum.IPredEQ, rb, i64(0x200)), m.or(sticky, odd)))
	normal := m.iadd(m.iadd(m.shl(m.isub(biased, i64(1)), i64(52)), m53), m.cur.NewZExt(up, types.I64))
	// subnormal: shift right by sh = 11 - biased >= 11
	sh := m.isub(i64(11), biased)
	gone := m.icmp(enum.IPredSGE, sh, i64(64))
	shc := m.sel(gone, i64(63), sh)
	q := m.lshr(sig, shc)
	rem := m.and(sig, m.isub(m.shl(i64(1), shc), i64(1)))
	half := m.shl(i64(1), m.isub(shc, i64(1)))
	qodd := m.icmp(enum.IPredNE, m.and(q, i64(1)), i64(0))
	sup := m.or(m.icmp(enum.IPredUGT, rem, half), m.and(m.icmp(enum.IPredEQ, rem, half), m.or(sticky, qodd)))
	subn := m.iadd(q, m.cur.NewZExt(sup, types.I64))
	subn = m.sel(gone, i64(0), subn)
	r := m.sel(m.icmp(enum.IPredSLE, biased, i64(0)), subn, normal)
	r = m.sel(m.icmp(enum.IPredSGE, biased, i64(2047)), i64(0x7ff<<52), r)
	return m.fromBits(m.or(r, sign))
}

func init() {
	defF64(rtFDiv, 2, func(m mb, a []value.Value) value.Value {
		x, y := a[0], a[1]
		sign := m.and(m.xor(m.bits(x), m.bits(y)), i64(math.MinInt64))
		xz, yz := m.eq(x, m.c(0)), m.eq(y, m.c(0))
		xi, yi := m.isInf(x), m.isInf(y)
		nan := m.or(m.or(m.isNaN(x), m.isNaN(y)), m.or(m.and(xz, yz), m.and(xi, yi)))
		infR := m.or(xi, yz)
		zeroR := m.or(xz, yi)
		special := m.or(nan, m.or(infR, zeroR))
		xs := m.sel(special, m.c(1), x)
		ys := m.sel(special, m.c(1), y)
		fx, ex := m.unpack(xs)
		fy, ey := m.unpack(ys)
		// restoring division: q = floor(fx·2^55 / fy), one quotient bit per iteration
		out := m.whileLoop("fdiv", []value.Value{i64(0), fx, i64(0)},
			func(v []value.Value) value.Value { return m.icmp(enum.IPredSLT, v[0], i64(56)) },
			func(v []value.Value) []value.Value {
				i, r, q := v[0], v[1], v[2]
				ge := m.icmp(enum.IPredUGE, r, fy)
				r = m.sel(ge, m.isub(r, fy), r)
				q = m.or(m.shl(q, i64(1)), m.cur.NewZExt(ge, types.I64))
				return []value.Value{m.iadd(i, i64(1)), m.shl(r, i64(1)), q}
			})
		r, q := out[1], out[2]
		lz := m.ctlz(q)
		sig := m.shl(q, m.isub(lz, i64(1)))
		e := m.iadd(m.isub(i64(8), lz), m.isub(ex, ey))
		res := m.roundPack(sign, e, sig, m.icmp(enum.IPredNE, r, i64(0)))
		signed := func(bits int64) value.Value { return m.fromBits(m.or(sign, i64(bits))) }
		res = m.sel(zeroR, signed(0), res)
		res = m.sel(infR, signed(0x7ff<<52), res)
		return m.sel(nan, m.c(math.NaN()), res)
	})

	defF64(rtSqrt, 1, func(m mb, a []value.Value) value.Value {
		x := a[0]
		keep := m.or(m.isNaN(x), m.or(m.eq(x, m.c(0)), m.eq(x, m.c(posInf))))
		neg := m.lt(x, m.c(0))
		xs := m.sel(m.or(keep, neg), m.c(1), x)
		f, E := m.unpack(xs)
		odd := m.icmp(enum.IPredNE, m.and(E, i64(1)), i64(0))
		f = m.sel(odd, m.shl(f, i64(1)), f)
		E = m.sel(odd, m.isub(E, i64(1)), E)
		// digit-by-digit square root of f·2^54: 54 result bits
		out := m.whileLoop("sqrt", []value.Value{i64(0), i64(0), i64(0)},
			func(v []value.Value) value.Value { return m.icmp(enum.IPredSLT, v[0], i64(54)) },
			func(v []value.Value) []value.Value {
				i, res, rem := v[0], v[1], v[2]
				early := m.icmp(enum.IPredSLT, i, i64(27))
				sh := m.sel(early, m.isub(i64(52), m.shl(i, i64(1))), i64(0))
				pair := m.sel(early, m.and(m.lshr(f, sh), i64(3)), i64(0))
				rem = m.or(m.shl(rem, i64(2)), pair)
				t := m.or(m.shl(res, i64(2)), i64(1))
				ge := m.icmp(enum.IPredUGE, rem, t)
				rem = m.sel(ge, m.isub(rem, t), rem)
				res = m.or(m.shl(res, i64(1)), m.cur.NewZExt(ge, types.I64))
				return []value.Value{m.iadd(i, i64(1)), res, rem}
			})
		res, rem := out[1], out[2]
		e := m.iadd(m.ashr(E, i64(1)), i64(26))
		r := m.roundPack(i64(0), e, m.shl(res, i64(9)), m.icmp(enum.IPredNE, rem, i64(0)))
		r = m.sel(neg, m.c(math.NaN()), r)
		return m.sel(keep, x, r)
	})

	defF64(rtFmod, 2, func(m mb, a []value.Value) value.Value {
		x, y := a[0], a[1]
		ux, uy := m.bits(x), m.bits(y)
		sx := m.and(ux, i64(math.MinInt64))
		ex := m.and(m.lshr(ux, i64(52)), i64(0x7ff))
		ux2, uy2 := m.shl(ux, i64(1)), m.shl(uy, i64(1))
		nan := m.or(m.or(m.icmp(enum.IPredEQ, uy2, i64(0)), m.isNaN(y)), m.icmp(enum.IPredEQ, ex, i64(0x7ff)))
		small := m.icmp(enum.IPredULE, ux2, uy2)
		same := m.icmp(enum.IPredEQ, ux2, uy2)
		zero := m.copysign(m.c(0), x)
		special := m.or(nan, small)
		xs := m.sel(special, m.c(2), x)
		ys := m.sel(special, m.c(1), y)
		fx, exx := m.unpack(m.abs(xs))
		fy, eyy := m.unpack(m.abs(ys))
		// x mod y on the significands, from exponent ex down to ey
		out := m.whileLoop("fmod", []value.Value{exx, fx, boolConst(false)},
			func(v []value.Value) value.Value {
				return m.and(m.icmp(enum.IPredSGT, v[0], eyy), m.not(v[2]))
			},
			func(v []value.Value) []value.Value {
				e, u := v[0], v[1]
				i := m.isub(u, fy)
				nonneg := m.icmp(enum.IPredSGE, i, i64(0))
				z := m.and(nonneg, m.icmp(enum.IPredEQ, i, i64(0)))
				u = m.sel(nonneg, i, u)
				return []value.Value{m.isub(e, i64(1)), m.shl(u, i64(1)), z}
			})
		e, u, z := out[0], out[1], out[2]
		i := m.isub(u, fy)
		nonneg := m.icmp(enum.IPredSGE, i, i64(0))
		z = m.or(z, m.and(nonneg, m.icmp(enum.IPredEQ, i, i64(0))))
		u = m.sel(nonneg, i, u)
		// renormalise: u·2^e with u in [2^52, 2^53); u != 0 unless z
		us := m.sel(z, i64(1<<52), u)
		lz := m.isub(m.ctlz(us), i64(11))
		us = m.shl(us, lz)
		e = m.isub(e, lz)
		// u·2^e is exact and at most |y|: pack it (the biased exponent is e + 1075)
		be := m.iadd(e, i64(1075))
		normal := m.or(m.isub(us, i64(1<<52)), m.shl(be, i64(52)))
		shr := m.isub(i64(1), be)
		subn := m.lshr(us, m.sel(m.icmp(enum.IPredSGT, shr, i64(63)), i64(63), shr))
		bits := m.sel(m.icmp(enum.IPredSGT, be, i64(0)), normal, subn)
		r := m.fromBits(m.or(bits, sx))
		r = m.sel(z, zero, r)
		r = m.sel(small, m.sel(same, zero, x), r)
		return m.sel(nan, m.c(math.NaN()), r)
	})

	round := func(name string, f func(m mb, x, t value.Value) value.Value) {
		defF64(name, 1, func(m mb, a []value.Value) value.Value {
			x := a[0]
			big := m.not(m.lt(m.abs(x), m.c(1<<52))) // NaN, ±Inf and integers
			xs := m.sel(big, m.c(0), x)
			t := m.toFloat(m.toInt(xs))
			return m.sel(big, x, m.copysign(f(m, xs, t), x))
		})
	}
	round(rtFloor, func(m mb, x, t value.Value) value.Value {
		return m.sel(m.gt(t, x), m.sub(t, m.c(1)), t)
	})
	round(rtCeil, func(m mb, x, t value.Value) value.Value {
		return m.sel(m.lt(t, x), m.add(t, m.c(1)), t)
	})
	round(rtRoundEven, func(m mb, x, t value.Value) value.Value {
		d := m.abs(m.sub(x, t))
		step := m.copysign(m.c(1), x)
		odd := m.icmp(enum.IPredNE, m.and(m.toInt(t), i64(1)), i64(0))
		up := m.or(m.gt(d, m.c(0.5)), m.and(m.eq(d, m.c(0.5)), odd))
		return m.sel(up, m.add(t, step), t)
	})

	i64Def := func(name string, body func(m mb, a []value.Value) value.Value) {
		runtimeDefs[name] = &rtDef{ret: types.I64, params: []types.Type{types.I64, types.I64}, body: body}
	}
	// udivmod: restoring division of |a| by |b| (b != 0); returns quotient and remainder
	udivmod := func(m mb, a, b value.Value) (value.Value, value.Value) {
		out := m.whileLoop("idiv", []value.Value{i64(63), i64(0), i64(0)},
			func(v []value.Value) value.Value { return m.icmp(enum.IPredSGE, v[0], i64(0)) },
			func(v []value.Value) []value.Value {
				i, q, r := v[0], v[1], v[2]
				r = m.or(m.shl(r, i64(1)), m.and(m.lshr(a, i), i64(1)))
				ge := m.icmp(enum.IPredUGE, r, b)
				r = m.sel(ge, m.isub(r, b), r)
				q = m.or(q, m.shl(m.cur.NewZExt(ge, types.I64), i))
				return []value.Value{m.isub(i, i64(1)), q, r}
			})
		return out[1], out[2]
	}
	absI := func(m mb, a value.Value) value.Value {
		return m.sel(m.icmp(enum.IPredSLT, a, i64(0)), m.isub(i64(0), a), a)
	}
	i64Def(rtSDiv64, func(m mb, a []value.Value) value.Value {
		q, _ := udivmod(m, absI(m, a[0]), absI(m, a[1]))
		neg := m.icmp(enum.IPredSLT, m.xor(a[0], a[1]), i64(0))
		return m.sel(neg, m.isub(i64(0), q), q)
	})
	i64Def(rtSRem64, func(m mb, a []value.Value) value.Value {
		_, r := udivmod(m, absI(m, a[0]), absI(m, a[1]))
		return m.sel(m.icmp(enum.IPredSLT, a[0], i64(0)), m.isub(i64(0), r), r)
	})
	i64Def(rtIPow, func(m mb, a []value.Value) value.Value {
		// the evaluator multiplies b times (1 for b <= 0); squaring gives the same wrapped bits
		out := m.whileLoop("ipow", []value.Value{a[1], a[0], i64(1)},
			func(v []value.Value) value.Value { return m.icmp(enum.IPredSGT, v[0], i64(0)) },
			func(v []value.Value) []value.Value {
				e, base, r := v[0], v[1], v[2]
				bit := m.icmp(enum.IPredNE, m.and(e, i64(1)), i64(0))
				r = m.sel(bit, m.imul(r, base), r)
				return []value.Value{m.ashr(e, i64(1)), m.imul(base, base), r}
			})
		return out[2]
	})

	// binary16 conversions, bit for bit as ir.Tensor's (f32 -> f16 rounds to nearest even,
	// NaN becomes the quiet NaN 0x7e00 with its sign)
	runtimeDefs[rtHalfTo] = &rtDef{ret: types.I16, params: []types.Type{types.Float},
		body: func(m mb, a []value.Value) value.Value {
			b := m.cur.NewBitCast(a[0], types.I32)
			i32 := func(v int64) value.Value { return i32c(v) }
			sign := m.and(m.lshr(b, i32(16)), i32(0x8000))
			e8 := m.and(m.lshr(b, i32(23)), i32(0xff))
			exp := m.isub(e8, i32(127-15))
			mant := m.and(b, i32(0x7fffff))
			infnan := m.icmp(enum.IPredEQ, e8, i32(0xff))
			nanv := m.or(sign, m.sel(m.icmp(enum.IPredNE, mant, i32(0)), i32(0x7e00), i32(0x7c00)))
			over := m.icmp(enum.IPredSGE, exp, i32(0x1f))
			tiny := m.icmp(enum.IPredSLT, exp, i32(-10))
			sub := m.icmp(enum.IPredSLE, exp, i32(0))
			// subnormal half
			mi := m.or(mant, i32(0x800000))
			shift := m.isub(i32(14), exp)
			shift = m.sel(m.or(tiny, m.not(sub)), i32(14), shift)
			h := m.lshr(mi, shift)
			rem := m.and(mi, m.isub(m.shl(i32(1), shift), i32(1)))
			half := m.shl(i32(1), m.isub(shift, i32(1)))
			hodd := m.icmp(enum.IPredEQ, m.and(h, i32(1)), i32(1))
			upS := m.or(m.icmp(enum.IPredUGT, rem, half), m.and(m.icmp(enum.IPredEQ, rem, half), hodd))
			subv := m.or(sign, m.iadd(h, m.cur.NewZExt(upS, types.I32)))
			// normal half
			hn := m.or(m.shl(exp, i32(10)), m.lshr(mant, i32(13)))
			rn := m.and(mant, i32(0x1fff))
			nodd := m.icmp(enum.IPredEQ, m.and(hn, i32(1)), i32(1))
			upN := m.or(m.icmp(enum.IPredUGT, rn, i32(0x1000)), m.and(m.icmp(enum.IPredEQ, rn, i32(0x1000)), nodd))
			norm := m.or(sign, m.iadd(hn, m.cur.NewZExt(upN, types.I32)))
			r := m.sel(sub, m.sel(tiny, sign, subv), norm)
			r = m.sel(over, m.or(sign, i32(0x7c00)), r)
			r = m.sel(infnan, nanv, r)
			return m.cur.NewTrunc(r, types.I16)
		}}
	runtimeDefs[rtHalfFrom] = &rtDef{ret: types.Float, params: []types.Type{types.I16},
		body: func(m mb, a []value.Value) value.Value {
			h := m.cur.NewZExt(a[0], types.I32)
			i32 := func(v int64) value.Value { return i32c(v) }
			sign := m.shl(m.and(h, i32(0x8000)), i32(16))
			exp := m.and(m.lshr(h, i32(10)), i32(0x1f))
			mant := m.and(h, i32(0x3ff))
			f := func(bits value.Value) value.Value { return m.cur.NewBitCast(bits, types.Float) }
			normal := f(m.or(sign, m.or(m.shl(m.iadd(exp, i32(112)), i32(23)), m.shl(mant, i32(13)))))
			infnan := f(m.or(sign, m.or(i32(0x7f800000), m.shl(mant, i32(13)))))
			// subnormal: mant / 2^24, exact in float
			sv := m.cur.NewFMul(m.cur.NewUIToFP(mant, types.Float), floatConstOf(types.Float, 1.0/(1<<24)))
			sv2 := f(m.or(m.cur.NewBitCast(sv, types.I32), sign))
			r := m.sel(m.icmp(enum.IPredEQ, exp, i32(0x1f)), infnan, normal)
			return m.sel(m.icmp(enum.IPredEQ, exp, i32(0)), sv2, r)
		}}
}
