package passes_test

import (
	"context"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
	"github.com/graphc/graphc/passes"
)

// TestCostCheckedGraphsKeepTheirBits evaluates the cost checks' test graphs (the cases of
// testdata/passes/fuse/fuse.graph and channels-last/cost.graph, rewrites taken and refused)
// before and after their pass and the default pipeline, on random inputs: the outputs agree
// bit for bit whichever way the check decided.
func TestCostCheckedGraphsKeepTheirBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 5))
	for _, f := range []string{"../testdata/passes/fuse/fuse.graph", "../testdata/passes/channels-last/cost.graph"} {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		for i, c := range strings.Split(string(data), "// -----") {
			orig, err := ir.Parse(c)
			require.NoError(t, err)
			if len(orig.Params) > 0 {
				continue // symbolic dims: TestPassesKeepRequirements
			}
			in := map[string]*ir.Tensor{}
			for _, v := range orig.Inputs {
				shape, ok := v.Type.StaticShape()
				require.True(t, ok)
				x := ir.NewTensor(v.Type.Elem, shape)
				for j := range x.F {
					x.F[j] = float64(float32(rng.Float64()*2 - 1))
				}
				in[v.Name] = x
			}
			want, err := eval.Run(orig, in)
			require.NoError(t, err)
			for _, pipeline := range []string{"fuse,dce", "channels-last", passes.DefaultPipeline} {
				g, err := ir.Parse(c)
				require.NoError(t, err)
				ps, err := passes.ParsePipeline(pipeline)
				require.NoError(t, err)
				_, err = passes.Run(context.Background(), g, ps, &passes.Options{VerifyEach: true})
				require.NoError(t, err)
				got, err := eval.Run(g, in)
				require.NoError(t, err)
				for k := range want {
					require.Equal(t, want[k].F, got[k].F, "%s case %d (%s), output %d", f, i, pipeline, k)
				}
			}
		}
	}
}
