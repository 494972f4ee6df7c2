package volume

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestConstructorsTakeUsedParams: sets and maps built from constraints carry the parameters
// the constraints mention (in the declared order, then the others), however many the caller
// declares: a detector's graph declares hundreds of run-time sizes and each op uses a few.
func TestConstructorsTakeUsedParams(t *testing.T) {
	declared := []string{"a", "N", "b", "M", "c"}
	box := Box(declared, "S", []string{"i", "j"}, []Aff{AffParam("M"), AffParam("N").AddConst(-1)})
	require.Equal(t, []string{"N", "M"}, box.Params(), "declared order")
	s := SetFromConstraints(declared, "", []string{"i"}, []Constraint{
		GE(AffDim(0), AffParam("extra")), LT(AffDim(0), AffConst(4))})
	require.Equal(t, []string{"extra"}, s.Params(), "a used parameter that was not declared")
	m := MultiAff{Params: declared, InDims: []string{"i"}, Exprs: []Aff{
		AffDim(0).Add(AffParam("c")), AffParam("a").FloorDiv(2)}}.Map()
	require.Equal(t, []string{"a", "c"}, m.Params())
	require.Empty(t, Universe(declared, "S", []string{"i"}).Params())
	require.Empty(t, EmptySet(declared, "S", []string{"i"}).Params())
	require.Empty(t, UniverseMap(declared, "", []string{"i"}, "", []string{"j"}).Params())
	// operations combine the parameters of their operands, not more
	require.Equal(t, []string{"N", "M", "extra"}, box.SetTupleName("").ProjectOut(1, 1).Intersect(s).Params())
}

// TestDropUnusedParams: the parameters no constraint (nor div) mentions leave the space; the
// set is the same for every value of them.
func TestDropUnusedParams(t *testing.T) {
	for _, c := range []struct {
		src  string
		want []string
	}{
		{"[N, M, K] -> { [i] : 0 <= i < N }", []string{"N"}},
		{"[N, M, K] -> { [i] : 0 <= i < 10 and 3*floor((i + K)/3) = i + K }", []string{"K"}},
		{"[N, M] -> { [i] : 0 <= i < N ; [i] : i = M }", []string{"N", "M"}},
		{"[N, M] -> { [i] : 0 <= i < 4 }", nil},
		{"[N] -> { [i] : false }", nil},
	} {
		s, err := ParseSet(c.src)
		require.NoError(t, err)
		d := s.DropUnusedParams()
		require.Equal(t, c.want, d.Params(), c.src)
		require.Equal(t, Yes, d.IsEqual(s), c.src)
		for _, N := range []int64{0, 2, 5} {
			for _, M := range []int64{-1, 3} {
				for _, K := range []int64{0, 1, 2} {
					params := map[string]int64{"N": N, "M": M, "K": K}
					for i := int64(-2); i < 12; i++ {
						require.Equal(t, s.Contains("", []int64{i}, params), d.Contains("", []int64{i}, params), "%s at %d", c.src, i)
					}
				}
			}
		}
	}
	m, err := ParseMap("[N, M] -> { [i] -> [j] : j = i + M and 0 <= i < 8 }")
	require.NoError(t, err)
	require.Equal(t, []string{"M"}, m.DropUnusedParams().Params())
	require.Equal(t, Yes, m.DropUnusedParams().IsEqual(m))
}

// TestGistParams: the gist agrees with the set wherever the context holds (point by point),
// contains the set, and loses the parameters that only redundant constraints mentioned (a
// concatenation's operand c, at offset k0 + k1, needs t < k2 of its own extent: the bound
// t + k0 + k1 < k0 + k1 + k2 + k3 of the whole result is implied once every k >= 0).
func TestGistParams(t *testing.T) {
	for _, c := range []struct {
		set, ctx string
		want     []string
	}{
		{"[k0, k1, k2, k3] -> { [t] : 0 <= t < k2 and 0 <= t + k0 + k1 < k0 + k1 + k2 + k3 }",
			"[k0, k1, k2, k3] -> { [] : 0 <= k0 <= 4 and 0 <= k1 <= 4 and 0 <= k2 <= 4 and 0 <= k3 <= 4 }", []string{"k2"}},
		{"[n, k] -> { [t] : 0 <= t < k and t < n }", "[n, k] -> { [] : 0 <= k <= n }", []string{"k"}},
		{"[n, k] -> { [t] : 0 <= t < k and t < n ; [t] : t = n + 5 }", "[n, k] -> { [] : 0 <= k <= n }", []string{"n", "k"}},
		{"[n] -> { [t] : 0 <= t < 6 and 2*floor(t/2) = t and t < n }", "[n] -> { [] : n >= 6 }", nil},
		{"[n] -> { [t] : 0 <= t < n }", "[n] -> { [] : n = 3 }", []string{"n"}},
	} {
		s, err := ParseSet(c.set)
		require.NoError(t, err)
		ctx, err := ParseSet(c.ctx)
		require.NoError(t, err)
		g := s.GistParams(ctx)
		require.NoError(t, g.Err())
		require.Equal(t, c.want, g.DropUnusedParams().Params(), "%s gist %s = %s", c.set, c.ctx, g)
		require.Equal(t, Yes, s.IsSubset(g), c.set)
		require.Equal(t, Yes, g.IntersectParams(ctx).IsEqual(s.IntersectParams(ctx)), c.set)
	}
}
