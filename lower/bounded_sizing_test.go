package lower

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/ir"
)

// TestSizingType: buffers are sized at the bounds of the bounded dims, so an extent that
// shrinks as one grows is sized by its largest value over the bounds (8 - k at k = 0; the
// paste's 320 - y1 + x, its terms that shrink dropped), and one that grows is kept.
func TestSizingType(t *testing.T) {
	g, err := ir.Parse(`graph @g[N, k <= 8 from %k, j <= 5 from %j](%x: f32[N, 8], %kin: i64[1], %jin: i64[1]) {
  %k = reshape(%kin) {shape = "[]"} : i64[]
  %j = reshape(%jin) {shape = "[]"} : i64[]
  return %k, %j
}`)
	require.NoError(t, err)
	for _, c := range []struct{ in, want string }{
		{"f32[-k + 8, 4]", "f32[8, 4]"},
		{"f32[N, k + 1]", "f32[N, k + 1]"},
		{"f32[-k + j + 320, 2N - j]", "f32[j + 320, 2N]"},
	} {
		ty, err := ir.ParseType(c.in)
		require.NoError(t, err)
		want, err := ir.ParseType(c.want)
		require.NoError(t, err)
		got := sizingType(g, ty)
		require.True(t, got.Equal(want), "%s: got %s, want %s", c.in, got, want)
		// at the bounds it holds at least as many elements as at any value within them
		at := func(ty ir.TensorType, k, j int64) int64 {
			s, err := ty.EvalShape(map[string]int64{"N": 3, "k": k, "j": j})
			require.NoError(t, err)
			return ir.NumElements(s)
		}
		for k := int64(0); k <= 8; k++ {
			for j := int64(0); j <= 5; j++ {
				require.GreaterOrEqual(t, at(got, 8, 5), at(ty, k, j), "%s at k = %d, j = %d", c.in, k, j)
			}
		}
	}
}
