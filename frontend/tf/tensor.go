// This file converts TensorFlow tensors, types and shapes.

package tf

import (
	"encoding/binary"
	"fmt"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/proto/tfpb"
)

// DType maps a TensorFlow element type to graphc's.
func DType(t tfpb.DataType) (ir.DType, error) {
	switch t {
	case tfpb.DataType_DT_FLOAT:
		return ir.F32, nil
	case tfpb.DataType_DT_DOUBLE:
		return ir.F64, nil
	case tfpb.DataType_DT_HALF:
		return ir.F16, nil
	case tfpb.DataType_DT_INT64:
		return ir.I64, nil
	case tfpb.DataType_DT_INT32:
		return ir.I32, nil
	case tfpb.DataType_DT_INT8:
		return ir.I8, nil
	case tfpb.DataType_DT_UINT8:
		return ir.U8, nil
	case tfpb.DataType_DT_BOOL:
		return ir.Bool, nil
	}
	return ir.Invalid, fmt.Errorf("%w: element type %s", ErrUnsupported, t)
}

// ProtoDType maps a graphc element type to TensorFlow's (DT_INVALID for none).
func ProtoDType(t ir.DType) tfpb.DataType {
	switch t {
	case ir.F32:
		return tfpb.DataType_DT_FLOAT
	case ir.F64:
		return tfpb.DataType_DT_DOUBLE
	case ir.F16:
		return tfpb.DataType_DT_HALF
	case ir.I64:
		return tfpb.DataType_DT_INT64
	case ir.I32:
		return tfpb.DataType_DT_INT32
	case ir.I8:
		return tfpb.DataType_DT_INT8
	case ir.U8:
		return tfpb.DataType_DT_UINT8
	case ir.Bool:
		return tfpb.DataType_DT_BOOL
	}
	return tfpb.DataType_DT_INVALID
}

// TensorToProto encodes t as a TensorProto with typed values (float_val, int_val, …), which
// read well in text GraphDefs; TensorFromProto decodes it back exactly.
func TensorToProto(t *ir.Tensor) *tfpb.TensorProto {
	p := &tfpb.TensorProto{Dtype: ProtoDType(t.Elem), TensorShape: &tfpb.TensorShapeProto{}}
	for _, d := range t.Shape {
		p.TensorShape.Dim = append(p.TensorShape.Dim, &tfpb.TensorShapeProto_Dim{Size: d})
	}
	t = t.Decoded()
	switch t.Elem {
	case ir.F32:
		for _, v := range t.F {
			p.FloatVal = append(p.FloatVal, float32(v))
		}
	case ir.F64:
		p.DoubleVal = append(p.DoubleVal, t.F...)
	case ir.F16:
		raw := t.Bytes()
		for i := 0; i+1 < len(raw); i += 2 {
			p.HalfVal = append(p.HalfVal, int32(binary.LittleEndian.Uint16(raw[i:])))
		}
	case ir.I64:
		p.Int64Val = append(p.Int64Val, t.I...)
	case ir.Bool:
		for _, v := range t.I {
			p.BoolVal = append(p.BoolVal, v != 0)
		}
	default:
		for _, v := range t.I {
			p.IntVal = append(p.IntVal, int32(v))
		}
	}
	return p
}

// TensorFromProto decodes a TensorProto: tensor_content or typed values, where fewer values than
// elements repeat the last one (TensorFlow's convention for splat constants).
func TensorFromProto(t *tfpb.TensorProto) (*ir.Tensor, error) {
	return tensorFromProto(t, ir.Limits{}.WithDefaults())
}

// tensorFromProto decodes t, of at most l.MaxConstantElements elements, expanding a splat
// (fewer values than elements) to at most l.MaxFileBytes bytes of dense data: a few bytes of a
// file must not stand for gigabytes.
func tensorFromProto(t *tfpb.TensorProto, l ir.Limits) (*ir.Tensor, error) {
	maxBytes := l.MaxFileBytes
	elem, err := DType(t.Dtype)
	if err != nil {
		return nil, err
	}
	if t.TensorShape.GetUnknownRank() {
		return nil, fmt.Errorf("%w: constant of unknown rank", ErrInvalid)
	}
	var shape []int64
	n := int64(1)
	for _, d := range t.TensorShape.GetDim() {
		if d.Size < 0 {
			return nil, fmt.Errorf("%w: constant with unknown dimension", ErrInvalid)
		}
		if d.Size > 0 && n > l.MaxConstantElements/d.Size {
			return nil, fmt.Errorf("%w: %w: constant of more than %d elements", ErrInvalid, ir.ErrLimit, l.MaxConstantElements)
		}
		n *= d.Size
		shape = append(shape, d.Size)
	}
	if len(t.TensorContent) > 0 {
		if int64(len(t.TensorContent)) != n*int64(elem.Size()) {
			return nil, fmt.Errorf("%w: tensor_content has %d bytes, shape %v of %s needs %d", ErrInvalid, len(t.TensorContent), shape, elem, n*int64(elem.Size()))
		}
		return ir.TensorFromRaw(elem, shape, t.TensorContent) // a large one keeps the proto's bytes
	}
	var vals []float64
	var ivals []int64
	switch elem {
	case ir.F32:
		for _, v := range t.FloatVal {
			vals = append(vals, float64(v))
		}
	case ir.F64:
		vals = append(vals, t.DoubleVal...)
	case ir.F16:
		for _, v := range t.HalfVal {
			var b [2]byte
			binary.LittleEndian.PutUint16(b[:], uint16(v))
			h, _ := ir.TensorFromBytes(ir.F16, []int64{1}, b[:])
			vals = append(vals, h.F[0])
		}
	case ir.I64:
		ivals = append(ivals, t.Int64Val...)
	case ir.Bool:
		for _, v := range t.BoolVal {
			if v {
				ivals = append(ivals, 1)
			} else {
				ivals = append(ivals, 0)
			}
		}
	default:
		for _, v := range t.IntVal {
			ivals = append(ivals, elem.WrapInt(int64(v)))
		}
	}
	have := int64(len(vals) + len(ivals))
	if have > n {
		return nil, fmt.Errorf("%w: %d values for shape %v", ErrInvalid, have, shape)
	}
	if have < n && n > maxBytes/int64(elem.Size()) {
		return nil, fmt.Errorf("%w: a splat constant of shape %v (%d bytes) exceeds the size limit of %d bytes", ErrInvalid, shape, n*int64(elem.Size()), maxBytes)
	}
	if have == 0 && n > 0 {
		return ir.NewTensor(elem, shape), nil // all zeros
	}
	out := ir.NewTensor(elem, shape)
	for i := int64(0); i < n; i++ {
		j := min(i, have-1)
		if elem.IsFloat() {
			out.F[i] = ir.RoundFloat(elem, vals[j])
		} else {
			out.I[i] = ivals[j]
		}
	}
	return out, nil
}
