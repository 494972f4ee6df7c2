package volume

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestShiftedDim: dim d plus a constant is d; anything else (a stride, two dims, a symbolic
// dim, a floor, a constant) is -1.
func TestShiftedDim(t *testing.T) {
	require.Equal(t, 0, AffDim(0).ShiftedDim())
	require.Equal(t, 2, AffDim(2).AddConst(-3).ShiftedDim())
	require.Equal(t, -1, AffDim(1).Mul(2).ShiftedDim())
	require.Equal(t, -1, AffDim(0).Add(AffDim(1)).ShiftedDim())
	require.Equal(t, -1, AffDim(0).Add(AffParam("N")).ShiftedDim())
	require.Equal(t, -1, AffDim(0).FloorDiv(2).ShiftedDim())
	require.Equal(t, -1, AffConst(4).ShiftedDim())
}
