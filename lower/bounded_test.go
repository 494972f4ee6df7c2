package lower_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/lower"
)

// TestBoundedExtentMustGrow: an extent that shrinks as a bounded dim grows (8 - k) cannot live
// in a buffer sized at the bound; lowering refuses it by name.
func TestBoundedExtentMustGrow(t *testing.T) {
	g, err := ir.Parse(`graph @g[k <= 8 from %k](%x: f32[8], %kin: i64[1]) {
  %k = reshape(%kin) {shape = "[]"} : i64[]
  %w = slice(%x) {axes = [0], ends = [8], starts = [0], sym_starts = ["k"]} : f32[-k + 8]
  return %w, %k
}`)
	require.NoError(t, err)
	require.NoError(t, ir.Verify(g))
	tgt, err := lower.LoadTarget("x86-64")
	require.NoError(t, err)
	_, err = lower.Lower(context.Background(), g, lower.Config{Target: tgt})
	require.ErrorContains(t, err, "%w of type f32[-k + 8]: the extent -k + 8 decreases as a bounded dim grows (buffers are sized at the bound)")
}
