// This file tests recurrent layers (ONNX LSTM, GRU and RNN, unrolled by the importer) split
// over threads: every step's product with the hidden state (a one-row register-tile kernel)
// and the input projections of all steps.
package lower_test

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/frontend/onnx"
	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/lower"
	"github.com/graphc/graphc/passes"
)

// recurrentModel is one recurrent layer of the given op (gates per hidden unit) over seq
// steps of a batch of one, hidden h, input size in, in the given direction, with random
// weights and biases; Y and Y_h are outputs.
func recurrentModel(r *rand.Rand, op string, gates, seq, in, h int64, direction string, attrs ...onnxgen.Attr) *onnxgen.Model {
	dirs := int64(1)
	if direction == "bidirectional" {
		dirs = 2
	}
	m := onnxgen.New("rnn", 14)
	m.Input("x", ir.F32, seq, 1, in)
	m.Output("y", ir.F32, seq, dirs, 1, h)
	m.Output("y_h", ir.F32, dirs, 1, h)
	init := func(name string, shape ...int64) {
		t := e2e.RandomTensor(r, ir.F32, shape)
		for i := range t.F {
			t.F[i] = ir.RoundFloat(ir.F32, t.F[i]*0.3)
		}
		m.Init(name, t)
	}
	init("w", dirs, gates*h, in)
	init("r", dirs, gates*h, h)
	init("b", dirs, 2*gates*h)
	attrs = append(attrs, onnxgen.IntAttr("hidden_size", h), onnxgen.StringAttr("direction", direction))
	m.Node(op, "layer", []string{"x", "w", "r", "b"}, []string{"y", "y_h"}, attrs...)
	return m
}

// TestParallelRecurrent: an LSTM, a bidirectional GRU and a ReLU RNN whose steps' products are
// one-row register tiles (1×8 vectors: fewRowsShape), with every splittable kernel split into
// its smallest chunks, give the evaluator's values and the same bits at 1-4 threads; left to
// the cost estimates, the copy that stacks the steps' outputs is not split.
func TestParallelRecurrent(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 33))
	models := map[string]*onnxgen.Model{
		"lstm":     recurrentModel(r, "LSTM", 4, 24, 24, 80, "forward"),
		"gru_bi":   recurrentModel(r, "GRU", 3, 4, 16, 48, "bidirectional", onnxgen.IntAttr("linear_before_reset", 1)),
		"rnn_relu": recurrentModel(r, "RNN", 1, 6, 12, 72, "forward", onnxgen.StringsAttr("activations", "Relu")),
	}
	ps, err := passes.ParsePipeline(passes.DefaultPipeline)
	require.NoError(t, err)
	m := e2e.Machine{Target: "x86-64", CPU: "x86-64-v3", Threads: lower.ThreadsPool, SplitAll: true}
	cfg, err := m.Config()
	require.NoError(t, err)
	var names []string
	var cases []*e2e.Case
	for _, name := range []string{"lstm", "gru_bi", "rnn_relu"} {
		g, err := onnx.Import(models[name].Proto(), name)
		require.NoError(t, err, name)
		_, err = passes.Run(context.Background(), g, ps, &passes.Options{VerifyEach: true})
		require.NoError(t, err, name)
		mod, err := lower.Lower(context.Background(), g, cfg)
		require.NoError(t, err, name)
		steps, split := 0, 0
		for _, op := range mod.Entries[0].Plan.Ops {
			if op.Kernel != "" && strings.Contains(op.Strategy, "register-tiles 1x") {
				steps++
				if op.Split {
					split++
				}
			}
		}
		require.Positive(t, steps, "%s: the steps' products take one-row tiles", name)
		require.Equal(t, steps, split, "%s: every step's product is split", name)
		// without SplitAll, the output stacked from the steps (one small part per step)
		// launches no parallel-for per step (serialPart): it is not split at all
		cfg1 := cfg
		cfg1.SplitAll = false
		mod, err = lower.Lower(context.Background(), g, cfg1)
		require.NoError(t, err, name)
		stacked := 0
		for _, op := range mod.Entries[0].Plan.Ops {
			if strings.Count(op.Strategy, "[scalar-nest") > 3 {
				stacked++
				require.False(t, op.Split, "%s: %%%s (%s) is split", name, op.Result, op.Strategy)
			}
		}
		require.Positive(t, stacked, "%s: the steps are stacked by a guard-split copy", name)
		names = append(names, name)
		cases = append(cases, &e2e.Case{Graph: g, Inputs: inputsFor(r, g, nil, false)})
	}
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	requireThreadBits(t, m, names, cases)
}
