package volume

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestProjectOutParam checks the projection point by point against the union over the
// parameter's values.
func TestProjectOutParam(t *testing.T) {
	for _, src := range []string{
		"[N, n] -> { [i, t] : 0 <= i < N and 0 <= t < i and t < n and 0 <= n <= 6 }",
		"[n] -> { [i] : 0 <= i < 10 and i >= n + 2 and 0 <= n <= 4 }",
		"[n] -> { [i] : 0 <= i < 10 and 2*floor(i/2) = i and i < n and 0 <= n <= 5 }",
		"[n] -> { [i] : 0 <= i < 10 and i = 3 and n = 5 ; [i] : i = 7 and n = 1 }",
		"[n] -> { [i] : 0 <= i < 10 and n = 4 and n = 5 }",
	} {
		s, err := ParseSet(src)
		require.NoError(t, err)
		p := s.ProjectOutParam("n")
		require.NotContains(t, p.Params(), "n", src)
		for _, N := range []int64{0, 3, 8} {
			params := map[string]int64{"N": N}
			for i := int64(-2); i < 12; i++ {
				for tt := int64(-1); tt < 10; tt++ {
					pt := []int64{i, tt}[:s.NDim()]
					if s.NDim() == 1 && tt != 0 {
						continue
					}
					want := false
					for n := int64(-3); n <= 12; n++ {
						params["n"] = n
						want = want || s.Contains("", pt, params).holds()
					}
					delete(params, "n")
					require.Equal(t, want, p.Contains("", pt, params).holds(), "%s at %v, N = %d", src, pt, N)
				}
			}
		}
	}
}
