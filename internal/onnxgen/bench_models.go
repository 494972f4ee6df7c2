// This file builds the models of `make bench` (issue 11's list).

package onnxgen

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/graphc/graphc/ir"
)

func randInit(m *Model, name string, r *rand.Rand, scale float64, shape ...int64) {
	t := ir.NewTensor(ir.F32, shape)
	for i := range t.F {
		t.F[i] = ir.RoundFloat(ir.F32, (r.Float64()*2-1)*scale)
	}
	m.Init(name, t)
}

func ints(name string, v ...int64) *ir.Tensor {
	t := ir.NewTensor(ir.I64, []int64{int64(len(v))})
	copy(t.I, v)
	return t
}

// MatMul is Y = A · B with A m×k and B k×n inputs.
func MatMul(m, k, n int) *Model {
	md := New("matmul", 17)
	md.Input("A", ir.F32, m, k)
	md.Input("B", ir.F32, k, n)
	md.Node("MatMul", "matmul", []string{"A", "B"}, []string{"Y"})
	md.Output("Y", ir.F32, m, n)
	return md
}

// LastRowLogits is logits = H · W followed by a Slice of the last row, H s×h, W h×v inputs.
func LastRowLogits(s, h, v int) *Model {
	md := New("last_row_logits", 17)
	md.Input("H", ir.F32, s, h)
	md.Input("W", ir.F32, h, v)
	md.Node("MatMul", "logits", []string{"H", "W"}, []string{"L"})
	md.Init("starts", ints("starts", int64(s-1)))
	md.Init("ends", ints("ends", int64(s)))
	md.Init("axes", ints("axes", 0))
	md.Node("Slice", "last", []string{"L", "starts", "ends", "axes"}, []string{"Y"})
	md.Output("Y", ir.F32, 1, v)
	return md
}

// ConvRelu is a 3×3 convolution (padding 1) of a 1×c×hw×hw image into f channels, then Relu.
func ConvRelu(c, hw, f int) *Model {
	r := rand.New(rand.NewPCG(11, 12))
	md := New("conv_relu", 17)
	md.Input("X", ir.F32, 1, c, hw, hw)
	randInit(md, "W", r, 0.3, int64(f), int64(c), 3, 3)
	randInit(md, "Bias", r, 0.1, int64(f))
	md.Node("Conv", "conv", []string{"X", "W", "Bias"}, []string{"C"}, IntsAttr("pads", 1, 1, 1, 1), IntsAttr("kernel_shape", 3, 3))
	md.Node("Relu", "relu", []string{"C"}, []string{"Y"})
	md.Output("Y", ir.F32, 1, f, hw, hw)
	return md
}

// Conv is a convolution with bias then Relu, the per-shape probe of the conv table: a
// 1×c×hw×hw image, m output channels, a k×k kernel with the given stride, padding, dilation and
// group count.
func Conv(c, hw, m, k, stride, pad, dil, group int) *Model {
	return conv(c, hw, m, k, stride, pad, dil, group, false)
}

// ConvAfterPool is Conv behind a 3×3 max pool (stride 1, padding 1) of its image: the layout
// pass stores the pool's result channels-last, so that the convolution reads a channels-last
// activation as it does inside a CNN (Conv reads the NCHW graph input in place, at a stride of
// a whole plane per channel). graphc-bench -profile times the convolution's kernel alone.
func ConvAfterPool(c, hw, m, k, stride, pad, dil, group int) *Model {
	return conv(c, hw, m, k, stride, pad, dil, group, true)
}

func conv(c, hw, m, k, stride, pad, dil, group int, pool bool) *Model {
	r := rand.New(rand.NewPCG(uint64(c*hw+m), uint64(k*stride)))
	md := New("conv", 17)
	md.Input("X", ir.F32, 1, c, hw, hw)
	x := "X"
	if pool {
		x = "P"
		md.Node("MaxPool", "pool", []string{"X"}, []string{x}, IntsAttr("kernel_shape", 3, 3), IntsAttr("pads", 1, 1, 1, 1))
	}
	randInit(md, "W", r, 1/math.Sqrt(float64(c/group*k*k)), int64(m), int64(c/group), int64(k), int64(k))
	randInit(md, "Bias", r, 0.1, int64(m))
	md.Node("Conv", "conv", []string{x, "W", "Bias"}, []string{"C"}, IntsAttr("pads", int64(pad), int64(pad), int64(pad), int64(pad)),
		IntsAttr("kernel_shape", int64(k), int64(k)), IntsAttr("strides", int64(stride), int64(stride)),
		IntsAttr("dilations", int64(dil), int64(dil)), IntAttr("group", int64(group)))
	md.Node("Relu", "relu", []string{"C"}, []string{"Y"})
	o := (hw+2*pad-dil*(k-1)-1)/stride + 1
	md.Output("Y", ir.F32, 1, m, o, o)
	return md
}

// Conv1D is the 1-D probe of the conv table: Conv with bias then Relu on a 1×c×t signal, m
// output channels, k taps with the given stride, padding, dilation and group count; with
// transposed, a ConvTranspose (weights [c, m/group, k]) of the same parameters instead.
func Conv1D(c, t, m, k, stride, pad, dil, group int, transposed bool) *Model {
	r := rand.New(rand.NewPCG(uint64(c*t+m), uint64(k*stride+dil)))
	md := New("conv1d", 17)
	md.Input("X", ir.F32, 1, c, t)
	attrs := []Attr{IntsAttr("pads", int64(pad), int64(pad)), IntsAttr("kernel_shape", int64(k)),
		IntsAttr("strides", int64(stride)), IntsAttr("dilations", int64(dil)), IntAttr("group", int64(group))}
	kind, o := "Conv", (t+2*pad-dil*(k-1)-1)/stride+1
	if transposed {
		randInit(md, "W", r, 1/math.Sqrt(float64(c*k/stride)), int64(c), int64(m/group), int64(k))
		kind, o = "ConvTranspose", stride*(t-1)+dil*(k-1)+1-2*pad
	} else {
		randInit(md, "W", r, 1/math.Sqrt(float64(c/group*k)), int64(m), int64(c/group), int64(k))
	}
	randInit(md, "Bias", r, 0.1, int64(m))
	md.Node(kind, "conv", []string{"X", "W", "Bias"}, []string{"C"}, attrs...)
	md.Node("Relu", "relu", []string{"C"}, []string{"Y"})
	md.Output("Y", ir.F32, 1, m, o)
	return md
}

// TransformerBlock is one pre-norm-free transformer layer on x (seq×hidden): single-head
// attention with a causal mask, residual, then an MLP (hidden → 4·hidden → hidden) with Relu and
// a residual. The causal mask is Trilu(scores) plus a constant -inf strict upper triangle, so
// the masked scores do not depend on Q·Kᵀ (DIE computes only the lower triangle of it).
func TransformerBlock(seq, hidden int) *Model {
	return TransformerLayers(1, seq, hidden)
}

// TransformerLayers is n TransformerBlock layers in sequence on x (seq×hidden), each with its
// own weights; the names of layer l > 0 carry the prefix "l<l>.". One layer is TransformerBlock.
func TransformerLayers(n, seq, hidden int) *Model {
	r := rand.New(rand.NewPCG(21, 22))
	md := New("transformer_block", 17)
	md.Input("x", ir.F32, seq, hidden)
	in := "x"
	for l := 0; l < n; l++ {
		prefix := ""
		if l > 0 {
			prefix = fmt.Sprintf("l%d.", l)
		}
		in = transformerLayer(md, r, prefix, in, seq, hidden)
	}
	md.Output(in, ir.F32, seq, hidden)
	return md
}

// transformerLayer adds one transformer layer reading in, with every name prefixed, and
// returns the name of its output.
func transformerLayer(md *Model, r *rand.Rand, p, in string, seq, hidden int) string {
	s, h := int64(seq), int64(hidden)
	sc := 1 / math.Sqrt(float64(hidden))
	for _, w := range []string{"Wq", "Wk", "Wv", "Wo"} {
		randInit(md, p+w, r, sc, h, h)
	}
	randInit(md, p+"W1", r, sc, h, 4*h)
	randInit(md, p+"W2", r, 1/math.Sqrt(float64(4*hidden)), 4*h, h)
	node := func(op, name string, ins []string, attrs ...Attr) {
		for i := range ins {
			if ins[i] != in {
				ins[i] = p + ins[i]
			}
		}
		md.Node(op, p+name, ins, []string{p + name}, attrs...)
	}
	node("MatMul", "q", []string{in, "Wq"})
	node("MatMul", "k", []string{in, "Wk"})
	node("MatMul", "v", []string{in, "Wv"})
	node("Transpose", "kt", []string{"k"}, IntsAttr("perm", 1, 0))
	node("MatMul", "qk", []string{"q", "kt"})
	scale := ir.NewTensor(ir.F32, nil)
	scale.F[0] = ir.RoundFloat(ir.F32, sc)
	md.Init(p+"scale", scale)
	node("Mul", "scores", []string{"qk", "scale"})
	node("Trilu", "lower", []string{"scores"}, IntAttr("upper", 0))
	neg := ir.NewTensor(ir.F32, []int64{s, s})
	for i := int64(0); i < s; i++ {
		for j := i + 1; j < s; j++ {
			neg.F[i*s+j] = math.Inf(-1)
		}
	}
	md.Init(p+"causal", neg)
	node("Add", "masked", []string{"lower", "causal"})
	node("Softmax", "probs", []string{"masked"}, IntAttr("axis", -1))
	node("MatMul", "attn", []string{"probs", "v"})
	node("MatMul", "o", []string{"attn", "Wo"})
	node("Add", "res1", []string{in, "o"})
	node("MatMul", "up", []string{"res1", "W1"})
	node("Relu", "act", []string{"up"})
	node("MatMul", "down", []string{"act", "W2"})
	node("Add", "y", []string{"res1", "down"})
	return p + "y"
}

// scalarInit adds a rank-0 initializer.
func scalarInit(m *Model, name string, t ir.DType, v float64) {
	s := ir.NewTensor(t, nil)
	if t.IsFloat() {
		s.F[0] = ir.RoundFloat(t, v)
	} else {
		s.I[0] = int64(v)
	}
	m.Init(name, s)
}

// int8Init adds an i8 initializer with values in [-127, 127].
func int8Init(m *Model, name string, r *rand.Rand, shape ...int64) {
	t := ir.NewTensor(ir.I8, shape)
	for i := range t.I {
		t.I[i] = int64(r.IntN(255) - 127)
	}
	m.Init(name, t)
}

// QLinearMatMul is Y = dequantize(QLinearMatMul(quantize(A), B)) with A m×k a float input,
// quantized to u8, and B k×n constant i8 weights with per-column scales (onnxruntime's
// quantized MatMul kernel against graphc's integer one).
func QLinearMatMul(m, k, n int) *Model {
	r := rand.New(rand.NewPCG(31, 32))
	md := New("qlinear_matmul", 13)
	md.Input("A", ir.F32, m, k)
	scalarInit(md, "a_scale", ir.F32, 2.0/255)
	scalarInit(md, "a_zp", ir.U8, 128)
	int8Init(md, "B", r, int64(k), int64(n))
	bs := ir.NewTensor(ir.F32, []int64{int64(n)})
	for i := range bs.F {
		bs.F[i] = ir.RoundFloat(ir.F32, (0.5+r.Float64())/127/math.Sqrt(float64(k)))
	}
	md.Init("b_scale", bs)
	md.Init("b_zp", ir.NewTensor(ir.I8, []int64{int64(n)}))
	scalarInit(md, "y_scale", ir.F32, 4.0/255)
	scalarInit(md, "y_zp", ir.U8, 128)
	md.Node("QuantizeLinear", "qa", []string{"A", "a_scale", "a_zp"}, []string{"Aq"})
	md.Node("QLinearMatMul", "qmm", []string{"Aq", "a_scale", "a_zp", "B", "b_scale", "b_zp", "y_scale", "y_zp"}, []string{"Yq"})
	md.Node("DequantizeLinear", "dqy", []string{"Yq", "y_scale", "y_zp"}, []string{"Y"})
	md.Output("Y", ir.F32, m, n)
	return md
}

// QLinearConv is a 3×3 convolution (padding 1) of a 1×c×hw×hw float image, quantized to u8,
// with f output channels of constant i8 weights with per-channel scales and an i32 bias, then
// dequantized.
func QLinearConv(c, hw, f int) *Model {
	r := rand.New(rand.NewPCG(41, 42))
	md := New("qlinear_conv", 13)
	md.Input("X", ir.F32, 1, c, hw, hw)
	scalarInit(md, "x_scale", ir.F32, 2.0/255)
	scalarInit(md, "x_zp", ir.U8, 128)
	int8Init(md, "W", r, int64(f), int64(c), 3, 3)
	ws := ir.NewTensor(ir.F32, []int64{int64(f)})
	for i := range ws.F {
		ws.F[i] = ir.RoundFloat(ir.F32, (0.5+r.Float64())/127/math.Sqrt(float64(9*c)))
	}
	md.Init("w_scale", ws)
	md.Init("w_zp", ir.NewTensor(ir.I8, []int64{int64(f)}))
	b := ir.NewTensor(ir.I32, []int64{int64(f)})
	for i := range b.I {
		b.I[i] = int64(r.IntN(2001) - 1000)
	}
	md.Init("B", b)
	scalarInit(md, "y_scale", ir.F32, 4.0/255)
	scalarInit(md, "y_zp", ir.U8, 128)
	md.Node("QuantizeLinear", "qx", []string{"X", "x_scale", "x_zp"}, []string{"Xq"})
	md.Node("QLinearConv", "qconv", []string{"Xq", "x_scale", "x_zp", "W", "w_scale", "w_zp", "y_scale", "y_zp", "B"}, []string{"Yq"},
		IntsAttr("pads", 1, 1, 1, 1), IntsAttr("kernel_shape", 3, 3))
	md.Node("DequantizeLinear", "dqy", []string{"Yq", "y_scale", "y_zp"}, []string{"Y"})
	md.Output("Y", ir.F32, 1, f, hw, hw)
	return md
}

// Conv3x3 is a plain f32 3×3 convolution (padding 1, bias) of a 1×c×hw×hw image into f
// channels: the float reference of QLinearConv.
func Conv3x3(c, hw, f int) *Model {
	r := rand.New(rand.NewPCG(11, 12))
	md := New("conv3x3", 17)
	md.Input("X", ir.F32, 1, c, hw, hw)
	randInit(md, "W", r, 0.3, int64(f), int64(c), 3, 3)
	randInit(md, "Bias", r, 0.1, int64(f))
	md.Node("Conv", "conv", []string{"X", "W", "Bias"}, []string{"Y"}, IntsAttr("pads", 1, 1, 1, 1), IntsAttr("kernel_shape", 3, 3))
	md.Output("Y", ir.F32, 1, f, hw, hw)
	return md
}

// MatMulConstB is Y = A · B with A m×k an input and B k×n constant weights: the float
// reference of QLinearMatMul.
func MatMulConstB(m, k, n int) *Model {
	r := rand.New(rand.NewPCG(31, 32))
	md := New("matmul_const_b", 17)
	md.Input("A", ir.F32, m, k)
	randInit(md, "B", r, 1/math.Sqrt(float64(k)), int64(k), int64(n))
	md.Node("MatMul", "matmul", []string{"A", "B"}, []string{"Y"})
	md.Output("Y", ir.F32, m, n)
	return md
}

// Linear is Y = A · W with A an m×k input and W a k×n constant (random weights): the linear
// layers of exported models, whose weights are initializers.
func Linear(m, k, n int) *Model {
	r := rand.New(rand.NewPCG(21, 22))
	md := New("linear", 17)
	md.Input("A", ir.F32, m, k)
	randInit(md, "W", r, 0.1, int64(k), int64(n))
	md.Node("MatMul", "linear", []string{"A", "W"}, []string{"Y"})
	md.Output("Y", ir.F32, m, n)
	return md
}

// NonZeroMask is Y = NonZero(X > 0) over an n-element X: a selection whose count (about n/2
// on random inputs) is a bounded dim.
func NonZeroMask(n int) *Model {
	md := New("nonzero", 13)
	md.Input("X", ir.F32, n)
	scalarInit(md, "zero", ir.F32, 0)
	md.Node("Greater", "gt", []string{"X", "zero"}, []string{"M"})
	md.Node("NonZero", "nz", []string{"M"}, []string{"Y"})
	md.Output("Y", ir.I64, 1, "n")
	return md
}

// CompressMask is Y = Compress(X, X > 0) over an n-element X: the positive elements.
func CompressMask(n int) *Model {
	md := New("compress", 13)
	md.Input("X", ir.F32, n)
	scalarInit(md, "zero", ir.F32, 0)
	md.Node("Greater", "gt", []string{"X", "zero"}, []string{"M"})
	md.Node("Compress", "c", []string{"X", "M"}, []string{"Y"}, IntAttr("axis", 0))
	md.Output("Y", ir.F32, "n")
	return md
}
