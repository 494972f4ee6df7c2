// Package onnxgen builds small ONNX models in code, for the bundled examples, tests and
// benchmarks.
package onnxgen

import (
	"maps"
	"os"
	"slices"

	"google.golang.org/protobuf/proto"

	"github.com/graphc/graphc/frontend/onnx"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/proto/onnxpb"
)

// Model is a model under construction.
type Model struct {
	Opset int64
	G     *onnxpb.GraphProto
	// Domains are the opsets of other domains the nodes use (com.microsoft's), by domain.
	Domains map[string]int64
}

// New returns an empty model with the given default-domain opset.
func New(name string, opset int64) *Model {
	return &Model{Opset: opset, G: &onnxpb.GraphProto{Name: proto.String(name)}}
}

func elemType(t ir.DType) int32 {
	m := map[ir.DType]onnxpb.TensorProto_DataType{ir.F32: onnxpb.TensorProto_FLOAT, ir.F64: onnxpb.TensorProto_DOUBLE,
		ir.I64: onnxpb.TensorProto_INT64, ir.I32: onnxpb.TensorProto_INT32, ir.I8: onnxpb.TensorProto_INT8,
		ir.U8: onnxpb.TensorProto_UINT8, ir.Bool: onnxpb.TensorProto_BOOL, ir.F16: onnxpb.TensorProto_FLOAT16,
		ir.I16: onnxpb.TensorProto_INT16, ir.U16: onnxpb.TensorProto_UINT16, ir.U32: onnxpb.TensorProto_UINT32,
		ir.U64: onnxpb.TensorProto_UINT64, ir.BF16: onnxpb.TensorProto_BFLOAT16}
	return int32(m[t])
}

// ValueInfo returns a tensor ValueInfo; dims are ints (static) or strings (dim_param).
func ValueInfo(name string, t ir.DType, dims ...any) *onnxpb.ValueInfoProto {
	shape := &onnxpb.TensorShapeProto{}
	for _, d := range dims {
		switch d := d.(type) {
		case int:
			shape.Dim = append(shape.Dim, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: int64(d)}})
		case int64:
			shape.Dim = append(shape.Dim, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: d}})
		case string:
			shape.Dim = append(shape.Dim, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimParam{DimParam: d}})
		}
	}
	et := elemType(t)
	return &onnxpb.ValueInfoProto{Name: proto.String(name), Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{
		TensorType: &onnxpb.TypeProto_Tensor{ElemType: &et, Shape: shape}}}}
}

// Input adds a graph input.
func (m *Model) Input(name string, t ir.DType, dims ...any) {
	m.G.Input = append(m.G.Input, ValueInfo(name, t, dims...))
}

// Output adds a graph output.
func (m *Model) Output(name string, t ir.DType, dims ...any) {
	m.G.Output = append(m.G.Output, ValueInfo(name, t, dims...))
}

// Init adds an initializer.
func (m *Model) Init(name string, t *ir.Tensor) {
	m.G.Initializer = append(m.G.Initializer, onnx.TensorToProto(name, t))
}

// Attr is a node attribute.
type Attr = *onnxpb.AttributeProto

// IntAttr returns an INT attribute.
func IntAttr(name string, v int64) Attr {
	t := onnxpb.AttributeProto_INT
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: &t, I: proto.Int64(v)}
}

// IntsAttr returns an INTS attribute.
func IntsAttr(name string, v ...int64) Attr {
	t := onnxpb.AttributeProto_INTS
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: &t, Ints: v}
}

// FloatAttr returns a FLOAT attribute.
func FloatAttr(name string, v float32) Attr {
	t := onnxpb.AttributeProto_FLOAT
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: &t, F: proto.Float32(v)}
}

// StringAttr returns a STRING attribute.
func StringAttr(name, v string) Attr {
	t := onnxpb.AttributeProto_STRING
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: &t, S: []byte(v)}
}

// StringsAttr returns a STRINGS attribute (a recurrent layer's activations).
func StringsAttr(name string, v ...string) Attr {
	t := onnxpb.AttributeProto_STRINGS
	var b [][]byte
	for _, x := range v {
		b = append(b, []byte(x))
	}
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: &t, Strings: b}
}

// TensorAttr returns a TENSOR attribute (ConstantOfShape's value, Constant's value).
func TensorAttr(name string, t *ir.Tensor) Attr {
	ty := onnxpb.AttributeProto_TENSOR
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: &ty, T: onnx.TensorToProto("", t)}
}

// Node adds a node.
func (m *Model) Node(op, name string, inputs, outputs []string, attrs ...Attr) {
	m.G.Node = append(m.G.Node, &onnxpb.NodeProto{OpType: proto.String(op), Name: proto.String(name),
		Input: inputs, Output: outputs, Attribute: attrs})
}

// DomainNode adds a node of another domain (opset version 1 of it).
func (m *Model) DomainNode(domain, op, name string, inputs, outputs []string, attrs ...Attr) {
	m.Node(op, name, inputs, outputs, attrs...)
	m.G.Node[len(m.G.Node)-1].Domain = proto.String(domain)
	if m.Domains == nil {
		m.Domains = map[string]int64{}
	}
	m.Domains[domain] = 1
}

// Proto returns the ModelProto.
func (m *Model) Proto() *onnxpb.ModelProto {
	ops := []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(m.Opset)}}
	for _, d := range slices.Sorted(maps.Keys(m.Domains)) {
		ops = append(ops, &onnxpb.OperatorSetIdProto{Domain: proto.String(d), Version: proto.Int64(m.Domains[d])})
	}
	return &onnxpb.ModelProto{IrVersion: proto.Int64(8), ProducerName: proto.String("graphc onnxgen"),
		OpsetImport: ops, Graph: m.G}
}

// Bytes serialises the model.
func (m *Model) Bytes() ([]byte, error) { return proto.Marshal(m.Proto()) }

// Write writes the model to path.
func (m *Model) Write(path string) error {
	b, err := m.Bytes()
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// MatMulTrilu is the walking skeleton's example: Y = Trilu(A · B), A and B n×n inputs.
func MatMulTrilu(n int, upper bool) *Model {
	m := New("matmul_trilu", 14)
	m.Input("A", ir.F32, n, n)
	m.Input("B", ir.F32, n, n)
	u := int64(0)
	if upper {
		u = 1
	}
	m.Node("MatMul", "matmul", []string{"A", "B"}, []string{"C"})
	m.Node("Trilu", "trilu", []string{"C"}, []string{"Y"}, IntAttr("upper", u))
	m.Output("Y", ir.F32, n, n)
	return m
}
