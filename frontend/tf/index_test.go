// This file tests GatherV2, Gather, Tile, Split, SplitV, Unpack, Fill, ZerosLike, OnesLike and
// Range against ONNX graphs of the same computation or known values.

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

func TestGatherSameAsONNX(t *testing.T) {
	idx := ir.NewTensor(ir.I32, []int64{2, 3})
	copy(idx.I, []int64{0, 3, 1, 1, 2, 0})
	for _, tc := range []struct {
		op         string
		axis, onnx int64
	}{{"GatherV2", 1, 1}, {"GatherV2", -1, 2}, {"Gather", 0, 0}} {
		tg := tfgen.New()
		tg.Placeholder("x", ir.F32, 4, 4, 4)
		tg.Const("idx", idx)
		ins := []string{"x", "idx"}
		if tc.op == "GatherV2" {
			tg.Int32s("axis", []int64{tc.axis}, []int64{}...)
			ins = append(ins, "axis")
		}
		tg.Node(tc.op, "y", ins)
		m := onnxgen.New("m", 18)
		m.Input("x", ir.F32, 4, 4, 4)
		m.Init("idx", idx)
		m.Node("Gather", "y", []string{"x", "idx"}, []string{"y"}, onnxgen.IntAttr("axis", tc.onnx))
		onnxOut(m, "y")
		checkSame(t, sameCase{tf: tg, onnx: m})
	}
}

func TestTileSameAsONNX(t *testing.T) {
	checkSame(t, unaryWithInts("Tile", []int64{2, 1, 3}, nil, "Tile", []int64{2, 1, 3}, nil, 2, 3, 2))
}

func TestSplitSameAsONNX(t *testing.T) {
	for _, tc := range []struct {
		op    string
		sizes []int64 // SplitV's size_splits
		onnx  []int64
	}{{"Split", nil, []int64{2, 2, 2}}, {"SplitV", []int64{1, -1, 2}, []int64{1, 3, 2}}} {
		tg := tfgen.New()
		tg.Placeholder("x", ir.F32, 2, 6)
		tg.Int32s("axis", []int64{-1}, []int64{}...)
		if tc.op == "Split" {
			tg.Node("Split", "y", []string{"axis", "x"}, tfgen.Int("num_split", 3))
		} else {
			tg.Int32s("sizes", tc.sizes)
			tg.Node("SplitV", "y", []string{"x", "sizes", "axis"}, tfgen.Int("num_split", 3))
		}
		m := onnxgen.New("m", 18)
		m.Input("x", ir.F32, 2, 6)
		m.Init("split", i64(tc.onnx...))
		m.Node("Split", "y", []string{"x", "split"}, []string{"y0", "y1", "y2"}, onnxgen.IntAttr("axis", 1))
		for _, o := range []string{"y0", "y1", "y2"} {
			onnxOut(m, o)
		}
		checkSame(t, sameCase{tf: tg, onnx: m, opts: []tf.Option{tf.WithOutputs("y:0", "y:1", "y:2")}})
	}
}

func TestUnpackSameAsONNX(t *testing.T) {
	tg := tfgen.New()
	tg.Placeholder("x", ir.F32, 2, 3, 4)
	tg.Node("Unpack", "y", []string{"x"}, tfgen.Int("axis", 1), tfgen.Int("num", 3))
	m := onnxgen.New("m", 18)
	m.Input("x", ir.F32, 2, 3, 4)
	m.Init("ax", i64(1))
	m.Node("Split", "s", []string{"x"}, []string{"s0", "s1", "s2"}, onnxgen.IntAttr("axis", 1), onnxgen.IntAttr("num_outputs", 3))
	for _, o := range []string{"0", "1", "2"} {
		m.Node("Squeeze", "q"+o, []string{"s" + o, "ax"}, []string{"y" + o})
		onnxOut(m, "y"+o)
	}
	checkSame(t, sameCase{tf: tg, onnx: m, opts: []tf.Option{tf.WithOutputs("y:0", "y:1", "y:2")}})
}

// TestFillAndRange checks the value generators against known values.
func TestFillAndRange(t *testing.T) {
	tg := tfgen.New()
	tg.Placeholder("x", ir.F32, -1, 2)
	tg.Int32s("dims", []int64{2, 3})
	tg.Const("v", f32(nil, 2.5))
	tg.Node("Fill", "fill", []string{"dims", "v"})
	tg.Node("ZerosLike", "zeros", []string{"x"})
	tg.Node("OnesLike", "ones", []string{"x"})
	tg.Int32s("start", []int64{7}, []int64{}...)
	tg.Int32s("limit", []int64{-2}, []int64{}...)
	tg.Int32s("delta", []int64{-3}, []int64{}...)
	tg.Node("Range", "range", []string{"start", "limit", "delta"})
	tg.Const("fstart", f32(nil, 0.5))
	tg.Const("flimit", f32(nil, 2))
	tg.Const("fdelta", f32(nil, 0.5))
	tg.Node("Range", "frange", []string{"fstart", "flimit", "fdelta"})
	g, err := tg.Import(tf.WithOutputs("fill", "zeros", "ones", "range", "frange"))
	require.NoError(t, err)
	x := randConst(5, 3, 2)
	out, err := eval.Run(g, map[string]*ir.Tensor{"x": x}, eval.WithParams(map[string]int64{"x_d0": 3}))
	require.NoError(t, err)
	require.Equal(t, []float64{2.5, 2.5, 2.5, 2.5, 2.5, 2.5}, out[0].F)
	require.Equal(t, []int64{2, 3}, out[0].Shape)
	require.Equal(t, make([]float64, 6), out[1].F)
	require.Equal(t, []float64{1, 1, 1, 1, 1, 1}, out[2].F)
	require.Equal(t, ir.I32, out[3].Elem)
	require.Equal(t, []int64{7, 4, 1}, out[3].I)
	require.Equal(t, []float64{0.5, 1, 1.5}, out[4].F)
}
