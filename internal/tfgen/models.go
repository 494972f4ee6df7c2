// This file builds the bundled TensorFlow models (testdata/models/tf) and their ONNX
// equivalents, from the same weights.

package tfgen

import (
	"math/rand/v2"

	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
)

// classifierWeights returns the small classifier's weights: a 3×3 filter from 1 to 4 channels
// (HWIO), its bias, the dense layer's 64×10 matrix and bias. Fixed seed; values in [-0.5, 0.5).
func classifierWeights() (filter, convBias, dense, denseBias *ir.Tensor) {
	r := rand.New(rand.NewPCG(2024, 9))
	rnd := func(shape ...int64) *ir.Tensor {
		t := ir.NewTensor(ir.F32, shape)
		for i := range t.F {
			t.F[i] = ir.RoundFloat(ir.F32, float64(int(r.Float64()*1000)-500)/1000)
		}
		return t
	}
	return rnd(3, 3, 1, 4), rnd(4), rnd(64, 10), rnd(10)
}

// Classifier is a small image classifier as TensorFlow freezes it: images [batch, 8, 8, 1]
// (NHWC, batch unknown) → Conv2D 3×3 SAME to 4 channels → BiasAdd → Relu → MaxPool 2×2 →
// Reshape [-1, 64] → MatMul to 10 classes → BiasAdd → Softmax ("probs").
func Classifier() *Graph {
	filter, convBias, dense, denseBias := classifierWeights()
	g := New()
	g.Placeholder("images", ir.F32, -1, 8, 8, 1)
	g.Const("conv/filter", filter)
	g.Const("conv/bias", convBias)
	g.Node("Conv2D", "conv/Conv2D", []string{"images", "conv/filter"}, Type("T", ir.F32), String("padding", "SAME"),
		Ints("strides", 1, 1, 1, 1), String("data_format", "NHWC"))
	g.Node("BiasAdd", "conv/BiasAdd", []string{"conv/Conv2D", "conv/bias"}, Type("T", ir.F32))
	g.Node("Relu", "conv/Relu", []string{"conv/BiasAdd"}, Type("T", ir.F32))
	g.Node("MaxPool", "pool", []string{"conv/Relu"}, Type("T", ir.F32), String("padding", "VALID"),
		Ints("ksize", 1, 2, 2, 1), Ints("strides", 1, 2, 2, 1))
	g.Int32s("flatten/shape", []int64{-1, 64})
	g.Node("Reshape", "flatten", []string{"pool", "flatten/shape"}, Type("T", ir.F32))
	g.Const("dense/kernel", dense)
	g.Const("dense/bias", denseBias)
	g.Node("MatMul", "dense/MatMul", []string{"flatten", "dense/kernel"}, Type("T", ir.F32))
	g.Node("BiasAdd", "dense/BiasAdd", []string{"dense/MatMul", "dense/bias"}, Type("T", ir.F32))
	g.Node("Softmax", "probs", []string{"dense/BiasAdd"}, Type("T", ir.F32))
	return g
}

// ClassifierONNX is Classifier in ONNX: the image is transposed to NCHW for Conv and MaxPool
// and back before the flattening, so that the dense layer sees the same element order.
func ClassifierONNX() *onnxgen.Model {
	filter, convBias, dense, denseBias := classifierWeights()
	m := onnxgen.New("classifier", 18)
	m.Input("images", ir.F32, "images_d0", 8, 8, 1)
	w := ir.NewTensor(ir.F32, []int64{4, 1, 3, 3}) // OIHW
	for a := 0; a < 3; a++ {
		for b := 0; b < 3; b++ {
			for o := 0; o < 4; o++ {
				w.F[(o*3+a)*3+b] = filter.F[(a*3+b)*4+o]
			}
		}
	}
	m.Init("W", w)
	m.Init("B", convBias)
	m.Init("shape", func() *ir.Tensor { t := ir.NewTensor(ir.I64, []int64{2}); t.I[0], t.I[1] = -1, 64; return t }())
	m.Init("dense", dense)
	m.Init("dense_bias", denseBias)
	m.Node("Transpose", "to_nchw", []string{"images"}, []string{"x"}, onnxgen.IntsAttr("perm", 0, 3, 1, 2))
	m.Node("Conv", "conv", []string{"x", "W"}, []string{"c"}, onnxgen.IntsAttr("kernel_shape", 3, 3), onnxgen.IntsAttr("pads", 1, 1, 1, 1))
	m.Node("Transpose", "to_nhwc", []string{"c"}, []string{"cn"}, onnxgen.IntsAttr("perm", 0, 2, 3, 1))
	m.Node("Add", "bias", []string{"cn", "B"}, []string{"cb"})
	m.Node("Relu", "relu", []string{"cb"}, []string{"r"})
	m.Node("Transpose", "to_nchw2", []string{"r"}, []string{"rn"}, onnxgen.IntsAttr("perm", 0, 3, 1, 2))
	m.Node("MaxPool", "pool", []string{"rn"}, []string{"p"}, onnxgen.IntsAttr("kernel_shape", 2, 2), onnxgen.IntsAttr("strides", 2, 2))
	m.Node("Transpose", "to_nhwc2", []string{"p"}, []string{"pn"}, onnxgen.IntsAttr("perm", 0, 2, 3, 1))
	m.Node("Reshape", "flatten", []string{"pn", "shape"}, []string{"f"})
	m.Node("MatMul", "dense", []string{"f", "dense"}, []string{"d"})
	m.Node("Add", "dense_bias", []string{"d", "dense_bias"}, []string{"logits"})
	m.Node("Softmax", "probs", []string{"logits"}, []string{"probs"}, onnxgen.IntAttr("axis", -1))
	m.Output("probs", ir.F32, "images_d0", 10)
	return m
}
