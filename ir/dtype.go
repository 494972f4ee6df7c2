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
)

var dtypeNames = [...]string{Invalid: "invalid", F32: "f32", F64: "f64", F16: "f16", I64: "i64", I32: "i32", I8: "i8", U8: "u8", Bool: "i1", I16: "i16", U16: "u16",
	U32: "u32", U64: "u64", BF16: "bf16", F8E4M3FN: "f8e4m3fn", F8E4M3FNUZ: "f8e4m3fnuz", F8E5M2: "f8e5m2", F8E5M2FNUZ: "f8e5m2fnuz"}

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
func (t DType) IsMiniFloat() bool { return t >= BF16 && t <= F8E5M2FNUZ }

// IsNarrowFloat reports whether t is a float type computed in float32 and rounded to its format
// after every operation: float16 and the minifloats.
func (t DType) IsNarrowFloat() bool { return t == F16 || t.IsMiniFloat() }

// IsInt reports whether t is an integer type (bool included).
func (t DType) IsInt() bool {
	return t == I64 || t == I32 || t == I8 || t == U8 || t == Bool || t == I16 || t == U16 || t == U32 || t == U64
}

// IsUnsigned reports whether t is an unsigned integer type (bool included): its values
// zero-extend and compare unsigned. u64 values above 2^63 are held as the int64 of the same
// bits.
func (t DType) IsUnsigned() bool { return t == U8 || t == U16 || t == Bool || t == U32 || t == U64 }

// Size returns the size of one element in bytes (bool occupies one byte).
func (t DType) Size() int {
	switch t {
	case F64, I64, U64:
		return 8
	case F32, I32, U32:
		return 4
	case F16, I16, U16, BF16:
		return 2
	case I8, U8, Bool, F8E4M3FN, F8E4M3FNUZ, F8E5M2, F8E5M2FNUZ:
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
	case Bool:
		if v != 0 {
			return 1
		}
		return 0
	}
	return v
}
