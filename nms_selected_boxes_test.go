package graphc_test

// This file checks NonMaxSuppression over boxes whose count is itself a bounded dim (a
// detector's score-threshold selection, then NMS of one class): the number of kept boxes is
// at most the number of boxes, which the import states as a requirement, so that DIE proves
// the selected indices read inside the kept slots (no spurious out-of-bounds warning, as
// Faster R-CNN's rpn and roi_heads printed).

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
)

// nmsOfSelectionModel keeps the boxes (f32[12, 4]) whose score exceeds 0.3 and runs
// NonMaxSuppression on them (one batch, one class).
func nmsOfSelectionModel(t *testing.T) string {
	m := onnxgen.New("nms_sel", 13)
	m.Input("boxes", ir.F32, 12, 4)
	m.Input("scores", ir.F32, 12)
	scalar := func(name string, elem ir.DType, shape []int64, v float64) {
		x := ir.NewTensor(elem, shape)
		if elem.IsFloat() {
			x.F[0] = v
		} else {
			x.I[0] = int64(v)
		}
		m.Init(name, x)
	}
	scalar("thr", ir.F32, []int64{}, 0.3)
	scalar("zero", ir.I64, []int64{1}, 0)
	scalar("max", ir.I64, []int64{1}, 100)
	scalar("iou", ir.F32, []int64{1}, 0.5)
	m.Node("Greater", "gt", []string{"scores", "thr"}, []string{"pos"})
	m.Node("NonZero", "nz", []string{"pos"}, []string{"nz"})
	m.Node("Squeeze", "sq", []string{"nz", "zero"}, []string{"idx"})
	m.Node("Gather", "gb", []string{"boxes", "idx"}, []string{"sb"}, onnxgen.IntAttr("axis", 0))
	m.Node("Gather", "gs", []string{"scores", "idx"}, []string{"ss"}, onnxgen.IntAttr("axis", 0))
	m.Node("Unsqueeze", "ub", []string{"sb", "zero"}, []string{"b3"})
	m.Node("Unsqueeze", "us1", []string{"ss", "zero"}, []string{"s2"})
	m.Node("Unsqueeze", "us2", []string{"s2", "zero"}, []string{"s3"})
	m.Node("NonMaxSuppression", "nms", []string{"b3", "s3", "max", "iou"}, []string{"sel"})
	m.Output("sel", ir.I64, "n", 3)
	path := filepath.Join(t.TempDir(), "nms_sel.onnx")
	require.NoError(t, m.Write(path))
	return path
}

func TestNMSOfSelectionNoSpuriousWarning(t *testing.T) {
	ctx := context.Background()
	path := nmsOfSelectionModel(t)
	ref, err := graphc.Load(ctx, path)
	require.NoError(t, err)
	res, err := graphc.Compile(ctx, path)
	require.NoError(t, err)
	for _, d := range res.Diagnostics {
		require.True(t, d.Note, "op %%%s: %s", d.Op, d.Msg)
	}
	rng := rand.New(rand.NewPCG(35, 1))
	boxes := ir.NewTensor(ir.F32, []int64{12, 4})
	for i := range boxes.F {
		boxes.F[i] = float64(float32(float64(rng.IntN(6)) + rng.Float64()*2))
	}
	for _, mode := range []int{0, 1, 2} {
		scores := ir.NewTensor(ir.F32, []int64{12})
		for i := range scores.F {
			scores.F[i] = float64(float32([]float64{0.1, 0.9, rng.Float64()}[mode]))
		}
		ins := map[string]*ir.Tensor{"boxes": boxes, "scores": scores}
		want, err := eval.Run(ref, ins)
		require.NoError(t, err)
		got, err := eval.Run(res.Graph, ins)
		require.NoError(t, err)
		require.Equal(t, want[0].Shape, got[0].Shape, "mode %d", mode)
		require.Equal(t, want[0].I, got[0].I, "mode %d", mode)
		if _, err := e2e.Clang(); err == nil && mode == 2 {
			prog, err := e2e.Build(ctx, t.TempDir(), res.Graph, res.Module)
			require.NoError(t, err)
			out, _, err := prog.Run(ctx, []*ir.Tensor{boxes, scores}, e2e.AtBounds(res.Graph, nil), 1)
			require.NoError(t, err)
			require.Equal(t, want[0].Shape, out[0].Shape)
			require.Equal(t, want[0].I, out[0].I)
		}
	}
}
