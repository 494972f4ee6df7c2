package lower_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/lower"
)

// TestLowerCancelled: lowering stops with ctx.Err() between kernels, and a Builder whose Add
// was cancelled keeps nothing of it (a later Add emits its own kernels).
func TestLowerCancelled(t *testing.T) {
	g := optimized(t, mlpText(3, 8))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := lower.Lower(ctx, g, lower.Config{})
	require.ErrorIs(t, err, context.Canceled)

	b, err := lower.NewBuilder(lower.Config{NoEpilogues: true}) // one call per op
	require.NoError(t, err)
	_, err = b.Add(ctx, g, "a")
	require.ErrorIs(t, err, context.Canceled)
	require.Empty(t, b.Module().Entries)
	_, err = b.Add(context.Background(), g, "b")
	require.NoError(t, err)
	text := b.Module().String()
	require.NotContains(t, text, "@a(")
	require.Equal(t, len(entryCalls(t, text, "b")), len(g.Ops))
}
