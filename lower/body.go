// This file emits an op body (ir.Scalar) at one iteration point, or at vl consecutive points of
// the innermost dimension as vectors, with the evaluator's semantics for every operation and
// element type: f16 computes in float and rounds to half precision after every operation,
// bool is i1 in registers and follows the evaluator's "compute as int64, then != 0" rule,
// integer division by zero makes the entry return statusDivZero.

package lower

import (
	"fmt"
	"math"
	"strings"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/ir"
)

// Status codes returned by the entry function.
const (
	statusOK       = 0
	statusBadDims  = 1 // a symbolic dimension (or an extent computed from them) is negative
	statusIndexOOB = 2 // a data-dependent index is outside the operand
	statusDivZero  = 3 // integer division or remainder by zero
)

// bodyCtx emits one op's body at the current iteration point.
type bodyCtx struct {
	kb    *kernelBuilder
	fb    *funcBuilder
	op    *ir.Op
	dims  []value.Value // values of the iteration dims (i64 scalars; the vector base for inner)
	vl    int           // lanes (0: scalar)
	inner int           // the vectorized iteration dim when vl > 0
	// blocks: the vectors start at multiples of vl along inner, so that reads constant on
	// aligned blocks of inner (blockUniform) are broadcasts (register tiles)
	blocks bool
	memo   map[*ir.Scalar]value.Value
}

func (bc *bodyCtx) cur() *llvm.Block { return bc.fb.cur }

// ty returns the register type of element type t at the context's width.
func (bc *bodyCtx) ty(t ir.DType) types.Type { return vecType(regType(t), bc.vl) }

// cnst returns a register constant of type t.
func (bc *bodyCtx) cnst(t ir.DType, f float64, i int64) value.Value {
	return splat(scalarConst(t, f, i), bc.vl)
}

// splatValue broadcasts a scalar to all lanes (the identity in scalar mode).
func (bc *bodyCtx) splatValue(x value.Value) value.Value {
	if bc.vl == 0 {
		return x
	}
	if c, ok := x.(constant.Constant); ok {
		return splat(c, bc.vl)
	}
	vt := types.NewVector(uint64(bc.vl), x.Type())
	ins := bc.cur().NewInsertElement(constant.NewUndef(vt), x, i32c(0))
	mask := splat(i32c(0), bc.vl)
	return bc.cur().NewShuffleVector(ins, constant.NewUndef(vt), mask)
}

func (bc *bodyCtx) emit(s *ir.Scalar) (value.Value, error) {
	if v, ok := bc.memo[s]; ok {
		return v, nil
	}
	v, err := bc.emit1(s)
	if err != nil {
		return nil, err
	}
	if t := s.Type; t.IsSubByte() && t.IsInt() && !s.Op.Def().Leaf {
		// 4- and 2-bit integers live in i8 registers: results wrap to their width, as WrapInt
		bits := int64(8 - t.SubByteBits())
		if t.IsUnsigned() {
			v = bc.cur().NewAnd(v, bc.cnst(t, 0, 1<<(8-bits)-1))
		} else {
			v = bc.cur().NewAShr(bc.cur().NewShl(v, bc.cnst(ir.I8, 0, bits)), bc.cnst(ir.I8, 0, bits))
		}
	}
	bc.memo[s] = v
	return v, nil
}

// mayFail reports whether evaluating s can make the entry fail (a data-dependent read or an
// integer division): such subexpressions are evaluated lazily under select, as the evaluator does.
func mayFail(s *ir.Scalar) bool {
	found := false
	s.Walk(func(n *ir.Scalar) {
		if n.Op == ir.SDynRead || n.Op.Def().ZeroDivisor != "" && n.Type.IsInt() {
			found = true
		}
	})
	return found
}

func (bc *bodyCtx) emit1(s *ir.Scalar) (value.Value, error) {
	switch s.Op {
	case ir.SRead:
		return bc.kb.load(bc, s.Arg)
	case ir.SDynRead:
		return bc.kb.dynLoad(bc, s)
	case ir.SAvail:
		return bc.splatValue(bc.kb.avail(bc, s.Arg)), nil
	case ir.SIndex:
		if s.Arg < 0 || s.Arg >= len(bc.dims) {
			return nil, fmt.Errorf("idx(%d) of a %d-dimensional op", s.Arg, len(bc.dims))
		}
		if bc.vl > 0 && s.Arg == bc.inner {
			return bc.laneIndex(bc.dims[s.Arg]), nil
		}
		return bc.splatValue(bc.dims[s.Arg]), nil
	case ir.SParam:
		p, ok := bc.fb.params[s.Name]
		if !ok {
			return nil, fmt.Errorf("param(%s) is not a symbolic dim of the graph", s.Name)
		}
		return bc.splatValue(p), nil
	case ir.SConst:
		return bc.cnst(s.Type, s.F, s.I), nil
	}
	return bc.emitDef(s, s.Op.Def())
}

// emitSelect emits a selection: lazily in scalar code where an arm may fail (the evaluator
// evaluates only the chosen one).
func (bc *bodyCtx) emitSelect(s *ir.Scalar) (value.Value, error) {
	c, err := bc.emit(s.Args[0])
	if err != nil {
		return nil, err
	}
	if bc.vl == 0 && (mayFail(s.Args[1]) || mayFail(s.Args[2])) {
		return bc.lazySelect(c, s.Args[1], s.Args[2])
	}
	x, err := bc.emit(s.Args[1])
	if err != nil {
		return nil, err
	}
	y, err := bc.emit(s.Args[2])
	if err != nil {
		return nil, err
	}
	if bc.vl > 0 && s.Type == ir.Bool {
		// (c & x) | (!c & y): HVX cannot select between i1 vectors
		cur := bc.cur()
		nc := cur.NewXor(c, bc.cnst(ir.Bool, 0, 1))
		return cur.NewOr(cur.NewAnd(c, x), cur.NewAnd(nc, y)), nil
	}
	return bc.fb.sel(c, x, y), nil
}

// emitCast emits a conversion: integer requantizations on vector units without floats, clamped
// float-to-int conversions without a range check, else cast.
func (bc *bodyCtx) emitCast(s *ir.Scalar) (value.Value, error) {
	if bc.vl > 0 && !bc.fb.mc.vecFloat {
		if f, ok := matchRequant(s); ok {
			return bc.emitIntRequant(f, s.Type)
		}
	}
	x, err := bc.emit(s.Args[0])
	if err != nil {
		return nil, err
	}
	if clampedToInt(s) {
		// a value clamped into the i32 range (saturation): fptosi to i32 without the range
		// check, NaN giving 0 as cast does
		c := bc.cur()
		i32t := bc.ty(ir.I32)
		i := c.NewFPToSI(x, i32t)
		v := bc.fb.sel(c.NewFCmp(enum.FPredUNO, x, x), bc.cnst(ir.I32, 0, 0), i)
		return bc.cast(v, ir.I32, s.Type)
	}
	return bc.cast(x, s.Args[0].Type, s.Type)
}

// castVectorizable: float <-> float and int <-> int conversions and int -> float run on
// vectors; float -> int needs a range check that stays scalar, unless the value is clamped into
// range.
func castVectorizable(s *ir.Scalar) bool {
	return !(s.Args[0].Type.IsFloat() && s.Type.IsInt()) || clampedToInt(s)
}

// emitBitcast reinterprets bits through the memory forms: same-size integers and floats.
func (bc *bodyCtx) emitBitcast(s *ir.Scalar) (value.Value, error) {
	x, err := bc.emit(s.Args[0])
	if err != nil {
		return nil, err
	}
	if bc.vl > 0 {
		return nil, fmt.Errorf("bitcast in a vector loop")
	}
	v := bc.fb.toMem(x, s.Args[0].Type)
	if mt := mustMemType(s.Type); !v.Type().Equal(mt) {
		v = bc.cur().NewBitCast(v, mt)
	}
	return bc.fb.toReg(v, s.Type), nil
}

// lazySelect evaluates only the chosen arm (scalar mode).
func (bc *bodyCtx) lazySelect(c value.Value, a, b *ir.Scalar) (value.Value, error) {
	var err error
	arm := func(s *ir.Scalar) func() value.Value {
		return func() value.Value {
			saved := bc.memo
			bc.memo = make(map[*ir.Scalar]value.Value, len(saved))
			for k, v := range saved {
				bc.memo[k] = v
			}
			v, e := bc.emit(s)
			bc.memo = saved
			if e != nil {
				err = e
				return constant.NewUndef(bc.ty(s.Type))
			}
			return v
		}
	}
	v := bc.fb.ifElse(c, "select", arm(a), arm(b))
	return v, err
}

// laneIndex returns <base, base+1, ..., base+vl-1> as an i64 vector.
func (bc *bodyCtx) laneIndex(base value.Value) value.Value {
	elems := make([]constant.Constant, bc.vl)
	for i := range elems {
		elems[i] = i64(int64(i))
	}
	steps := constant.NewVector(types.NewVector(uint64(bc.vl), types.I64), elems...)
	return bc.cur().NewAdd(bc.splatValue(base), steps)
}

// roundHalf rounds a float register value to its type's precision when t is a narrow float
// (f16, bf16, float8).
func (bc *bodyCtx) roundHalf(v value.Value, t ir.DType) value.Value {
	switch {
	case t == ir.F16 && bc.fb.hwHalf():
		return bc.fb.halfFromBitsHW(bc.fb.halfToBitsHW(v))
	case t == ir.F16:
		return bc.fb.call(bc.fb.mc.rtHalfFromBits(), bc.fb.call(bc.fb.mc.rtHalfToBits(), v))
	case t.IsMiniFloat():
		return bc.fb.call(bc.fb.mc.rtFunc(rtMiniFrom(t)), bc.fb.call(bc.fb.mc.rtFunc(rtMiniTo(t)), v))
	}
	return v
}

// fpow is Go's math.Pow: through the runtime in float64, but x for y = 1 and x*x for y = 2
// on float32 (Go's Pow(x, 2) squares x's mantissa exactly in float64, 48 bits, so the float32
// result is x*x rounded once: the same bits).
func (bc *bodyCtx) fpow(x, y value.Value) value.Value {
	switch e, ok := floatConstValue(y); {
	case ok && e == 1:
		return x
	case ok && e == 2 && isF32(x.Type()):
		return bc.cur().NewFMul(x, x)
	}
	fb := bc.fb
	return bc.viaF64(x, func(a value.Value) value.Value {
		return fb.call(fb.mc.rtFunc(rtPow), a, fb.toF64(y))
	})
}

// floatConstValue returns the value of a float constant or of a splat vector of one.
func floatConstValue(v value.Value) (float64, bool) {
	switch c := v.(type) {
	case *constant.Float:
		f, _ := c.X.Float64()
		return f, true
	case *constant.Vector:
		if len(c.Elems) == 0 {
			return 0, false
		}
		f, ok := floatConstValue(c.Elems[0])
		for _, e := range c.Elems[1:] {
			g, ok2 := floatConstValue(e)
			if !ok2 || g != f {
				return 0, false
			}
		}
		return f, ok
	}
	return 0, false
}

// fminmax is Go's math.Max/Min with NaN propagation: NaN if either operand is NaN, and
// max(+0, -0) = +0, min(+0, -0) = -0.
func (bc *bodyCtx) fminmax(isMax bool, x, y value.Value) value.Value {
	c := bc.cur()
	pred := enum.FPredOGT
	if !isMax {
		pred = enum.FPredOLT
	}
	fb := bc.fb
	r := fb.sel(c.NewFCmp(pred, x, y), x, y)
	// equal operands: combine the bit patterns so that the signs of zeros resolve as Go does
	it := intTypeLike(x.Type())
	bx, by := c.NewBitCast(x, it), c.NewBitCast(y, it)
	var bits value.Value
	if isMax {
		bits = c.NewAnd(bx, by)
	} else {
		bits = c.NewOr(bx, by)
	}
	r2 := fb.sel(c.NewFCmp(enum.FPredOEQ, x, y), c.NewBitCast(bits, x.Type()), r)
	return fb.sel(c.NewOr(bc.isNaN(x), bc.isNaN(y)), c.NewFAdd(x, y), r2)
}

// isNaN tests for NaN: fcmp uno on scalars and on x86-64 and AArch64 vectors (one compare),
// the bit pattern on HVX vectors (HVX cannot select unordered vector compares).
func (bc *bodyCtx) isNaN(x value.Value) value.Value {
	c := bc.cur()
	if _, ok := x.Type().(*types.VectorType); !ok || !strings.HasPrefix(bc.fb.mc.tgt.Triple, "hexagon") {
		return c.NewFCmp(enum.FPredUNO, x, x)
	}
	it := intTypeLike(x.Type())
	abs, inf := int64(math.MaxInt32), int64(0x7f800000)
	if bitWidth(it) == 64 {
		abs, inf = math.MaxInt64, 0x7ff0000000000000
	}
	mag := c.NewAnd(c.NewBitCast(x, it), intConstOf(it, abs))
	return c.NewICmp(enum.IPredUGT, mag, intConstOf(it, inf))
}

// boolToFloat converts i1 to 0.0 or 1.0 (a select: HVX cannot convert i1 vectors).
func (bc *bodyCtx) boolToFloat(b value.Value, ft types.Type) value.Value {
	return bc.cur().NewSelect(b, floatConstOf(ft, 1), floatConstOf(ft, 0))
}

// intTypeLike returns the integer type of the same width (and lanes) as a float type.
func intTypeLike(t types.Type) types.Type {
	if vt, ok := t.(*types.VectorType); ok {
		return types.NewVector(vt.Len, intTypeLike(vt.ElemType))
	}
	if t == types.Double {
		return types.I64
	}
	return types.I32
}

// viaF64 computes f on x widened to double and narrows the result back to x's type.
func (bc *bodyCtx) viaF64(x value.Value, f func(value.Value) value.Value) value.Value {
	r := f(bc.fb.toF64(x))
	if isF32(x.Type()) {
		return bc.cur().NewFPTrunc(r, x.Type())
	}
	return r
}

// cast converts a register value between element types with the evaluator's (ONNX Cast)
// semantics: float to integer truncates toward zero to int64 and wraps to the width (NaN, ±Inf
// and values beyond ±2^63 give INT64_MIN, as Go on amd64 does); to bool is != 0.
func (bc *bodyCtx) cast(x value.Value, from, to ir.DType) (value.Value, error) {
	c := bc.cur()
	tt := bc.ty(to)
	switch {
	case from == to:
		return x, nil
	case from.IsFloat() && to.IsFloat():
		v := x
		switch {
		case x.Type() == tt:
		case bitsOfFloat(x.Type()) < bitsOfFloat(tt):
			v = c.NewFPExt(x, tt)
		default:
			v = c.NewFPTrunc(x, tt)
		}
		return bc.roundHalf(v, to), nil
	case from.IsFloat() && to == ir.Bool:
		return c.NewFCmp(enum.FPredUNE, x, floatConstOf(x.Type(), 0)), nil
	case from.IsFloat():
		ok := c.NewFCmp(enum.FPredOLT, bc.fb.fabs(x), floatConstOf(x.Type(), 9223372036854775808.0))
		i := c.NewFPToSI(x, bc.ty(ir.I64))
		v := c.NewSelect(ok, i, bc.cnst(ir.I64, 0, minInt(64)))
		if to == ir.U64 {
			// [2^63, 2^64) converts unsigned, as the evaluator does
			hi := c.NewAnd(c.NewFCmp(enum.FPredOGE, x, floatConstOf(x.Type(), 9223372036854775808.0)),
				c.NewFCmp(enum.FPredOLT, x, floatConstOf(x.Type(), 18446744073709551616.0)))
			v = c.NewSelect(hi, c.NewFPToUI(x, bc.ty(ir.I64)), v)
		}
		return bc.fb.narrow(v, tt), nil
	case to.IsFloat():
		var v value.Value
		if from == ir.Bool {
			v = bc.boolToFloat(x, tt)
		} else if from == ir.U64 && to != ir.F64 {
			// through double, as the evaluator rounds: uint64 -> float64 -> narrower
			v = c.NewFPTrunc(c.NewUIToFP(x, bc.ty(ir.F64)), tt)
		} else if from.IsUnsigned() {
			v = c.NewUIToFP(x, tt)
		} else if from == ir.I64 && to != ir.F64 {
			// through double, as the evaluator rounds: int64 -> float64 -> narrower
			v = c.NewFPTrunc(c.NewSIToFP(x, bc.ty(ir.F64)), tt)
		} else {
			v = c.NewSIToFP(x, tt)
		}
		return bc.roundHalf(v, to), nil
	case to == ir.Bool:
		return c.NewICmp(enum.IPredNE, x, bc.cnst(from, 0, 0)), nil
	}
	fw, tw := bitWidth(x.Type()), bitWidth(tt)
	switch {
	case fw > tw:
		return c.NewTrunc(x, tt), nil
	case fw < tw && from.IsUnsigned():
		return c.NewZExt(x, tt), nil
	case fw < tw:
		return c.NewSExt(x, tt), nil
	}
	return x, nil
}

func bitsOfFloat(t types.Type) int {
	if vt, ok := t.(*types.VectorType); ok {
		t = vt.ElemType
	}
	switch t {
	case types.Double:
		return 64
	case types.Float:
		return 32
	}
	return 16
}

// isFloatVector reports whether t is a vector of float or double.
func isFloatVector(t types.Type) bool {
	vt, ok := t.(*types.VectorType)
	return ok && (vt.ElemType == types.Float || vt.ElemType == types.Double)
}

// overloadSuffix returns the type suffix of an overloaded LLVM intrinsic: f32, f64, v8f32….
func overloadSuffix(t types.Type) string {
	name := func(e types.Type) string {
		if e == types.Double {
			return "f64"
		}
		return "f32"
	}
	if vt, ok := t.(*types.VectorType); ok {
		return fmt.Sprintf("v%d%s", vt.Len, name(vt.ElemType))
	}
	return name(t)
}

// clampedToInt reports whether cast s converts a float clamped to constant bounds inside the
// i32 range (ir.ClampRange) to an integer type other than bool.
func clampedToInt(s *ir.Scalar) bool {
	if s.Op != ir.SCast || !s.Args[0].Type.IsFloat() || !s.Type.IsInt() || s.Type == ir.Bool || s.Args[0].Type == ir.F16 {
		return false
	}
	lo, hi, ok := ir.ClampRange(s.Args[0])
	return ok && lo >= math.MinInt32 && hi <= math.MaxInt32
}
