// This file tests decideGuards: guards decided on the (restricted) domain leave unguarded,
// vectorizable reads and constant availabilities (testdata/lowering/decided_guards.graph checks
// the strategies), with the evaluator's results.

package lower_test

import (
	"math/rand/v2"
	"testing"

	"github.com/graphc/graphc/internal/e2e"
)

// TestDecidedGuards runs the graphs of testdata/lowering/decided_guards.graph, whose CHECK
// lines state that causal softmax's mask leaves vectorizable kernels, against the evaluator.
func TestDecidedGuards(t *testing.T) {
	names, gs := fileGraphs(t, "decided_guards.graph")
	r := rand.New(rand.NewPCG(4, 4))
	var cases []*e2e.Case
	for _, g := range gs {
		cases = append(cases, &e2e.Case{Graph: g, Inputs: inputsFor(r, g, nil, true)})
	}
	runCases(t, e2e.Host(), names, cases)
	runCases(t, e2e.Machine{Target: "x86-64", VectorBytes: 64}, names, cases)
}
