package ir_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/ir"
)

// TestBoundedDimGraphs: the printed form of bounded dims round-trips, and the verifier refuses
// a bounded dim used before its value is computed or in an input's type; BindParams refuses
// to bind one.
func TestBoundedDimGraphs(t *testing.T) {
	src := `graph @g[N, k <= 8 from %k](%x: f32[N, 8], %kin: i64[1]) {
  %k = reshape(%kin) {shape = "[]"} : i64[]
  %w = slice(%x) {axes = [1], ends = [0], starts = [0], sym_ends = ["k"]} : f32[N, k]
  return %w, %k
}
`
	g, err := ir.Parse(src)
	require.NoError(t, err)
	require.NoError(t, ir.Verify(g))
	require.Equal(t, src, g.String())
	require.Equal(t, []ir.BoundedDim{{Param: "k", Bound: 8, Output: 1}}, g.Bounded)
	require.Equal(t, []string{"N"}, g.CallerParams())
	_, err = ir.BindParams(g, map[string]int64{"k": 3})
	require.ErrorContains(t, err, "dim k is computed by the graph at run time (a bounded dim): it cannot be bound")
	b, err := ir.BindParams(g, map[string]int64{"N": 2})
	require.NoError(t, err)
	require.NoError(t, ir.Verify(b))
	require.Equal(t, g.Bounded, b.Bounded)

	early, err := ir.Parse(`graph @g[k <= 8 from %k](%x: f32[8], %kin: i64[1]) {
  %w = slice(%x) {axes = [0], ends = [0], starts = [0], sym_ends = ["k"]} : f32[k]
  %k = reshape(%kin) {shape = "[]"} : i64[]
  return %w, %k
}`)
	require.NoError(t, err)
	require.ErrorContains(t, ir.Verify(early), "op %w (slice) uses bounded dim k before its value is computed")

	bad, err := ir.Parse(`graph @g[k <= 8 from %y](%x: f32[k]) {
  %y = reduce_sum(%x) {axes = [0], keepdims = 0} : f32[]
  return %y
}`)
	require.NoError(t, err)
	require.ErrorContains(t, ir.Verify(bad), "bounded dim k: its value %y is f32[], not a scalar i64")
	bad, err = ir.Parse(`graph @g[k <= 8 from %z](%x: f32[k]) {
  %y = reduce_sum(%x) {axes = [0], keepdims = 0} : f32[]
  %z = cast(%y) {to = "i64"} : i64[]
  return %z
}`)
	require.NoError(t, err)
	require.ErrorContains(t, ir.Verify(bad), "bounded dim k appears in the type of input %x")
	_, err = ir.Parse(`graph @g[k <= 8 from %nowhere](%x: f32[4]) {
  %y = neg(%x) : f32[4]
  return %y
}`)
	require.ErrorContains(t, err, "bounded dim k: %nowhere is not an output of the graph")
}
