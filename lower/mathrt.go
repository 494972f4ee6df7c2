// This file holds graphc's built-in math runtime: functions emitted as LLVM IR into the
// module that needs them (internal linkage), so that Hexagon modules reference no external
// symbol and every target computes the same bits (the float32 polynomials of math_vec.go: every
// target of the same FMA capability). The transcendental functions are ports of Go's
// pure-Go math package (fdlibm and Cephes algorithms, same constants and evaluation order) in
// float64; f32 and f16 operations widen to float64 and round once at the end. Accuracy, measured
// by lower/math_test.go against Go's math over sweeps, is stated in lower/doc.go.
//
// It also holds the small DSL those ports are written in (mb) and the helpers the body emitter
// calls for operations whose lowering depends on the target (division, square root).

package lower

import (
	"math"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Runtime function names.
const (
	rtExp       = "graphc.exp"
	rtLog       = "graphc.log"
	rtTanh      = "graphc.tanh"
	rtSigmoid   = "graphc.sigmoid"
	rtErf       = "graphc.erf"
	rtSin       = "graphc.sin"
	rtCos       = "graphc.cos"
	rtAtan      = "graphc.atan"
	rtPow       = "graphc.pow"
	rtFloor     = "graphc.floor"
	rtCeil      = "graphc.ceil"
	rtRoundEven = "graphc.roundeven"
	rtFmod      = "graphc.fmod"
	rtLdexp     = "graphc.ldexp"
	rtFDiv      = "graphc.fdiv"
	rtSqrt      = "graphc.sqrt"
	rtSDiv64    = "graphc.sdiv64"
	rtSRem64    = "graphc.srem64"
	rtIPow      = "graphc.ipow"
	rtHalfTo    = "graphc.f32_to_f16"
	rtHalfFrom  = "graphc.f16_to_f32"
)

var posInf = math.Inf(1)

// rtDef declares a runtime function: its signature and the builder of its body.
type rtDef struct {
	ret    types.Type
	params []types.Type
	body   func(m mb, args []value.Value) value.Value
}

// runtimeDefs is filled by the math_*.go files.
var runtimeDefs = map[string]*rtDef{}

// rtFunc returns the runtime function name, emitting it on first use.
func (mc *moduleCtx) rtFunc(name string) *llvm.Func {
	if f, ok := mc.rt[name]; ok {
		return f
	}
	def := runtimeDefs[name]
	if def == nil {
		panic("lower: unknown runtime function " + name)
	}
	var ps []*llvm.Param
	for i, t := range def.params {
		ps = append(ps, llvm.NewParam("a"+string(rune('0'+i)), t))
	}
	f := mc.m.NewFunc(name, def.ret, ps...)
	f.Linkage = enum.LinkageInternal
	mc.defineAttrs(f)
	mc.rt[name] = f // before the body: functions may call themselves or each other
	fb := newFuncBuilder(mc, f)
	args := make([]value.Value, len(ps))
	for i, p := range ps {
		args[i] = p
	}
	r := def.body(mb{fb}, args)
	fb.cur.NewRet(r)
	return f
}

func (mc *moduleCtx) rtHalfToBits() *llvm.Func   { return mc.rtFunc(rtHalfTo) }
func (mc *moduleCtx) rtHalfFromBits() *llvm.Func { return mc.rtFunc(rtHalfFrom) }

// intrinsic declares an LLVM intrinsic.
func (mc *moduleCtx) intrinsic(name string, ret types.Type, params ...types.Type) *llvm.Func {
	if f, ok := mc.intr[name]; ok {
		return f
	}
	var ps []*llvm.Param
	for _, t := range params {
		ps = append(ps, llvm.NewParam("", t))
	}
	f := mc.m.NewFunc(name, ret, ps...)
	mc.intr[name] = f
	return f
}

// call emits a call of f; vector arguments are applied lane by lane.
func (fb *funcBuilder) call(f *llvm.Func, args ...value.Value) value.Value {
	if len(args) > 0 {
		if vt, ok := args[0].Type().(*types.VectorType); ok {
			var out value.Value = constant.NewUndef(types.NewVector(vt.Len, f.Sig.RetType))
			for l := uint64(0); l < vt.Len; l++ {
				lane := make([]value.Value, len(args))
				for i, a := range args {
					lane[i] = fb.cur.NewExtractElement(a, i32c(int64(l)))
				}
				out = fb.cur.NewInsertElement(out, fb.cur.NewCall(f, lane...), i32c(int64(l)))
			}
			return out
		}
	}
	return fb.cur.NewCall(f, args...)
}

// toF64 widens a float (or float vector) to double.
func (fb *funcBuilder) toF64(x value.Value) value.Value {
	t := x.Type()
	if vt, ok := t.(*types.VectorType); ok {
		if vt.ElemType == types.Double {
			return x
		}
		return fb.cur.NewFPExt(x, types.NewVector(vt.Len, types.Double))
	}
	if t == types.Double {
		return x
	}
	return fb.cur.NewFPExt(x, types.Double)
}

// fdiv divides floats: natively, or with graphc's correctly rounded soft division for doubles
// on targets without an inline f64 division.
func (fb *funcBuilder) fdiv(x, y value.Value) value.Value {
	if fb.mc.tgt.SoftFloatDiv && bitsOfFloat(x.Type()) == 64 {
		return fb.call(fb.mc.rtFunc(rtFDiv), x, y)
	}
	return fb.cur.NewFDiv(x, y)
}

// sqrt is the correctly rounded square root: llvm.sqrt, or graphc's soft square root (in
// double, exact for float after one rounding) on targets without one.
func (fb *funcBuilder) sqrt(x value.Value) value.Value {
	if fb.mc.tgt.SoftSqrt {
		r := fb.call(fb.mc.rtFunc(rtSqrt), fb.toF64(x))
		if bitsOfFloat(x.Type()) == 32 {
			return fb.cur.NewFPTrunc(r, x.Type())
		}
		return r
	}
	t := x.Type()
	return fb.cur.NewCall(fb.mc.intrinsic("llvm.sqrt."+intrinsicSuffix(t), t, t), x)
}

// fabs clears the sign bit (scalars and vectors; no intrinsic needed).
func (fb *funcBuilder) fabs(x value.Value) value.Value {
	it := intTypeLike(x.Type())
	mask := int64(math.MaxInt64)
	if bitWidth(it) == 32 {
		mask = math.MaxInt32
	}
	b := fb.cur.NewBitCast(x, it)
	return fb.cur.NewBitCast(fb.cur.NewAnd(b, intConstOf(it, mask)), x.Type())
}

// widen64 extends an integer (or i1) to i64.
func (fb *funcBuilder) widen64(x value.Value, unsigned bool) value.Value {
	t := x.Type()
	w := bitWidth(t)
	if c, ok := x.(*constant.Int); ok && w < 64 {
		v := c.X.Int64()
		if unsigned || w == 1 {
			v &= int64(1)<<w - 1
		}
		return i64(v)
	}
	to := types.Type(types.I64)
	if vt, ok := t.(*types.VectorType); ok {
		to = types.NewVector(vt.Len, types.I64)
	}
	switch {
	case w == 64:
		return x
	case unsigned || w == 1:
		return fb.cur.NewZExt(x, to)
	}
	return fb.cur.NewSExt(x, to)
}

// narrow truncates an i64 (vector) to integer type to.
func (fb *funcBuilder) narrow(x value.Value, to types.Type) value.Value {
	if bitWidth(to) == 64 {
		return x
	}
	return fb.cur.NewTrunc(x, to)
}

// intDivRem is the evaluator's integer division or remainder: division by zero makes the entry
// return statusDivZero; the quotient truncates toward zero and is computed in int64 (so
// INT32_MIN / -1 wraps as in Go), INT64_MIN / -1 = INT64_MIN and INT64_MIN % -1 = 0.
func (fb *funcBuilder) intDivRem(div, unsigned bool, x, y value.Value) value.Value {
	t := x.Type()
	a := fb.widen64(x, unsigned)
	b := fb.widen64(y, unsigned)
	if c, ok := b.(*constant.Int); ok && c.X.IsInt64() && c.X.Int64() != 0 && c.X.Int64() != -1 {
		// a constant divisor: LLVM turns the division into a multiplication on every target
		if div {
			return fb.narrow(fb.cur.NewSDiv(a, b), t)
		}
		return fb.narrow(fb.cur.NewSRem(a, b), t)
	}
	fb.check(fb.cur.NewICmp(enum.IPredNE, b, i64(0)), statusDivZero, "div.ok")
	minus1 := fb.cur.NewICmp(enum.IPredEQ, b, i64(-1))
	safeB := fb.cur.NewSelect(minus1, i64(1), b) // avoids the INT64_MIN / -1 overflow trap
	var r value.Value
	switch {
	case fb.mc.tgt.SoftIntDiv && div:
		r = fb.call(fb.mc.rtFunc(rtSDiv64), a, safeB)
	case fb.mc.tgt.SoftIntDiv:
		r = fb.call(fb.mc.rtFunc(rtSRem64), a, safeB)
	case div:
		r = fb.cur.NewSDiv(a, safeB)
	default:
		r = fb.cur.NewSRem(a, safeB)
	}
	if div {
		r = fb.cur.NewSelect(minus1, fb.cur.NewSub(i64(0), a), r)
	} else {
		r = fb.cur.NewSelect(minus1, i64(0), r)
	}
	return fb.narrow(r, t)
}

// mb is the small DSL the runtime functions are written in: float64 arithmetic, int64 bit
// manipulation and control flow, on the current block of a funcBuilder.
type mb struct{ *funcBuilder }

func (m mb) c(v float64) value.Value          { return f64c(v) }
func (m mb) ic(v int64) value.Value           { return i64(v) }
func (m mb) add(a, b value.Value) value.Value { return m.cur.NewFAdd(a, b) }
func (m mb) sub(a, b value.Value) value.Value { return m.cur.NewFSub(a, b) }
func (m mb) mul(a, b value.Value) value.Value { return m.cur.NewFMul(a, b) }
func (m mb) div(a, b value.Value) value.Value { return m.fdiv(a, b) }
func (m mb) neg(a value.Value) value.Value    { return m.cur.NewFNeg(a) }
func (m mb) abs(a value.Value) value.Value    { return m.fabs(a) }

func (m mb) fcmp(p enum.FPred, a, b value.Value) value.Value { return m.cur.NewFCmp(p, a, b) }
func (m mb) lt(a, b value.Value) value.Value                 { return m.fcmp(enum.FPredOLT, a, b) }
func (m mb) le(a, b value.Value) value.Value                 { return m.fcmp(enum.FPredOLE, a, b) }
func (m mb) gt(a, b value.Value) value.Value                 { return m.fcmp(enum.FPredOGT, a, b) }
func (m mb) ge(a, b value.Value) value.Value                 { return m.fcmp(enum.FPredOGE, a, b) }
func (m mb) eq(a, b value.Value) value.Value                 { return m.fcmp(enum.FPredOEQ, a, b) }
func (m mb) ne(a, b value.Value) value.Value                 { return m.fcmp(enum.FPredUNE, a, b) }
func (m mb) isNaN(a value.Value) value.Value                 { return m.fcmp(enum.FPredUNO, a, a) }
func (m mb) isInf(a value.Value) value.Value                 { return m.eq(m.abs(a), m.c(posInf)) }

func (m mb) icmp(p enum.IPred, a, b value.Value) value.Value { return m.cur.NewICmp(p, a, b) }
func (m mb) and(a, b value.Value) value.Value                { return m.cur.NewAnd(a, b) }
func (m mb) or(a, b value.Value) value.Value                 { return m.cur.NewOr(a, b) }
func (m mb) xor(a, b value.Value) value.Value                { return m.cur.NewXor(a, b) }
func (m mb) not(a value.Value) value.Value                   { return m.cur.NewXor(a, boolConst(true)) }
func (m mb) iadd(a, b value.Value) value.Value               { return m.cur.NewAdd(a, b) }
func (m mb) isub(a, b value.Value) value.Value               { return m.cur.NewSub(a, b) }
func (m mb) imul(a, b value.Value) value.Value               { return m.cur.NewMul(a, b) }
func (m mb) lshr(a, b value.Value) value.Value               { return m.cur.NewLShr(a, b) }
func (m mb) ashr(a, b value.Value) value.Value               { return m.cur.NewAShr(a, b) }
func (m mb) shl(a, b value.Value) value.Value                { return m.cur.NewShl(a, b) }

// shlSafe and lshrSafe are Go's shifts: by 64 or more they give 0 (LLVM's give poison).
func (m mb) shlSafe(a, n value.Value) value.Value {
	big := m.icmp(enum.IPredUGE, n, i64(64))
	return m.sel(big, i64(0), m.shl(a, m.sel(big, i64(0), n)))
}

func (m mb) lshrSafe(a, n value.Value) value.Value {
	big := m.icmp(enum.IPredUGE, n, i64(64))
	return m.sel(big, i64(0), m.lshr(a, m.sel(big, i64(0), n)))
}

func (m mb) bits(a value.Value) value.Value     { return m.cur.NewBitCast(a, types.I64) }
func (m mb) fromBits(a value.Value) value.Value { return m.cur.NewBitCast(a, types.Double) }
func (m mb) toInt(a value.Value) value.Value    { return m.cur.NewFPToSI(a, types.I64) }
func (m mb) toFloat(a value.Value) value.Value  { return m.cur.NewSIToFP(a, types.Double) }

// poly returns c0 + t*(c1 + t*(c2 + ...)) in Horner order.
func (m mb) poly(t value.Value, cs ...float64) value.Value {
	r := m.c(cs[len(cs)-1])
	for i := len(cs) - 2; i >= 0; i-- {
		r = m.add(m.c(cs[i]), m.mul(t, r))
	}
	return r
}

// callRT calls another runtime function.
func (m mb) callRT(name string, args ...value.Value) value.Value {
	return m.cur.NewCall(m.mc.rtFunc(name), args...)
}

// ctlz counts the leading zeros of an i64 (64 for 0).
func (m mb) ctlz(a value.Value) value.Value {
	f := m.mc.intrinsic("llvm.ctlz.i64", types.I64, types.I64, types.I1)
	return m.cur.NewCall(f, a, boolConst(false))
}

// copysign returns |a| with the sign of b.
func (m mb) copysign(a, b value.Value) value.Value {
	mag := m.and(m.bits(a), i64(math.MaxInt64))
	sign := m.and(m.bits(b), i64(math.MinInt64))
	return m.fromBits(m.or(mag, sign))
}

// whileLoop emits a loop carrying the i64/double values vars: while cond(vars) { vars = body(vars) };
// it returns the values at exit.
func (m mb) whileLoop(hint string, vars []value.Value, cond func(v []value.Value) value.Value, body func(v []value.Value) []value.Value) []value.Value {
	pre := m.cur
	header := m.newBlock(hint + ".header")
	bodyB := m.newBlock(hint + ".body")
	exit := m.newBlock(hint + ".exit")
	pre.NewBr(header)
	m.cur = header
	phis := make([]*llvm.InstPhi, len(vars))
	cur := make([]value.Value, len(vars))
	for i, v := range vars {
		phis[i] = header.NewPhi(llvm.NewIncoming(v, pre))
		cur[i] = phis[i]
	}
	header.NewCondBr(cond(cur), bodyB, exit)
	m.cur = bodyB
	next := body(cur)
	for i, v := range next {
		phis[i].Incs = append(phis[i].Incs, llvm.NewIncoming(v, m.cur))
	}
	m.cur.NewBr(header)
	m.cur = exit
	return cur
}

// def registers a runtime function of double arguments returning double.
func defF64(name string, nargs int, body func(m mb, a []value.Value) value.Value) {
	ps := make([]types.Type, nargs)
	for i := range ps {
		ps[i] = types.Double
	}
	runtimeDefs[name] = &rtDef{ret: types.Double, params: ps, body: body}
}
