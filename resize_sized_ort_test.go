package graphc_test

// This file checks Resize with sizes computed at run time (frontend/onnx's boundedints.go and
// ir's resize_sized): a box is clipped to [0, 24], its width and height (at least 1) become the
// sizes, so each output extent is a bounded dim of bound 24 derived from the clip's value range.
// The evaluator, the compiled x86-64 code and onnxruntime agree on random boxes, on boxes that
// reach the bound and on boxes that collapse to one pixel; DIE keeps exactly the resize
// iterations that a static slice of the result needs, for every extent within the bound.

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
	"github.com/graphc/graphc/volume"
)

// boxResizeModel resizes X [1, 1, 6, 8] to the clipped box B = (x0, y0, x1, y1): sizes
// [1, 1, max(y1 - y0, 1), max(x1 - x0, 1)] after clipping B to [0, 24], cast to int64.
// Y1 is linear (half_pixel), Y2 nearest (asymmetric, floor), Y3 linear (align_corners); with
// slice, only Z = Y1[:, :, :3, :2] is an output.
func boxResizeModel(slice bool) *onnxgen.Model {
	m := onnxgen.New("box_resize", 13)
	m.Input("X", ir.F32, 1, 1, 6, 8)
	m.Input("B", ir.F32, 4)
	f := func(name string, v ...float64) {
		t := ir.NewTensor(ir.F32, []int64{int64(len(v))})
		copy(t.F, v)
		if len(v) == 1 {
			t = ir.NewTensor(ir.F32, nil)
			t.F[0] = v[0]
		}
		m.Init(name, t)
	}
	i := func(name string, v ...int64) {
		t := ir.NewTensor(ir.I64, []int64{int64(len(v))})
		copy(t.I, v)
		m.Init(name, t)
	}
	f("lo", 0)
	f("hi", 24)
	f("one", 1)
	i("s0", 0)
	i("s2", 2)
	i("s4", 4)
	i("swap", 1, 0)
	i("ones", 1, 1)
	m.Node("Clip", "clip", []string{"B", "lo", "hi"}, []string{"Bc"})
	m.Node("Slice", "p0", []string{"Bc", "s0", "s2"}, []string{"P0"})
	m.Node("Slice", "p1", []string{"Bc", "s2", "s4"}, []string{"P1"})
	m.Node("Sub", "wh", []string{"P1", "P0"}, []string{"WH"})
	m.Node("Max", "whc", []string{"WH", "one"}, []string{"WHc"})
	m.Node("Cast", "whi", []string{"WHc"}, []string{"WHi"}, onnxgen.IntAttr("to", 7))
	m.Node("Gather", "hw", []string{"WHi", "swap"}, []string{"HW"}, onnxgen.IntAttr("axis", 0))
	m.Node("Concat", "sizes", []string{"ones", "HW"}, []string{"S"}, onnxgen.IntAttr("axis", 0))
	m.Node("Resize", "r1", []string{"X", "", "", "S"}, []string{"Y1"}, onnxgen.StringAttr("mode", "linear"))
	if slice {
		i("z0", 0, 0, 0, 0)
		i("z1", 1, 1, 3, 2)
		m.Node("Slice", "z", []string{"Y1", "z0", "z1"}, []string{"Z"})
		m.Output("Z", ir.F32, 1, 1, "zh", "zw")
		return m
	}
	m.Node("Resize", "r2", []string{"X", "", "", "S"}, []string{"Y2"}, onnxgen.StringAttr("mode", "nearest"),
		onnxgen.StringAttr("coordinate_transformation_mode", "asymmetric"), onnxgen.StringAttr("nearest_mode", "floor"))
	m.Node("Resize", "r3", []string{"X", "", "", "S"}, []string{"Y3"}, onnxgen.StringAttr("mode", "linear"),
		onnxgen.StringAttr("coordinate_transformation_mode", "align_corners"))
	for _, y := range []string{"Y1", "Y2", "Y3"} {
		m.Output(y, ir.F32, 1, 1, "h", "w")
	}
	return m
}

// boxes returns the boxes of the trials: random ones (some clipped, some inverted), one that
// reaches the bound (24 × 24) and one that collapses to a pixel.
func boxes(r *rand.Rand) []*ir.Tensor {
	var out []*ir.Tensor
	for trial := range 8 {
		b := ir.NewTensor(ir.F32, []int64{4})
		for k := range b.F {
			b.F[k] = float64(float32(r.Float64()*36 - 6))
		}
		switch trial {
		case 0:
			copy(b.F, []float64{-3, -1, 30, 27})
		case 1:
			copy(b.F, []float64{5, 9, 2.5, 9.5})
		}
		out = append(out, b)
	}
	return out
}

func TestResizeRuntimeSizesMatchORT(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "m.onnx")
	require.NoError(t, boxResizeModel(false).Write(path))
	res, err := graphc.Compile(ctx, path)
	require.NoError(t, err)
	g := res.Graph
	require.Len(t, g.Bounded, 2, "the height and the width")
	for _, b := range g.Bounded {
		require.Equal(t, int64(23), b.Bound, "sizes 1 + n in [1, 24]")
	}
	var prog *e2e.Program
	if e2e.CanRun(t, e2e.Host()) {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "x86"), 0o755))
		prog, err = e2e.Build(ctx, filepath.Join(dir, "x86"), g, res.Module)
		require.NoError(t, err)
	}
	orMissing := ortref.Missing()
	r := rand.New(rand.NewPCG(35, 5))
	for trial, b := range boxes(r) {
		x := e2e.RandomTensor(r, ir.F32, []int64{1, 1, 6, 8})
		want, err := eval.Run(g, map[string]*ir.Tensor{"X": x, "B": b})
		require.NoError(t, err, "trial %d", trial)
		if trial == 0 {
			require.Equal(t, []int64{1, 1, 24, 24}, want[0].Shape, "the bound reached")
		}
		if trial == 1 {
			require.Equal(t, []int64{1, 1, 1, 1}, want[0].Shape, "an inverted box is one pixel")
		}
		if prog != nil {
			got, _, err := prog.Run(ctx, []*ir.Tensor{x, b}, nil, 1)
			require.NoError(t, err)
			for o := range 3 {
				require.Equal(t, want[o].Shape, got[o].Shape, "trial %d output %d", trial, o)
				require.NoError(t, e2e.Compare(got[o], want[o], 1e-6, 1e-6, nil), "trial %d output %d: compiled vs evaluator", trial, o)
			}
		}
		if orMissing != "" {
			continue
		}
		ort, err := ortref.Run(ctx, path, []string{"X", "B"}, []*ir.Tensor{x, b})
		require.NoError(t, err)
		for o := range 3 {
			require.Equal(t, ort[o].Shape, want[o].Shape, "trial %d output %d: box %v", trial, o, b.F)
			require.NoError(t, e2e.Compare(want[o], ort[o], 1e-5, 1e-5, nil), "trial %d output %d: evaluator vs onnxruntime", trial, o)
		}
	}
	if orMissing != "" {
		t.Skip(orMissing)
	}
}

// TestResizeRuntimeSizesDIE: only rows < 3 and columns < 2 of the resized mask are needed, so
// for every height and width within the bound DIE keeps exactly the resize iterations that
// write them, and the required output is the evaluator's before and after.
func TestResizeRuntimeSizesDIE(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "m.onnx")
	require.NoError(t, boxResizeModel(true).Write(path))
	ref, err := graphc.Load(ctx, path)
	require.NoError(t, err)
	res, err := graphc.Compile(ctx, path)
	require.NoError(t, err)
	var rs *ir.Op
	for _, op := range res.Graph.Ops {
		if op.Kind == "resize_sized" {
			rs = op
		}
	}
	require.NotNil(t, rs)
	h, w := rs.Result.Type.Shape[2], rs.Result.Type.Shape[3]
	require.Len(t, h.Params, 1)
	require.Len(t, w.Params, 1)
	for hv := int64(0); hv <= 23; hv += 5 {
		for wv := int64(0); wv <= 23; wv += 3 {
			fix := func(s volume.Set) volume.Set {
				return s.FixParam(h.Params[0].Name, hv).FixParam(w.Params[0].Name, wv)
			}
			live := rs.Full.Intersect(volume.SetFromConstraints(res.Graph.Params, "", rs.Dims, []volume.Constraint{
				volume.LT(volume.AffDim(2), volume.AffConst(3)), volume.LT(volume.AffDim(3), volume.AffConst(2))}))
			got, want := fix(rs.Domain), fix(live)
			require.True(t, got.IsEqual(want) == volume.Yes, "h = %d, w = %d: runs %s, the live iterations are %s", hv+1, wv+1, got, want)
		}
	}
	r := rand.New(rand.NewPCG(35, 6))
	for trial, b := range boxes(r) {
		x := e2e.RandomTensor(r, ir.F32, []int64{1, 1, 6, 8})
		in := map[string]*ir.Tensor{"X": x, "B": b}
		want, err := eval.Run(ref, in)
		require.NoError(t, err)
		got, err := eval.Run(res.Graph, in)
		require.NoError(t, err)
		require.Equal(t, want[0].Shape, got[0].Shape, "trial %d", trial)
		require.Equal(t, want[0].F, got[0].F, "trial %d", trial)
	}
}
