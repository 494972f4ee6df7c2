package graphc_test

// This file runs the committed YOLO-style head (testdata/bounded/yolo_head, written by
// testdata/bounded/yolo_head.py --sets with onnxruntime's outputs by models/ort_refs.py)
// through the evaluator, as x86-64 code and as Hexagon v67 code under qemu, on its three
// images: one where no box passes the score threshold, one that keeps some (6) and one
// that reaches NonMaxSuppression's bound (5 boxes for each of 3 classes). It needs no
// Python and no onnxruntime: the regimes stay covered where those are not installed.

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

func TestYOLOHeadCommittedRegimes(t *testing.T) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	m, err := realmodel.Load("testdata/bounded", "yolo_head")
	require.NoError(t, err)
	require.Equal(t, "onnxruntime-node", m.Reference)
	require.Len(t, m.Sets, 3)
	res, err := graphc.Compile(ctx, m.Path, graphc.WithVerifyEach(true))
	require.NoError(t, err)
	require.Len(t, res.Graph.Bounded, 1)
	bound := res.Graph.Bounded[0].Bound
	require.Equal(t, int64(15), bound, "at most 5 boxes for each of 3 classes")
	counts := map[int64]bool{}
	check := func(what string, set realmodel.DataSet, raw []*ir.Tensor) {
		got, err := e2e.TrimBounded(res.Graph, nil, raw)
		require.NoError(t, err)
		want := set.Outputs
		n := want[0].Shape[0]
		counts[n] = true
		require.Equal(t, n, raw[res.Graph.Bounded[0].Output].Int(0), "%s %s: the count", what, set.Name)
		require.Equal(t, want[0].Shape, got[0].Shape, "%s %s", what, set.Name)
		require.Equal(t, want[0].I, got[0].I, "%s %s: the selected (batch, class, box) triples", what, set.Name)
		for k := 1; k < 3; k++ {
			require.NoError(t, e2e.Compare(got[k], want[k], 1e-5, 1e-5, nil), "%s %s: output %d", what, set.Name, k)
		}
	}
	ref, err := graphc.Load(ctx, m.Path)
	require.NoError(t, err)
	dir := t.TempDir()
	prog, err := e2e.Build(ctx, dir, res.Graph, res.Module)
	require.NoError(t, err)
	var cases []*e2e.Case
	for _, set := range m.Sets {
		outs, err := eval.Run(ref, map[string]*ir.Tensor{m.InputNames[0]: set.Inputs[0]})
		require.NoError(t, err)
		check("evaluator", set, outs)
		raw, _, err := prog.Run(ctx, set.Inputs, e2e.AtBounds(res.Graph, nil), 1)
		require.NoError(t, err)
		check("x86-64", set, raw)
		cases = append(cases, &e2e.Case{Graph: res.Graph, Inputs: set.Inputs})
	}
	require.Equal(t, map[int64]bool{0: true, 6: true, bound: true}, counts, "no box, some, the bound")
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
