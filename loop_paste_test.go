package graphc_test

// This file checks a small mask paste written like torchvision's (the Loop of Mask R-CNN's
// paste_masks_in_image): a Loop over the boxes that pass a score threshold (a NonZero count,
// so its iterations are decided at run time) resizes each 3×3 mask to its box's size (Resize
// with sizes computed from the box clipped to the canvas: bounded dims), pads it into a 12×12
// canvas with zeros of run-time extents, and appends it to a loop-carried value that starts
// empty (concatenation, frontend/onnx's loop_accumulate.go); a scan output sums all 24 rows.
// The evaluator, the compiled x86-64 code and onnxruntime agree when no box passes, some pass
// and every one passes (with the fourth, whose buffers were sized too small before sizing
// took regions that shrink as a bounded dim grows into account: a heap overrun).

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/internal/ortref"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
	"github.com/graphc/graphc/proto/onnxpb"
)

func pasteModel(t *testing.T) string {
	m := onnxgen.New("paste", 13)
	m.Input("masks", ir.F32, 4, 3, 3)
	m.Input("boxes", ir.F32, 4, 4)
	m.Input("scores", ir.F32, 4)
	ints := func(name string, v ...int64) {
		x := ir.NewTensor(ir.I64, []int64{int64(len(v))})
		copy(x.I, v)
		m.Init(name, x)
	}
	scalar := func(name string, elem ir.DType, v float64) {
		x := ir.NewTensor(elem, []int64{})
		if elem.IsFloat() {
			x.F[0] = v
		} else {
			x.I[0] = int64(v)
		}
		m.Init(name, x)
	}
	scalar("half", ir.F32, 0.5)
	scalar("lo", ir.F32, 0)
	scalar("hi", ir.F32, 12)
	scalar("true", ir.Bool, 1)
	ints("one", 1)
	ints("i0", 0)
	ints("i1", 1)
	ints("i2", 2)
	ints("i3", 3)
	ints("i24", 24)
	ints("i12", 12)
	ints("ax1", 1)
	ints("k11", 1, 1)
	ints("k01", 0, 1)
	empty := ir.NewTensor(ir.F32, []int64{0, 12, 12})
	m.Init("empty", empty)
	m.Node("Greater", "gt", []string{"scores", "half"}, []string{"pass"})
	m.Node("NonZero", "nz", []string{"pass"}, []string{"nz"})
	m.Node("Shape", "shape", []string{"nz"}, []string{"nzshape"})
	m.Node("Gather", "count", []string{"nzshape", "one"}, []string{"M1"})
	m.Node("Squeeze", "sq", []string{"M1"}, []string{"M"})
	m.Node("Clip", "clip", []string{"boxes", "lo", "hi"}, []string{"bc"})
	m.Node("Cast", "bi", []string{"bc"}, []string{"B"}, onnxgen.IntAttr("to", 7))
	vi := onnxgen.ValueInfo
	body := &onnxpb.GraphProto{
		Name:   strp("body"),
		Input:  []*onnxpb.ValueInfoProto{vi("i", ir.I64), vi("c_in", ir.Bool), vi("res_in", ir.F32, "r", 12, 12)},
		Output: []*onnxpb.ValueInfoProto{vi("c_out", ir.Bool), vi("res_out", ir.F32, "r1", 12, 12), vi("rowsum", ir.F32, 24)},
	}
	bn := func(op string, ins, outs []string, attrs ...onnxgen.Attr) {
		sub := onnxgen.New("b", 13)
		sub.Node(op, "", ins, outs, attrs...)
		body.Node = append(body.Node, sub.G.Node...)
	}
	axis := func(a int64) onnxgen.Attr { return onnxgen.IntAttr("axis", a) }
	bn("Identity", []string{"c_in"}, []string{"c_out"})
	bn("Gather", []string{"B", "i"}, []string{"box"}, axis(0)) // [4]: x0, y0, x1, y1
	bn("Gather", []string{"box", "i0"}, []string{"x0"}, axis(0))
	bn("Gather", []string{"box", "i1"}, []string{"y0"}, axis(0))
	bn("Gather", []string{"box", "i2"}, []string{"x1"}, axis(0))
	bn("Gather", []string{"box", "i3"}, []string{"y1"}, axis(0))
	bn("Sub", []string{"x1", "x0"}, []string{"w0"})
	bn("Sub", []string{"y1", "y0"}, []string{"h0"})
	bn("Concat", []string{"w0", "one"}, []string{"wc"}, axis(0))
	bn("ReduceMax", []string{"wc"}, []string{"w"}, onnxgen.IntAttr("keepdims", 1))
	bn("Concat", []string{"h0", "one"}, []string{"hc"}, axis(0))
	bn("ReduceMax", []string{"hc"}, []string{"h"}, onnxgen.IntAttr("keepdims", 1))
	bn("Gather", []string{"masks", "i"}, []string{"mask"}, axis(0))
	bn("Unsqueeze", []string{"mask", "k01"}, []string{"mask4b"})
	bn("Concat", []string{"k11", "h", "w"}, []string{"sizes"}, axis(0))
	bn("Resize", []string{"mask4b", "", "", "sizes"}, []string{"rs4"}, onnxgen.StringAttr("mode", "linear"))
	bn("Squeeze", []string{"rs4", "k01"}, []string{"rs"})
	// rows: zeros [y0, w], the mask, zeros [24 - y0 - h, w], cut to 12
	bn("Concat", []string{"y0", "w"}, []string{"s_top"}, axis(0))
	bn("ConstantOfShape", []string{"s_top"}, []string{"top"})
	bn("Sub", []string{"i24", "y0"}, []string{"t1"})
	bn("Sub", []string{"t1", "h"}, []string{"nb"})
	bn("Concat", []string{"nb", "w"}, []string{"s_bot"}, axis(0))
	bn("ConstantOfShape", []string{"s_bot"}, []string{"bot"})
	bn("Concat", []string{"top", "rs", "bot"}, []string{"rows"}, axis(0))
	bn("Slice", []string{"rows", "i0", "i12", "i0"}, []string{"rows12"})
	// the sums of all 24 rows (a scan output): the zeros below the mask, whose extent
	// 24 - y0 - h shrinks as the dims grow, are needed too
	bn("ReduceSum", []string{"rows", "ax1"}, []string{"rowsum"}, onnxgen.IntAttr("keepdims", 0))
	bn("Concat", []string{"i12", "x0"}, []string{"s_left"}, axis(0))
	bn("ConstantOfShape", []string{"s_left"}, []string{"left"})
	bn("Sub", []string{"i24", "x0"}, []string{"t2"})
	bn("Sub", []string{"t2", "w"}, []string{"nr"})
	bn("Concat", []string{"i12", "nr"}, []string{"s_right"}, axis(0))
	bn("ConstantOfShape", []string{"s_right"}, []string{"right"})
	bn("Concat", []string{"left", "rows12", "right"}, []string{"cols"}, axis(1))
	bn("Slice", []string{"cols", "i0", "i12", "ax1"}, []string{"canvas"})
	bn("Unsqueeze", []string{"canvas", "i0"}, []string{"piece"})
	bn("Concat", []string{"res_in", "piece"}, []string{"res_out"}, axis(0))
	// (a name with a dot, as torch's res_append.7: the bounded dim named after it must still be
	// a C identifier for the header's macros)
	m.Node("Loop", "loop", []string{"M", "true", "empty"}, []string{"Y.7", "R"},
		&onnxpb.AttributeProto{Name: strp("body"), Type: onnxpb.AttributeProto_GRAPH.Enum(), G: body})
	m.Output("Y.7", ir.F32, "n", 12, 12)
	m.Output("R", ir.F32, "n", 24)
	path := filepath.Join(t.TempDir(), "paste.onnx")
	require.NoError(t, m.Write(path))
	return path
}

func TestLoopPasteMatchesORT(t *testing.T) {
	ctx := context.Background()
	path := pasteModel(t)
	ref, err := graphc.Load(ctx, path)
	require.NoError(t, err)
	res, err := graphc.Compile(ctx, path, graphc.WithVerifyEach(true))
	require.NoError(t, err)
	var prog *e2e.Program
	if e2e.CanRun(t, e2e.Host()) {
		dir := filepath.Join(t.TempDir(), "x86")
		require.NoError(t, os.MkdirAll(dir, 0o755))
		prog, err = e2e.Build(ctx, dir, res.Graph, res.Module)
		require.NoError(t, err)
	}
	r := rand.New(rand.NewPCG(35, 7))
	names := []string{"masks", "boxes", "scores"}
	counts := map[int64]bool{}
	for trial := range 9 {
		masks := e2e.RandomTensor(r, ir.F32, []int64{4, 3, 3})
		boxes := ir.NewTensor(ir.F32, []int64{4, 4})
		for k := range boxes.F {
			boxes.F[k] = float64(float32(r.Float64()*16 - 2))
		}
		if trial == 0 {
			copy(boxes.F, []float64{-1, -1, 13, 13, 0, 0, 12, 12, 11.5, 3, 2, 7, 5, 5, 5, 5}) // whole canvas, inverted, empty
		}
		scores := ir.NewTensor(ir.F32, []int64{4})
		for k := range scores.F {
			scores.F[k] = []float64{0, 1, r.Float64()}[trial%3]
		}
		if trial == 2 {
			copy(scores.F, []float64{0.9, 0, 0.7, 0.2}) // two boxes: the copies past them run nothing
		}
		ins := []*ir.Tensor{masks, boxes, scores}
		want, err := eval.Run(ref, map[string]*ir.Tensor{"masks": masks, "boxes": boxes, "scores": scores})
		require.NoError(t, err, "trial %d", trial)
		counts[want[0].Shape[0]] = true
		got, err := eval.Run(res.Graph, map[string]*ir.Tensor{"masks": masks, "boxes": boxes, "scores": scores})
		require.NoError(t, err, "trial %d", trial)
		for o := range 2 {
			require.NoError(t, e2e.Compare(got[o], want[o], 0, 0, nil), "trial %d output %d: the optimised graph against the imported one", trial, o)
		}
		if prog != nil {
			out, _, err := prog.Run(ctx, ins, nil, 1)
			require.NoError(t, err, "trial %d", trial)
			for o := range 2 {
				require.Equal(t, want[o].Shape, out[o].Shape, "trial %d output %d", trial, o)
				require.NoError(t, e2e.Compare(out[o], want[o], 1e-6, 1e-6, nil), "trial %d output %d: compiled against the evaluator", trial, o)
			}
		}
		if why := ortref.Missing(); why == "" {
			ort, err := ortref.Run(ctx, path, names, ins)
			require.NoError(t, err)
			for o := range 2 {
				require.Equal(t, ort[o].Shape, want[o].Shape, "trial %d output %d: boxes %v", trial, o, boxes.F)
				require.NoError(t, e2e.Compare(want[o], ort[o], 1e-5, 1e-5, nil), "trial %d output %d: the evaluator against onnxruntime", trial, o)
			}
		}
	}
	require.True(t, counts[0] && counts[2] && counts[4], "no box, some and every box among the trials: %v", counts)
}
