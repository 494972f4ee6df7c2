package onnx_test

// This file checks that scatters with constant indices (a gather selected by a constant mask)
// compute what the general scatters compute, and that DIE then reads only the updates an
// output element comes from.

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/frontend/onnx"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
	"github.com/graphc/graphc/passes"
)

func TestScatterConstantIndices(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	nd := tensor(ir.I64, []int64{2, 1}, 3, -1) // rows 3 and 4 (the last) of a [5, 3] tensor
	el := tensor(ir.I64, []int64{2, 3}, 1, 0, 4, 2, 2, -2)
	for _, tc := range []struct {
		op   string
		ind  *ir.Tensor
		upd  []int64
		attr []onnxgen.Attr
		lo   int64
		hi   int64
	}{
		{"ScatterND", nd, []int64{2, 3}, nil, 3, 3},
		{"ScatterElements", el, []int64{2, 3}, []onnxgen.Attr{onnxgen.IntAttr("axis", 0)}, 1, 2},
	} {
		model := func(constIdx bool) *onnxgen.Model {
			m := onnxgen.New("s", 16)
			m.Input("D", ir.F32, 5, 3)
			m.Input("U", ir.F32, tc.upd[0], tc.upd[1])
			if constIdx {
				m.Init("I", tc.ind)
			} else {
				m.Input("I", ir.I64, tc.ind.Shape[0], tc.ind.Shape[1])
			}
			m.Node(tc.op, "s", []string{"D", "I", "U"}, []string{"Y"}, tc.attr...)
			m.Output("Y", ir.F32, 5, 3)
			return m
		}
		d, u := randF32(r, 5, 3), randF32(r, tc.upd...)
		want := runModel(t, model(false).Proto(), map[string]*ir.Tensor{"D": d, "U": u, "I": tc.ind})
		g, err := onnx.Import(model(true).Proto(), "s.onnx")
		require.NoError(t, err)
		for _, op := range g.Ops {
			require.NotContains(t, op.Kind, "scatter", "constant indices make a gather:\n%s", g)
		}
		got, err := eval.Run(g, map[string]*ir.Tensor{"D": d, "U": u})
		require.NoError(t, err)
		require.Equal(t, want[0].F, got[0].F, tc.op)
		// only row 4 required: one row of updates is read (the last update row in both cases)
		ps, err := passes.ParsePipeline(passes.DefaultPipeline)
		require.NoError(t, err)
		req, err := passes.ParseRequirement(g, g.Outputs[0].Name+"[i, j] : i = 4")
		require.NoError(t, err)
		res, err := passes.Run(context.Background(), g, ps, &passes.Options{VerifyEach: true, Require: []passes.Requirement{req}})
		require.NoError(t, err)
		var uv *ir.Value
		for _, in := range g.Inputs {
			if in.Name == "U" {
				uv = in
			}
		}
		need, ok := res.State.Required[uv]
		require.True(t, ok, "%s", g)
		n, err := need.Card(nil)
		require.NoError(t, err)
		// ScatterND: the update row written to row 4; ScatterElements: update (0, 2), the only
		// one reaching row 4, and at most the update the gather's filler index names
		require.LessOrEqual(t, n, tc.hi, "%s: the updates one output row needs: %s", tc.op, need)
		require.GreaterOrEqual(t, n, tc.lo, "%s", tc.op)
	}
}
