// This file runs the kernel of testdata/lowering/batchnorm_constants.graph against the
// evaluator.

package lower_test

import (
	"math/rand/v2"
	"testing"

	"github.com/graphc/graphc/internal/e2e"
)

// TestBatchNormConstants: a BatchNorm with trained statistics over concatenated features,
// then a ReLU, compiled through the default pipeline (its square root folded into a
// per-channel constant: batchnorm_constants.graph checks the kernel), gives the evaluator's
// values on random inputs, with 256-bit and 512-bit vectors.
func TestBatchNormConstants(t *testing.T) {
	names, gs := fileGraphs(t, "batchnorm_constants.graph")
	r := rand.New(rand.NewPCG(32, 3))
	var ecs []*e2e.Case
	for _, g := range gs {
		ecs = append(ecs, &e2e.Case{Graph: g, Inputs: inputsFor(r, g, nil, false)})
	}
	m := e2e.Host()
	m.VectorBytes = 32
	runCases(t, m, names, ecs)
	m.VectorBytes = 64
	runCases(t, m, names, ecs)
}
