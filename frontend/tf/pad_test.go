// This file tests Pad, PadV2 and MirrorPad: against ONNX Pad (constant and reflect), against
// the examples of tf.pad's documentation, and SYMMETRIC against a direct implementation on
// random shapes and paddings.

package tf_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/internal/tfgen"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
)

// padGraph is op(x, paddings[, value]) with x of the given shape.
func padGraph(op string, paddings []int64, value *float64, mode string, shape ...int64) *tfgen.Graph {
	tg := tfgen.New()
	tg.Placeholder("x", ir.F32, shape...)
	tg.Int32s("p", paddings, int64(len(shape)), 2)
	ins := []string{"x", "p"}
	if value != nil {
		tg.Const("v", f32(nil, *value))
		ins = append(ins, "v")
	}
	var attrs []tfgen.Attr
	if mode != "" {
		attrs = append(attrs, tfgen.String("mode", mode))
	}
	tg.Node(op, "y", ins, attrs...)
	return tg
}

func TestPadSameAsONNX(t *testing.T) {
	paddings := []int64{1, 0, 0, 2, 2, 1} // [[1, 0], [0, 2], [2, 1]]
	onnxPads := []int64{1, 0, 2, 0, 2, 1}
	v := 1.5
	for _, tc := range []struct {
		op, mode, onnxMode string
		value              *float64
	}{{"Pad", "", "constant", nil}, {"PadV2", "", "constant", &v}, {"MirrorPad", "REFLECT", "reflect", nil}} {
		tg := padGraph(tc.op, paddings, tc.value, tc.mode, 2, 3, 4)
		m := onnxgen.New("m", 18)
		m.Input("x", ir.F32, 2, 3, 4)
		m.Init("pads", i64(onnxPads...))
		ins := []string{"x", "pads"}
		if tc.value != nil {
			m.Init("v", f32(nil, *tc.value))
			ins = append(ins, "v")
		}
		m.Node("Pad", "y", ins, []string{"y"}, onnxgen.StringAttr("mode", tc.onnxMode))
		onnxOut(m, "y")
		checkSame(t, sameCase{tf: tg, onnx: m})
	}
}

// TestMirrorPadDocExamples: the examples of tf.pad's documentation.
func TestMirrorPadDocExamples(t *testing.T) {
	x := f32([]int64{2, 3}, 1, 2, 3, 4, 5, 6)
	for mode, want := range map[string][]float64{
		"REFLECT":   {6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1, 6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1},
		"SYMMETRIC": {2, 1, 1, 2, 3, 3, 2, 2, 1, 1, 2, 3, 3, 2, 5, 4, 4, 5, 6, 6, 5, 5, 4, 4, 5, 6, 6, 5},
	} {
		tg := padGraph("MirrorPad", []int64{1, 1, 2, 2}, nil, mode, 2, 3)
		g, err := tg.Import()
		require.NoError(t, err)
		out, err := eval.Run(g, map[string]*ir.Tensor{"x": x})
		require.NoError(t, err)
		require.Equal(t, []int64{4, 7}, out[0].Shape, mode)
		require.Equal(t, want, out[0].F, mode)
	}
}

// symmetricRef pads x symmetrically: index i - lo outside [0, n) mirrors to -1 - (i - lo) or
// 2n - 1 - (i - lo).
func symmetricRef(x *ir.Tensor, pads [][2]int64) *ir.Tensor {
	r := len(x.Shape)
	shape := make([]int64, r)
	for d := range shape {
		shape[d] = x.Shape[d] + pads[d][0] + pads[d][1]
	}
	out := ir.NewTensor(x.Elem, shape)
	pos := make([]int64, r)
	for o := range out.F {
		rem := int64(o)
		for d := r - 1; d >= 0; d-- {
			pos[d] = rem % shape[d]
			rem /= shape[d]
		}
		flat := int64(0)
		for d := 0; d < r; d++ {
			i, n := pos[d]-pads[d][0], x.Shape[d]
			if i < 0 {
				i = -1 - i
			} else if i >= n {
				i = 2*n - 1 - i
			}
			flat = flat*n + i
		}
		out.F[o] = x.F[flat]
	}
	return out
}

func TestMirrorPadSymmetricLikeReference(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 50; trial++ {
		shape := []int64{1 + r.Int64N(4), 1 + r.Int64N(4), 1 + r.Int64N(3)}
		var flat []int64
		var pads [][2]int64
		for _, n := range shape {
			lo, hi := r.Int64N(n+1), r.Int64N(n+1)
			flat = append(flat, lo, hi)
			pads = append(pads, [2]int64{lo, hi})
		}
		g, err := padGraph("MirrorPad", flat, nil, "SYMMETRIC", shape...).Import()
		require.NoError(t, err)
		x := randTensor(r, ir.F32, shape, anyValues)
		out, err := eval.Run(g, map[string]*ir.Tensor{"x": x})
		require.NoError(t, err)
		want := symmetricRef(x, pads)
		require.Equal(t, want.Shape, out[0].Shape, "%v %v", shape, pads)
		require.Equal(t, want.F, out[0].F, "%v %v", shape, pads)
	}
	// a symbolic extent
	g, err := padGraph("MirrorPad", []int64{2, 1, 1, 3}, nil, "SYMMETRIC", -1, 3).Import()
	require.NoError(t, err)
	for _, n := range []int64{2, 3, 6} {
		x := randTensor(r, ir.F32, []int64{n, 3}, anyValues)
		out, err := eval.Run(g, map[string]*ir.Tensor{"x": x}, eval.WithParams(map[string]int64{"x_d0": n}))
		require.NoError(t, err)
		require.Equal(t, symmetricRef(x, [][2]int64{{2, 1}, {1, 3}}).F, out[0].F, "batch %d", n)
	}
}
