// This file tests decideGuards: guards decided on the (restricted) domain leave unguarded,
// vectorizable reads and constant availabilities, with the evaluator's results.

package lower_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/lower"
)

func TestDecidedGuardsVectorize(t *testing.T) {
	// causal softmax's fused mask on the lower triangle: the scores' guard (l <= k) always
	// holds, the fill's (l > k) never does
	specs := map[string]genericSpec{
		"masked_scores": {
			inputs: []ir.TensorType{ir.StaticType(ir.F32, 40, 40), ir.StaticType(ir.F32)},
			domain: "{ [k, l] : 0 <= k < 40 and 0 <= l <= k }",
			access: []string{"{ [k, l] -> [k, l] : l <= k }", "{ [k, l] -> [] : l > k }"},
			out:    "{ [k, l] -> [k, l] }", body: "select(avail(1), in1, exp(in0))", typ: ir.StaticType(ir.F32, 40, 40).String(),
		},
		"masked_row_max": {
			inputs: []ir.TensorType{ir.StaticType(ir.F32, 40, 40), ir.StaticType(ir.F32)},
			domain: "{ [k, l] : 0 <= k < 40 and 0 <= l <= k }",
			access: []string{"{ [k, l] -> [k, l] : l <= k }", "{ [k, l] -> [] : l > k }"},
			out:    "{ [k, l] -> [k] }", body: "select(avail(1), in1, in0)", typ: ir.StaticType(ir.F32, 40).String(),
			reduce: "max", init: -1e30, iterator: []string{"parallel", "reduction"},
		},
		// a guard that holds on part of the domain stays (the op is split along it)
		"half_guarded": {
			inputs: []ir.TensorType{ir.StaticType(ir.F32, 40, 40)},
			domain: "{ [k, l] : 0 <= k < 40 and 0 <= l < 40 }",
			access: []string{"{ [k, l] -> [k, l] : l <= k }"},
			out:    "{ [k, l] -> [k, l] }", body: "select(avail(0), in0, 2.0:f32)", typ: ir.StaticType(ir.F32, 40, 40).String(),
		},
	}
	r := rand.New(rand.NewPCG(4, 4))
	var names []string
	var cases []*e2e.Case
	for name, s := range specs {
		g, err := genericGraph(s)
		require.NoError(t, err, name)
		mod, err := lower.Lower(context.Background(), g, lower.Config{VectorBytes: 64})
		require.NoError(t, err, name)
		st := mod.Entries[0].Strategies[0]
		if name == "half_guarded" {
			require.Contains(t, st, "guard-split", "%s: %s", name, st)
		} else {
			require.Contains(t, st, "+vector", "%s: %s", name, st)
			require.NotContains(t, st, "guard-split", "%s: %s", name, st)
		}
		names = append(names, name)
		cases = append(cases, &e2e.Case{Graph: g, Inputs: inputsFor(r, g, nil, true)})
	}
	runCases(t, e2e.Host(), names, cases)
	runCases(t, e2e.Machine{Target: "x86-64", VectorBytes: 64}, names, cases)
}
