// This file holds Tensor, the inputs and outputs of a call: an element type, a shape and the
// elements' bytes in the ABI layout (dense, row-major, little-endian; float16, bfloat16 and the
// float8 types as their bit patterns, bool as one byte 0 or 1).

package modelrt

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/graphc/graphc/ir"
)

// Elem is the Go element types of a tensor's data.
type Elem interface {
	~float32 | ~float64 | ~int64 | ~int32 | ~int16 | ~int8 | ~uint64 | ~uint32 | ~uint16 | ~uint8 | ~bool
}

// Tensor is a dense row-major tensor in the ABI layout.
type Tensor struct {
	DType ir.DType
	Shape []int64
	data  []byte
}

// dtypeOf returns the element type New gives to a slice of T (by kind, so that named types
// such as a type Celsius float32 work too).
func dtypeOf[T Elem]() ir.DType {
	var z T
	return map[reflect.Kind]ir.DType{reflect.Float32: ir.F32, reflect.Float64: ir.F64, reflect.Int64: ir.I64,
		reflect.Int32: ir.I32, reflect.Int16: ir.I16, reflect.Int8: ir.I8, reflect.Uint64: ir.U64, reflect.Uint32: ir.U32,
		reflect.Uint16: ir.U16, reflect.Uint8: ir.U8, reflect.Bool: ir.Bool}[reflect.TypeOf(z).Kind()]
}

// New returns a tensor of shape over data, which it shares (no copy): float32 data is an f32
// tensor, int64 data i64, bool data a bool tensor, and so on. Float16, bfloat16 and float8
// tensors, whose elements Go has no type for, are made by NewOf from their bit patterns. Run
// checks that len(data) matches the shape.
func New[T Elem](shape []int64, data []T) *Tensor {
	return &Tensor{DType: dtypeOf[T](), Shape: append([]int64{}, shape...), data: bytesOf(data)}
}

// NewOf returns a tensor of element type dt over data, which it shares: the element size of T
// must be dt's (uint16 bit patterns for f16 and bf16, uint8 for the float8 types, int8 or uint8
// for the 4- and 2-bit integers, one per byte).
func NewOf[T Elem](dt ir.DType, shape []int64, data []T) (*Tensor, error) {
	var z T
	if dt.Size() == 0 {
		return nil, fmt.Errorf("modelrt: element type %s has no size", dt)
	}
	if int(unsafe.Sizeof(z)) != dt.Size() {
		return nil, fmt.Errorf("modelrt: %T elements are %d bytes, %s elements %d", z, unsafe.Sizeof(z), dt, dt.Size())
	}
	return &Tensor{DType: dt, Shape: append([]int64{}, shape...), data: bytesOf(data)}, nil
}

// FromBytes returns a tensor of element type dt over raw, the elements in the ABI layout
// (shared, not copied). Run checks that len(raw) matches the shape.
func FromBytes(dt ir.DType, shape []int64, raw []byte) *Tensor {
	return &Tensor{DType: dt, Shape: append([]int64{}, shape...), data: raw}
}

// Zeros returns a zero tensor of element type dt and shape, its data 8-byte aligned so that
// every typed view is.
func Zeros(dt ir.DType, shape []int64) (*Tensor, error) {
	n, err := elements(shape)
	if err != nil {
		return nil, err
	}
	bytes, ok := mulNoOverflow(n, int64(dt.Size()))
	if !ok || dt.Size() == 0 {
		return nil, fmt.Errorf("modelrt: %s%v is too large", dt, shape)
	}
	return &Tensor{DType: dt, Shape: append([]int64{}, shape...), data: alignedBytes(bytes)}, nil
}

// FromIR converts an ir.Tensor (the evaluator's, or one read from a TensorProto) to the ABI
// layout.
func FromIR(t *ir.Tensor) *Tensor {
	return &Tensor{DType: t.Elem, Shape: append([]int64{}, t.Shape...), data: t.Bytes()}
}

// IR converts the tensor to an ir.Tensor (floats widened to float64, integers to int64), for
// comparisons with the reference evaluator.
func (t *Tensor) IR() (*ir.Tensor, error) {
	return ir.TensorFromBytes(t.DType, t.Shape, t.data)
}

// Bytes returns the elements in the ABI layout (shared, not copied).
func (t *Tensor) Bytes() []byte { return t.data }

// Len returns the number of elements of the shape (0 for a shape with a negative extent).
func (t *Tensor) Len() int {
	n, err := elements(t.Shape)
	if err != nil {
		return 0
	}
	return int(n)
}

// Float64s returns the elements as float64 (a copy; float16, bfloat16 and float8 decoded,
// integers converted), for summaries and comparisons.
func (t *Tensor) Float64s() ([]float64, error) {
	it, err := t.IR()
	if err != nil {
		return nil, err
	}
	out := make([]float64, it.Len())
	for i := range out {
		out[i] = it.Float(i)
	}
	return out, nil
}

// Data returns the elements of t as a []T that shares t's memory: float32 for f32 tensors,
// uint16 bit patterns for f16 and bf16, uint8 (or bool) for bool, and so on; T's size must be
// the element type's.
func Data[T Elem](t *Tensor) ([]T, error) {
	var z T
	if int(unsafe.Sizeof(z)) != t.DType.Size() {
		return nil, fmt.Errorf("modelrt: %s elements are %d bytes, not %T", t.DType, t.DType.Size(), z)
	}
	n := len(t.data) / t.DType.Size()
	if n == 0 {
		return []T{}, nil
	}
	if uintptr(unsafe.Pointer(&t.data[0]))%unsafe.Alignof(z) != 0 {
		// a tensor over bytes that are not aligned for T: a copy that is
		out := make([]T, n)
		copy(bytesOf(out), t.data)
		return out, nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&t.data[0])), n), nil
}

// bytesOf returns the bytes of s (shared).
func bytesOf[T any](s []T) []byte {
	if len(s) == 0 {
		return []byte{}
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(z)))
}

// alignedBytes returns n zero bytes, 8-byte aligned.
func alignedBytes(n int64) []byte {
	return bytesOf(make([]uint64, (n+7)/8))[:n]
}

// elements returns the element count of shape, refusing negative extents and overflow.
func elements(shape []int64) (int64, error) {
	n := int64(1)
	for _, d := range shape {
		if d < 0 {
			return 0, fmt.Errorf("modelrt: negative extent in shape %v", shape)
		}
		var ok bool
		if n, ok = mulNoOverflow(n, d); !ok {
			return 0, fmt.Errorf("modelrt: shape %v has too many elements", shape)
		}
	}
	return n, nil
}

func mulNoOverflow(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	if a > (1<<62)/b {
		return 0, false
	}
	return a * b, true
}
