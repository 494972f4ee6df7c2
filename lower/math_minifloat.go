// This file holds the runtime's conversions between float32 registers and the narrow float
// formats of ir/minifloat.go (bfloat16, float8), bit for bit as ir.MiniFloat's: encoding rounds
// to nearest even and overflows to infinity or NaN (as RoundFloat does); decoding shifts bfloat16 into a float32
// and looks float8 values up in a 256-entry table of float32 bit patterns.

package lower

import (
	"math"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/ir"
)

// miniTypes are the narrow float types with runtime conversions.
var miniTypes = []ir.DType{ir.BF16, ir.F8E4M3FN, ir.F8E4M3FNUZ, ir.F8E5M2, ir.F8E5M2FNUZ}

func rtMiniTo(t ir.DType) string   { return "graphc.f32_to_" + t.String() }
func rtMiniFrom(t ir.DType) string { return "graphc." + t.String() + "_to_f32" }

// miniBits returns the LLVM integer type of a narrow float's encoding.
func miniBits(f ir.MiniFloat) *types.IntType {
	if f.Bits == 16 {
		return types.I16
	}
	return types.I8
}

func init() {
	for _, t := range miniTypes {
		f, _ := ir.MiniFloatOf(t)
		runtimeDefs[rtMiniTo(t)] = &rtDef{ret: miniBits(f), params: []types.Type{types.Float}, body: miniEncode(f)}
		t := t
		runtimeDefs[rtMiniFrom(t)] = &rtDef{ret: types.Float, params: []types.Type{miniBits(f)},
			body: func(m mb, a []value.Value) value.Value { return miniDecode(m, t, f, a[0]) }}
	}
}

// miniEncode is ir.MiniFloat.Encode without saturation, on the float32's bits.
func miniEncode(f ir.MiniFloat) func(m mb, a []value.Value) value.Value {
	return func(m mb, a []value.Value) value.Value {
		i32 := func(v int64) value.Value { return i32c(v) }
		M := int64(f.Mant)
		b := m.cur.NewBitCast(a[0], types.I32)
		sign := m.shl(m.lshr(b, i32(31)), i32(int64(f.Bits-1)))
		e8 := m.and(m.lshr(b, i32(23)), i32(0xff))
		m23 := m.and(b, i32(0x7fffff))
		special := m.icmp(enum.IPredEQ, e8, i32(0xff))
		isNaN := m.and(special, m.icmp(enum.IPredNE, m23, i32(0)))
		nanv := i32(int64(f.NaNBits))
		if !f.UZ {
			nanv = m.or(sign, nanv)
		}
		overv := nanv
		if f.Inf {
			overv = m.or(sign, i32(int64(f.MaxBits+1))) // the infinity follows the largest finite value
		}
		exp := m.iadd(e8, i32(int64(f.Bias-127)))
		e8zero := m.icmp(enum.IPredEQ, e8, i32(0))
		normal := m.and(m.icmp(enum.IPredSGE, exp, i32(1)), m.not(e8zero))
		round := func(h, rem, half value.Value) value.Value {
			odd := m.icmp(enum.IPredEQ, m.and(h, i32(1)), i32(1))
			up := m.or(m.icmp(enum.IPredUGT, rem, half), m.and(m.icmp(enum.IPredEQ, rem, half), odd))
			return m.iadd(h, m.cur.NewZExt(up, types.I32))
		}
		// normal results
		hn := m.or(m.shl(m.sel(normal, exp, i32(0)), i32(M)), m.lshr(m23, i32(23-M)))
		hn = round(hn, m.and(m23, i32(1<<(23-M)-1)), i32(1<<(22-M)))
		// subnormal results (f32 subnormals have no implicit bit)
		mi := m.or(m23, m.sel(e8zero, i32(0), i32(1<<23)))
		expS := m.sel(e8zero, i32(int64(1-127+f.Bias)), exp)
		shift := m.isub(i32(23-M+1), expS)
		tiny := m.icmp(enum.IPredSGT, shift, i32(31))
		sh := m.sel(m.or(tiny, normal), i32(16), shift) // any valid shift where unused
		hs := m.lshr(mi, sh)
		hs = round(hs, m.and(mi, m.isub(m.shl(i32(1), sh), i32(1))), m.shl(i32(1), m.isub(sh, i32(1))))
		hs = m.sel(tiny, i32(0), hs)
		h := m.sel(normal, hn, hs)
		r := m.or(sign, h)
		if f.UZ {
			r = m.sel(m.icmp(enum.IPredEQ, h, i32(0)), i32(0), r)
		}
		over := m.icmp(enum.IPredUGT, h, i32(int64(f.MaxBits)))
		r = m.sel(m.or(over, special), overv, r)
		r = m.sel(isNaN, nanv, r)
		return m.cur.NewTrunc(r, miniBits(f))
	}
}

// miniDecode converts an encoding to float32: bfloat16 is the top half of a float32; float8
// values come from a table.
func miniDecode(m mb, t ir.DType, f ir.MiniFloat, h value.Value) value.Value {
	if f.Bits == 16 {
		b := m.shl(m.cur.NewZExt(h, types.I32), i32c(16))
		return m.cur.NewBitCast(b, types.Float)
	}
	g := m.mc.miniTable(t, f)
	p := m.cur.NewGetElementPtr(g.ContentType, g, i32c(0), m.cur.NewZExt(h, types.I32))
	return m.cur.NewBitCast(m.cur.NewLoad(types.I32, p), types.Float)
}

// miniTable returns the private global holding the float32 bits of every float8 encoding.
func (mc *moduleCtx) miniTable(t ir.DType, f ir.MiniFloat) *llvm.Global {
	name := "graphc." + t.String() + "_table"
	for _, g := range mc.m.Globals {
		if g.Name() == name {
			return g
		}
	}
	at := types.NewArray(256, types.I32)
	elems := make([]constant.Constant, 256)
	for i := range elems {
		elems[i] = constant.NewInt(types.I32, int64(int32(math.Float32bits(float32(f.Decode(uint32(i)))))))
	}
	g := mc.m.NewGlobalDef(name, constant.NewArray(at, elems...))
	g.Immutable = true
	g.Linkage = enum.LinkagePrivate
	return g
}
