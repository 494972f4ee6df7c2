package volume

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDecide: a predicate answers Yes or No; one whose operation gives up is Unknown, and the
// call site's conservative answer stands for it. Panics that are not the package's propagate.
func TestDecide(t *testing.T) {
	a := MustParseSet("{ S[i] : 0 <= i < 4 }")
	require.Equal(t, Yes, Decide(func() bool { return !a.IsEmpty() }))
	require.Equal(t, No, Decide(func() bool { return a.IsEmpty() }))
	require.True(t, Decide(func() bool { return true }).Or(false))
	require.False(t, Decide(func() bool { return false }).Or(true))

	gaveUp := Decide(func() bool { newBudget(nil).spend(maxOpWork + 1); return true })
	require.Equal(t, Unknown, gaveUp)
	require.False(t, gaveUp.Known())
	require.True(t, gaveUp.Or(true))
	require.False(t, gaveUp.Or(false))
	require.Equal(t, "unknown", gaveUp.String())

	require.Panics(t, func() { Decide(func() bool { panic("not volume's") }) })
}
