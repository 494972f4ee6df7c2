// This file holds Tensor, concrete tensor data for constants, evaluator inputs and results.

package ir

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Tensor is a dense row-major tensor. Floating-point elements live in F (already rounded to the
// element type), integer and bool elements in I.
//
// A large constant read from a model (a weight) may instead keep its elements as the model
// stores them: little-endian bytes of the element type, the ABI layout (TensorFromRaw; IsRaw
// reports it). F and I are then nil, and the data is read through the accessors (Len, Float,
// Int, Bytes) or decoded on demand (Decoded), so that a model of N weight bytes takes N bytes,
// not 2N (f32 as float64) or 8N (int8 as int64). Raw tensors are immutable: their bytes
// may alias the model file's buffer.
type Tensor struct {
	Elem  DType
	Shape []int64
	F     []float64
	I     []int64
	raw   []byte // the elements' bytes when F and I are unused (IsRaw)
}

// NewTensor returns a zero tensor.
func NewTensor(elem DType, shape []int64) *Tensor {
	n := NumElements(shape)
	t := &Tensor{Elem: elem, Shape: append([]int64(nil), shape...)}
	if elem.IsFloat() {
		t.F = make([]float64, n)
	} else {
		t.I = make([]int64, n)
	}
	return t
}

// RawThreshold is the least number of elements for which TensorFromRaw keeps a tensor's bytes
// rather than decoding them: smaller constants (shapes, indices, scalars) are decoded, as the
// importers' folding reads them.
const RawThreshold = 1024

// HasRawLayout reports whether a tensor of elem can keep its bytes (TensorFromRaw): its raw
// layout is one element per Size() bytes and decoding it is exact and bijective (not bool,
// the sub-byte types or the 8-bit floats).
func (t DType) HasRawLayout() bool {
	switch t {
	case F32, F64, F16, BF16, I8, U8, I16, U16, I32, U32, I64, U64:
		return true
	}
	return false
}

// TensorFromRaw returns a tensor over raw, little-endian data of elem (the ABI layout), without
// copying it when elem has a raw layout and the tensor has at least RawThreshold elements;
// otherwise it decodes raw as TensorFromBytes does. The caller must not modify raw afterwards.
func TensorFromRaw(elem DType, shape []int64, raw []byte) (*Tensor, error) {
	n := NumElements(shape)
	if !elem.HasRawLayout() || n < RawThreshold {
		return TensorFromBytes(elem, shape, raw)
	}
	if int64(len(raw)) != n*int64(elem.Size()) {
		return nil, fmt.Errorf("raw data has %d bytes, shape %v of %s needs %d", len(raw), shape, elem, n*int64(elem.Size()))
	}
	return &Tensor{Elem: elem, Shape: append([]int64(nil), shape...), raw: raw}, nil
}

// IsRaw reports whether t keeps its elements as bytes (F and I are nil; see Tensor).
func (t *Tensor) IsRaw() bool { return t.raw != nil }

// Len returns the number of elements.
func (t *Tensor) Len() int {
	if t.raw != nil {
		return len(t.raw) / t.Elem.Size()
	}
	if t.Elem.IsFloat() {
		return len(t.F)
	}
	return len(t.I)
}

// Clone returns a deep copy that may be modified: a raw tensor's copy is decoded.
func (t *Tensor) Clone() *Tensor {
	if t.raw != nil {
		return t.Decoded()
	}
	c := &Tensor{Elem: t.Elem, Shape: append([]int64(nil), t.Shape...)}
	c.F = append([]float64(nil), t.F...)
	c.I = append([]int64(nil), t.I...)
	return c
}

// Decoded returns t with its elements in F or I: t itself, or for a raw tensor a decoded copy
// (the caller may then modify it). Analyses that read a few elements of a large constant use
// Float and Int instead.
func (t *Tensor) Decoded() *Tensor {
	if t.raw == nil {
		return t
	}
	d, err := TensorFromBytes(t.Elem, t.Shape, t.raw)
	if err != nil {
		panic(err) // TensorFromRaw checked the size
	}
	return d
}

// Compact turns a decoded tensor of at least RawThreshold elements of a type with a raw layout
// into a raw one in place (the values are already rounded to the element type, so nothing
// changes but the memory: an f32 weight takes 4 bytes instead of 8) and returns it. The tensor
// must not be modified afterwards.
func (t *Tensor) Compact() *Tensor {
	if t.raw != nil || !t.Elem.HasRawLayout() || t.Len() < RawThreshold {
		return t
	}
	raw := t.Bytes()
	t.raw, t.F, t.I = raw, nil, nil
	return t
}

// Float returns element i as a float64.
func (t *Tensor) Float(i int) float64 {
	if t.raw != nil {
		sz := t.Elem.Size()
		if t.Elem.IsFloat() {
			return decodeFloat(t.Elem, t.raw[i*sz:])
		}
		return float64(decodeInt(t.Elem, t.raw[i*sz:]))
	}
	if t.Elem.IsFloat() {
		return t.F[i]
	}
	return float64(t.I[i])
}

// Int returns integer (or bool) element i; for a float tensor, the element converted to int64.
func (t *Tensor) Int(i int) int64 {
	if t.raw != nil {
		sz := t.Elem.Size()
		if t.Elem.IsFloat() {
			return int64(decodeFloat(t.Elem, t.raw[i*sz:]))
		}
		return decodeInt(t.Elem, t.raw[i*sz:])
	}
	if t.Elem.IsFloat() {
		return int64(t.F[i])
	}
	return t.I[i]
}

// Bits returns the bits of element i as a comparable key: a float's float64 bits, an integer's
// value. Equal elements have equal bits (and +0 and -0 differ).
func (t *Tensor) Bits(i int) uint64 {
	if t.Elem.IsFloat() {
		return math.Float64bits(t.Float(i))
	}
	return uint64(t.Int(i))
}

// RoundFloat rounds v to the precision of float type t.
func RoundFloat(t DType, v float64) float64 {
	switch t {
	case F32:
		return float64(float32(v))
	case F16:
		return float64(f16ToF32(f32ToF16(float32(v))))
	}
	if f, ok := MiniFloatOf(t); ok {
		return f.Decode(f.Encode(float32(v), false))
	}
	return v
}

// Bytes returns the little-endian raw data (the ABI layout; bool as one byte). For a raw tensor
// it is the tensor's own bytes, not a copy: the caller must not modify them.
func (t *Tensor) Bytes() []byte {
	if t.raw != nil {
		return t.raw
	}
	sz := t.Elem.Size()
	out := make([]byte, t.Len()*sz)
	for i := 0; i < t.Len(); i++ {
		b := out[i*sz:]
		switch t.Elem {
		case F32:
			binary.LittleEndian.PutUint32(b, math.Float32bits(float32(t.F[i])))
		case F64:
			binary.LittleEndian.PutUint64(b, math.Float64bits(t.F[i]))
		case F16:
			binary.LittleEndian.PutUint16(b, f32ToF16(float32(t.F[i])))
		case I64:
			binary.LittleEndian.PutUint64(b, uint64(t.I[i]))
		case I32:
			binary.LittleEndian.PutUint32(b, uint32(t.I[i]))
		case I8, U8, Bool:
			b[0] = byte(t.I[i])
		case I16, U16:
			binary.LittleEndian.PutUint16(b, uint16(t.I[i]))
		case BF16:
			f, _ := MiniFloatOf(t.Elem)
			binary.LittleEndian.PutUint16(b, uint16(f.Encode(float32(t.F[i]), false)))
		case F8E4M3FN, F8E4M3FNUZ, F8E5M2, F8E5M2FNUZ, F4E2M1, F8E8M0:
			f, _ := MiniFloatOf(t.Elem)
			b[0] = byte(f.Encode(float32(t.F[i]), false))
		case I4, U4, I2, U2:
			b[0] = byte(t.I[i])
		case U32:
			binary.LittleEndian.PutUint32(b, uint32(t.I[i]))
		case U64:
			binary.LittleEndian.PutUint64(b, uint64(t.I[i]))
		}
	}
	return out
}

// PackSubByte returns the elements of a sub-byte tensor packed as ONNX stores them: two 4-bit
// or four 2-bit elements per byte, the first in the low bits.
func (t *Tensor) PackSubByte() []byte {
	bits := t.Elem.SubByteBits()
	per := 8 / bits
	out := make([]byte, (t.Len()+per-1)/per)
	one := t.Bytes()
	for i, b := range one {
		out[i/per] |= (b & (1<<bits - 1)) << (bits * (i % per))
	}
	return out
}

// UnpackSubByte decodes ONNX's packed data of a sub-byte type.
func UnpackSubByte(elem DType, shape []int64, raw []byte) (*Tensor, error) {
	bits := elem.SubByteBits()
	per := 8 / bits
	n := NumElements(shape)
	if int64(len(raw)) != (n+int64(per)-1)/int64(per) {
		return nil, fmt.Errorf("packed data has %d bytes, shape %v of %s needs %d", len(raw), shape, elem, (n+int64(per)-1)/int64(per))
	}
	one := make([]byte, n)
	for i := range one {
		v := raw[i/per] >> (bits * (i % per)) & (1<<bits - 1)
		if elem == I4 || elem == I2 {
			v = byte(int8(v<<(8-bits)) >> (8 - bits)) // sign-extend
		}
		one[i] = v
	}
	return TensorFromBytes(elem, shape, one)
}

// TensorFromBytes decodes little-endian raw data.
func TensorFromBytes(elem DType, shape []int64, raw []byte) (*Tensor, error) {
	n := NumElements(shape)
	sz := int64(elem.Size())
	if sz == 0 {
		return nil, fmt.Errorf("element type %s has no raw layout", elem)
	}
	if int64(len(raw)) != n*sz {
		return nil, fmt.Errorf("raw data has %d bytes, shape %v of %s needs %d", len(raw), shape, elem, n*sz)
	}
	t := NewTensor(elem, shape)
	for i := int64(0); i < n; i++ {
		b := raw[i*sz:]
		if elem.IsFloat() {
			t.F[i] = decodeFloat(elem, b)
		} else {
			t.I[i] = decodeInt(elem, b)
		}
	}
	return t, nil
}

// decodeFloat decodes the float element of type elem at the start of b.
func decodeFloat(elem DType, b []byte) float64 {
	switch elem {
	case F32:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	case F64:
		return math.Float64frombits(binary.LittleEndian.Uint64(b))
	case F16:
		return float64(f16ToF32(binary.LittleEndian.Uint16(b)))
	case BF16:
		f, _ := MiniFloatOf(elem)
		return f.Decode(uint32(binary.LittleEndian.Uint16(b)))
	case F8E4M3FN, F8E4M3FNUZ, F8E5M2, F8E5M2FNUZ, F8E8M0:
		f, _ := MiniFloatOf(elem)
		return f.Decode(uint32(b[0]))
	case F4E2M1:
		f, _ := MiniFloatOf(elem)
		return f.Decode(uint32(b[0] & 15))
	}
	return 0
}

// decodeInt decodes the integer or bool element of type elem at the start of b.
func decodeInt(elem DType, b []byte) int64 {
	switch elem {
	case I64:
		return int64(binary.LittleEndian.Uint64(b))
	case I32:
		return int64(int32(binary.LittleEndian.Uint32(b)))
	case I8:
		return int64(int8(b[0]))
	case U8:
		return int64(b[0])
	case I16:
		return int64(int16(binary.LittleEndian.Uint16(b)))
	case U16:
		return int64(binary.LittleEndian.Uint16(b))
	case I4, U4, I2, U2:
		return elem.WrapInt(int64(int8(b[0])))
	case U32:
		return int64(binary.LittleEndian.Uint32(b))
	case U64:
		return int64(binary.LittleEndian.Uint64(b))
	case Bool:
		if b[0] != 0 {
			return 1
		}
	}
	return 0
}

// f32ToF16 converts with round-to-nearest-even.
func f32ToF16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32((b>>23)&0xff) - 127 + 15
	mant := b & 0x7fffff
	switch {
	case (b>>23)&0xff == 0xff: // inf or nan
		if mant != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	case exp >= 0x1f:
		return sign | 0x7c00
	case exp <= 0:
		if exp < -10 {
			return sign
		}
		mant |= 0x800000
		shift := uint32(14 - exp)
		h := mant >> shift
		rem := mant & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rem > half || rem == half && h&1 == 1 {
			h++
		}
		return sign | uint16(h)
	}
	h := uint32(exp)<<10 | mant>>13
	rem := mant & 0x1fff
	if rem > 0x1000 || rem == 0x1000 && h&1 == 1 {
		h++
	}
	return sign | uint16(h)
}

func f16ToF32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0:
		if mant == 0 {
			return math.Float32frombits(sign)
		}
		f := float32(mant) / 1024 / 16384
		if sign != 0 {
			return -f
		}
		return f
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	}
	return math.Float32frombits(sign | (exp+112)<<23 | mant<<13)
}
