// This file runs the register-tile contractions against the evaluator: the graphs of
// testdata/lowering/contractions.graph, symbolic_contractions.graph and
// symbolic_batch_contractions.graph, whose CHECK lines state which take register tiles.

package lower_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/ir"
)

// TestContractionKernels runs the register-tile kernels against the evaluator: with SSE2
// vectors and no FMA (the x86-64 baseline: the evaluator's bits), and on the host CPU with its
// widest vectors and fused multiply-adds (one rounding per term: compared within the error
// bound of a float sum).
func TestContractionKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 7))
	names, gs := fileGraphs(t, "contractions.graph")
	var cases []*e2e.Case
	for _, g := range gs {
		cases = append(cases, &e2e.Case{Graph: g, Inputs: inputsFor(r, g, nil, false)})
	}
	runCases(t, e2e.Host(), names, cases)
	native := e2e.Machine{Target: "x86-64", CPU: "native", CFlags: []string{"-march=native"}}
	runCasesTol(t, native, names, cases, func(d ir.DType) (float64, float64) {
		if d == ir.F64 {
			return 1e-13, 1e-13
		}
		return 1e-5, 1e-4 // sums of up to 600 products of [-1, 1] values
	})
}

// symbolicBindings are the values of T the symbolic cases run at: below one tile, around the
// tile heights and widths of every vector width, and a large odd one.
var symbolicBindings = []int64{1, 5, 8, 13, 48, 50, 97, 300}

// TestSymbolicContractionKernels runs the symbolic cases at every binding against the
// evaluator: bit for bit with the baseline CPU, within a float sum's bound natively.
func TestSymbolicContractionKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 13))
	var names []string
	var cases []*e2e.Case
	gnames, gs := fileGraphs(t, "symbolic_contractions.graph")
	for i, g := range gs {
		for _, T := range symbolicBindings {
			ps := map[string]int64{"T": T}
			names = append(names, fmt.Sprintf("%s/T=%d", gnames[i], T))
			cases = append(cases, &e2e.Case{Graph: g, Params: ps, Inputs: inputsFor(r, g, ps, false)})
		}
	}
	runCases(t, e2e.Host(), names, cases)
	native := e2e.Machine{Target: "x86-64", CPU: "native", CFlags: []string{"-march=native"}}
	runCasesTol(t, native, names, cases, func(d ir.DType) (float64, float64) {
		if d == ir.F64 {
			return 1e-13, 1e-13
		}
		return 1e-5, 1e-4
	})
}

// TestSymbolicBatchContractionKernels runs contractions with two symbolic dims (a dynamic
// batch and sequence, as the dynamic-axes exports have; symbolic_batch_contractions.graph checks
// that they take register tiles) at several bindings of both.
func TestSymbolicBatchContractionKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 19))
	var names []string
	var ecs []*e2e.Case
	gnames, gs := fileGraphs(t, "symbolic_batch_contractions.graph")
	for i, g := range gs {
		for _, b := range []int64{1, 3} {
			for _, T := range []int64{1, 7, 30} {
				ps := map[string]int64{"B": b, "T": T}
				names = append(names, fmt.Sprintf("%s/B=%d/T=%d", gnames[i], b, T))
				ecs = append(ecs, &e2e.Case{Graph: g, Params: ps, Inputs: inputsFor(r, g, ps, false)})
			}
		}
	}
	runCases(t, e2e.Host(), names, ecs)
	native := e2e.Machine{Target: "x86-64", CPU: "native", CFlags: []string{"-march=native"}}
	runCasesTol(t, native, names, ecs, func(ir.DType) (float64, float64) { return 1e-5, 1e-4 })
}
