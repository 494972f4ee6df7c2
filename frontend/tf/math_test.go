// This file tests the elementwise ops, Cast, AddN and Softmax/LogSoftmax against ONNX graphs
// of the same computation.

package tf_test

import (
	"fmt"
	"testing"

	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/internal/tfgen"
	"github.com/graphc/graphc/ir"
)

// ewCase is a TensorFlow op on inputs a, b, … and the ONNX nodes computing the same into "y".
type ewCase struct {
	tfOp    string
	tfAttrs []tfgen.Attr
	elems   []ir.DType // one per input
	kind    inputKind
	onnx    func(m *onnxgen.Model)
}

func node1(op string, attrs ...onnxgen.Attr) func(m *onnxgen.Model) {
	return func(m *onnxgen.Model) {
		var ins []string
		for _, in := range m.G.Input {
			ins = append(ins, in.GetName())
		}
		m.Node(op, "n", ins, []string{"y"}, attrs...)
	}
}

func TestElementwiseSameAsONNX(t *testing.T) {
	f, f2, f3 := []ir.DType{ir.F32}, []ir.DType{ir.F32, ir.F32}, []ir.DType{ir.F32, ir.F32, ir.F32}
	i2 := []ir.DType{ir.I32, ir.I32}
	b2 := []ir.DType{ir.Bool, ir.Bool}
	cases := map[string]ewCase{
		"Add": {tfOp: "Add", elems: f2, onnx: node1("Add")}, "AddV2": {tfOp: "AddV2", elems: f2, onnx: node1("Add")},
		"Sub": {tfOp: "Sub", elems: f2, onnx: node1("Sub")}, "Mul": {tfOp: "Mul", elems: f2, onnx: node1("Mul")},
		"RealDiv": {tfOp: "RealDiv", elems: f2, onnx: node1("Div")}, "Div": {tfOp: "Div", elems: f2, onnx: node1("Div")},
		"DivInt":  {tfOp: "Div", elems: i2, kind: positive, onnx: node1("Div")},
		"Maximum": {tfOp: "Maximum", elems: f2, onnx: node1("Max")}, "Minimum": {tfOp: "Minimum", elems: f2, onnx: node1("Min")},
		"Pow":          {tfOp: "Pow", elems: f2, kind: positive, onnx: node1("Pow")},
		"FloorMod":     {tfOp: "FloorMod", elems: i2, onnx: node1("Mod")},
		"Equal":        {tfOp: "Equal", elems: i2, onnx: node1("Equal")},
		"Less":         {tfOp: "Less", elems: f2, onnx: node1("Less")},
		"LessEqual":    {tfOp: "LessEqual", elems: i2, onnx: node1("LessOrEqual")},
		"Greater":      {tfOp: "Greater", elems: f2, onnx: node1("Greater")},
		"GreaterEqual": {tfOp: "GreaterEqual", elems: i2, onnx: node1("GreaterOrEqual")},
		"NotEqual": {tfOp: "NotEqual", elems: i2, onnx: func(m *onnxgen.Model) {
			m.Node("Equal", "e", []string{"a", "b"}, []string{"eq"})
			m.Node("Not", "n", []string{"eq"}, []string{"y"})
		}},
		"LogicalAnd": {tfOp: "LogicalAnd", elems: b2, onnx: node1("And")},
		"LogicalOr":  {tfOp: "LogicalOr", elems: b2, onnx: node1("Or")},
		"LogicalNot": {tfOp: "LogicalNot", elems: []ir.DType{ir.Bool}, onnx: node1("Not")},
		"SelectV2":   {tfOp: "SelectV2", elems: []ir.DType{ir.Bool, ir.F32, ir.F32}, onnx: node1("Where")},
		"AddN": {tfOp: "AddN", elems: f3, onnx: func(m *onnxgen.Model) {
			m.Node("Add", "s1", []string{"a", "b"}, []string{"s"})
			m.Node("Add", "s2", []string{"s", "c"}, []string{"y"})
		}},
		"Relu": {tfOp: "Relu", elems: f, onnx: node1("Relu")}, "Sigmoid": {tfOp: "Sigmoid", elems: f, onnx: node1("Sigmoid")},
		"Tanh": {tfOp: "Tanh", elems: f, onnx: node1("Tanh")}, "Neg": {tfOp: "Neg", elems: f, onnx: node1("Neg")},
		"Abs": {tfOp: "Abs", elems: f, onnx: node1("Abs")}, "Exp": {tfOp: "Exp", elems: f, onnx: node1("Exp")},
		"Log":        {tfOp: "Log", elems: f, kind: positive, onnx: node1("Log")},
		"Sqrt":       {tfOp: "Sqrt", elems: f, kind: positive, onnx: node1("Sqrt")},
		"Reciprocal": {tfOp: "Reciprocal", elems: f, kind: positive, onnx: node1("Reciprocal")},
		"Inv":        {tfOp: "Inv", elems: f, kind: positive, onnx: node1("Reciprocal")},
		"Floor":      {tfOp: "Floor", elems: f, onnx: node1("Floor")}, "Ceil": {tfOp: "Ceil", elems: f, onnx: node1("Ceil")},
		"Round": {tfOp: "Round", elems: f, onnx: node1("Round")}, "Sign": {tfOp: "Sign", elems: f, onnx: node1("Sign")},
		"Sin": {tfOp: "Sin", elems: f, onnx: node1("Sin")}, "Cos": {tfOp: "Cos", elems: f, onnx: node1("Cos")},
		"Erf": {tfOp: "Erf", elems: f, onnx: node1("Erf")}, "Softplus": {tfOp: "Softplus", elems: f, onnx: node1("Softplus")},
		"Softsign":  {tfOp: "Softsign", elems: f, onnx: node1("Softsign")},
		"Elu":       {tfOp: "Elu", elems: f, onnx: node1("Elu")},
		"LeakyRelu": {tfOp: "LeakyRelu", elems: f, onnx: node1("LeakyRelu", onnxgen.FloatAttr("alpha", 0.2))},
		"LeakyReluAlpha": {tfOp: "LeakyRelu", tfAttrs: []tfgen.Attr{tfgen.Float("alpha", 0.05)}, elems: f,
			onnx: node1("LeakyRelu", onnxgen.FloatAttr("alpha", 0.05))},
		"Selu": {tfOp: "Selu", elems: f, onnx: node1("Selu", onnxgen.FloatAttr("alpha", 1.6732632423543772848170429916717),
			onnxgen.FloatAttr("gamma", 1.0507009873554804934193349852946))},
		"Relu6": {tfOp: "Relu6", elems: f, onnx: func(m *onnxgen.Model) {
			m.Init("lo", f32(nil, 0))
			m.Init("hi", f32(nil, 6))
			m.Node("Clip", "n", []string{"a", "lo", "hi"}, []string{"y"})
		}},
		"Rsqrt": {tfOp: "Rsqrt", elems: f, kind: positive, onnx: func(m *onnxgen.Model) {
			m.Node("Sqrt", "s", []string{"a"}, []string{"s"})
			m.Node("Reciprocal", "n", []string{"s"}, []string{"y"})
		}},
		"Square": {tfOp: "Square", elems: f, onnx: func(m *onnxgen.Model) { m.Node("Mul", "n", []string{"a", "a"}, []string{"y"}) }},
		"SquaredDifference": {tfOp: "SquaredDifference", elems: f2, onnx: func(m *onnxgen.Model) {
			m.Node("Sub", "d", []string{"a", "b"}, []string{"d"})
			m.Node("Mul", "n", []string{"d", "d"}, []string{"y"})
		}},
		"CastToInt":  {tfOp: "Cast", tfAttrs: []tfgen.Attr{tfgen.Type("DstT", ir.I32)}, elems: f, onnx: node1("Cast", onnxgen.IntAttr("to", 6))},
		"CastToBool": {tfOp: "Cast", tfAttrs: []tfgen.Attr{tfgen.Type("DstT", ir.Bool)}, elems: i2[:1], onnx: node1("Cast", onnxgen.IntAttr("to", 9))},
		"CastToF64":  {tfOp: "Cast", tfAttrs: []tfgen.Attr{tfgen.Type("DstT", ir.F64)}, elems: i2[:1], onnx: node1("Cast", onnxgen.IntAttr("to", 11))},
		"CastSame":   {tfOp: "Cast", tfAttrs: []tfgen.Attr{tfgen.Type("DstT", ir.F32)}, elems: f, onnx: node1("Identity")},
		"Softmax":    {tfOp: "Softmax", elems: f, onnx: node1("Softmax", onnxgen.IntAttr("axis", -1))},
		"LogSoftmax": {tfOp: "LogSoftmax", elems: f, onnx: node1("LogSoftmax", onnxgen.IntAttr("axis", -1))},
	}
	// the inputs broadcast: a is [2, 3, 4], b [3, 1], c [4]
	shapes := [][]int64{{2, 3, 4}, {3, 1}, {4}}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tg := tfgen.New()
			m := onnxgen.New("m", 18)
			var ins []string
			for i, el := range tc.elems {
				in := string(rune('a' + i))
				sh := shapes[i]
				if tc.tfOp == "SelectV2" {
					sh = shapes[2-i] // cond [4], x [3, 1], y [2, 3, 4]
				}
				tg.Placeholder(in, el, sh...)
				m.Input(in, el, anyDims(sh)...)
				ins = append(ins, in)
			}
			tg.Node(tc.tfOp, "y", ins, tc.tfAttrs...)
			tc.onnx(m)
			onnxOut(m, "y")
			checkSame(t, sameCase{tf: tg, onnx: m, kind: tc.kind})
		})
	}
}

// anyDims converts a shape to onnxgen's dims.
func anyDims(shape []int64) []any {
	out := make([]any, len(shape))
	for i, d := range shape {
		out[i] = d
	}
	return out
}

// f32 returns an f32 tensor of the given shape holding v.
func f32(shape []int64, v ...float64) *ir.Tensor {
	t := ir.NewTensor(ir.F32, shape)
	if len(v) != t.Len() {
		panic(fmt.Sprintf("f32: %d values for shape %v", len(v), shape))
	}
	for i := range t.F {
		t.F[i] = ir.RoundFloat(ir.F32, v[i])
	}
	return t
}
