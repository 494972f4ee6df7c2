package volume

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// holds reads a predicate's answer in the package's tests: Unknown stops the case as too
// complex (cases skips it, and fails the test when more than 2% stop).
func (t Tri) holds() bool {
	if t == Unknown {
		panic(tooComplex{what: "a predicate answered unknown"})
	}
	return t == Yes
}

// TestTri: the answers, their negation and conjunction, and the conservative answer standing
// for Unknown.
func TestTri(t *testing.T) {
	a := MustParseSet("{ S[i] : 0 <= i < 4 }")
	require.Equal(t, No, a.IsEmpty())
	require.Equal(t, Yes, a.IsEmpty().Not())
	require.Equal(t, Yes, a.IsSubset(a))
	require.Equal(t, Unknown, Unknown.Not())
	require.Equal(t, No, Unknown.And(No))
	require.Equal(t, Unknown, Unknown.And(Yes))
	require.Equal(t, Yes, Yes.And(Yes))
	require.True(t, Unknown.Or(true))
	require.False(t, Unknown.Or(false))
	require.True(t, Yes.Or(false))
	require.False(t, No.Or(true))
	require.False(t, Unknown.Known())
	require.Equal(t, "unknown", Unknown.String())
	require.Equal(t, "yes", TriOf(true).String())
}
