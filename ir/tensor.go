// This file holds Tensor, concrete tensor data for constants, evaluator inputs and results.

package ir

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Tensor is a dense row-major tensor. Floating-point elements live in F (already rounded to the
// element type), integer and bool elements in I.
type Tensor struct {
	Elem  DType
	Shape []int64
	F     []float64
	I     []int64
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

// Len returns the number of elements.
func (t *Tensor) Len() int {
	if t.Elem.IsFloat() {
		return len(t.F)
	}
	return len(t.I)
}

// Clone returns a deep copy.
func (t *Tensor) Clone() *Tensor {
	c := &Tensor{Elem: t.Elem, Shape: append([]int64(nil), t.Shape...)}
	c.F = append([]float64(nil), t.F...)
	c.I = append([]int64(nil), t.I...)
	return c
}

// Float returns element i as a float64.
func (t *Tensor) Float(i int) float64 {
	if t.Elem.IsFloat() {
		return t.F[i]
	}
	return float64(t.I[i])
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

// Bytes returns the little-endian raw data (the ABI layout; bool as one byte).
func (t *Tensor) Bytes() []byte {
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
		case F8E4M3FN, F8E4M3FNUZ, F8E5M2, F8E5M2FNUZ:
			f, _ := MiniFloatOf(t.Elem)
			b[0] = byte(f.Encode(float32(t.F[i]), false))
		case U32:
			binary.LittleEndian.PutUint32(b, uint32(t.I[i]))
		case U64:
			binary.LittleEndian.PutUint64(b, uint64(t.I[i]))
		}
	}
	return out
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
		switch elem {
		case F32:
			t.F[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
		case F64:
			t.F[i] = math.Float64frombits(binary.LittleEndian.Uint64(b))
		case F16:
			t.F[i] = float64(f16ToF32(binary.LittleEndian.Uint16(b)))
		case I64:
			t.I[i] = int64(binary.LittleEndian.Uint64(b))
		case I32:
			t.I[i] = int64(int32(binary.LittleEndian.Uint32(b)))
		case I8:
			t.I[i] = int64(int8(b[0]))
		case U8:
			t.I[i] = int64(b[0])
		case I16:
			t.I[i] = int64(int16(binary.LittleEndian.Uint16(b)))
		case U16:
			t.I[i] = int64(binary.LittleEndian.Uint16(b))
		case BF16:
			f, _ := MiniFloatOf(elem)
			t.F[i] = f.Decode(uint32(binary.LittleEndian.Uint16(b)))
		case F8E4M3FN, F8E4M3FNUZ, F8E5M2, F8E5M2FNUZ:
			f, _ := MiniFloatOf(elem)
			t.F[i] = f.Decode(uint32(b[0]))
		case U32:
			t.I[i] = int64(binary.LittleEndian.Uint32(b))
		case U64:
			t.I[i] = int64(binary.LittleEndian.Uint64(b))
		case Bool:
			if b[0] != 0 {
				t.I[i] = 1
			}
		}
	}
	return t, nil
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
