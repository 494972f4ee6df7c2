// This file tests reductions along the innermost dim on vectors (strategy "+vector-acc": lane
// accumulators folded in a fixed tree; "+vector-reduce": lanes combined in order, as
// testdata/lowering/vector_reductions.graph checks): row lengths around the vector width, a
// triangular (DIE-like) domain, special values, every element type with a vector lowering,
// against the evaluator. Integer reductions and float maxima and minima must be exact, float
// products too (they keep their order); float sums within reassocTolerance, or exact in order
// with OrderedReductions.

package lower_test

import (
	"math/rand/v2"
	"testing"

	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/ir"
)

// reduceCases returns the row reductions of testdata/lowering/vector_reductions.graph (every
// kind and type over rows of n elements and over a triangle, with bodies that read the row
// directly or through exp) with random inputs, and whether each result must be exact: all but
// float sums, which accumulate in vector lanes.
func reduceCases(t *testing.T, seed uint64) (names []string, cases []*e2e.Case, exact []bool) {
	r := rand.New(rand.NewPCG(seed, 3))
	names, gs := fileGraphs(t, "vector_reductions.graph")
	for _, g := range gs {
		op := g.Ops[len(g.Ops)-1]
		cases = append(cases, &e2e.Case{Graph: g, Inputs: inputsFor(r, g, nil, true)})
		exact = append(exact, !op.Result.Type.Elem.IsFloat() || op.Reduce != ir.ReduceSum)
	}
	return names, cases, exact
}

func TestVectorReductions(t *testing.T) {
	names, cases, exact := reduceCases(t, 1)
	tol := func(ex bool) func(ir.DType) (float64, float64) {
		if ex {
			return func(ir.DType) (float64, float64) { return 0, 0 }
		}
		return reassocTolerance
	}
	for _, m := range []e2e.Machine{e2e.Host(), {Target: "x86-64", VectorBytes: 64}} {
		for _, ex := range []bool{true, false} {
			var ns []string
			var cs []*e2e.Case
			for i := range cases {
				if exact[i] == ex {
					ns, cs = append(ns, m.String()+"/"+names[i]), append(cs, cases[i])
				}
			}
			runCasesTol(t, m, ns, cs, tol(ex))
		}
	}
	// in order, float sums too are exact
	ordered := e2e.Host()
	ordered.OrderedReductions = true
	runCasesTol(t, ordered, names, cases, func(ir.DType) (float64, float64) { return 0, 0 })
}
