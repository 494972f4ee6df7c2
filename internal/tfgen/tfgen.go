// Package tfgen builds small TensorFlow GraphDefs in code, for the importer's tests, the fuzz
// seed corpus and the bundled models, as onnxgen does for ONNX.
package tfgen

import (
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"

	"github.com/graphc/graphc/frontend/tf"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/proto/tfpb"
)

// Graph is a GraphDef under construction.
type Graph struct {
	G *tfpb.GraphDef
}

// New returns an empty graph.
func New() *Graph {
	return &Graph{G: &tfpb.GraphDef{Versions: &tfpb.VersionDef{Producer: 1087}}}
}

// Attr is one node attribute.
type Attr struct {
	Name  string
	Value *tfpb.AttrValue
}

// Int returns an integer attribute.
func Int(name string, v int64) Attr {
	return Attr{name, &tfpb.AttrValue{Value: &tfpb.AttrValue_I{I: v}}}
}

// Ints returns an integer-list attribute.
func Ints(name string, v ...int64) Attr {
	return Attr{name, &tfpb.AttrValue{Value: &tfpb.AttrValue_List{List: &tfpb.AttrValue_ListValue{I: v}}}}
}

// Float returns a float attribute.
func Float(name string, v float32) Attr {
	return Attr{name, &tfpb.AttrValue{Value: &tfpb.AttrValue_F{F: v}}}
}

// Bool returns a boolean attribute.
func Bool(name string, v bool) Attr {
	return Attr{name, &tfpb.AttrValue{Value: &tfpb.AttrValue_B{B: v}}}
}

// String returns a string attribute.
func String(name, v string) Attr {
	return Attr{name, &tfpb.AttrValue{Value: &tfpb.AttrValue_S{S: []byte(v)}}}
}

// Type returns an element-type attribute.
func Type(name string, t ir.DType) Attr {
	return Attr{name, &tfpb.AttrValue{Value: &tfpb.AttrValue_Type{Type: tf.ProtoDType(t)}}}
}

// Shape returns a shape attribute; -1 is an unknown dim.
func Shape(name string, dims ...int64) Attr {
	s := &tfpb.TensorShapeProto{}
	for _, d := range dims {
		s.Dim = append(s.Dim, &tfpb.TensorShapeProto_Dim{Size: d})
	}
	return Attr{name, &tfpb.AttrValue{Value: &tfpb.AttrValue_Shape{Shape: s}}}
}

// Tensor returns a tensor attribute.
func Tensor(name string, t *ir.Tensor) Attr {
	return Attr{name, &tfpb.AttrValue{Value: &tfpb.AttrValue_Tensor{Tensor: tf.TensorToProto(t)}}}
}

// Node appends a node and returns it.
func (g *Graph) Node(op, name string, inputs []string, attrs ...Attr) *tfpb.NodeDef {
	n := &tfpb.NodeDef{Name: name, Op: op, Input: inputs}
	if len(attrs) > 0 {
		n.Attr = map[string]*tfpb.AttrValue{}
		for _, a := range attrs {
			n.Attr[a.Name] = a.Value
		}
	}
	g.G.Node = append(g.G.Node, n)
	return n
}

// Placeholder appends a graph input; a dim of -1 is unknown (symbolic in graphc).
func (g *Graph) Placeholder(name string, t ir.DType, dims ...int64) {
	g.Node("Placeholder", name, nil, Type("dtype", t), Shape("shape", dims...))
}

// Const appends a constant.
func (g *Graph) Const(name string, t *ir.Tensor) {
	g.Node("Const", name, nil, Type("dtype", t.Elem), Tensor("value", t))
}

// Int64s appends an i64 vector constant (an index input: axes, shapes, paddings, …) of the
// given shape (default: a vector of the values).
func (g *Graph) Int64s(name string, v []int64, shape ...int64) {
	if shape == nil {
		shape = []int64{int64(len(v))}
	}
	t := ir.NewTensor(ir.I64, shape)
	copy(t.I, v)
	g.Const(name, t)
}

// Int32s appends an i32 constant like Int64s (TensorFlow's usual index type).
func (g *Graph) Int32s(name string, v []int64, shape ...int64) {
	if shape == nil {
		shape = []int64{int64(len(v))}
	}
	t := ir.NewTensor(ir.I32, shape)
	copy(t.I, v)
	g.Const(name, t)
}

// Text returns the graph in text form (.pbtxt). The protobuf library varies the whitespace
// between builds on purpose, so compare decoded graphs, not bytes.
func (g *Graph) Text() ([]byte, error) {
	return prototext.MarshalOptions{Multiline: true, Indent: "  "}.Marshal(g.G)
}

// Bytes returns the graph in binary form (.pb), with attributes in a deterministic order.
func (g *Graph) Bytes() ([]byte, error) {
	return proto.MarshalOptions{Deterministic: true}.Marshal(g.G)
}

// Import imports the graph with the given options.
func (g *Graph) Import(opts ...tf.Option) (*ir.Graph, error) { return tf.Import(g.G, "tfgen", opts...) }
