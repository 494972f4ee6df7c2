package lower_test

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/lower"
	"github.com/graphc/graphc/volume"
)

// TestLowerRefusesVolumeErrors: an index expression that volume gave up on (an overflow, whose
// fields read as the constant 0) is an error of Lower naming the op, before any kernel reads
// it (affcheck.go).
func TestLowerRefusesVolumeErrors(t *testing.T) {
	g, err := ir.Parse(`graph @g(%x: f32[4]) {
  %y = relu(%x) : f32[4]
  return %y
}`)
	require.NoError(t, err)
	_, err = lower.Lower(context.Background(), g, lower.Config{})
	require.NoError(t, err)

	bad := volume.AffConst(math.MaxInt64).AddConst(1)
	require.Error(t, bad.Err())
	op := g.Ops[0]
	op.Access = []ir.Access{ir.AffAccess(bad)}
	_, err = lower.Lower(context.Background(), g, lower.Config{})
	require.ErrorIs(t, err, volume.ErrOverflow)
	require.ErrorContains(t, err, "op %y (relu)")
}
