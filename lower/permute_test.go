// This file tests the loop-order permutation of domains: the permuted set holds exactly the
// permuted points of the domain (brute force on bounded sets).

package lower

import (
	"fmt"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

func TestPermutedDomain(t *testing.T) {
	domains := []string{
		"{ [i, j, k] : 0 <= i < 4 and 0 <= j < 5 and 0 <= k < 3 }",
		"{ [i, j, k] : 0 <= i <= j < 6 and 0 <= k < 3 }",
		"{ [i, j, k] : 0 <= i < 6 and 0 <= j < 6 and (i + j) mod 2 = 0 and 0 <= k <= i }",
		// the 5×5 max pool with argmax and pads 2 (its Apply splits into 169 pieces)
		// pieces that are single points or fix a dim print constants in their tuple (found by
		// the random compiled graphs: a causal P·V whose last row keeps one point)
		"{ [i, j, k] : j = 0 and i = 0 and 0 <= k < 2; [1, 0, 1] }",
		"{ [i, j, k] : 0 <= i < 3 and j = 2 and 0 <= k < 2; [i, j, k] : i = 4 and 0 <= j < 3 and k = 1 }",
		"{ [n, c, o0, o1, f] : n = 0 and c = 0 and 0 <= o0 < 5 and 0 <= o1 < 5 and 25n + 25c <= f <= 25n + 25c + 24 and floor((f)/5) - 5*floor((floor((f)/5))/5) - 2 <= o0 <= floor((f)/5) - 5*floor((floor((f)/5))/5) + 2 and o1 + 5*floor((f)/5) - 2 <= f <= o1 + 5*floor((f)/5) + 2 }",
	}
	for _, text := range domains {
		dom := volume.MustParseSet(text)
		n := dom.NDim()
		perm := make([]int, 0, n)
		for i := 0; i < n; i++ {
			if i != n-2 {
				perm = append(perm, i)
			}
		}
		perm = append(perm, n-2) // move the second-to-last dim innermost
		kb := &kernelBuilder{op: &ir.Op{Domain: dom, Dims: dom.DimNames()}, strat: &strategy{perm: perm}}
		got := kb.permutedDomain()
		pts, err := dom.Points(nil, 100000)
		require.NoError(t, err)
		var want []string
		for _, p := range pts {
			q := make([]int64, n)
			for l, d := range perm {
				q[l] = p[d]
			}
			want = append(want, fmt.Sprint(q))
		}
		gp, err := got.Points(nil, 100000)
		require.NoError(t, err)
		var have []string
		for _, p := range gp {
			have = append(have, fmt.Sprint(p))
		}
		sort.Strings(want)
		sort.Strings(have)
		require.Equal(t, want, have, text)
		require.NotEmpty(t, want)
	}
}
