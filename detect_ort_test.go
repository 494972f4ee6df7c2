package graphc_test

// This file runs the committed detector (testdata/detect/tiny_ssd: torchvision's SSD
// postprocessing, exported by models/export.py --set tiny-detect, with onnxruntime's outputs
// written by models/ort_refs.py) as compiled code for x86-64 and as Hexagon v67 code under
// qemu: the same number of boxes, the same labels in the same order, boxes and scores within
// the tolerance of the compiled transcendental functions, on an image with some detections,
// one that reaches the 40-box limit and one where no box passes the score threshold.

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/internal/realmodel"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
)

func TestTinySSDMatchesORT(t *testing.T) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	m, err := realmodel.Load("testdata/detect", "tiny_ssd")
	require.NoError(t, err)
	require.Equal(t, "onnxruntime-node", m.Reference)
	res, err := graphc.Compile(ctx, m.Path)
	require.NoError(t, err)
	require.NotEmpty(t, res.Graph.Bounded)
	dir := t.TempDir()
	prog, err := e2e.Build(ctx, dir, res.Graph, res.Module)
	require.NoError(t, err)
	counts := map[int]bool{}
	check := func(what string, set realmodel.DataSet, raw []*ir.Tensor) {
		got, err := e2e.TrimBounded(res.Graph, nil, raw)
		require.NoError(t, err)
		want := set.Outputs
		n := want[1].Shape[0]
		counts[int(n)] = true
		require.Equal(t, want[0].Shape, got[0].Shape, "%s %s: boxes", what, set.Name)
		require.Equal(t, want[2].I, got[2].I, "%s %s: labels", what, set.Name)
		require.NoError(t, e2e.Compare(got[0], want[0], 1e-4, 1e-3, nil), "%s %s: boxes", what, set.Name)
		require.NoError(t, e2e.Compare(got[1], want[1], 1e-4, 1e-5, nil), "%s %s: scores", what, set.Name)
	}
	ref, err := graphc.Load(ctx, m.Path)
	require.NoError(t, err)
	for _, set := range m.Sets {
		outs, err := eval.Run(ref, map[string]*ir.Tensor{m.InputNames[0]: set.Inputs[0]})
		require.NoError(t, err)
		check("evaluator", set, outs)
	}
	var cases []*e2e.Case
	for _, set := range m.Sets {
		raw, _, err := prog.Run(ctx, set.Inputs, e2e.AtBounds(res.Graph, nil), 1)
		require.NoError(t, err)
		check("x86-64", set, raw)
		cases = append(cases, &e2e.Case{Graph: res.Graph, Inputs: set.Inputs})
	}
	require.True(t, counts[0] && counts[40], "an image without detections and one at the limit (40): %v", counts)
	hm := e2e.HexagonScalar()
	hp, err := e2e.BuildBatch(ctx, filepath.Join(dir, hm.String()), hm, cases)
	require.NoError(t, err)
	if !e2e.CanRun(t, hm) {
		return
	}
	for i, r := range hp.Run(ctx) {
		require.NoError(t, r.Err)
		require.Zero(t, r.Status)
		check(hm.String(), m.Sets[i], r.Outputs)
	}
}
