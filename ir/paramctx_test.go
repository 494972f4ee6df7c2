package ir_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// TestOpSetsTakeTheirDims: every set of an op (domain, access maps, element maps) carries the
// symbolic dims it mentions, not every dim of the graph (a detector has hundreds of run-time
// sizes, each op uses a few: volume work must not scale with their count). The graph has four
// dims; each op uses one or two.
func TestOpSetsTakeTheirDims(t *testing.T) {
	g, err := ir.Parse(`graph @g[N, M, k <= 8 from %k, j <= 6 from %j](%x: f32[N, 8], %y: f32[M], %kin: i64[1], %jin: i64[1]) {
  %k = reshape(%kin) {shape = "[]"} : i64[]
  %j = reshape(%jin) {shape = "[]"} : i64[]
  %e = exp(%x) : f32[N, 8]
  %w = slice(%e) {axes = [1], ends = [0], starts = [0], sym_ends = ["k"]} : f32[N, k]
  %v = slice(%y) {axes = [0], ends = [0], starts = [0], sym_ends = ["j"]} : f32[j]
  %g = gather(%y, %jin) {axis = 0} : f32[1]
  return %w, %v, %g, %k, %j
}`)
	require.NoError(t, err)
	require.NoError(t, ir.Verify(g))
	want := map[string][]string{"k": nil, "j": nil, "e": {"N"}, "w": {"N", "k"}, "v": {"j"}, "g": nil}
	for _, op := range g.Ops {
		used := want[op.Result.Name]
		require.ElementsMatch(t, used, op.Full.Params(), "%%%s's domain", op.Result.Name)
		require.ElementsMatch(t, used, op.Domain.Params(), "%%%s's domain", op.Result.Name)
		for k := range op.Operands {
			for _, p := range op.AccessMap(g.Params, k).Params() {
				require.Contains(t, append(used, op.Operands[k].Type.Params()...), p, "%%%s's access #%d", op.Result.Name, k)
			}
			for _, p := range op.ElementMap(g.Params, k).Params() {
				require.Contains(t, append(used, op.Operands[k].Type.Params()...), p, "%%%s's element map #%d", op.Result.Name, k)
			}
		}
	}
}

// TestParamContextRestrict: a set is restricted by the groups of requirements that share a
// dim with it (or with the sets it is compared with), whole groups (k <= n and n <= 9 go
// together), and by no other.
func TestParamContextRestrict(t *testing.T) {
	n, k, m, q := volume.AffParam("n"), volume.AffParam("k"), volume.AffParam("m"), volume.AffParam("q")
	c := ir.NewParamContext([]volume.Constraint{
		volume.GE(n, k), volume.GE(m, volume.AffConst(1)), volume.GE(volume.AffConst(9), n), volume.GE(q, m)}, nil)
	onK := volume.Box(nil, "", []string{"i"}, []volume.Aff{k})
	r := c.Restrict(onK)
	require.ElementsMatch(t, []string{"k", "n"}, r.Params())
	want, err := volume.ParseSet("[k, n] -> { [i] : 0 <= i < k and k <= n <= 9 }")
	require.NoError(t, err)
	require.Equal(t, volume.Yes, r.IsEqual(want), "%s", r)
	onQ := volume.Box(nil, "", []string{"i"}, []volume.Aff{q})
	require.ElementsMatch(t, []string{"q", "m"}, c.Restrict(onQ).Params())
	require.ElementsMatch(t, []string{"k", "n", "q", "m"}, c.Restrict(onK, onQ).Params())
	static := volume.Box(nil, "", []string{"i"}, []volume.Aff{volume.AffConst(3)})
	require.Empty(t, c.Restrict(static).Params())
	require.Equal(t, "-k + n >= 0 and -m + q >= 0 and -n + 9 >= 0 and m - 1 >= 0", c.String())
}

// TestParamContextGist: the required volume of a concatenation's third operand, whose offset
// k0 + k1 and the result's extent k0 + k1 + k2 + k3 are sums of run-time sizes, depends on its
// own extent alone once the ranges 0 <= k <= 5 hold; Gist finds it and drops the other dims.
func TestParamContextGist(t *testing.T) {
	var ranges []volume.Constraint
	for _, p := range []string{"k0", "k1", "k2", "k3"} {
		ranges = append(ranges, volume.GE(volume.AffParam(p), volume.AffConst(0)), volume.GE(volume.AffConst(5), volume.AffParam(p)))
	}
	c := ir.NewParamContext(nil, ranges)
	req, err := volume.ParseSet("[k0, k1, k2, k3] -> { [t] : 0 <= t < k2 and 0 <= t + k0 + k1 < k0 + k1 + k2 + k3 }")
	require.NoError(t, err)
	g := c.Gist(req)
	require.Equal(t, []string{"k2"}, g.Params())
	want, err := volume.ParseSet("[k2] -> { [t] : 0 <= t < k2 }")
	require.NoError(t, err)
	require.Equal(t, volume.Yes, g.IsEqual(want), "%s", g)
	// without the ranges (k1 may be negative) the bound on the whole result is no redundancy
	require.Len(t, ir.NewParamContext(nil, nil).Gist(req).Params(), 4)
	// Restrict does not use the ranges
	require.Equal(t, volume.Yes, c.Restrict(req).IsEqual(req))
}
