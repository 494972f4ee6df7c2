// This file maps graphc element types to LLVM types in memory and in registers, and builds
// constants of both forms (scalars, or splat vectors inside vector loops).

package lower

import (
	"fmt"
	"math"

	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/ir"
)

// memType is the LLVM type of an element in memory: f16 is stored as its i16 bit pattern
// (graphc converts it itself, see math_half.go, because Hexagon has no half-precision
// conversions without a runtime library) and bool as an i8 holding 0 or 1.
func memType(t ir.DType) (types.Type, error) {
	switch t {
	case ir.F32:
		return types.Float, nil
	case ir.F64:
		return types.Double, nil
	case ir.F16:
		return types.I16, nil
	case ir.I64, ir.U64:
		return types.I64, nil
	case ir.I32, ir.U32:
		return types.I32, nil
	case ir.I8, ir.U8, ir.Bool:
		return types.I8, nil
	case ir.I16, ir.U16, ir.BF16:
		return types.I16, nil
	case ir.F8E4M3FN, ir.F8E4M3FNUZ, ir.F8E5M2, ir.F8E5M2FNUZ:
		return types.I8, nil
	}
	return nil, fmt.Errorf("element type %s has no lowering", t)
}

// mustMemType is memType for types already checked by checkTypes.
func mustMemType(t ir.DType) types.Type {
	ty, err := memType(t)
	if err != nil {
		panic(err)
	}
	return ty
}

// regType is the LLVM type of a value of element type t in registers: f16 is computed in
// float (rounded to half precision after every operation, as the evaluator does) and bool is i1.
func regType(t ir.DType) types.Type {
	switch {
	case t.IsNarrowFloat():
		return types.Float
	case t == ir.Bool:
		return types.I1
	}
	return mustMemType(t)
}

// vecType returns t, or a vector of vl t's when vl > 0.
func vecType(t types.Type, vl int) types.Type {
	if vl == 0 {
		return t
	}
	return types.NewVector(uint64(vl), t)
}

// bitWidth returns the width of an integer type (0 for other types).
func bitWidth(t types.Type) uint64 {
	if v, ok := t.(*types.VectorType); ok {
		t = v.ElemType
	}
	if it, ok := t.(*types.IntType); ok {
		return it.BitSize
	}
	return 0
}

// byteSize returns the size in bytes of a scalar LLVM type.
func byteSize(t types.Type) int64 {
	switch t {
	case types.Double, types.I64:
		return 8
	case types.Float, types.I32:
		return 4
	case types.I16, types.Half:
		return 2
	}
	return 1
}

// i64 returns the i64 constant v; small ones are shared (constants are immutable values, and
// emission makes hundreds of thousands of them).
func i64(v int64) *constant.Int {
	if v >= smallI64Min && v < smallI64Min+int64(len(smallI64)) {
		return smallI64[v-smallI64Min]
	}
	return constant.NewInt(types.I64, v)
}

const smallI64Min = -64

var smallI64 = func() (t [1024 + 64]*constant.Int) {
	for i := range t {
		t[i] = constant.NewInt(types.I64, int64(i)+smallI64Min)
	}
	return t
}()

func i32c(v int64) *constant.Int   { return constant.NewInt(types.I32, v) }
func f64c(v float64) value.Value   { return constant.NewFloat(types.Double, v) }
func boolConst(b bool) value.Value { return constant.NewBool(b) }

// scalarConst returns the register constant of type t with value f (floats) or i (integers).
func scalarConst(t ir.DType, f float64, i int64) constant.Constant {
	switch t {
	case ir.F32, ir.F16, ir.BF16, ir.F8E4M3FN, ir.F8E4M3FNUZ, ir.F8E5M2, ir.F8E5M2FNUZ:
		return constant.NewFloat(types.Float, float64(float32(ir.RoundFloat(t, f))))
	case ir.F64:
		return constant.NewFloat(types.Double, f)
	case ir.Bool:
		return constant.NewBool(i != 0)
	}
	return constant.NewInt(mustMemType(t).(*types.IntType), t.WrapInt(i))
}

// memConst returns the in-memory constant of value v (a float64 carrying either kind) of type t.
func memConst(t ir.DType, v float64) constant.Constant {
	switch t {
	case ir.F32:
		return constant.NewFloat(types.Float, float64(float32(v)))
	case ir.F64:
		return constant.NewFloat(types.Double, v)
	case ir.F16:
		return constant.NewInt(types.I16, int64(halfBits(v)))
	case ir.BF16, ir.F8E4M3FN, ir.F8E4M3FNUZ, ir.F8E5M2, ir.F8E5M2FNUZ:
		f, _ := ir.MiniFloatOf(t)
		return constant.NewInt(mustMemType(t).(*types.IntType), int64(f.Encode(float32(v), false)))
	case ir.Bool:
		if v != 0 {
			return constant.NewInt(types.I8, 1)
		}
		return constant.NewInt(types.I8, 0)
	}
	return constant.NewInt(mustMemType(t).(*types.IntType), t.WrapInt(int64(v)))
}

// halfBits returns the binary16 bit pattern of v rounded to half precision (as the evaluator
// rounds: to float32 first, then to half, nearest even).
func halfBits(v float64) uint16 {
	t := ir.NewTensor(ir.F16, []int64{1})
	t.F[0] = ir.RoundFloat(ir.F16, v)
	b := t.Bytes()
	return uint16(b[0]) | uint16(b[1])<<8
}

// splat returns a vector constant of vl copies of c, or c when vl == 0.
func splat(c constant.Constant, vl int) value.Value {
	if vl == 0 {
		return c
	}
	elems := make([]constant.Constant, vl)
	for i := range elems {
		elems[i] = c
	}
	return constant.NewVector(types.NewVector(uint64(vl), c.Type()), elems...)
}

// intConstOf returns the integer constant v of type t (splat when t is a vector type).
func intConstOf(t types.Type, v int64) value.Value {
	if vt, ok := t.(*types.VectorType); ok {
		return splat(constant.NewInt(vt.ElemType.(*types.IntType), v), int(vt.Len))
	}
	return constant.NewInt(t.(*types.IntType), v)
}

// floatConstOf returns the float constant v of type t (splat when t is a vector type).
func floatConstOf(t types.Type, v float64) value.Value {
	if vt, ok := t.(*types.VectorType); ok {
		ft := vt.ElemType.(*types.FloatType)
		if ft == types.Float {
			v = float64(float32(v))
		}
		return splat(constant.NewFloat(ft, v), int(vt.Len))
	}
	if t == types.Float {
		v = float64(float32(v))
	}
	return constant.NewFloat(t.(*types.FloatType), v)
}

// minInt returns the smallest value of a signed integer type of the given width.
func minInt(bits uint64) int64 { return math.MinInt64 >> (64 - bits) }
