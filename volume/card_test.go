// This file tests Card: closed-form counts of huge triangles and polygons against brute-force
// enumeration, and the work budget of loops it must iterate.

package volume

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCardClosedForm: triangles and trapezoids whose rows Card used to iterate one by one
// (10^9 rows took minutes) are summed in closed form, with exact results.
func TestCardClosedForm(t *testing.T) {
	for _, c := range []struct {
		src  string
		want int64
	}{
		{"{ [i, j] : 0 <= i < 1000000000 and 0 <= j <= i }", 500000000500000000},
		{"{ [i, j] : 0 <= i < 1000000 and i <= j < 1000000 }", 500000500000},
		{"{ [i, j] : 0 <= i < 1000000 and i <= j < 1000000 and i mod 2 = 0 }", 250000500000},
		{"{ [i, j, k] : 0 <= i < 10000 and 0 <= j <= i and 0 <= k <= j }", 166716670000},
		{"{ [i, j] : 0 <= i < 10 and 2i - 7 <= j <= 20 - i and j <= 3i }", 85},
		{"[N] -> { [i, j] : 0 <= i < N and 0 <= j <= i and j < 7 }", 7*1000000 - 21},
	} {
		n, err := MustParseSet(c.src).Card(map[string]int64{"N": 1000000})
		require.NoError(t, err, c.src)
		assert.Equal(t, c.want, n, c.src)
	}
}

// TestCardPolygons compares Card with the enumeration of random 2-D polygons (several lower and
// upper bounds on j, affine in i, so that the active bounds change along i), with strides on i.
func TestCardPolygons(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	coef := func() int64 { return int64(r.IntN(7) - 3) }
	for range 400 {
		var cs []string
		cs = append(cs, fmt.Sprintf("%d <= i <= %d", -r.IntN(10), r.IntN(20)))
		for range 1 + r.IntN(3) {
			cs = append(cs, fmt.Sprintf("j >= %d*i + %d", coef(), r.IntN(21)-10))
		}
		for range 1 + r.IntN(3) {
			cs = append(cs, fmt.Sprintf("j <= %d*i + %d", coef(), r.IntN(21)-10))
		}
		if r.IntN(3) == 0 {
			cs = append(cs, fmt.Sprintf("i mod %d = %d", 2+r.IntN(2), r.IntN(2)))
		}
		src := "{ [i, j] : " + strings.Join(cs, " and ") + " }"
		s := MustParseSet(src)
		pts, err := s.Points(nil, 1<<20)
		require.NoError(t, err, src)
		n, err := s.Card(nil)
		require.NoError(t, err, src)
		require.Equal(t, int64(len(pts)), n, src)
	}
}

// TestCardBudget: a set whose count Card cannot sum in closed form and whose loops are too long
// to iterate (a 4-simplex: 5·10^9 iterations of its two outer loops) stops with ErrTooComplex
// instead of running for minutes; a count beyond int64 is an overflow error, not a wrong number.
func TestCardBudget(t *testing.T) {
	s := MustParseSet("{ [i, j, k, l] : 0 <= i < 100000 and 0 <= j <= i and 0 <= k <= j and 0 <= l <= k }")
	_, err := s.Card(nil)
	require.ErrorIs(t, err, ErrTooComplex)
	assert.ErrorContains(t, err, "loop iterations")
	_, err = MustParseSet("{ [i, j, k] : 0 <= i < 1000000000 and 0 <= j <= i and 0 <= k <= j }").Card(nil)
	require.ErrorIs(t, err, ErrOverflow)
}
