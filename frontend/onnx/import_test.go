package onnx_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/graphc/graphc/frontend/onnx"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
	"github.com/graphc/graphc/proto/onnxpb"
)

func tensor(elem ir.DType, shape []int64, vals ...float64) *ir.Tensor {
	t := ir.NewTensor(elem, shape)
	for i, v := range vals {
		if elem.IsFloat() {
			t.F[i] = v
		} else {
			t.I[i] = int64(v)
		}
	}
	return t
}

// runModel imports m and evaluates it on the inputs (by ONNX name).
func runModel(t *testing.T, m *onnxpb.ModelProto, inputs map[string]*ir.Tensor, opts ...onnx.Option) []*ir.Tensor {
	t.Helper()
	g, err := onnx.Import(m, "m.onnx", opts...)
	require.NoError(t, err)
	require.NoError(t, ir.Verify(g))
	out, err := eval.Run(g, inputs)
	require.NoError(t, err)
	return out
}

func unaryModel(op string, opset int64, attrs ...onnxgen.Attr) *onnxgen.Model {
	m := onnxgen.New("m", opset)
	m.Input("X", ir.F32, 4)
	m.Node(op, "n", []string{"X"}, []string{"Y"}, attrs...)
	m.Output("Y", ir.F32, 4)
	return m
}

func TestErrorMessages(t *testing.T) {
	withIR := func(m *onnxgen.Model, v int64) *onnxpb.ModelProto {
		p := m.Proto()
		p.IrVersion = proto.Int64(v)
		return p
	}
	noDefault := unaryModel("Relu", 14).Proto()
	noDefault.OpsetImport = []*onnxpb.OperatorSetIdProto{{Domain: proto.String("com.example"), Version: proto.Int64(1)}}
	axesInput := onnxgen.New("m", 13)
	axesInput.Input("X", ir.F32, 2, 3)
	axesInput.Input("axes", ir.I64, 1)
	axesInput.Node("ReduceSum", "r", []string{"X", "axes"}, []string{"Y"})
	axesInput.Output("Y", ir.F32, 1, 3)
	axesComputed := onnxgen.New("m", 13)
	axesComputed.Input("X", ir.F32, 2, 3)
	axesComputed.Input("A", ir.I64, 1)
	axesComputed.Node("Abs", "abs", []string{"A"}, []string{"axes"})
	axesComputed.Node("ReduceSum", "r", []string{"X", "axes"}, []string{"Y"})
	axesComputed.Output("Y", ir.F32, 1, 3)
	str := onnxgen.New("m", 14)
	str.Node("Constant", "c", nil, []string{"Y"}, &onnxpb.AttributeProto{Name: proto.String("value_string"),
		Type: onnxpb.AttributeProto_STRING.Enum(), S: []byte("hi")})
	str.Output("Y", ir.F32, 1)
	noValue := onnxgen.New("m", 14)
	noValue.Node("Constant", "c", nil, []string{"Y"})
	noValue.Output("Y", ir.F32, 1)
	noTensor := onnxgen.New("m", 14)
	noTensor.Node("Constant", "c", nil, []string{"Y"}, onnxgen.IntsAttr("value", 1, 2))
	noTensor.Output("Y", ir.I64, 2)
	convW := onnxgen.New("m", 14)
	convW.Input("X", ir.F32, 1, 1, 4, 4)
	convW.Input("W", ir.F32, 3)
	convW.Node("Conv", "conv", []string{"X", "W"}, []string{"Y"})
	convW.Output("Y", ir.F32, 1, 1, 4, 4)
	resize := func(sizes ...int64) *onnxpb.ModelProto {
		m := onnxgen.New("m", 19)
		m.Input("X", ir.F32, 1, 1, 2, 2)
		sz := ir.NewTensor(ir.I64, []int64{4})
		copy(sz.I, sizes)
		m.Init("sizes", sz)
		m.Node("Resize", "r", []string{"X", "", "", "sizes"}, []string{"Y"})
		m.Output("Y", ir.F32, 1, 1, 2, 2)
		return m.Proto()
	}
	many := onnxgen.New("m", 14)
	many.Input("X", ir.F32, 4)
	many.Node("TfIdfVectorizer", "tf1", []string{"X"}, []string{"A"})
	many.Node("Relu", "ok", []string{"A"}, []string{"B"})
	many.Node("Frobnicate", "f", []string{"B"}, []string{"C"})
	many.Node("TfIdfVectorizer", "tf2", []string{"C"}, []string{"Y"})
	many.Output("Y", ir.F32, 4)
	badInfo := unaryModel("Relu", 14)
	badInfo.G.ValueInfo = append(badInfo.G.ValueInfo, onnxgen.ValueInfo("Y", ir.F32, 5))
	badOut := unaryModel("Relu", 14)
	badOut.G.Output[0] = onnxgen.ValueInfo("Y", ir.I64, 4)
	cases := []struct {
		name  string
		model *onnxpb.ModelProto
		opts  []onnx.Option
		want  string
	}{
		{"unsupported op", unaryModel("TfIdfVectorizer", 14).Proto(), nil,
			`m.onnx: node "n" (TfIdfVectorizer, opset 14): unsupported: op TfIdfVectorizer is not supported (graphc ops lists the supported ops)`},
		{"every unsupported op at once", many.Proto(), nil,
			`m.onnx: unsupported: 3 nodes use what graphc does not support: op TfIdfVectorizer is not supported (nodes "tf1", "tf2"); op Frobnicate is not supported (node "f"); graphc ops lists the supported ops`},
		{"op newer than the model", unaryModel("Gelu", 18).Proto(), nil,
			`m.onnx: node "n" (Gelu, opset 18): unsupported: Gelu is supported from opset 20`},
		{"opset too new", unaryModel("Relu", 29).Proto(), nil,
			`m.onnx: unsupported: opset 29 is newer than the newest supported (28)`},
		{"IR version too new", withIR(unaryModel("Relu", 14), 14), nil,
			`m.onnx: unsupported: IR version 14 (supported: 3 to 13)`},
		{"IR version too old", withIR(unaryModel("Relu", 14), 2), nil,
			`m.onnx: unsupported: IR version 2 (supported: 3 to 13)`},
		{"no default opset", noDefault, nil,
			`m.onnx: unsupported: no opset import for the default ONNX domain`},
		{"axes from a graph input", axesInput.Proto(), nil,
			`m.onnx: node "r" (ReduceSum, opset 13): unsupported: input "axes" (axes) must be known at compile time (an initializer, a Constant, or computed from shapes); it is a graph input: bind its value at compile time`},
		{"axes computed at run time", axesComputed.Proto(), nil,
			`m.onnx: node "r" (ReduceSum, opset 13): unsupported: input "axes" (axes) must be known at compile time (an initializer, a Constant, or computed from shapes); it is computed from the graph inputs ["A"]: bind them at compile time`},
		{"string constant", str.Proto(), nil,
			`m.onnx: node "c" (Constant, opset 14): unsupported: string constants`},
		{"constant without value", noValue.Proto(), nil,
			`m.onnx: node "c" (Constant, opset 14): invalid model: Constant without a value attribute`},
		{"constant value that is not a tensor", noTensor.Proto(), nil,
			`m.onnx: node "c" (Constant, opset 14): invalid model: Constant's value attribute holds no tensor (attribute type INTS)`},
		{"conv weights of another rank", convW.Proto(), nil,
			`m.onnx: node "conv" (Conv, opset 14): invalid model: W must have the rank of X (4), got f32[3]`},
		{"resize to a negative extent", resize(1, 1, -1, 2), nil,
			`m.onnx: node "r" (Resize, opset 19): invalid model: output extent -1 of dim 2 is negative`},
		// empty, so within any element limit, but the builder's index table would have 2^50 entries
		{"resize to a huge extent of an empty tensor", resize(1, 0, 1<<50, 2), nil,
			`m.onnx: node "r" (Resize, opset 19): invalid model: limit exceeded: output extent 1125899906842624 of dim 2 exceeds 1099511627776`},
		{"value_info disagrees", badInfo.Proto(), nil,
			`m.onnx: invalid model: value_info "Y" is declared f32[5], the importer computed f32[4] (dim 0 = 5 differs)`},
		{"output type disagrees", badOut.Proto(), nil,
			`m.onnx: invalid model: output "Y" is declared i64[4], the importer computed f32[4] (element type i64 differs)`},
		{"constant for an unknown input", unaryModel("Relu", 14).Proto(), []onnx.Option{onnx.WithConstInput("Z", tensor(ir.F32, []int64{4}))},
			`m.onnx: invalid model: no graph input "Z" to bind to a constant (inputs: "X")`},
		{"constant of the wrong type", unaryModel("Relu", 14).Proto(), []onnx.Option{onnx.WithConstInput("X", tensor(ir.I64, []int64{4}))},
			`m.onnx: invalid model: constant bound to input "X" is i64[4], the input is declared f32[4]`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := onnx.Import(tc.model, "m.onnx", tc.opts...)
			require.EqualError(t, err, tc.want)
		})
	}
}

func TestErrorKinds(t *testing.T) {
	_, err := onnx.Import(unaryModel("TfIdfVectorizer", 14).Proto(), "m.onnx")
	require.ErrorIs(t, err, onnx.ErrUnsupported)
	var ne *onnx.NodeError
	require.ErrorAs(t, err, &ne)
	require.Equal(t, "n", ne.Node)
	require.Equal(t, int64(14), ne.Opset)
	_, err = onnx.Import(unaryModel("Relu", 29).Proto(), "m.onnx")
	require.ErrorIs(t, err, onnx.ErrUnsupported)
}

func TestIRVersions(t *testing.T) {
	for v := int64(3); v <= 13; v++ {
		p := unaryModel("Relu", 14).Proto()
		p.IrVersion = proto.Int64(v)
		out := runModel(t, p, map[string]*ir.Tensor{"X": tensor(ir.F32, []int64{4}, -1, 2, -3, 4)})
		require.Equal(t, []float64{0, 2, 0, 4}, out[0].F, "IR version %d", v)
	}
}

// TestConstInput binds an input the importer needs at compile time.
func TestConstInput(t *testing.T) {
	m := onnxgen.New("m", 13)
	m.Input("X", ir.F32, 2, 3)
	m.Input("axes", ir.I64, 1)
	m.Node("ReduceSum", "r", []string{"X", "axes"}, []string{"Y"})
	m.Output("Y", ir.F32, 1, 3)
	_, err := onnx.Import(m.Proto(), "m.onnx")
	var ce *onnx.NeedConstError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, "axes", ce.Input)
	require.True(t, ce.GraphInput)
	out := runModel(t, m.Proto(), map[string]*ir.Tensor{"X": tensor(ir.F32, []int64{2, 3}, 1, 2, 3, 10, 20, 30)},
		onnx.WithConstInput("axes", tensor(ir.I64, []int64{1}, 0)))
	require.Equal(t, []float64{11, 22, 33}, out[0].F)
}

// TestInitializerInputs: an initializer also listed as a graph input is a constant unless the
// caller asks for it as an input.
func TestInitializerInputs(t *testing.T) {
	m := onnxgen.New("m", 14)
	m.Input("X", ir.F32, 2)
	m.Input("B", ir.F32, 2)
	m.Init("B", tensor(ir.F32, []int64{2}, 10, 20))
	m.Node("Add", "add", []string{"X", "B"}, []string{"Y"})
	m.Output("Y", ir.F32, 2)
	g, err := onnx.Import(m.Proto(), "m.onnx")
	require.NoError(t, err)
	require.Len(t, g.Inputs, 1)
	x := tensor(ir.F32, []int64{2}, 1, 2)
	out := runModel(t, m.Proto(), map[string]*ir.Tensor{"X": x})
	require.Equal(t, []float64{11, 22}, out[0].F)
	g, err = onnx.Import(m.Proto(), "m.onnx", onnx.WithInitializerInputs())
	require.NoError(t, err)
	require.Len(t, g.Inputs, 2)
	out = runModel(t, m.Proto(), map[string]*ir.Tensor{"X": x, "B": tensor(ir.F32, []int64{2}, 100, 200)}, onnx.WithInitializerInputs())
	require.Equal(t, []float64{101, 202}, out[0].F)
}

func TestConstantAttributes(t *testing.T) {
	attr := func(name string, typ onnxpb.AttributeProto_AttributeType, set func(a *onnxpb.AttributeProto)) onnxgen.Attr {
		a := &onnxpb.AttributeProto{Name: proto.String(name), Type: typ.Enum()}
		set(a)
		return a
	}
	cases := []struct {
		attr  onnxgen.Attr
		elem  ir.DType
		shape []int64
		want  []float64
	}{
		{attr("value", onnxpb.AttributeProto_TENSOR, func(a *onnxpb.AttributeProto) {
			a.T = onnx.TensorToProto("", tensor(ir.I32, []int64{2, 2}, 1, 2, 3, 4))
		}), ir.I32, []int64{2, 2}, []float64{1, 2, 3, 4}},
		{attr("value_float", onnxpb.AttributeProto_FLOAT, func(a *onnxpb.AttributeProto) { a.F = proto.Float32(2.5) }), ir.F32, nil, []float64{2.5}},
		{attr("value_floats", onnxpb.AttributeProto_FLOATS, func(a *onnxpb.AttributeProto) { a.Floats = []float32{1.5, -2} }), ir.F32, []int64{2}, []float64{1.5, -2}},
		{attr("value_int", onnxpb.AttributeProto_INT, func(a *onnxpb.AttributeProto) { a.I = proto.Int64(-7) }), ir.I64, nil, []float64{-7}},
		{attr("value_ints", onnxpb.AttributeProto_INTS, func(a *onnxpb.AttributeProto) { a.Ints = []int64{3, 4, 5} }), ir.I64, []int64{3}, []float64{3, 4, 5}},
	}
	for _, tc := range cases {
		t.Run(tc.attr.GetName(), func(t *testing.T) {
			m := onnxgen.New("m", 13)
			m.Node("Constant", "c", nil, []string{"Y"}, tc.attr)
			dims := make([]any, len(tc.shape))
			for i, d := range tc.shape {
				dims[i] = d
			}
			m.Output("Y", tc.elem, dims...)
			g, err := onnx.Import(m.Proto(), "m.onnx")
			require.NoError(t, err)
			require.Equal(t, tc.elem, g.Outputs[0].Type.Elem)
			out, err := eval.Run(g, nil)
			require.NoError(t, err)
			require.Equal(t, tc.shape, nilIfEmpty(out[0].Shape))
			for i, w := range tc.want {
				require.Equal(t, w, out[0].Float(i))
			}
		})
	}
}

func nilIfEmpty(s []int64) []int64 {
	if len(s) == 0 {
		return nil
	}
	return s
}

// externalModel returns a model Y = X + W with W's data stored externally.
func externalModel(loc string, offset, length int64) *onnxgen.Model {
	m := onnxgen.New("m", 14)
	m.Input("X", ir.F32, 3)
	w := onnx.TensorToProto("W", tensor(ir.F32, []int64{3}))
	w.RawData = nil
	w.DataLocation = onnxpb.TensorProto_EXTERNAL.Enum()
	kv := func(k, v string) *onnxpb.StringStringEntryProto {
		return &onnxpb.StringStringEntryProto{Key: proto.String(k), Value: proto.String(v)}
	}
	w.ExternalData = []*onnxpb.StringStringEntryProto{kv("location", loc), kv("offset", itoa(offset))}
	if length >= 0 {
		w.ExternalData = append(w.ExternalData, kv("length", itoa(length)))
	}
	m.G.Initializer = append(m.G.Initializer, w)
	m.Node("Add", "add", []string{"X", "W"}, []string{"Y"})
	m.Output("Y", ir.F32, 3)
	return m
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

func TestExternalData(t *testing.T) {
	dir := t.TempDir()
	w := tensor(ir.F32, []int64{3}, 1.5, 2.5, 3.5)
	// 8 bytes of padding, then the tensor: offset 8, length 12
	require.NoError(t, os.WriteFile(filepath.Join(dir, "weights.bin"), append(make([]byte, 8), w.Bytes()...), 0o644))
	write := func(name string, m *onnxgen.Model) string {
		p := filepath.Join(dir, name)
		require.NoError(t, m.Write(p))
		return p
	}
	g, err := onnx.Load(write("ok.onnx", externalModel("weights.bin", 8, 12)))
	require.NoError(t, err)
	out, err := eval.Run(g, map[string]*ir.Tensor{"X": tensor(ir.F32, []int64{3}, 1, 1, 1)})
	require.NoError(t, err)
	require.Equal(t, []float64{2.5, 3.5, 4.5}, out[0].F)
	// without a length, the data runs to the end of the file
	g, err = onnx.Load(write("nolen.onnx", externalModel("weights.bin", 8, -1)))
	require.NoError(t, err)
	require.Equal(t, w.F, g.Consts[0].Data.F)

	errCases := []struct {
		name  string
		model *onnxgen.Model
		want  string
	}{
		{"missing.onnx", externalModel("absent.bin", 0, 12),
			`initializer "W": invalid model: tensor "W" stores its data in "absent.bin", which is not beside the model (looked for ` + filepath.Join(dir, "absent.bin") + ")"},
		{"past.onnx", externalModel("weights.bin", 12, 12),
			`initializer "W": invalid model: tensor "W": external data [12, 24) is past the end of "weights.bin" (20 bytes)`},
		{"offset.onnx", externalModel("weights.bin", 30, 12),
			`initializer "W": invalid model: tensor "W": external data offset 30 is past the end of "weights.bin" (20 bytes)`},
		{"short.onnx", externalModel("weights.bin", 0, 8),
			`initializer "W": invalid model: tensor "W": external data has 8 bytes, its shape needs 12`},
		{"escape.onnx", externalModel("../weights.bin", 0, 12),
			`initializer "W": invalid model: tensor "W": external data location "../weights.bin" is not inside the model's directory`},
	}
	for _, tc := range errCases {
		t.Run(tc.name, func(t *testing.T) {
			p := write(tc.name, tc.model)
			_, err := onnx.Load(p)
			require.EqualError(t, err, p+": "+tc.want)
			require.True(t, errors.Is(err, onnx.ErrInvalid))
		})
	}
}

// TestFoldKeepsSharedConstants is a regression test: folding a node whose only operand is a
// constant used to drop that constant from the graph while later nodes still referred to it.
func TestFoldKeepsSharedConstants(t *testing.T) {
	m := onnxgen.New("m", 18)
	m.Input("X", ir.F32, 3)
	m.Node("Constant", "c", nil, []string{"L"}, &onnxpb.AttributeProto{Name: proto.String("value_float"),
		Type: onnxpb.AttributeProto_FLOAT.Enum(), F: proto.Float32(1.5)})
	m.Node("CastLike", "cl", []string{"L", "X"}, []string{"LC"})
	m.Node("Neg", "neg", []string{"LC"}, []string{"NL"})
	m.Node("Less", "lt1", []string{"X", "NL"}, []string{"A"})
	m.Node("Less", "lt2", []string{"LC", "X"}, []string{"B"})
	m.Node("Or", "or", []string{"A", "B"}, []string{"Y"})
	m.Output("Y", ir.Bool, 3)
	out := runModel(t, m.Proto(), map[string]*ir.Tensor{"X": tensor(ir.F32, []int64{3}, -2, 0, 2)})
	require.Equal(t, []int64{1, 0, 1}, out[0].I)
}

func importModel(m *onnxgen.Model) (*ir.Graph, error) { return onnx.Import(m.Proto(), "m.onnx") }
