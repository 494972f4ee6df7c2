package ir

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/volume"
)

func TestElementsWithin(t *testing.T) {
	cases := []struct {
		shape []int64
		max   int64
		n     int64
		ok    bool
	}{
		{nil, 10, 1, true},
		{[]int64{2, 5}, 10, 10, true},
		{[]int64{2, 6}, 10, 0, false},
		{[]int64{1 << 40, 1 << 40}, math.MaxInt64, 0, false}, // 2^80 overflows int64
		{[]int64{1 << 31, 1 << 32}, math.MaxInt64, 0, false}, // 2^63 overflows by one
		{[]int64{1 << 31, 1 << 31}, math.MaxInt64, 1 << 62, true},
		{[]int64{1 << 40, 0, 1 << 40}, 1, 0, true}, // empty, whatever the other dims
		{[]int64{3, -1}, 100, 0, false},
	}
	for _, c := range cases {
		n, ok := ElementsWithin(c.shape, c.max)
		require.Equal(t, c.ok, ok, "%v", c.shape)
		if ok {
			require.Equal(t, c.n, n, "%v", c.shape)
		}
	}
}

func TestCheckTypeLimits(t *testing.T) {
	// symbolic extents are checked at run time: only the static 2^30·2^10 counts
	ty := TensorType{Elem: F32, Shape: []volume.Aff{volume.AffParam("N"), volume.AffConst(1 << 30), volume.AffConst(1 << 10)}}
	require.NoError(t, CheckTypeLimits(ty, Limits{}))
	ty.Shape[2] = volume.AffConst(1 << 11)
	require.ErrorIs(t, CheckTypeLimits(ty, Limits{}), ErrLimit)
	require.NoError(t, CheckTypeLimits(ty, Limits{MaxTensorElements: 1 << 41}))
}

// TestMakeOpOverflowIsAnError: shape arithmetic beyond int64 in an op builder (48 × 2^61 + 48,
// the extent of a Tile; FuzzImport finding) is an error wrapping volume.ErrOverflow, not a panic.
func TestMakeOpOverflowIsAnError(t *testing.T) {
	g := NewGraph("g")
	x := g.AddInput("x", StaticType(F32, 48))
	_, err := MakeOp(g.Params, "tile", "", []*Value{x}, Attrs{"repeats": IntsAttr(1<<61 + 1)})
	require.ErrorIs(t, err, volume.ErrOverflow)
	_, err = MakeOp(g.Params, "tile", "", []*Value{x}, Attrs{"repeats": IntsAttr(3)})
	require.NoError(t, err)
}
