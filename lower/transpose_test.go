package lower_test

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/lower"
)

// TestTransposeKernels checks the block transposes (transpose.go) of copies between layouts:
// NCHW to NHWC with and without an elementwise body, the reverse, and a rank-3 transpose,
// with extents that leave remainders of every vector width, against the evaluator on SSE,
// AVX2 and AVX-512 vectors (4, 8 and 16 lanes).
func TestTransposeKernels(t *testing.T) {
	var names []string
	var gs []*ir.Graph
	add := func(name string, shape []int64, perm []int64, relu bool) {
		g := ir.NewGraph(name)
		x := g.AddInput("x", ir.StaticType(ir.F32, shape...))
		o, err := g.NewOp("transpose", "t", []*ir.Value{x}, ir.Attrs{"perm": ir.IntsAttr(perm...)})
		require.NoError(t, err)
		v := o.Result
		if relu {
			o, err = g.NewOp("relu", "r", []*ir.Value{v}, nil)
			require.NoError(t, err)
			v = o.Result
		}
		g.Outputs = []*ir.Value{v}
		require.NoError(t, ir.Verify(g))
		names = append(names, name)
		gs = append(gs, g)
	}
	add("nchw-nhwc", []int64{1, 37, 21, 19}, []int64{0, 2, 3, 1}, false)
	add("nchw-nhwc-relu", []int64{2, 16, 5, 33}, []int64{0, 2, 3, 1}, true)
	add("nhwc-nchw", []int64{1, 9, 18, 35}, []int64{0, 3, 1, 2}, false)
	add("rank3", []int64{17, 40, 23}, []int64{2, 0, 1}, false)
	tgt, err := lower.LoadTarget("x86-64")
	require.NoError(t, err)
	for i, g := range gs {
		mod, err := lower.Lower(context.Background(), g, lower.Config{Target: tgt, CPU: "skylake-avx512"})
		require.NoError(t, err)
		s := strings.Join(mod.Entries[0].Strategies, " ")
		require.Contains(t, s, "transpose 16x16", names[i])
	}
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
