package graphc_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/ir"
)

// TestWithThreads checks graphc.WithThreads: by default (pool) the module has ENTRY_parallel,
// split kernels and the default pool, and the header declares graphc_threading; caller has
// ENTRY_parallel without the pool (no thread library); none is the single-thread module; a
// Hexagon module never has the pool; an unknown mode is an error.
func TestWithThreads(t *testing.T) {
	g := func() *ir.Graph {
		g, err := ir.Parse(`graph @m(%a: f32[256, 256], %b: f32[256, 256]) {
  %c = matmul(%a, %b) : f32[256, 256]
  return %c
}`)
		require.NoError(t, err)
		return g
	}
	compile := func(opts ...graphc.Option) *graphc.Result {
		res, err := graphc.CompileGraph(context.Background(), g(), opts...)
		require.NoError(t, err)
		return res
	}
	for _, c := range []struct {
		name           string
		opts           []graphc.Option
		parallel, pool bool
	}{
		{"default", nil, true, true},
		{"pool", []graphc.Option{graphc.WithThreads("pool")}, true, true},
		{"caller", []graphc.Option{graphc.WithThreads("caller")}, true, false},
		{"none", []graphc.Option{graphc.WithThreads("none")}, false, false},
		{"hexagon", []graphc.Option{graphc.WithTarget("hexagon")}, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := compile(c.opts...)
			require.Equal(t, c.parallel, strings.Contains(res.LLVM, "define i32 @main_graph_parallel("))
			require.Equal(t, c.parallel, strings.Contains(res.LLVM, ".par("), "the matmul's split twin")
			require.Equal(t, c.parallel, strings.Contains(res.Header, "const graphc_threading *threads);"))
			require.Equal(t, c.pool, strings.Contains(res.LLVM, "@pthread_create"))
			require.Contains(t, res.LLVM, "define i32 @main_graph(")
		})
	}
	_, err := graphc.CompileGraph(context.Background(), g(), graphc.WithThreads("many"))
	require.ErrorContains(t, err, `unknown thread mode "many"`)
}
