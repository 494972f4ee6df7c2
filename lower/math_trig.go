// This file holds the runtime's sin, cos, atan and pow, ported from Go's math package (sin.go
// with trig_reduce.go's Payne–Hanek reduction for |x| >= 2^29, atan.go's Cephes reduction to
// [0, 0.66], pow.go with its repeated squaring).

package lower

import (
	"math"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

const reduceThreshold = 1 << 29

var sinCoef = []float64{1.58962301576546568060e-10, -2.50507477628578072866e-8, 2.75573136213857245213e-6, -1.98412698295895385996e-4, 8.33333333332211858878e-3, -1.66666666666666307295e-1}
var cosCoef = []float64{-1.13585365213876817300e-11, 2.08757008419747316778e-9, -2.75573141792967388112e-7, 2.48015872888517045348e-5, -1.38888888888730564116e-3, 4.16666666666665929218e-2}

// mPi4 holds the binary digits of 4/π (Go's trig_reduce.go).
var mPi4 = []uint64{
	0x0000000000000001, 0x45f306dc9c882a53, 0xf84eafa3ea69bb81, 0xb6c52b3278872083,
	0xfca2c757bd778ac3, 0x6e48dc74849ba5c0, 0x0c925dd413a32439, 0xfc3bd63962534e7d,
	0xd1046bea5d768909, 0xd338e04d68befc82, 0x7323ac7306a673e9, 0x3908bf177bf25076,
	0x3ff12fffbc0b301f, 0xde5e2316b414da3e, 0xda6cfd9e4f96136e, 0x9e8c7ecd3cbfd45a,
	0xea4f758fd7cbe2f6, 0x7a0e73ef14a525d4, 0xd7f6bf623f1aba10, 0xac06608df8f6d757,
}

// rpoly is Go's ((((c0*z + c1)*z + c2)...)*z + c5) form.
func (m mb) rpoly(z value.Value, cs []float64) value.Value {
	rev := make([]float64, len(cs))
	for i, c := range cs {
		rev[len(cs)-1-i] = c
	}
	return m.poly(z, rev...)
}

// mulHi returns the high 64 bits of the unsigned 128-bit product a·b.
func (m mb) mulHi(a, b value.Value) value.Value {
	i128 := types.NewInt(128)
	p := m.cur.NewMul(m.cur.NewZExt(a, i128), m.cur.NewZExt(b, i128))
	return m.cur.NewTrunc(m.cur.NewLShr(p, constant.NewInt(i128, 64)), types.I64)
}

// piTable returns the private global holding mPi4.
func (mc *moduleCtx) piTable() *llvm.Global {
	const name = "graphc.mpi4"
	for _, g := range mc.m.Globals {
		if g.Name() == name {
			return g
		}
	}
	at := types.NewArray(uint64(len(mPi4)), types.I64)
	elems := make([]constant.Constant, len(mPi4))
	for i, v := range mPi4 {
		elems[i] = constant.NewInt(types.I64, int64(v))
	}
	g := mc.m.NewGlobalDef(name, constant.NewArray(at, elems...))
	g.Immutable = true
	g.Linkage = enum.LinkagePrivate
	return g
}

// trigReduce is Go's Payne–Hanek reduction of x >= π/4: j (octant) and z with x ≡ z + j·π/4.
func (m mb) trigReduce(x value.Value) (value.Value, value.Value) {
	tab := m.mc.piTable()
	at := tab.ContentType
	digitAt := func(i value.Value) value.Value {
		p := m.cur.NewGetElementPtr(at, tab, i64(0), i)
		return m.cur.NewLoad(types.I64, p)
	}
	ix := m.bits(x)
	exp := m.isub(m.and(m.lshr(ix, i64(52)), i64(0x7ff)), i64(1023+52))
	ix = m.or(m.and(ix, i64(^(0x7ff<<52))), i64(1<<52))
	e61 := m.iadd(exp, i64(61))
	digit := m.lshr(e61, i64(6))
	bitshift := m.and(e61, i64(63))
	comb := func(k int64) value.Value {
		a := digitAt(m.iadd(digit, i64(k)))
		b := digitAt(m.iadd(digit, i64(k+1)))
		return m.or(m.shl(a, bitshift), m.lshrSafe(b, m.isub(i64(64), bitshift)))
	}
	z0, z1, z2 := comb(0), comb(1), comb(2)
	z2hi := m.mulHi(z2, ix)
	z1hi := m.mulHi(z1, ix)
	z1lo := m.imul(z1, ix)
	z0lo := m.imul(z0, ix)
	lo := m.iadd(z1lo, z2hi)
	carry := m.cur.NewZExt(m.icmp(enum.IPredULT, lo, z1lo), types.I64)
	hi := m.iadd(m.iadd(z0lo, z1hi), carry)
	j := m.lshr(hi, i64(61))
	hi = m.or(m.shl(hi, i64(3)), m.lshr(lo, i64(61)))
	lz1 := m.iadd(m.ctlz(hi), i64(1))
	e := m.isub(i64(1023), lz1)
	hi = m.or(m.shlSafe(hi, lz1), m.lshrSafe(lo, m.isub(i64(64), lz1)))
	hi = m.lshr(hi, i64(12))
	hi = m.or(hi, m.shl(e, i64(52)))
	z := m.fromBits(hi)
	odd := m.icmp(enum.IPredEQ, m.and(j, i64(1)), i64(1))
	j = m.sel(odd, m.and(m.iadd(j, i64(1)), i64(7)), j)
	z = m.sel(odd, m.sub(z, m.c(1)), z)
	return j, m.mul(z, m.c(math.Pi/4))
}

// octant returns (j, z) for x >= 0 finite: Cody–Waite below 2^29, Payne–Hanek above.
func (m mb) octant(x value.Value) (value.Value, value.Value) {
	const (
		pi4a = 7.85398125648498535156e-1
		pi4b = 3.77489470793079817668e-8
		pi4c = 2.69515142907905952645e-15
	)
	large := m.ge(x, m.c(reduceThreshold))
	xs := m.sel(large, m.c(0), x)
	j := m.toInt(m.mul(xs, m.c(4/math.Pi)))
	y := m.toFloat(j)
	odd := m.icmp(enum.IPredEQ, m.and(j, i64(1)), i64(1))
	j = m.sel(odd, m.iadd(j, i64(1)), j)
	y = m.sel(odd, m.add(y, m.c(1)), y)
	j = m.and(j, i64(7))
	z := m.sub(m.sub(m.sub(xs, m.mul(y, m.c(pi4a))), m.mul(y, m.c(pi4b))), m.mul(y, m.c(pi4c)))
	// the Payne–Hanek path only runs for large arguments
	res := m.ifElse(large, "trig.reduce", func() value.Value {
		jj, zz := m.trigReduce(m.sel(large, x, m.c(reduceThreshold)))
		return m.packJZ(jj, zz)
	}, func() value.Value { return m.packJZ(j, z) })
	return m.unpackJZ(res)
}

// packJZ packs (j, z) into a {i64, double} struct so that ifElse can merge them.
func (m mb) packJZ(j, z value.Value) value.Value {
	st := types.NewStruct(types.I64, types.Double)
	v := m.cur.NewInsertValue(constant.NewUndef(st), j, 0)
	return m.cur.NewInsertValue(v, z, 1)
}

func (m mb) unpackJZ(v value.Value) (value.Value, value.Value) {
	return m.cur.NewExtractValue(v, 0), m.cur.NewExtractValue(v, 1)
}

func (m mb) sinPoly(z, zz value.Value) value.Value {
	return m.add(z, m.mul(m.mul(z, zz), m.rpoly(zz, sinCoef)))
}

func (m mb) cosPoly(zz value.Value) value.Value {
	return m.add(m.sub(m.c(1), m.mul(m.c(0.5), zz)), m.mul(m.mul(zz, zz), m.rpoly(zz, cosCoef)))
}

func init() {
	defF64(rtSin, 1, func(m mb, a []value.Value) value.Value {
		x0 := a[0]
		keep := m.or(m.eq(x0, m.c(0)), m.isNaN(x0))
		inf := m.isInf(x0)
		sign := m.lt(x0, m.c(0))
		x := m.sel(m.or(keep, inf), m.c(0), m.abs(x0))
		j, z := m.octant(x)
		hi := m.icmp(enum.IPredUGT, j, i64(3))
		sign = m.xor(sign, hi)
		j = m.sel(hi, m.isub(j, i64(4)), j)
		zz := m.mul(z, z)
		useCos := m.or(m.icmp(enum.IPredEQ, j, i64(1)), m.icmp(enum.IPredEQ, j, i64(2)))
		y := m.sel(useCos, m.cosPoly(zz), m.sinPoly(z, zz))
		y = m.sel(sign, m.neg(y), y)
		y = m.sel(inf, m.c(math.NaN()), y)
		return m.sel(keep, x0, y)
	})
	defF64(rtCos, 1, func(m mb, a []value.Value) value.Value {
		x0 := a[0]
		bad := m.or(m.isNaN(x0), m.isInf(x0))
		x := m.sel(bad, m.c(0), m.abs(x0))
		j, z := m.octant(x)
		hi := m.icmp(enum.IPredUGT, j, i64(3))
		sign := hi
		j = m.sel(hi, m.isub(j, i64(4)), j)
		sign = m.xor(sign, m.icmp(enum.IPredUGT, j, i64(1)))
		zz := m.mul(z, z)
		useSin := m.or(m.icmp(enum.IPredEQ, j, i64(1)), m.icmp(enum.IPredEQ, j, i64(2)))
		y := m.sel(useSin, m.sinPoly(z, zz), m.cosPoly(zz))
		y = m.sel(sign, m.neg(y), y)
		return m.sel(bad, m.c(math.NaN()), y)
	})
	defF64(rtAtan, 1, atanBody)
	defF64(rtPow, 2, powBody)
}

// xatan is Go's xatan: atan(x) for 0 <= x <= 0.66 by a rational function of x².
func (m mb) xatan(x value.Value) value.Value {
	const (
		p0 = -8.750608600031904122785e-01
		p1 = -1.615753718733365076637e+01
		p2 = -7.500855792314704667340e+01
		p3 = -1.228866684490136173410e+02
		p4 = -6.485021904942025371773e+01
		q0 = +2.485846490142306297962e+01
		q1 = +1.650270098316988542046e+02
		q2 = +4.328810604912902668951e+02
		q3 = +4.853903996359136964868e+02
		q4 = +1.945506571482613964425e+02
	)
	z := m.mul(x, x)
	num := m.add(m.mul(m.add(m.mul(m.add(m.mul(m.add(m.mul(m.c(p0), z), m.c(p1)), z), m.c(p2)), z), m.c(p3)), z), m.c(p4))
	den := m.add(m.mul(m.add(m.mul(m.add(m.mul(m.add(m.mul(m.add(z, m.c(q0)), z), m.c(q1)), z), m.c(q2)), z), m.c(q3)), z), m.c(q4))
	z = m.div(m.mul(z, num), den)
	return m.add(m.mul(x, z), x)
}

// atanBody is Go's atan (satan's three ranges on |x|, the sign restored; ±0 and NaN kept).
func atanBody(m mb, a []value.Value) value.Value {
	const (
		morebits = 6.123233995736765886130e-17 // π/2 = Pi/2 + morebits
		tan3pio8 = 2.41421356237309504880      // tan(3π/8)
	)
	x0 := a[0]
	x := m.abs(x0)
	small := m.le(x, m.c(0.66))
	big := m.gt(x, m.c(tan3pio8))
	// the argument of xatan in each range, kept finite in the ranges not taken
	arg := m.sel(small, x, m.sel(big, m.div(m.c(1), x), m.div(m.sub(x, m.c(1)), m.add(x, m.c(1)))))
	t := m.xatan(arg)
	r := m.sel(small, t, m.sel(big, m.add(m.sub(m.c(math.Pi/2), t), m.c(morebits)),
		m.add(m.add(m.c(math.Pi/4), t), m.c(0.5*morebits))))
	r = m.sel(m.lt(x0, m.c(0)), m.neg(r), r)
	return m.sel(m.or(m.eq(x0, m.c(0)), m.isNaN(x0)), x0, r)
}

// modf returns the integer and fractional parts of f >= 0 (finite).
func (m mb) modf(f value.Value) (value.Value, value.Value) {
	small := m.lt(f, m.c(1))
	x := m.bits(f)
	e := m.isub(m.and(m.lshr(x, i64(52)), i64(0x7ff)), i64(1023))
	sh := m.sel(m.icmp(enum.IPredSLT, e, i64(52)), m.isub(i64(52), e), i64(0))
	sh = m.sel(small, i64(0), sh)
	mask := m.isub(m.shl(i64(1), sh), i64(1))
	ip := m.fromBits(m.and(x, m.xor(mask, i64(-1))))
	ip = m.sel(small, m.c(0), ip)
	return ip, m.sub(f, ip)
}

// isOddInt reports whether y is an odd integer (Go's isOddInt).
func (m mb) isOddInt(y value.Value) value.Value {
	a := m.abs(y)
	big := m.ge(a, m.c(1<<53))
	a = m.sel(m.or(big, m.isNaN(a)), m.c(0), a)
	ip, fp := m.modf(a)
	odd := m.icmp(enum.IPredEQ, m.and(m.toInt(ip), i64(1)), i64(1))
	return m.and(m.not(big), m.and(m.eq(fp, m.c(0)), odd))
}

// powBody is Go's pow.
func powBody(m mb, a []value.Value) value.Value {
	x, y := a[0], a[1]
	inf, ninf, nan := m.c(posInf), m.c(math.Inf(-1)), m.c(math.NaN())
	signX := m.icmp(enum.IPredSLT, m.bits(x), i64(0))
	oddY := m.isOddInt(y)
	absLt1 := m.lt(m.abs(x), m.c(1))
	// special cases, first match wins: build from the last one to the first
	type sc struct{ cond, val value.Value }
	var cases []sc
	add := func(c, v value.Value) { cases = append(cases, sc{c, v}) }
	add(m.or(m.eq(y, m.c(0)), m.eq(x, m.c(1))), m.c(1))
	add(m.eq(y, m.c(1)), x)
	add(m.or(m.isNaN(x), m.isNaN(y)), nan)
	zeroNeg := m.sel(m.and(signX, oddY), ninf, inf)
	zeroPos := m.sel(m.and(signX, oddY), x, m.c(0))
	add(m.and(m.eq(x, m.c(0)), m.lt(y, m.c(0))), zeroNeg)
	add(m.and(m.eq(x, m.c(0)), m.gt(y, m.c(0))), zeroPos)
	yInf := m.isInf(y)
	yInfVal := m.sel(m.eq(x, m.c(-1)), m.c(1), m.sel(m.icmp(enum.IPredEQ, absLt1, m.eq(y, inf)), m.c(0), inf))
	add(yInf, yInfVal)
	// x = -Inf: Pow(-0, -y); x = +Inf: 0 or Inf by the sign of y
	negInfVal := m.sel(m.gt(y, m.c(0)), m.sel(oddY, ninf, inf), m.sel(oddY, m.c(math.Copysign(0, -1)), m.c(0)))
	add(m.eq(x, ninf), negInfVal)
	add(m.eq(x, inf), m.sel(m.lt(y, m.c(0)), m.c(0), inf))
	add(m.eq(y, m.c(0.5)), m.sqrt(x))
	add(m.eq(y, m.c(-0.5)), m.div(m.c(1), m.sqrt(x)))
	var special value.Value = boolConst(false)
	var sval value.Value = m.c(0)
	for i := len(cases) - 1; i >= 0; i-- {
		sval = m.sel(cases[i].cond, cases[i].val, sval)
		special = m.or(cases[i].cond, special)
	}
	return m.ifElse(special, "pow.special", func() value.Value { return sval }, func() value.Value {
		yi, yf := m.modf(m.abs(y))
		nanCase := m.and(m.ne(yf, m.c(0)), m.lt(x, m.c(0)))
		hugeY := m.ge(yi, m.c(1<<63))
		hugeVal := m.sel(m.eq(x, m.c(-1)), m.c(1), m.sel(m.icmp(enum.IPredEQ, absLt1, m.gt(y, m.c(0))), m.c(0), inf))
		yi = m.sel(hugeY, m.c(0), yi)
		// ans *= x**yf
		fracOn := m.ne(yf, m.c(0))
		gtHalf := m.and(fracOn, m.gt(yf, m.c(0.5)))
		yf = m.sel(gtHalf, m.sub(yf, m.c(1)), yf)
		yi = m.sel(gtHalf, m.add(yi, m.c(1)), yi)
		a1 := m.ifElse(m.and(fracOn, m.not(nanCase)), "pow.frac", func() value.Value {
			return m.callRT(rtExp, m.mul(yf, m.callRT(rtLog, x)))
		}, func() value.Value { return m.c(1) })
		x1, xe := m.frexp(x)
		i := m.toInt(yi)
		out := m.whileLoop("pow.sq", []value.Value{i, a1, i64(0), x1, xe, boolConst(false)},
			func(v []value.Value) value.Value {
				return m.and(m.icmp(enum.IPredNE, v[0], i64(0)), m.not(v[5]))
			},
			func(v []value.Value) []value.Value {
				i, a1, ae, x1, xe := v[0], v[1], v[2], v[3], v[4]
				brk := m.or(m.icmp(enum.IPredSLT, xe, i64(-1<<12)), m.icmp(enum.IPredSGT, xe, i64(1<<12)))
				bit := m.icmp(enum.IPredEQ, m.and(i, i64(1)), i64(1))
				aeBit := m.sel(bit, m.iadd(ae, xe), ae)
				a1Bit := m.sel(bit, m.mul(a1, x1), a1)
				sq := m.mul(x1, x1)
				xe2 := m.shl(xe, i64(1))
				low := m.lt(sq, m.c(0.5))
				sq2 := m.sel(low, m.add(sq, sq), sq)
				xe2 = m.sel(low, m.isub(xe2, i64(1)), xe2)
				return []value.Value{
					m.ashr(i, i64(1)),
					m.sel(brk, a1, a1Bit),
					m.sel(brk, m.iadd(ae, xe), aeBit),
					sq2, xe2, brk,
				}
			})
		a1, ae := out[1], out[2]
		negY := m.lt(y, m.c(0))
		a1 = m.sel(negY, m.div(m.c(1), a1), a1)
		ae = m.sel(negY, m.isub(i64(0), ae), ae)
		r := m.callRT(rtLdexp, a1, ae)
		r = m.sel(hugeY, hugeVal, r)
		return m.sel(nanCase, nan, r)
	})
}
