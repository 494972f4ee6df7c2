package modelrt_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/modelrt"
)

// TestBoundedDims loads a module whose output extent the entry computes (the first k rows, k a
// run-time value at most 4): Run allocates at the bound and returns the outputs cut to k rows,
// with k in its own output; a k beyond the bound is status 1.
func TestBoundedDims(t *testing.T) {
	lib := buildLib(t, t.TempDir(), "rows", `graph @rows[k <= 4 from %k](%x: f32[4, 2], %kin: i64[1]) {
  %k = reshape(%kin) {shape = "[]"} : i64[]
  %y = slice(%x) {axes = [0], ends = [0], starts = [0], sym_ends = ["k"]} : f32[k, 2]
  return %y, %k
}`)
	m, err := modelrt.Load(lib)
	require.NoError(t, err)
	defer m.Close()
	require.Empty(t, m.Signature().Params, "a bounded dim is no argument")
	require.Equal(t, []modelrt.BoundedDim{{Param: "k", Bound: 4, Output: 1}}, m.Signature().Bounded)
	x := modelrt.New([]int64{4, 2}, []float32{1, 2, 3, 4, 5, 6, 7, 8})
	for k := int64(0); k <= 4; k++ {
		outs, err := m.Run(context.Background(), x, modelrt.New([]int64{1}, []int64{k}))
		require.NoError(t, err)
		require.Equal(t, []int64{k, 2}, outs[0].Shape)
		y, err := modelrt.Data[float32](outs[0])
		require.NoError(t, err)
		require.Equal(t, []float32{1, 2, 3, 4, 5, 6, 7, 8}[:2*k], y)
		n, err := modelrt.Data[int64](outs[1])
		require.NoError(t, err)
		require.Equal(t, []int64{k}, n)
	}
	_, err = m.Run(context.Background(), x, modelrt.New([]int64{1}, []int64{5}))
	require.ErrorContains(t, err, "status 1")
}
