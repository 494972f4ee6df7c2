// This file runs the kernels of testdata/lowering/strided_lanes.graph against the evaluator.

package lower_test

import (
	"math/rand/v2"
	"testing"

	"github.com/graphc/graphc/internal/e2e"
)

// TestStridedLanes: on x86-64, an elementwise op that reads its input transposed (the
// requantization and dequantization of a channels-last convolution's i32 result, written in
// NCHW order) runs its body on vectors whose strided lanes are loaded one by one, and a plain
// transpose stays a scalar nest (strided_lanes.graph checks both); both give the evaluator's
// bits.
func TestStridedLanes(t *testing.T) {
	names, gs := fileGraphs(t, "strided_lanes.graph")
	r := rand.New(rand.NewPCG(3, 4))
	var ecs []*e2e.Case
	for _, g := range gs {
		in := inputsFor(r, g, nil, false)
		for i := range in[0].I {
			in[0].I[i] = r.Int64N(2001) - 1000 // around the u8 range once scaled
		}
		for i := range in[1].F {
			in[1].F[i] = float64(float32(0.05 + 0.2*r.Float64()))
		}
		ecs = append(ecs, &e2e.Case{Graph: g, Inputs: in})
	}
	runCases(t, e2e.Host(), names, ecs)
	m := e2e.Host()
	m.VectorBytes = 64
	runCases(t, m, names, ecs)
}
