// This file holds the runtime's exponential family, ported from Go's math package (exp.go,
// ldexp.go, frexp.go, log.go, tanh.go, erf.go): exp, ldexp, log, tanh, sigmoid and erf in
// float64. Special cases are computed on the side and selected at the end; the main path runs
// on a sanitised argument so that no poison value reaches a conversion.

package lower

import (
	"math"

	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

const (
	ln2Hi = 6.93147180369123816490e-01
	ln2Lo = 1.90821492927058770002e-10
)

// frexp returns frac in [0.5, 1) and exp with f = frac·2^exp (f itself and 0 for 0, ±Inf, NaN).
func (m mb) frexp(f value.Value) (value.Value, value.Value) {
	special := m.or(m.eq(f, m.c(0)), m.or(m.isInf(f), m.isNaN(f)))
	f2, e := m.normalize(f)
	x := m.bits(f2)
	exp := m.iadd(e, m.isub(m.and(m.lshr(x, i64(52)), i64(0x7ff)), i64(1022)))
	x = m.or(m.and(x, i64(^(0x7ff<<52))), i64(1022<<52))
	return m.sel(special, f, m.fromBits(x)), m.sel(special, i64(0), exp)
}

// normalize returns (x·2^52, -52) for subnormal x, else (x, 0).
func (m mb) normalize(x value.Value) (value.Value, value.Value) {
	small := m.lt(m.abs(x), m.c(2.2250738585072014e-308))
	return m.sel(small, m.mul(x, m.c(1<<52)), x), m.sel(small, i64(-52), i64(0))
}

func init() {
	runtimeDefs[rtLdexp] = &rtDef{ret: types.Double, params: []types.Type{types.Double, types.I64},
		body: func(m mb, a []value.Value) value.Value {
			frac, exp := a[0], a[1]
			special := m.or(m.eq(frac, m.c(0)), m.or(m.isInf(frac), m.isNaN(frac)))
			f2, e := m.normalize(frac)
			exp = m.iadd(exp, e)
			x := m.bits(f2)
			exp = m.iadd(exp, m.isub(m.and(m.lshr(x, i64(52)), i64(0x7ff)), i64(1023)))
			under := m.icmp(enum.IPredSLT, exp, i64(-1075))
			over := m.icmp(enum.IPredSGT, exp, i64(1023))
			denorm := m.icmp(enum.IPredSLT, exp, i64(-1022))
			exp = m.sel(denorm, m.iadd(exp, i64(53)), exp)
			scale := m.sel(denorm, m.c(1.0/(1<<53)), m.c(1))
			x = m.and(x, i64(^(0x7ff << 52)))
			x = m.or(x, m.shl(m.and(m.iadd(exp, i64(1023)), i64(0x7ff)), i64(52)))
			r := m.mul(scale, m.fromBits(x))
			inf := m.sel(m.lt(frac, m.c(0)), m.c(math.Inf(-1)), m.c(posInf))
			r = m.sel(over, inf, r)
			r = m.sel(under, m.copysign(m.c(0), frac), r)
			return m.sel(special, frac, r)
		}}

	defF64(rtExp, 1, func(m mb, a []value.Value) value.Value {
		const (
			log2e     = 1.44269504088896338700e+00
			overflow  = 7.09782712893383973096e+02
			underflow = -7.45133219101941108420e+02
			nearZero  = 1.0 / (1 << 28)
		)
		x := a[0]
		nan := m.isNaN(x)
		over := m.gt(x, m.c(overflow))
		under := m.lt(x, m.c(underflow))
		tiny := m.lt(m.abs(x), m.c(nearZero))
		// main path on a sanitised argument
		xs := m.sel(m.or(nan, m.or(over, under)), m.c(0), x)
		t := m.mul(m.c(log2e), xs)
		kpos := m.toInt(m.add(t, m.c(0.5)))
		kneg := m.toInt(m.sub(t, m.c(0.5)))
		k := m.sel(m.lt(xs, m.c(0)), kneg, m.sel(m.gt(xs, m.c(0)), kpos, i64(0)))
		kf := m.toFloat(k)
		hi := m.sub(xs, m.mul(kf, m.c(ln2Hi)))
		lo := m.mul(kf, m.c(ln2Lo))
		r := m.expmulti(hi, lo, k)
		r = m.sel(tiny, m.add(m.c(1), x), r)
		r = m.sel(under, m.c(0), r)
		r = m.sel(over, m.c(posInf), r)
		return m.sel(nan, x, r)
	})

	defF64(rtLog, 1, func(m mb, a []value.Value) value.Value {
		const (
			l1 = 6.666666666666735130e-01
			l2 = 3.999999999940941908e-01
			l3 = 2.857142874366239149e-01
			l4 = 2.222219843214978396e-01
			l5 = 1.818357216161805012e-01
			l6 = 1.531383769920937332e-01
			l7 = 1.479819860511658591e-01
		)
		x := a[0]
		passthrough := m.or(m.isNaN(x), m.eq(x, m.c(posInf)))
		neg := m.lt(x, m.c(0))
		zero := m.eq(x, m.c(0))
		xs := m.sel(m.or(passthrough, m.or(neg, zero)), m.c(1), x)
		f1, ki := m.frexp(xs)
		small := m.lt(f1, m.c(math.Sqrt2/2))
		f1 = m.sel(small, m.mul(f1, m.c(2)), f1)
		ki = m.sel(small, m.isub(ki, i64(1)), ki)
		f := m.sub(f1, m.c(1))
		k := m.toFloat(ki)
		s := m.div(f, m.add(m.c(2), f))
		s2 := m.mul(s, s)
		s4 := m.mul(s2, s2)
		t1 := m.mul(s2, m.add(m.c(l1), m.mul(s4, m.add(m.c(l3), m.mul(s4, m.add(m.c(l5), m.mul(s4, m.c(l7))))))))
		t2 := m.mul(s4, m.add(m.c(l2), m.mul(s4, m.add(m.c(l4), m.mul(s4, m.c(l6))))))
		R := m.add(t1, t2)
		hfsq := m.mul(m.mul(m.c(0.5), f), f)
		r := m.sub(m.mul(k, m.c(ln2Hi)), m.sub(m.sub(hfsq, m.add(m.mul(s, m.add(hfsq, R)), m.mul(k, m.c(ln2Lo)))), f))
		r = m.sel(zero, m.c(math.Inf(-1)), r)
		r = m.sel(neg, m.c(math.NaN()), r)
		return m.sel(passthrough, x, r)
	})

	defF64(rtTanh, 1, func(m mb, a []value.Value) value.Value {
		const maxlog = 8.8029691931113054295988e+01
		x := a[0]
		z := m.abs(x)
		sat := m.gt(z, m.c(0.5*maxlog))
		big := m.ge(z, m.c(0.625))
		one := m.sel(m.lt(x, m.c(0)), m.c(-1), m.c(1))
		r := m.ifElse(m.and(big, m.not(sat)), "tanh.big", func() value.Value {
			s := m.callRT(rtExp, m.mul(m.c(2), z))
			t := m.sub(m.c(1), m.div(m.c(2), m.add(s, m.c(1))))
			return m.sel(m.lt(x, m.c(0)), m.neg(t), t)
		}, func() value.Value {
			s := m.mul(x, x)
			num := m.add(m.mul(m.add(m.mul(m.c(-9.64399179425052238628e-1), s), m.c(-9.92877231001918586564e1)), s), m.c(-1.61468768441708447952e3))
			den := m.add(m.mul(m.add(m.mul(m.add(s, m.c(1.12811678491632931402e2)), s), m.c(2.23548839060100448583e3)), s), m.c(4.84406305325125486048e3))
			t := m.add(x, m.div(m.mul(m.mul(x, s), num), den))
			return m.sel(m.eq(x, m.c(0)), x, t)
		})
		return m.sel(sat, one, r)
	})

	defF64(rtSigmoid, 1, func(m mb, a []value.Value) value.Value {
		// the evaluator's formula: 1 / (1 + e^-x)
		return m.div(m.c(1), m.add(m.c(1), m.callRT(rtExp, m.neg(a[0]))))
	})

	defF64(rtErf, 1, erfBody)
}

// expmulti returns e^r·2^k with r = hi - lo, |r| <= ln(2)/2 (Go's expmulti).
func (m mb) expmulti(hi, lo, k value.Value) value.Value {
	const (
		p1 = 1.66666666666666657415e-01
		p2 = -2.77777777770155933842e-03
		p3 = 6.61375632143793436117e-05
		p4 = -1.65339022054652515390e-06
		p5 = 4.13813679705723846039e-08
	)
	r := m.sub(hi, lo)
	t := m.mul(r, r)
	c := m.sub(r, m.mul(t, m.poly(t, p1, p2, p3, p4, p5)))
	y := m.sub(m.c(1), m.sub(m.sub(lo, m.div(m.mul(r, c), m.sub(m.c(2), c))), hi))
	return m.callRT(rtLdexp, y, k)
}

// erfBody is Go's erf (fdlibm's s_erf.c).
func erfBody(m mb, a []value.Value) value.Value {
	const (
		erx      = 8.45062911510467529297e-01
		efx      = 1.28379167095512586316e-01
		efx8     = 1.02703333676410069053e+00
		veryTiny = 2.848094538889218e-306
		small    = 1.0 / (1 << 28)
	)
	pp := []float64{1.28379167095512558561e-01, -3.25042107247001499370e-01, -2.84817495755985104766e-02, -5.77027029648944159157e-03, -2.37630166566501626084e-05}
	qq := []float64{1, 3.97917223959155352819e-01, 6.50222499887672944485e-02, 5.08130628187576562776e-03, 1.32494738004321644526e-04, -3.96022827877536812320e-06}
	pa := []float64{-2.36211856075265944077e-03, 4.14856118683748331666e-01, -3.72207876035701323847e-01, 3.18346619901161753674e-01, -1.10894694282396677476e-01, 3.54783043256182359371e-02, -2.16637559486879084300e-03}
	qa := []float64{1, 1.06420880400844228286e-01, 5.40397917702171048937e-01, 7.18286544141962662868e-02, 1.26171219808761642112e-01, 1.36370839120290507362e-02, 1.19844998467991074170e-02}
	ra := []float64{-9.86494403484714822705e-03, -6.93858572707181764372e-01, -1.05586262253232909814e+01, -6.23753324503260060396e+01, -1.62396669462573470355e+02, -1.84605092906711035994e+02, -8.12874355063065934246e+01, -9.81432934416914548592e+00}
	sa := []float64{1, 1.96512716674392571292e+01, 1.37657754143519042600e+02, 4.34565877475229228821e+02, 6.45387271733267880336e+02, 4.29008140027567833386e+02, 1.08635005541779435134e+02, 6.57024977031928170135e+00, -6.04244152148580987438e-02}
	rb := []float64{-9.86494292470009928597e-03, -7.99283237680523006574e-01, -1.77579549177547519889e+01, -1.60636384855821916062e+02, -6.37566443368389627722e+02, -1.02509513161107724954e+03, -4.83519191608651397019e+02}
	sb := []float64{1, 3.03380607434824582924e+01, 3.25792512996573918826e+02, 1.53672958608443695994e+03, 3.19985821950859553908e+03, 2.55305040643316442583e+03, 4.74528541206955367215e+02, -2.24409524465858183362e+01}

	x0 := a[0]
	nan := m.isNaN(x0)
	sign := m.lt(x0, m.c(0))
	x := m.sel(nan, m.c(0), m.abs(x0)) // ±Inf become +Inf and take the >= 6 branch
	apply := func(v value.Value) value.Value { return m.sel(sign, m.neg(v), v) }
	r := m.ifElse(m.lt(x, m.c(0.84375)), "erf.small", func() value.Value {
		z := m.mul(x, x)
		rr := m.poly(z, pp...)
		s := m.poly(z, qq...)
		y := m.div(rr, s)
		temp := m.add(x, m.mul(x, y))
		temp = m.sel(m.lt(x, m.c(small)), m.add(x, m.mul(m.c(efx), x)), temp)
		temp = m.sel(m.lt(x, m.c(veryTiny)), m.mul(m.c(0.125), m.add(m.mul(m.c(8.0), x), m.mul(m.c(efx8), x))), temp)
		return apply(temp)
	}, func() value.Value {
		return m.ifElse(m.lt(x, m.c(1.25)), "erf.mid", func() value.Value {
			s := m.sub(x, m.c(1))
			P := m.poly(s, pa...)
			Q := m.poly(s, qa...)
			pq := m.div(P, Q)
			return m.sel(sign, m.sub(m.c(-erx), pq), m.add(m.c(erx), pq))
		}, func() value.Value {
			return m.ifElse(m.ge(x, m.c(6)), "erf.sat", func() value.Value {
				return m.sel(sign, m.c(-1), m.c(1))
			}, func() value.Value {
				s := m.div(m.c(1), m.mul(x, x))
				near := m.lt(x, m.c(1/0.35))
				R := m.sel(near, m.poly(s, ra...), m.poly(s, rb...))
				S := m.sel(near, m.poly(s, sa...), m.poly(s, sb...))
				z := m.fromBits(m.and(m.bits(x), i64(-0x100000000)))
				e1 := m.callRT(rtExp, m.sub(m.mul(m.neg(z), z), m.c(0.5625)))
				e2 := m.callRT(rtExp, m.add(m.mul(m.sub(z, x), m.add(z, x)), m.div(R, S)))
				rr := m.mul(e1, e2)
				q := m.div(rr, x)
				return m.sel(sign, m.sub(q, m.c(1)), m.sub(m.c(1), q))
			})
		})
	})
	return m.sel(nan, m.c(math.NaN()), r)
}
