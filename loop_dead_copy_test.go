package graphc_test

// This file checks a Loop over detections (frontend/onnx's importLoop): the trip count is the
// number of rows of a NonZero selection (a bounded dim) and the body gathers row i of the
// selected rows. The copies of the body past the run-time trip count must not read past the
// selection's actual extent nor fail the call.

import (
	"context"
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

// loopGatherModel selects the rows of B (f32[6,4]) whose score is positive (at most 6), and
// loops over them: s ← s + B[sel[i]]·i, scan output 2·B[sel[i]] (row i of the selection).
func loopGatherModel(t *testing.T) string {
	m := onnxgen.New("loop_gather", 16)
	m.Input("scores", ir.F32, 6)
	m.Input("B", ir.F32, 6, 4)
	m.Input("S", ir.F32, 4)
	zero := ir.NewTensor(ir.F32, []int64{})
	m.Init("zero", zero)
	tr := ir.NewTensor(ir.Bool, []int64{})
	tr.I[0] = 1
	m.Init("true", tr)
	one := ir.NewTensor(ir.I64, []int64{1})
	m.Init("zero1", one)
	m.Node("Greater", "gt", []string{"scores", "zero"}, []string{"pos"})
	m.Node("NonZero", "nz", []string{"pos"}, []string{"nz"})
	m.Node("Squeeze", "sq", []string{"nz", "zero1"}, []string{"idx"})
	m.Node("Gather", "sel", []string{"B", "idx"}, []string{"rows"}, onnxgen.IntAttr("axis", 0))
	m.Node("Shape", "shape", []string{"rows"}, []string{"rshape"})
	m.Node("Gather", "count", []string{"rshape", "zero1"}, []string{"M1"})
	m.Node("Squeeze", "msq", []string{"M1"}, []string{"M"})
	vi := onnxgen.ValueInfo
	body := &onnxpb.GraphProto{
		Name:   strp("body"),
		Input:  []*onnxpb.ValueInfoProto{vi("i", ir.I64), vi("c_in", ir.Bool), vi("s_in", ir.F32, 4)},
		Output: []*onnxpb.ValueInfoProto{vi("c_out", ir.Bool), vi("s_out", ir.F32, 4), vi("y", ir.F32, 4)},
	}
	bn := func(op string, ins, outs []string, attrs ...onnxgen.Attr) {
		sub := onnxgen.New("b", 16)
		sub.Node(op, "", ins, outs, attrs...)
		body.Node = append(body.Node, sub.G.Node...)
	}
	bn("Gather", []string{"rows", "i"}, []string{"row"}, onnxgen.IntAttr("axis", 0))
	bn("Cast", []string{"i"}, []string{"fi"}, onnxgen.IntAttr("to", 1))
	bn("Mul", []string{"row", "fi"}, []string{"ri"})
	bn("Add", []string{"s_in", "ri"}, []string{"s_out"})
	bn("Add", []string{"row", "row"}, []string{"y"})
	bn("Identity", []string{"c_in"}, []string{"c_out"})
	m.Node("Loop", "loop", []string{"M", "true", "S"}, []string{"S_out", "Y"},
		&onnxpb.AttributeProto{Name: strp("body"), Type: onnxpb.AttributeProto_GRAPH.Enum(), G: body})
	m.Output("S_out", ir.F32, 4)
	m.Output("Y", ir.F32, "n", 4)
	path := filepath.Join(t.TempDir(), "loop_gather.onnx")
	require.NoError(t, m.Write(path))
	return path
}

func TestLoopDeadCopiesReadNothing(t *testing.T) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	path := loopGatherModel(t)
	ref, err := graphc.Load(ctx, path)
	require.NoError(t, err)
	res, err := graphc.Compile(ctx, path, graphc.WithVerifyEach(true))
	require.NoError(t, err)
	require.NotEmpty(t, res.Graph.Bounded, "the selection and the scan output take bounded dims")
	for _, d := range res.Diagnostics {
		require.True(t, d.Note, "op %%%s: %s", d.Op, d.Msg)
	}
	prog, err := e2e.Build(ctx, t.TempDir(), res.Graph, res.Module)
	require.NoError(t, err)
	names := []string{"scores", "B", "S"}
	b := ir.NewTensor(ir.F32, []int64{6, 4})
	for i := range b.F {
		b.F[i] = float64(i%7) - 2.5
	}
	s := ir.NewTensor(ir.F32, []int64{4})
	copy(s.F, []float64{1, 2, 3, 4})
	for _, pos := range [][]int{nil, {4}, {1, 3}, {0, 2, 5}, {0, 1, 2, 3, 4, 5}} {
		scores := ir.NewTensor(ir.F32, []int64{6})
		for i := range scores.F {
			scores.F[i] = -1
		}
		for _, p := range pos {
			scores.F[p] = 1
		}
		ins := []*ir.Tensor{scores, b, s}
		want, err := eval.Run(ref, map[string]*ir.Tensor{"scores": scores, "B": b, "S": s})
		require.NoError(t, err)
		require.Equal(t, int64(len(pos)), want[1].Shape[0])
		if why := ortref.Missing(); why == "" {
			ort, err := ortref.Run(ctx, path, names, ins)
			require.NoError(t, err)
			for k := range 2 {
				require.Equal(t, ort[k].Shape, want[k].Shape, "output %d: the evaluator against onnxruntime", k)
				require.NoError(t, e2e.Compare(want[k], ort[k], 1e-6, 1e-6, nil), "output %d: the evaluator against onnxruntime", k)
			}
		}
		got, _, err := prog.Run(ctx, ins, e2e.AtBounds(res.Graph, nil), 1)
		require.NoError(t, err, "%d rows selected", len(pos))
		for k := range 2 {
			require.Equal(t, want[k].Shape, got[k].Shape, "output %d: compiled, %d rows selected", k, len(pos))
			require.Equal(t, want[k].F, got[k].F, "output %d: compiled, %d rows selected", k, len(pos))
		}
	}
}
