package passes

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/ir"
)

// TestWindowAxes: a window axis is one output position and one tap without floor division; an
// attention product reading heads through a folded reshape (transformer_encoder_dyn's
// Q·Kᵀ) combines a parallel and a reduction dim too but is not a window, and must not make
// channels-last relayout the attention.
func TestWindowAxes(t *testing.T) {
	g, err := ir.Parse(`graph @w(%x: f32[2, 4, 16], %q: f32[2, 8, 128]) {
  %conv = generic(%x) {access = ["{ [n, c, w, k] -> [n, c, 2w + k] }"], body = "in0", domain = "{ [n, c, w, k] : 0 <= n < 2 and 0 <= c < 4 and 0 <= w < 7 and 0 <= k < 3 }", iterators = ["parallel", "parallel", "parallel", "reduction"], out = "{ [n, c, w, k] -> [n, c, w] }", reduce = "sum", type = "f32[2, 4, 7]"} : f32[2, 4, 7]
  %heads = generic(%q) {access = ["{ [b, i, j, k] -> [b, i, 32j + k - 128*floor((32j + k)/128)] }"], body = "in0", domain = "{ [b, i, j, k] : 0 <= b < 2 and 0 <= i < 8 and 0 <= j < 4 and 0 <= k < 32 }", iterators = ["parallel", "parallel", "parallel", "reduction"], out = "{ [b, i, j, k] -> [b, i, j] }", reduce = "sum", type = "f32[2, 8, 4]"} : f32[2, 8, 4]
  return %conv, %heads
}`)
	require.NoError(t, err)
	assert.True(t, isWindowOp(g.Ops[0]), "a strided 1-D convolution window")
	assert.False(t, isWindowOp(g.Ops[1]), "heads read through a folded reshape")
}
