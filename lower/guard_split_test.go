// This file runs the split kernels of testdata/lowering/guard_split.graph, whose CHECK lines
// state their strategies, against the evaluator.

package lower_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/e2e"
)

// TestGuardSplit runs concatenations and padding copies split along their reads' guards (one
// part per operand, then the part no operand covers) against the evaluator, with explicit
// vectors and without.
func TestGuardSplit(t *testing.T) {
	names, gs := fileGraphs(t, "guard_split.graph")
	r := rand.New(rand.NewPCG(5, 5))
	var gnames []string
	var ecs []*e2e.Case
	for i, g := range gs {
		if names[i] == "resize_linear" {
			continue // TestPieceSplit's
		}
		gnames = append(gnames, names[i])
		if names[i] == "concat_symbolic" {
			// every part empty, one, and parts of odd lengths (vector tails)
			for _, ps := range []map[string]int64{{"a": 0, "b": 0, "c": 0}, {"a": 0, "b": 5, "c": 0}, {"a": 7, "b": 1, "c": 13}} {
				ecs = append(ecs, &e2e.Case{Graph: g, Inputs: inputsFor(r, g, ps, true), Params: ps})
			}
			gnames = append(gnames, names[i], names[i])
			continue
		}
		ecs = append(ecs, &e2e.Case{Graph: g, Inputs: inputsFor(r, g, nil, true)})
	}
	runCases(t, e2e.Host(), gnames, ecs)
	m := e2e.Host()
	m.VectorBytes = 64
	runCases(t, m, gnames, ecs)
}

// TestPieceSplit runs a linear resize, whose taps are clamped at the borders by access pieces
// (its interior runs with one unguarded piece, its border with all of them), against the
// evaluator (to the reassociation of its vector sums).
func TestPieceSplit(t *testing.T) {
	names, gs := fileGraphs(t, "guard_split.graph")
	i := slices.Index(names, "resize_linear")
	require.GreaterOrEqual(t, i, 0)
	g := gs[i]
	r := rand.New(rand.NewPCG(7, 7))
	// the interior's four-tap sums accumulate in vector lanes (reassociated): within
	// reassocTolerance of the evaluator
	runCasesTol(t, e2e.Host(), []string{"resize"}, []*e2e.Case{{Graph: g, Inputs: inputsFor(r, g, nil, true)}}, reassocTolerance)
}
