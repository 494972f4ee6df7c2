package lower_test

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/lower"
)

func TestPointerBits(t *testing.T) {
	x86, err := lower.LoadTarget("x86-64")
	require.NoError(t, err)
	require.Equal(t, 64, x86.PointerBits())
	require.Equal(t, int64(math.MaxInt64), x86.MaxObjectBytes())
	hex, err := lower.LoadTarget("hexagon")
	require.NoError(t, err)
	require.Equal(t, 32, hex.PointerBits())
	require.Equal(t, int64(math.MaxInt32), hex.MaxObjectBytes())
}

// TestObjectTooLarge: a 2 GiB tensor lowers for x86-64 and is rejected for Hexagon, whose
// 32-bit byte offsets would wrap.
func TestObjectTooLarge(t *testing.T) {
	parse := func() *ir.Graph {
		g, err := ir.Parse(`graph @main_graph(%x: f32[65536, 8192]) {
  %y = neg(%x) : f32[65536, 8192]
  return %y
}`)
		require.NoError(t, err)
		return g
	}
	x86, err := lower.LoadTarget("x86-64")
	require.NoError(t, err)
	_, err = lower.Lower(context.Background(), parse(), lower.Config{Target: x86})
	require.NoError(t, err)
	hex, err := lower.LoadTarget("hexagon")
	require.NoError(t, err)
	_, err = lower.Lower(context.Background(), parse(), lower.Config{Target: hex})
	require.ErrorContains(t, err, "input %x of type f32[65536, 8192]: more than 2147483647 bytes")
}
