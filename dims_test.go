package graphc_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/ir"
)

// TestGraphDims: --dim binds the symbolic dims of graphc IR text (ir.BindParams), including
// inside isl attributes and restricted domains; an unknown name is a usage error that lists
// the graph's dims.
func TestGraphDims(t *testing.T) {
	p := filepath.Join(t.TempDir(), "m.graph")
	require.NoError(t, os.WriteFile(p, []byte(`graph @m[N, T](%x: f32[N, T]) {
  %y = generic(%x) {access = ["[N, T] -> { [i, j] -> [i, T - 1 - j] }"], body = "in0", domain = "[N, T] -> { [i, j] : 0 <= i < N and 0 <= j < T }", out = "{ [i, j] -> [i, j] }", type = "f32[N, T]"} : f32[N, T]
  %z = exp(%y) : f32[N, T]
    domain [N, T] -> { [i, j] : 0 <= i < N and 0 <= j < T and j <= i }
  return %z
}`), 0o644))
	g, err := graphc.Load(context.Background(), p, graphc.WithDim("T", 4))
	require.NoError(t, err)
	require.Equal(t, []string{"N"}, g.Params)
	require.Equal(t, "f32[N, 4]", g.Outputs[0].Type.String())
	require.NotContains(t, g.String(), "T")

	_, err = graphc.Load(context.Background(), p, graphc.WithDim("B", 4))
	require.ErrorIs(t, err, graphc.ErrUsage)
	require.ErrorIs(t, err, ir.ErrUnknownDim)
	require.ErrorContains(t, err, "--dim B: the model has no such dim (its symbolic dims are N, T)")
}

// TestCompileGraphDims: WithDim binds the dims of a graph built in memory (CompileGraph), on a
// copy: the entry loses the bound dim's argument and the caller's graph keeps it.
func TestCompileGraphDims(t *testing.T) {
	g, err := ir.Parse(`graph @m[N](%x: f32[N, 3]) {
  %y = exp(%x) : f32[N, 3]
  return %y
}`)
	require.NoError(t, err)
	res, err := graphc.CompileGraph(context.Background(), g, graphc.WithDim("N", 2))
	require.NoError(t, err)
	require.Contains(t, res.LLVM, "define i32 @main_graph(float* ")
	require.NotContains(t, res.LLVM, "i64 %N")
	require.Equal(t, []string{"N"}, g.Params, "the caller's graph is not changed")

	_, err = graphc.CompileGraph(context.Background(), g, graphc.WithDim("M", 2))
	require.ErrorIs(t, err, graphc.ErrUsage)
}
