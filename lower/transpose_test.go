// This file runs the block transposes of testdata/lowering/transpose_blocks.graph against the
// evaluator.

package lower_test

import (
	"math/rand/v2"
	"testing"

	"github.com/graphc/graphc/internal/e2e"
)

// TestTransposeKernels runs the block transposes (transpose.go) of testdata/lowering/
// transpose_blocks.graph, copies between layouts: NCHW to NHWC with and without an elementwise
// op after it, the reverse, and a rank-3 transpose, with extents that leave remainders of every
// vector width, against the evaluator on SSE, AVX2 and AVX-512 vectors (4, 8 and 16 lanes).
func TestTransposeKernels(t *testing.T) {
	names, gs := fileGraphs(t, "transpose_blocks.graph")
	r := rand.New(rand.NewPCG(26, 11))
	var cases []*e2e.Case
	for _, g := range gs {
		cases = append(cases, &e2e.Case{Graph: g, Inputs: inputsFor(r, g, nil, true)})
	}
	for _, cpu := range []string{"", "haswell", "skylake-avx512"} {
		m := e2e.Host()
		m.CPU = cpu
		runCases(t, m, names, cases)
	}
}
