package lower_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
	"github.com/graphc/graphc/lower"
)

// TestProfile builds a profiling module (Config.Profile), runs it and checks its counters: one
// per op and one for whole calls, the kernels' cycles within the calls', the results unchanged.
func TestProfile(t *testing.T) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	_, gs := fileGraphs(t, "profile_counters.graph") // its CHECK lines state the counters
	g := gs[0]
	mod, err := lower.Lower(context.Background(), g, lower.Config{Profile: true, NoEpilogues: true})
	require.NoError(t, err)
	require.True(t, mod.Profile)
	prog, err := e2e.Build(context.Background(), t.TempDir(), g, mod)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(3, 3))
	ins := inputsFor(r, g, nil, false)
	outs, _, err := prog.Run(context.Background(), ins, nil, 50)
	require.NoError(t, err)
	// the profiling build computes what the evaluator does
	feed := map[string]*ir.Tensor{}
	for k, in := range g.Inputs {
		feed[in.Name] = ins[k]
	}
	want, err := eval.Run(g, feed)
	require.NoError(t, err)
	require.NoError(t, e2e.Compare(outs[0], want[0], 4e-7, 1e-37, nil))
	require.Len(t, prog.Profile, len(g.Ops)+1)
	var sum int64
	for i, c := range prog.Profile[:len(g.Ops)] {
		require.Greater(t, c, int64(0), "op %d ran 49 timed calls", i)
		sum += c
	}
	require.LessOrEqual(t, sum, prog.Profile[len(g.Ops)], "the kernels run inside the calls")
}
