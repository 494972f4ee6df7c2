package onnx

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMT19937MatchesNumpy: the first draws of np.random.seed(0); np.random.uniform(size=3)
// and of np.random.seed(42).
func TestMT19937MatchesNumpy(t *testing.T) {
	m := newMT19937(0)
	require.Equal(t, []float64{0.5488135039273248, 0.7151893663724195, 0.6027633760716439},
		[]float64{m.uniform(), m.uniform(), m.uniform()})
	require.Equal(t, 0.3745401188473625, newMT19937(42).uniform())
}
