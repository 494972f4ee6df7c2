package passes_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
	"github.com/graphc/graphc/passes"
)

// requiresGraph slices two constant tables to the symbolic T: the slice that %y reads needs
// T <= 8, the unused one T <= 6 (DIE and the compiled entry assume both).
const requiresGraph = `graph @g(%x: f32[T, 4]) {
  %tab = constant dense<[-3.00, -2.75, -2.50, -2.25, -2.00, -1.75, -1.50, -1.25, -1.00, -0.75, -0.50, -0.25, 0.00, 0.25, 0.50, 0.75, 1.00, 1.25, 1.50, 1.75, 2.00, 2.25, 2.50, 2.75, 3.00, 3.25, 3.50, 3.75, 4.00, 4.25, 4.50, 4.75]> : f32[8, 4]
  %small = constant dense<[-5.00, -4.50, -4.00, -3.50, -3.00, -2.50, -2.00, -1.50, -1.00, -0.50, 0.00, 0.50, 1.00, 1.50, 2.00, 2.50, 3.00, 3.50, 4.00, 4.50, 5.00, 5.50, 6.00, 6.50]> : f32[6, 4]
  %s = slice(%tab) {axes = [0], ends = [0], starts = [0], steps = [1], sym_ends = ["T"], sym_starts = ["0"]} : f32[T, 4]
  %e = exp(%s) : f32[T, 4]
  %y = mul(%x, %e) : f32[T, 4]
  %u = slice(%small) {axes = [0], ends = [0], starts = [0], steps = [1], sym_ends = ["T"], sym_starts = ["0"]} : f32[T, 4]
  %v = neg(%u) : f32[T, 4]
  return %y
}`

// TestPassesKeepRequirements checks that no pass widens the symbolic dims a graph accepts: fuse
// folds the slices into their consumers and dce removes the unused one, and the graph still
// refuses T = 7 and T = 9 as the original does, while T = 5 gives the same bits.
func TestPassesKeepRequirements(t *testing.T) {
	for _, pipeline := range []string{passes.DefaultPipeline, "fuse,dce", "dce"} {
		t.Run(pipeline, func(t *testing.T) {
			orig, err := ir.Parse(requiresGraph)
			require.NoError(t, err)
			g, err := ir.Parse(requiresGraph)
			require.NoError(t, err)
			ps, err := passes.ParsePipeline(pipeline)
			require.NoError(t, err)
			_, err = passes.Run(context.Background(), g, ps, &passes.Options{VerifyEach: true})
			require.NoError(t, err)
			rng := rand.New(rand.NewPCG(3, 2))
			for _, T := range []int64{5, 6, 7, 8, 9} {
				x := ir.NewTensor(ir.F32, []int64{T, 4})
				for i := range x.F {
					x.F[i] = float64(float32(rng.Float64()*2 - 1))
				}
				in := map[string]*ir.Tensor{"x": x}
				want, errOrig := eval.Run(orig, in)
				got, errNew := eval.Run(g, in)
				if T > 6 {
					require.Error(t, errOrig, "T = %d", T)
					require.Error(t, errNew, "T = %d: the pipeline dropped a requirement", T)
					continue
				}
				require.NoError(t, errOrig)
				require.NoError(t, errNew)
				require.Equal(t, want[0].F, got[0].F, "T = %d", T)
			}
		})
	}
}
