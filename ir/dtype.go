// This file holds DType, the element types of tensors.

package ir

import "fmt"

// DType is a tensor element type.
type DType uint8

// Element types. Floats are held as float64 by the evaluator and rounded to their type after
// every operation; integers and bool are held as int64 and wrapped to their width.
const (
	Invalid DType = iota
	F32
	F64
	F16
	I64
	I32
	I8
	U8
	Bool
	I16
	U16
	U32
	U64
	BF16
	F8E4M3FN
	F8E4M3FNUZ
	F8E5M2
	F8E5M2FNUZ
	F4E2M1
	I4
	U4
	I2
	U2
	F8E8M0
)

var dtypeNames = [...]string{Invalid: "invalid", F32: "f32", F64: "f64", F16: "f16", I64: "i64", I32: "i32", I8: "i8", U8: "u8", Bool: "i1", I16: "i16", U16: "u16",
	U32: "u32", U64: "u64", BF16: "bf16", F8E4M3FN: "f8e4m3fn", F8E4M3FNUZ: "f8e4m3fnuz", F8E5M2: "f8e5m2", F8E5M2FNUZ: "f8e5m2fnuz",
	F4E2M1: "f4e2m1", I4: "i4", U4: "u4", I2: "i2", U2: "u2", F8E8M0: "f8e8m0"}

func (t DType) String() string {
	if int(t) < len(dtypeNames) {
		return dtypeNames[t]
	}
	return fmt.Sprintf("dtype(%d)", uint8(t))
}

// ParseDType parses the text name of a DType ("f32", "i64", "i1", "bool").
func ParseDType(s string) (DType, error) {
	if s == "bool" {
		return Bool, nil
	}
	for i, n := range dtypeNames {
		if n == s && i != int(Invalid) {
			return DType(i), nil
		}
	}
	return Invalid, fmt.Errorf("unknown element type %q", s)
}

// IsFloat reports whether t is a floating-point type.
func (t DType) IsFloat() bool { return t == F32 || t == F64 || t == F16 || t.IsMiniFloat() }

// IsMiniFloat reports whether t is one of the narrow storage formats of minifloat.go (bfloat16,
// float8).
func (t DType) IsMiniFloat() bool { return t >= BF16 && t <= F4E2M1 || t == F8E8M0 }

// IsNarrowFloat reports whether t is a float type computed in float32 and rounded to its format
// after every operation: float16 and the minifloats.
func (t DType) IsNarrowFloat() bool { return t == F16 || t.IsMiniFloat() }

// IsInt reports whether t is an integer type (bool included).
func (t DType) IsInt() bool {
	return t == I64 || t == I32 || t == I8 || t == U8 || t == Bool || t == I16 || t == U16 || t == U32 || t == U64 || t.IsSubByte() && t != F4E2M1
}

// IsSubByte reports whether ONNX packs t's elements two (4-bit) or four (2-bit) to a byte:
// int4, uint4, int2, uint2 and float4. graphc holds one element per byte (sign-extended for
// the signed integers), in the evaluator and in the ABI alike; only ONNX tensor data is packed.
func (t DType) IsSubByte() bool { return t >= F4E2M1 && t <= U2 }

// SubByteBits returns the width of a sub-byte type's elements in ONNX's packing (0 for others).
func (t DType) SubByteBits() int {
	switch t {
	case F4E2M1, I4, U4:
		return 4
	case I2, U2:
		return 2
	}
	return 0
}

// IsUnsigned reports whether t is an unsigned integer type (bool included): its values
// zero-extend and compare unsigned. u64 values above 2^63 are held as the int64 of the same
// bits.
func (t DType) IsUnsigned() bool {
	return t == U8 || t == U16 || t == Bool || t == U32 || t == U64 || t == U4 || t == U2
}

// Size returns the size of one element in bytes (bool occupies one byte).
func (t DType) Size() int {
	switch t {
	case F64, I64, U64:
		return 8
	case F32, I32, U32:
		return 4
	case F16, I16, U16, BF16:
		return 2
	case I8, U8, Bool, F8E4M3FN, F8E4M3FNUZ, F8E5M2, F8E5M2FNUZ, F4E2M1, I4, U4, I2, U2, F8E8M0:
		return 1
	}
	return 0
}

// WrapInt reduces v to the range of integer type t (two's complement wrap-around, bool as 0/1).
func (t DType) WrapInt(v int64) int64 {
	switch t {
	case I32:
		return int64(int32(v))
	case I8:
		return int64(int8(v))
	case U8:
		return int64(uint8(v))
	case I16:
		return int64(int16(v))
	case U16:
		return int64(uint16(v))
	case U32:
		return int64(uint32(v))
	case I4:
		return v << 60 >> 60
	case U4:
		return v & 15
	case I2:
		return v << 62 >> 62
	case U2:
		return v & 3
	case Bool:
		if v != 0 {
			return 1
		}
		return 0
	}
	return v
}
