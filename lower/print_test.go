package lower_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/lower"
)

// TestModuleStringMatchesLLIR checks that Module.String, which prints the weight globals
// itself, gives llir's text exactly: weights small and larger than a print chunk, a global
// llir prints (the sin runtime's table), several entries in one module.
func TestModuleStringMatchesLLIR(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	graph := func(n int64, withSin bool) *ir.Graph {
		g := ir.NewGraph("g")
		x := g.AddInput("x", ir.StaticType(ir.F32, n))
		w := ir.NewTensor(ir.F32, []int64{n})
		for i := range w.F {
			w.F[i] = ir.RoundFloat(ir.F32, r.NormFloat64())
		}
		c := g.AddConst("w.1", w)
		op, err := g.NewOp("add", "a", []*ir.Value{x, c}, nil)
		require.NoError(t, err)
		out := op.Result
		if withSin {
			s, err := g.NewOp("sin", "s", []*ir.Value{out}, nil)
			require.NoError(t, err)
			out = s.Result
		}
		g.Outputs = []*ir.Value{out}
		require.NoError(t, ir.Verify(g))
		return g
	}
	for _, target := range []string{"x86-64", "hexagon"} {
		tg, err := lower.LoadTarget(target)
		require.NoError(t, err)
		b, err := lower.NewBuilder(lower.Config{Target: tg})
		require.NoError(t, err)
		for i, g := range []*ir.Graph{graph(3, false), graph(40000, true), graph(0, false), graph(17, true)} {
			_, err := b.Add(context.Background(), g, "e"+string(rune('a'+i)))
			require.NoError(t, err)
		}
		m := b.Module()
		require.Equal(t, m.LLVM.String(), m.String(), target)
		mod, err := lower.Lower(context.Background(), graph(5, false), lower.Config{Target: tg})
		require.NoError(t, err)
		require.Equal(t, mod.LLVM.String(), mod.String(), target)
	}
}
