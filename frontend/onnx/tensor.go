// This file converts TensorProtos (initializers, Constant values, test data) to ir.Tensor.

package onnx

import (
	"encoding/binary"
	"fmt"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/proto/onnxpb"
)

// The float8, 4-bit and 2-bit data types (onnx.proto 1.14 to 1.19; the generated proto
// predates them).
const (
	onnxFloat8E4M3FN   onnxpb.TensorProto_DataType = 17
	onnxFloat8E4M3FNUZ onnxpb.TensorProto_DataType = 18
	onnxFloat8E5M2     onnxpb.TensorProto_DataType = 19
	onnxFloat8E5M2FNUZ onnxpb.TensorProto_DataType = 20
	onnxUint4          onnxpb.TensorProto_DataType = 21
	onnxInt4           onnxpb.TensorProto_DataType = 22
	onnxFloat4E2M1     onnxpb.TensorProto_DataType = 23
	onnxUint2          onnxpb.TensorProto_DataType = 25
	onnxInt2           onnxpb.TensorProto_DataType = 26
	onnxFloat8E8M0     onnxpb.TensorProto_DataType = 24
)

// DType maps an ONNX element type to graphc's.
func DType(t int32) (ir.DType, error) {
	switch onnxpb.TensorProto_DataType(t) {
	case onnxpb.TensorProto_FLOAT:
		return ir.F32, nil
	case onnxpb.TensorProto_DOUBLE:
		return ir.F64, nil
	case onnxpb.TensorProto_FLOAT16:
		return ir.F16, nil
	case onnxpb.TensorProto_INT64:
		return ir.I64, nil
	case onnxpb.TensorProto_INT32:
		return ir.I32, nil
	case onnxpb.TensorProto_INT8:
		return ir.I8, nil
	case onnxpb.TensorProto_UINT8:
		return ir.U8, nil
	case onnxpb.TensorProto_BOOL:
		return ir.Bool, nil
	case onnxpb.TensorProto_INT16:
		return ir.I16, nil
	case onnxpb.TensorProto_UINT16:
		return ir.U16, nil
	case onnxpb.TensorProto_UINT32:
		return ir.U32, nil
	case onnxpb.TensorProto_UINT64:
		return ir.U64, nil
	case onnxpb.TensorProto_BFLOAT16:
		return ir.BF16, nil
	case onnxFloat8E4M3FN:
		return ir.F8E4M3FN, nil
	case onnxFloat8E4M3FNUZ:
		return ir.F8E4M3FNUZ, nil
	case onnxFloat8E5M2:
		return ir.F8E5M2, nil
	case onnxFloat8E5M2FNUZ:
		return ir.F8E5M2FNUZ, nil
	case onnxUint4:
		return ir.U4, nil
	case onnxInt4:
		return ir.I4, nil
	case onnxFloat4E2M1:
		return ir.F4E2M1, nil
	case onnxUint2:
		return ir.U2, nil
	case onnxInt2:
		return ir.I2, nil
	case onnxFloat8E8M0:
		return ir.F8E8M0, nil
	}
	return ir.Invalid, fmt.Errorf("%w: element type %s", ErrUnsupported, onnxpb.TensorProto_DataType(t))
}

// TensorFromProto decodes a TensorProto (raw_data or typed fields) of at most
// ir.DefaultMaxConstantElements elements.
func TensorFromProto(t *onnxpb.TensorProto) (*ir.Tensor, error) {
	return tensorFromProto(t, ir.DefaultMaxConstantElements)
}

// tensorFromProto decodes a TensorProto of at most maxElems elements, checked before allocating.
func tensorFromProto(t *onnxpb.TensorProto, maxElems int64) (*ir.Tensor, error) {
	elem, err := DType(t.GetDataType())
	if err != nil {
		return nil, fmt.Errorf("tensor %q: %w", t.GetName(), err)
	}
	if t.GetDataLocation() == onnxpb.TensorProto_EXTERNAL {
		return nil, fmt.Errorf("tensor %q: %w: external data must be resolved by the importer", t.GetName(), ErrUnsupported)
	}
	shape := make([]int64, len(t.Dims))
	n := int64(1)
	for i, d := range t.Dims {
		if d < 0 {
			return nil, fmt.Errorf("tensor %q: %w: negative dimension %d", t.GetName(), ErrInvalid, d)
		}
		if d > 0 && n > maxElems/d {
			return nil, fmt.Errorf("tensor %q: %w: %w: shape %v has more than %d elements", t.GetName(), ErrInvalid, ir.ErrLimit, t.Dims, maxElems)
		}
		n *= d
		shape[i] = d
	}
	if elem.IsSubByte() {
		// packed: two 4-bit or four 2-bit elements per byte, in raw_data or one byte per
		// int32_data entry
		raw := t.GetRawData()
		if raw == nil {
			raw = make([]byte, len(t.Int32Data))
			for i, v := range t.Int32Data {
				raw[i] = byte(v)
			}
		}
		out, err := ir.UnpackSubByte(elem, shape, raw)
		if err != nil {
			return nil, fmt.Errorf("tensor %q: %w: %w", t.GetName(), ErrInvalid, err)
		}
		return out, nil
	}
	if raw := t.GetRawData(); raw != nil || n == 0 && len(t.FloatData)+len(t.DoubleData)+len(t.Int32Data)+len(t.Int64Data)+len(t.Uint64Data) == 0 {
		if int64(len(raw)) != n*int64(elem.Size()) {
			return nil, fmt.Errorf("tensor %q: %w: raw_data has %d bytes, shape %v of %s needs %d", t.GetName(), ErrInvalid, len(raw), shape, elem, n*int64(elem.Size()))
		}
		// a large tensor keeps the proto's bytes (no copy, no float64 widening)
		return ir.TensorFromRaw(elem, shape, raw)
	}
	out := ir.NewTensor(elem, shape)
	count := func(have int) error {
		if int64(have) != n {
			return fmt.Errorf("tensor %q: %w: %d values for shape %v", t.GetName(), ErrInvalid, have, shape)
		}
		return nil
	}
	switch elem {
	case ir.F32:
		if err := count(len(t.FloatData)); err != nil {
			return nil, err
		}
		for i, v := range t.FloatData {
			out.F[i] = float64(v)
		}
	case ir.F64:
		if err := count(len(t.DoubleData)); err != nil {
			return nil, err
		}
		copy(out.F, t.DoubleData)
	case ir.F16, ir.BF16, ir.F8E4M3FN, ir.F8E4M3FNUZ, ir.F8E5M2, ir.F8E5M2FNUZ, ir.F8E8M0:
		// float16, bfloat16 and float8 values are stored as bit patterns in int32_data
		if err := count(len(t.Int32Data)); err != nil {
			return nil, err
		}
		for i, v := range t.Int32Data {
			var b [2]byte
			binary.LittleEndian.PutUint16(b[:], uint16(v))
			tt, _ := ir.TensorFromBytes(elem, []int64{1}, b[:elem.Size()])
			out.F[i] = tt.F[0]
		}
	case ir.I64:
		if err := count(len(t.Int64Data)); err != nil {
			return nil, err
		}
		copy(out.I, t.Int64Data)
	case ir.I32, ir.I8, ir.U8, ir.Bool, ir.I16, ir.U16:
		if err := count(len(t.Int32Data)); err != nil {
			return nil, err
		}
		for i, v := range t.Int32Data {
			out.I[i] = elem.WrapInt(int64(v))
		}
	case ir.U32, ir.U64:
		// uint32 and uint64 values are stored in uint64_data
		if err := count(len(t.Uint64Data)); err != nil {
			return nil, err
		}
		for i, v := range t.Uint64Data {
			out.I[i] = elem.WrapInt(int64(v))
		}
	}
	return out, nil
}

// TensorToProto encodes a tensor with raw_data (used by tests and model generators).
func TensorToProto(name string, t *ir.Tensor) *onnxpb.TensorProto {
	dt := map[ir.DType]onnxpb.TensorProto_DataType{ir.F32: onnxpb.TensorProto_FLOAT, ir.F64: onnxpb.TensorProto_DOUBLE,
		ir.F16: onnxpb.TensorProto_FLOAT16, ir.I64: onnxpb.TensorProto_INT64, ir.I32: onnxpb.TensorProto_INT32,
		ir.I8: onnxpb.TensorProto_INT8, ir.U8: onnxpb.TensorProto_UINT8, ir.Bool: onnxpb.TensorProto_BOOL,
		ir.I16: onnxpb.TensorProto_INT16, ir.U16: onnxpb.TensorProto_UINT16, ir.U32: onnxpb.TensorProto_UINT32,
		ir.U64: onnxpb.TensorProto_UINT64, ir.BF16: onnxpb.TensorProto_BFLOAT16, ir.F8E4M3FN: onnxFloat8E4M3FN,
		ir.F8E4M3FNUZ: onnxFloat8E4M3FNUZ, ir.F8E5M2: onnxFloat8E5M2,
		ir.F8E5M2FNUZ: onnxFloat8E5M2FNUZ}[t.Elem]
	switch t.Elem {
	case ir.U4:
		dt = onnxUint4
	case ir.I4:
		dt = onnxInt4
	case ir.F4E2M1:
		dt = onnxFloat4E2M1
	case ir.U2:
		dt = onnxUint2
	case ir.I2:
		dt = onnxInt2
	case ir.F8E8M0:
		dt = onnxFloat8E8M0
	}
	d := int32(dt)
	raw := t.Bytes()
	if t.Elem.IsSubByte() {
		raw = t.PackSubByte()
	}
	return &onnxpb.TensorProto{Name: &name, DataType: &d, Dims: append([]int64(nil), t.Shape...), RawData: raw}
}
