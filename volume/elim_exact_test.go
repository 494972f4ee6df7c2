// This file tests the exact eliminations that spare inexact ones: congruences reduced modulo
// their coefficient in scanning, existentials pinned by constant bounds or determined as floor
// divisions, and splinters from pairs of parallel bounds.

package volume

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestScanLargeCoefficientEquality: 10001i = 2j used to make the scanner project j onto a div of
// 10001i, whose later inexact elimination needed thousands of splinters (ErrTooComplex). The
// congruence reduces to i ≡ 0 (mod 2).
func TestScanLargeCoefficientEquality(t *testing.T) {
	for _, c := range []struct {
		src  string
		want [][]int64
	}{
		{"{ [i, j] : 10001i = 2j and -6 <= i <= 6 and -6 <= j <= 6 }", [][]int64{{0, 0}}},
		{"{ [i, j] : 10001i = 2j and -4 <= i <= 4 }", [][]int64{{-4, -20002}, {-2, -10001}, {0, 0}, {2, 10001}, {4, 20002}}},
		{"{ [i, j] : 3i = 10001j + 1 and 0 <= j < 6 }", [][]int64{{3334, 1}, {13335, 4}}},
	} {
		s := MustParseSet(c.src)
		ast, err := s.Scan()
		require.NoError(t, err, c.src)
		var got [][]int64
		require.NoError(t, Walk(ast, 2, nil, func(_ int, x []int64) { got = append(got, append([]int64(nil), x...)) }))
		assert.Equal(t, c.want, got, c.src)
		pts, err := s.Points(nil, 0)
		require.NoError(t, err)
		assert.Equal(t, c.want, pts, c.src)
		n, err := s.Card(nil)
		require.NoError(t, err)
		assert.Equal(t, int64(len(c.want)), n, c.src)
	}
}

// TestExactExistentials: existentials that two bounds determine (a floor division), that
// constant bounds pin, or that parallel bounds confine to a short range project exactly;
// each result is compared with the enumeration of the set with the existential as a dim.
func TestExactExistentials(t *testing.T) {
	for _, c := range []struct{ set, lifted string }{
		{"{ [i] : exists (e : 7e <= 2i <= 7e + 6 and e mod 3 = 0 and 0 <= i <= 40) }",
			"{ [i, e] : 7e <= 2i <= 7e + 6 and e mod 3 = 0 and 0 <= i <= 40 }"},
		{"{ [i] : exists (e : 2 <= e <= 2 and 5i <= 3e + 20 and i >= -3) }",
			"{ [i, e] : 2 <= e <= 2 and 5i <= 3e + 20 and i >= -3 }"},
		{"{ [i, j] : exists (e : 10001e <= 3i + 2j <= 10001e + 2 and 0 <= i, j < 6000 and e >= 1 and i <= 10) }",
			"{ [i, j, e] : 10001e <= 3i + 2j <= 10001e + 2 and 0 <= i, j < 6000 and e >= 1 and i <= 10 }"},
	} {
		s := MustParseSet(c.set)
		lifted, err := MustParseSet(c.lifted).Points(nil, 0)
		require.NoError(t, err)
		want := map[[2]int64]bool{}
		for _, p := range lifted {
			var k [2]int64
			copy(k[:], p[:len(p)-1])
			want[k] = true
		}
		pts, err := s.Points(nil, 0)
		require.NoError(t, err, c.set)
		got := map[[2]int64]bool{}
		for _, p := range pts {
			var k [2]int64
			copy(k[:], p)
			got[k] = true
		}
		assert.Equal(t, want, got, c.set)
		require.NotEmpty(t, got, c.set)
	}
}
