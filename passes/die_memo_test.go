package passes_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/passes"
)

// TestDIERepeatedLayers runs DIE on identical layers (whose analyses it shares) with a required
// first row: every layer is restricted to its first row, and each op's dead space is reported
// with its own name.
func TestDIERepeatedLayers(t *testing.T) {
	const layers, w = 5, 6
	var sb strings.Builder
	fmt.Fprintf(&sb, "graph @mlp(%%x: f32[4, %d], %%w: f32[%d, %d], %%b: f32[%d]) {\n", w, w, w, w)
	prev := "x"
	for i := 0; i < layers; i++ {
		fmt.Fprintf(&sb, "  %%m%d = matmul(%%%s, %%w) : f32[4, %d]\n", i, prev, w)
		fmt.Fprintf(&sb, "  %%s%d = add(%%m%d, %%b) : f32[4, %d]\n", i, i, w)
		fmt.Fprintf(&sb, "  %%a%d = relu(%%s%d) : f32[4, %d]\n", i, i, w)
		prev = fmt.Sprintf("a%d", i)
	}
	sb.WriteString("  return %" + prev + "\n}\n")
	g, err := ir.Parse(sb.String())
	require.NoError(t, err)
	rq, err := passes.ParseRequirement(g, prev+"[i, j] : i = 0")
	require.NoError(t, err)
	ps, err := passes.ParsePipeline("die")
	require.NoError(t, err)
	res, err := passes.Run(context.Background(), g, ps, &passes.Options{Require: []passes.Requirement{rq}, VerifyEach: true})
	require.NoError(t, err)
	require.Len(t, res.State.Dead, len(g.Ops))
	for i, op := range g.Ops {
		n, err := op.Domain.Card(nil)
		require.NoError(t, err)
		live := int64(w)
		if op.Kind == "matmul" {
			live = w * w
		}
		require.Equal(t, live, n, "op %d (%s) keeps its first row", i, op.Result.Name)
		ds := res.State.Dead[i]
		require.Equal(t, op.Result.Name, ds.Op)
		require.True(t, ds.Counted)
		require.Equal(t, 4*live, ds.Total)
		require.Equal(t, 3*live, ds.DeadCount)
	}
}
