// This file tests reductions along the innermost dim on vectors (strategy "+vector-acc": lane
// accumulators folded in a fixed tree; "+vector-reduce": lanes combined in order): row lengths
// around the vector width, a triangular (DIE-like) domain, special values, every element type
// with a vector lowering, against the evaluator. Integer reductions and float maxima and minima
// must be exact, float products too (they keep their order); float sums within reassocTolerance,
// or exact in order with OrderedReductions.

package lower_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/lower"
)

// reduceCases returns row reductions of every kind and type over rows of n elements (and over
// a triangle), with bodies that read the row directly or through exp.
func reduceCases(t *testing.T, seed uint64) (names []string, cases []*e2e.Case, exact []bool) {
	r := rand.New(rand.NewPCG(seed, 3))
	add := func(name string, s genericSpec, ex bool) {
		g, err := genericGraph(s)
		require.NoError(t, err, name)
		names = append(names, name)
		cases = append(cases, &e2e.Case{Graph: g, Inputs: inputsFor(r, g, nil, true)})
		exact = append(exact, ex)
	}
	inits := map[string]float64{"sum": 0, "prod": 1, "max": -3, "min": 3}
	for _, ty := range []ir.DType{ir.F32, ir.F64, ir.I32, ir.I64, ir.I8, ir.U8} {
		for _, red := range []string{"sum", "prod", "max", "min"} {
			ex := !ty.IsFloat() || red != "sum"
			for _, n := range []int{1, 7, 16, 17, 33, 70} {
				add(fmt.Sprintf("%s/%s/n=%d", red, ty, n), genericSpec{
					inputs: []ir.TensorType{ir.StaticType(ty, 5, int64(n))}, domain: fmt.Sprintf("{ [i, k] : 0 <= i < 5 and 0 <= k < %d }", n),
					access: []string{"{ [i, k] -> [i, k] }"}, out: "{ [i, k] -> [i] }", body: "in0",
					typ: ir.StaticType(ty, 5).String(), reduce: red, init: inits[red],
					iterator: []string{"parallel", "reduction"}}, ex)
			}
			add(fmt.Sprintf("%s/%s/triangle", red, ty), genericSpec{
				inputs: []ir.TensorType{ir.StaticType(ty, 40, 40)}, domain: "{ [i, k] : 0 <= i < 40 and 0 <= k <= i }",
				access: []string{"{ [i, k] -> [i, k] }"}, out: "{ [i, k] -> [i] }", body: "in0",
				typ: ir.StaticType(ty, 40).String(), reduce: red, init: inits[red],
				iterator: []string{"parallel", "reduction"}}, ex)
		}
		if ty.IsFloat() {
			// softmax's denominator: a sum of exponentials of a row minus a broadcast value
			add(fmt.Sprintf("sum-exp/%s", ty), genericSpec{
				inputs: []ir.TensorType{ir.StaticType(ty, 9, 100), ir.StaticType(ty, 9)}, domain: "{ [i, k] : 0 <= i < 9 and 0 <= k < 100 }",
				access: []string{"{ [i, k] -> [i, k] }", "{ [i, k] -> [i] }"}, out: "{ [i, k] -> [i] }", body: "exp(sub(in0, in1))",
				typ: ir.StaticType(ty, 9).String(), reduce: "sum", init: 0,
				iterator: []string{"parallel", "reduction"}}, false)
		}
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

func TestVectorReductionStrategies(t *testing.T) {
	names, cases, _ := reduceCases(t, 2)
	for i, c := range cases {
		if strings.Contains(names[i], "n=1/") || strings.HasSuffix(names[i], "n=1") {
			continue
		}
		for _, ordered := range []bool{false, true} {
			mod, err := lower.Lower(context.Background(), c.Graph, lower.Config{VectorBytes: 64, OrderedReductions: ordered})
			require.NoError(t, err)
			s := mod.Entries[0].Strategies[0]
			float := strings.Contains(names[i], "/f32") || strings.Contains(names[i], "/f64")
			inOrder := float && (strings.HasPrefix(names[i], "prod") || ordered && strings.HasPrefix(names[i], "sum"))
			if inOrder {
				require.Contains(t, s, "+vector-reduce", "%s (ordered): %s", names[i], s)
			} else {
				require.Contains(t, s, "+vector-acc", "%s (ordered %v): %s", names[i], ordered, s)
			}
		}
	}
}
