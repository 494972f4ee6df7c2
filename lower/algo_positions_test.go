// This file runs the selection kernels of testdata/lowering/selection_kernels.graph against
// the evaluator.

package lower_test

import (
	"math/rand/v2"
	"testing"

	"github.com/graphc/graphc/internal/e2e"
)

// TestSelectionKernels: nonzero_positions cut to the count (some, none) and argsorts whose
// ranks DIE cut to a prefix or a middle run (a heap of the first ranks, then the selection)
// give the evaluator's values, on random inputs (floor makes ties, which sort by index) and on
// inputs of special values (NaN sorts first descending and last ascending, and is non-zero).
func TestSelectionKernels(t *testing.T) {
	runFileAtWidths(t, "selection_kernels.graph", 35)
	names, gs := fileGraphs(t, "selection_kernels.graph")
	r := rand.New(rand.NewPCG(35, 36))
	var ecs []*e2e.Case
	for _, g := range gs {
		ecs = append(ecs, &e2e.Case{Graph: g, Inputs: inputsFor(r, g, nil, true)})
	}
	runCases(t, e2e.Host(), names, ecs)
}
