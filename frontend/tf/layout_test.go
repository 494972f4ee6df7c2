// This file tests Reshape, Transpose, Squeeze, ExpandDims, ConcatV2, Concat, Pack and Shape
// against ONNX graphs of the same computation.

package tf_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/frontend/tf"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/internal/tfgen"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
)

// unaryWithInts is a TF node op(x, const) and the ONNX node onnxOp(x, const) (nil onnxInts:
// no second input), with x of the given shape (-1 symbolic, named x_d<i> on both sides).
func unaryWithInts(tfOp string, tfInts []int64, tfAttrs []tfgen.Attr, onnxOp string, onnxInts []int64, onnxAttrs []onnxgen.Attr, shape ...int64) sameCase {
	tg := tfgen.New()
	tg.Placeholder("x", ir.F32, shape...)
	ins := []string{"x"}
	if tfInts != nil {
		tg.Int32s("k", tfInts)
		ins = append(ins, "k")
	}
	tg.Node(tfOp, "y", ins, tfAttrs...)
	m := onnxgen.New("m", 18)
	dims := make([]any, len(shape))
	params := map[string]int64{}
	for i, d := range shape {
		dims[i] = d
		if d < 0 {
			name := "x_d" + string(rune('0'+i))
			dims[i] = name
			params[name] = int64(2 + i)
		}
	}
	m.Input("x", ir.F32, dims...)
	oins := []string{"x"}
	if onnxInts != nil {
		m.Init("k", i64(onnxInts...))
		oins = append(oins, "k")
	}
	m.Node(onnxOp, "y", oins, []string{"y"}, onnxAttrs...)
	onnxOut(m, "y")
	c := sameCase{tf: tg, onnx: m}
	if len(params) > 0 {
		c.params = params
	}
	return c
}

func TestReshapeSameAsONNX(t *testing.T) {
	for _, tc := range []struct {
		shape []int64
		to    []int64
	}{{[]int64{2, 3, 4}, []int64{6, 4}}, {[]int64{2, 3, 4}, []int64{-1, 2}}, {[]int64{2, 3, 4}, []int64{24}},
		{[]int64{-1, 3, 4}, []int64{-1, 12}}, {[]int64{-1, 4, 2}, []int64{-1, 2, 2, 2}}, {[]int64{2, 3}, []int64{3, 1, 2}}} {
		checkSame(t, unaryWithInts("Reshape", tc.to, nil, "Reshape", tc.to, nil, tc.shape...))
	}
}

func TestTransposeSameAsONNX(t *testing.T) {
	checkSame(t, unaryWithInts("Transpose", []int64{2, 0, 1}, nil, "Transpose", nil, []onnxgen.Attr{onnxgen.IntsAttr("perm", 2, 0, 1)}, 2, 3, 4))
	// negative entries count from the end; a symbolic dim moves
	checkSame(t, unaryWithInts("Transpose", []int64{-1, 0, 1}, nil, "Transpose", nil, []onnxgen.Attr{onnxgen.IntsAttr("perm", 2, 0, 1)}, -1, 3, 4))
}

func TestSqueezeSameAsONNX(t *testing.T) {
	checkSame(t, unaryWithInts("Squeeze", nil, []tfgen.Attr{tfgen.Ints("squeeze_dims", 1)}, "Squeeze", []int64{1}, nil, 2, 1, 3, 1))
	checkSame(t, unaryWithInts("Squeeze", nil, []tfgen.Attr{tfgen.Ints("squeeze_dims", -1, 1)}, "Squeeze", []int64{1, 3}, nil, 2, 1, 3, 1))
	checkSame(t, unaryWithInts("Squeeze", nil, nil, "Squeeze", []int64{1, 3}, nil, 2, 1, 3, 1))
	checkSame(t, unaryWithInts("Squeeze", nil, nil, "Squeeze", []int64{1}, nil, -1, 1, 3))
}

func TestExpandDimsSameAsONNX(t *testing.T) {
	for _, tc := range []struct{ tf, onnx int64 }{{0, 0}, {2, 2}, {-1, 3}, {-4, 0}} {
		tg := unaryWithInts("ExpandDims", nil, nil, "Unsqueeze", []int64{tc.onnx}, nil, 2, 3, 4)
		tg.tf.G.Node = tg.tf.G.Node[:1]
		tg.tf.Int32s("k", []int64{tc.tf}, []int64{}...)
		tg.tf.Node("ExpandDims", "y", []string{"x", "k"})
		checkSame(t, tg)
	}
}

func TestConcatSameAsONNX(t *testing.T) {
	for _, op := range []string{"ConcatV2", "Concat"} {
		for _, axis := range []int64{2, -1} {
			tg := tfgen.New()
			tg.Placeholder("a", ir.F32, 2, 3, 4)
			tg.Placeholder("b", ir.F32, 2, 3, 1)
			tg.Placeholder("c", ir.F32, 2, 3, 2)
			tg.Int32s("axis", []int64{axis}, []int64{}...)
			ins := []string{"a", "b", "c", "axis"}
			if op == "Concat" {
				ins = []string{"axis", "a", "b", "c"}
			}
			tg.Node(op, "y", ins)
			m := onnxgen.New("m", 18)
			m.Input("a", ir.F32, 2, 3, 4)
			m.Input("b", ir.F32, 2, 3, 1)
			m.Input("c", ir.F32, 2, 3, 2)
			m.Node("Concat", "y", []string{"a", "b", "c"}, []string{"y"}, onnxgen.IntAttr("axis", 2))
			onnxOut(m, "y")
			checkSame(t, sameCase{tf: tg, onnx: m})
		}
	}
}

func TestPackSameAsONNX(t *testing.T) {
	for _, axis := range []int64{0, 1, -1} {
		tg := tfgen.New()
		tg.Placeholder("a", ir.F32, 2, 3)
		tg.Placeholder("b", ir.F32, 2, 3)
		tg.Node("Pack", "y", []string{"a", "b"}, tfgen.Int("axis", axis))
		m := onnxgen.New("m", 18)
		m.Input("a", ir.F32, 2, 3)
		m.Input("b", ir.F32, 2, 3)
		ax := axis
		if ax < 0 {
			ax += 3
		}
		m.Init("ax", i64(ax))
		m.Node("Unsqueeze", "ua", []string{"a", "ax"}, []string{"ua"})
		m.Node("Unsqueeze", "ub", []string{"b", "ax"}, []string{"ub"})
		m.Node("Concat", "y", []string{"ua", "ub"}, []string{"y"}, onnxgen.IntAttr("axis", ax))
		onnxOut(m, "y")
		checkSame(t, sameCase{tf: tg, onnx: m})
	}
}

// TestShapeFolds: Shape of a static tensor is a constant, so a Reshape computed from it (the
// pattern of exported Keras graphs: Shape → StridedSlice → Pack → Reshape) reads a constant.
func TestShapeFolds(t *testing.T) {
	tg := tfgen.New()
	tg.Placeholder("x", ir.F32, 2, 3, 4)
	tg.Node("Shape", "s", []string{"x"})
	tg.Int32s("b", []int64{0})
	tg.Int32s("e", []int64{1})
	tg.Int32s("st", []int64{1})
	tg.Node("StridedSlice", "n", []string{"s", "b", "e", "st"}, tfgen.Int("shrink_axis_mask", 1))
	tg.Int32s("minus1", []int64{-1}, []int64{}...)
	tg.Node("Pack", "shape", []string{"n", "minus1"})
	tg.Node("Reshape", "y", []string{"x", "shape"})
	m := onnxgen.New("m", 18)
	m.Input("x", ir.F32, 2, 3, 4)
	m.Init("shape", i64(2, -1))
	m.Node("Reshape", "y", []string{"x", "shape"}, []string{"y"})
	onnxOut(m, "y")
	g := checkSame(t, sameCase{tf: tg, onnx: m})
	require.Len(t, g.Ops, 1, g.String())
	require.Equal(t, "reshape", g.Ops[0].Kind)
	require.Empty(t, g.Consts, "the folded shape constants are gone")
}

// kerasFlatten appends Keras' Flatten on x (batch unknown): Shape → StridedSlice [0] → Pack
// with Prod(Shape[1:]) → Reshape.
func kerasFlatten(tg *tfgen.Graph, x string) {
	tg.Node("Shape", "shape", []string{x})
	tg.Int32s("b0", []int64{0})
	tg.Int32s("e0", []int64{1})
	tg.Int32s("b1", []int64{1})
	tg.Int32s("e1", []int64{0})
	tg.Int32s("s1", []int64{1})
	tg.Node("StridedSlice", "batch", []string{"shape", "b0", "e0", "s1"}, tfgen.Int("shrink_axis_mask", 1))
	tg.Node("StridedSlice", "rest", []string{"shape", "b1", "e1", "s1"}, tfgen.Int("end_mask", 1))
	tg.Int32s("axis0", []int64{0})
	tg.Node("Prod", "features", []string{"rest", "axis0"})
	tg.Node("Pack", "target", []string{"batch", "features"})
	tg.Node("Reshape", "y", []string{x, "target"})
}

// TestShapeSymbolic: the shape subgraphs of exported models resolve at import over a symbolic
// batch, and a symbolic shape read as data is materialised.
func TestShapeSymbolic(t *testing.T) {
	tg := tfgen.New()
	tg.Placeholder("x", ir.F32, -1, 4, 4, 2)
	kerasFlatten(tg, "x")
	m := onnxgen.New("m", 18)
	m.Input("x", ir.F32, "x_d0", 4, 4, 2)
	m.Init("shape", i64(-1, 32))
	m.Node("Reshape", "y", []string{"x", "shape"}, []string{"y"})
	onnxOut(m, "y")
	for _, n := range []int64{1, 3} {
		g := checkSame(t, sameCase{tf: tg, onnx: m, params: map[string]int64{"x_d0": n}})
		require.Len(t, g.Ops, 1, g.String())
		require.Equal(t, "f32[x_d0, 32]", g.Outputs[0].Type.String())
	}

	// [batch, 2, -1] through ConcatV2; the shape and 2·batch (Mul) as outputs, materialised
	tg = tfgen.New()
	tg.Placeholder("x", ir.F32, -1, 4, 6)
	tg.Node("Shape", "shape", []string{"x"}, tfgen.Type("out_type", ir.I64))
	tg.Int64s("b0", []int64{0})
	tg.Int64s("e0", []int64{1})
	tg.Int64s("s1", []int64{1})
	tg.Node("StridedSlice", "batch", []string{"shape", "b0", "e0", "s1"})
	tg.Int64s("two", []int64{2})
	tg.Node("Mul", "rows", []string{"batch", "two"})
	tg.Int64s("m1", []int64{-1})
	tg.Int32s("axis", []int64{0}, []int64{}...)
	tg.Node("ConcatV2", "target", []string{"batch", "two", "m1", "axis"})
	tg.Node("Reshape", "y", []string{"x", "target"})
	g, err := tg.Import(tf.WithOutputs("y", "shape", "rows"))
	require.NoError(t, err)
	require.Equal(t, "f32[x_d0, 2, 12]", g.Outputs[0].Type.String())
	require.Equal(t, "values", g.Outputs[1].Def.Kind)
	require.Equal(t, "values", g.Outputs[2].Def.Kind)
	x := randConst(4, 3, 4, 6)
	out, err := eval.Run(g, map[string]*ir.Tensor{"x": x}, eval.WithParams(map[string]int64{"x_d0": 3}))
	require.NoError(t, err)
	require.Equal(t, []int64{3, 2, 12}, out[0].Shape)
	require.Equal(t, x.F, out[0].F)
	require.Equal(t, []int64{3, 4, 6}, out[1].I)
	require.Equal(t, []int64{6}, out[2].I)
}
