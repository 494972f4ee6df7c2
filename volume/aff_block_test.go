package volume

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBlockDen reads block widths off indexes written in isl's affine notation: a grouped
// convolution's input channel floor(m/8)·4 + c, blocks of two gcds, and the reads that are not
// block-uniform along m (m itself, a shifted floor, a floor of m and another dim).
func TestBlockDen(t *testing.T) {
	dims := []string{"n", "m", "c"}
	for _, c := range []struct {
		index []string
		want  int64
	}{
		{[]string{"n", "4*floor(m/8) + c"}, 8},
		{[]string{"floor(m/4)", "floor(m/6)"}, 2},
		{[]string{"n", "c"}, 0},
		{[]string{"n", "m"}, 0},
		{[]string{"n", "floor((m + 1)/8)"}, 0},
		{[]string{"n", "floor((m + c)/8)"}, 0},
	} {
		var idx []Aff
		for _, e := range c.index {
			a, err := ParseAff(e, dims)
			require.NoError(t, err, e)
			idx = append(idx, a)
		}
		require.Equal(t, c.want, BlockDen(idx, 1), "%v", c.index)
	}
}
