// This file tests the QDQ fusion (qdq.go) on models written as quantization tools write them:
// the fused integer kernels agree with the float QDQ graph imported as written to one
// quantization step, on random inputs, and groups whose quantization is not constant are
// imported as written.

package onnx_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/frontend/onnx"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
)

func scalarT(t ir.DType, v float64) *ir.Tensor {
	x := ir.NewTensor(t, nil)
	if t.IsFloat() {
		x.F[0] = v
	} else {
		x.I[0] = int64(v)
	}
	return x
}

// qdqConvModel is X → Q → DQ → Conv(DQ(W i8 per channel), DQ(B i32)) → Relu → Q → DQ → MaxPool
// (QDQ) → DQ; with constScale false, the output scale is a graph input.
func qdqConvModel(r *rand.Rand, constScale bool) *onnxgen.Model {
	m := onnxgen.New("qdq", 13)
	m.Input("X", ir.F32, 1, 6, 9, 9)
	m.Init("xs", scalarT(ir.F32, 0.02))
	m.Init("xz", scalarT(ir.U8, 120))
	w := ir.NewTensor(ir.I8, []int64{8, 6, 3, 3})
	for i := range w.I {
		w.I[i] = int64(r.IntN(255) - 127)
	}
	m.Init("W", w)
	ws := ir.NewTensor(ir.F32, []int64{8})
	for i := range ws.F {
		ws.F[i] = float64(float32(0.001 + 0.002*r.Float64()))
	}
	m.Init("ws", ws)
	m.Init("wz", ir.NewTensor(ir.I8, []int64{8}))
	b := ir.NewTensor(ir.I32, []int64{8})
	bs := ir.NewTensor(ir.F32, []int64{8})
	for i := range b.I {
		b.I[i] = int64(r.IntN(4001) - 2000)
		bs.F[i] = float64(float32(0.02) * float32(ws.F[i]))
	}
	m.Init("B", b)
	m.Init("bs", bs)
	m.Init("bz", ir.NewTensor(ir.I32, []int64{8}))
	if constScale {
		m.Init("ys", scalarT(ir.F32, 0.05))
	} else {
		m.Input("ys", ir.F32)
	}
	m.Init("yz", scalarT(ir.U8, 0))
	m.Node("QuantizeLinear", "qx", []string{"X", "xs", "xz"}, []string{"Xq"})
	m.Node("DequantizeLinear", "dqx", []string{"Xq", "xs", "xz"}, []string{"Xd"})
	m.Node("DequantizeLinear", "dqw", []string{"W", "ws", "wz"}, []string{"Wd"}, onnxgen.IntAttr("axis", 0))
	m.Node("DequantizeLinear", "dqb", []string{"B", "bs", "bz"}, []string{"Bd"}, onnxgen.IntAttr("axis", 0))
	m.Node("Conv", "conv", []string{"Xd", "Wd", "Bd"}, []string{"C"}, onnxgen.IntsAttr("pads", 1, 1, 1, 1))
	m.Node("Relu", "relu", []string{"C"}, []string{"R"})
	m.Node("QuantizeLinear", "qy", []string{"R", "ys", "yz"}, []string{"Yq"})
	m.Node("DequantizeLinear", "dqy", []string{"Yq", "ys", "yz"}, []string{"Yd"})
	m.Node("MaxPool", "pool", []string{"Yd"}, []string{"P"}, onnxgen.IntsAttr("kernel_shape", 2, 2), onnxgen.IntsAttr("strides", 2, 2))
	m.Node("QuantizeLinear", "qp", []string{"P", "ys", "yz"}, []string{"Pq"})
	m.Node("DequantizeLinear", "dqp", []string{"Pq", "ys", "yz"}, []string{"Y"})
	m.Output("Y", ir.F32, 1, 8, 4, 4)
	return m
}

func runGraph(t *testing.T, g *ir.Graph, x *ir.Tensor) *ir.Tensor {
	in := map[string]*ir.Tensor{g.Inputs[0].Name: x}
	if len(g.Inputs) > 1 {
		in[g.Inputs[1].Name] = scalarT(ir.F32, 0.05)
	}
	out, err := eval.Run(g, in)
	require.NoError(t, err)
	return out[0]
}

func TestQDQFusion(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 22))
	m := qdqConvModel(r, true)
	fused, err := onnx.Import(m.Proto(), "qdq.onnx")
	require.NoError(t, err)
	text := fused.String()
	require.Contains(t, text, "conv_integer(")
	require.Contains(t, text, "requantize(")
	require.NotContains(t, text, " conv(")
	require.Regexp(t, `max_pool\(.*: u8\[`, text, "MaxPool between equal quantizations runs on u8")
	require.NotContains(t, text, "= max(", "Relu before a zero point 0 of u8 is the saturation itself")
	plain, err := onnx.Import(m.Proto(), "qdq.onnx", onnx.WithoutQDQFusion())
	require.NoError(t, err)
	require.Contains(t, plain.String(), " conv(")
	diffs := 0
	for trial := 0; trial < 20; trial++ {
		x := ir.NewTensor(ir.F32, []int64{1, 6, 9, 9})
		for i := range x.F {
			x.F[i] = float64(float32(r.Float64()*5 - 2.5))
		}
		a, b := runGraph(t, fused, x), runGraph(t, plain, x)
		for i := range a.F {
			d := math.Abs(a.F[i] - b.F[i])
			require.LessOrEqual(t, d, 0.05*1.0001, "element %d: fused %v, float QDQ %v: more than one step", i, a.F[i], b.F[i])
			if d > 0 {
				diffs++
			}
		}
	}
	t.Logf("%d elements of 20×128 one step apart", diffs)
}

func TestQDQNotConstantStaysFloat(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 23))
	g, err := onnx.Import(qdqConvModel(r, false).Proto(), "qdq.onnx")
	require.NoError(t, err)
	text := g.String()
	require.Contains(t, text, " conv(", "a run-time output scale: the group is imported as written")
	require.False(t, strings.Contains(text, "conv_integer("))
	x := ir.NewTensor(ir.F32, []int64{1, 6, 9, 9})
	runGraph(t, g, x)
}

// TestDequantizeOutputDtype: opset 23's output_dtype gives the result type (f16 from f32 scales).
func TestDequantizeOutputDtype(t *testing.T) {
	m := onnxgen.New("dq", 23)
	m.Input("x", ir.U8, 3)
	m.Init("s", scalarT(ir.F32, 0.5))
	m.Init("z", scalarT(ir.U8, 2))
	m.Node("DequantizeLinear", "dq", []string{"x", "s", "z"}, []string{"y"}, onnxgen.IntAttr("output_dtype", 10)) // FLOAT16
	m.Output("y", ir.F16, 3)
	g, err := onnx.Import(m.Proto(), "dq.onnx")
	require.NoError(t, err)
	require.Equal(t, ir.F16, g.Outputs[0].Type.Elem)
	x := ir.NewTensor(ir.U8, []int64{3})
	x.I[0], x.I[1], x.I[2] = 0, 2, 255
	out, err := eval.Run(g, map[string]*ir.Tensor{"x": x})
	require.NoError(t, err)
	require.Equal(t, []float64{-1, 0, 126.5}, out[0].F) // (x - 2)·0.5, exact in f16
}
