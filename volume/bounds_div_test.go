// This file checks that DimBounds turns a constraint reaching a dim only through a chain of
// floor divisions (the rows a strided convolution of a strided convolution needs) into a plain
// bound on the dim, exactly.

package volume

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDimBoundsUnwrapsFloorChains(t *testing.T) {
	for _, text := range []string{
		"[T] -> { [x] : x >= 0 and floor((floor((x)/2))/2) <= T }",
		"[T] -> { [x] : x >= 0 and floor((floor((x - 3)/5) - 2)/2) >= T and x <= 60 }",
		"[T] -> { [x] : x <= 40 and floor((-x)/3) <= T }",
		"[T] -> { [x] : x >= -5 and floor((2x + 1)/3) <= T }",
		"[T] -> { [x] : x >= -5 and x <= 50 and floor((-1 - floor((-3x)/4))/2) >= T - 3 }",
		"[T] -> { [x] : x >= 0 and 3*floor((floor((x)/2) + T)/5) <= T + 7 }",
	} {
		s, err := ParseSet(text)
		require.NoError(t, err, text)
		bs, err := s.DimBounds(0)
		require.NoError(t, err, text)
		for _, b := range bs {
			// the chain became bounds: without the rewrite it is a constraint in Other
			require.Empty(t, b.Other, "%s: %v", text, b)
		}
		for T := int64(-3); T <= 8; T++ {
			pf := func(string) (int64, bool) { return T, true }
			for x := int64(-20); x <= 80; x++ {
				tri := s.Contains("", []int64{x}, map[string]int64{"T": T})
				require.True(t, tri.Known(), text)
				in := tri.Or(false)
				got := false
				for _, b := range bs {
					good := true
					for _, c := range b.Guard {
						v, err := c.Aff.Eval([]int64{x}, pf)
						require.NoError(t, err)
						good = good && (c.Eq && v == 0 || !c.Eq && v >= 0)
					}
					for _, l := range b.Lower {
						v, err := l.Eval([]int64{x}, pf)
						require.NoError(t, err)
						good = good && x >= v
					}
					for _, u := range b.Upper {
						v, err := u.Eval([]int64{x}, pf)
						require.NoError(t, err)
						good = good && x <= v
					}
					got = got || good
				}
				require.Equal(t, in, got, "%s at T=%d x=%d: bounds %v", text, T, x, bs)
			}
		}
	}
}
