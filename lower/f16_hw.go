// This file converts binary16 values with the CPU's own instructions on targets that have them
// for every vector width (AArch64's fcvt, fcvtl and fcvtn; target field
// hardware-f16-conversions), instead of the runtime's integer emulation (math_soft.go), and
// keeps the emulation's bits: f32 -> f16 rounds to nearest even in both, and the NaNs are made
// the emulation's (a quiet 0x7e00 with the sign; an f16 NaN widened with its payload as it is,
// where the instruction would quiet a signalling one).

package lower

import (
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// hwHalf reports whether f16 conversions use the CPU's instructions.
func (fb *funcBuilder) hwHalf() bool { return fb.mc.spec.HardwareF16 }

// like returns t with the lane count of v's type (t itself for a scalar v).
func like(v value.Value, t types.Type) types.Type {
	if vt, ok := v.Type().(*types.VectorType); ok {
		return types.NewVector(vt.Len, t)
	}
	return t
}

// halfFromBitsHW widens f16 bits (i16, or a vector of them) to float.
func (fb *funcBuilder) halfFromBitsHW(v value.Value) value.Value {
	c := fb.cur
	i32 := func(x int64) value.Value { return intConstOf(like(v, types.I32), x) }
	f := c.NewFPExt(c.NewBitCast(v, like(v, types.Half)), like(v, types.Float))
	// a signalling NaN keeps its payload unquieted: sign | 0x7f800000 | mant << 13
	w := c.NewZExt(v, like(v, types.I32))
	mant := c.NewAnd(w, i32(0x3ff))
	snan := c.NewAnd(c.NewICmp(enum.IPredEQ, c.NewAnd(w, i32(0x7e00)), i32(0x7c00)), c.NewICmp(enum.IPredNE, mant, i32(0)))
	soft := c.NewOr(c.NewShl(c.NewAnd(w, i32(0x8000)), i32(16)), c.NewOr(i32(0x7f800000), c.NewShl(mant, i32(13))))
	return c.NewSelect(snan, c.NewBitCast(soft, like(v, types.Float)), f)
}

// halfToBitsHW rounds float (or a vector of floats) to f16 bits.
func (fb *funcBuilder) halfToBitsHW(x value.Value) value.Value {
	c := fb.cur
	h := c.NewBitCast(c.NewFPTrunc(x, like(x, types.Half)), like(x, types.I16))
	// NaN: the quiet 0x7e00 with x's sign
	sign := c.NewAnd(c.NewTrunc(c.NewLShr(c.NewBitCast(x, like(x, types.I32)), intConstOf(like(x, types.I32), 16)), like(x, types.I16)),
		intConstOf(like(x, types.I16), 0x8000))
	nan := c.NewOr(sign, intConstOf(like(x, types.I16), 0x7e00))
	isNaN := c.NewFCmp(enum.FPredUNO, x, x)
	return c.NewSelect(isNaN, nan, h)
}
