package graphc_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/randgraph"
)

// FuzzCompile runs the whole pipeline and lowering on small random graphs with random required
// regions: it must compile or return an error, never panic.
func FuzzCompile(f *testing.F) {
	for s := uint64(0); s < 64; s++ {
		f.Add(s, s*7+1)
	}
	f.Fuzz(func(t *testing.T, s1, s2 uint64) {
		r := rand.New(rand.NewPCG(s1, s2))
		g := randgraph.Graph(r)
		var opts []graphc.Option
		for k, o := range g.Outputs {
			if req := randgraph.Requirement(r, o, k); req != "" {
				opts = append(opts, graphc.WithRequire(req))
			}
		}
		opts = append(opts, graphc.WithVerifyEach(true))
		if _, err := graphc.CompileGraph(context.Background(), g, opts...); err != nil {
			t.Logf("error (allowed): %v", err)
		}
	})
}
