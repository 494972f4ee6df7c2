// This file tests the work budget of operations, the tri-state predicates and the variants bound
// to a context.

package volume

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// nestedMods is a set whose parse runs out of its budget (FuzzParse's corpus holds it as
// nested_mods_1): each mod of a mod of a large multiple is an inexact elimination.
const nestedMods = "{[i]:((((100i)%11120)%70)%20)%100+i%19<(i%11)%248}"

func TestBudget(t *testing.T) {
	catch := func(f func()) (r any) {
		defer func() { r = recover() }()
		f()
		return nil
	}
	op := newBudget(nil)
	local := op.child(10)
	r := catch(func() { local.spend(11) })
	require.True(t, undecided(r), "a local allowance running out leaves its test undecided: %v", r)
	require.Equal(t, maxOpWork-11, op.left, "a local allowance spends from its operation's budget")
	r = catch(func() { op.child(maxOpWork).spend(maxOpWork) })
	require.NotNil(t, r)
	require.False(t, undecided(r), "the operation's budget running out inside a local test reaches the operation")
	err := try(func() { newBudget(nil).spend(maxOpWork + 1) })
	require.ErrorIs(t, err, ErrTooComplex)
}

func TestParseOneBudget(t *testing.T) {
	// the parse's projections and emptiness tests share one budget: it stops once, with
	// ErrTooComplex, however many tests it runs
	_, err := ParseSet(nestedMods)
	require.ErrorIs(t, err, ErrTooComplex)
	require.Contains(t, err.Error(), "budget")
}

func TestContextStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := ParseSetContext(ctx, nestedMods)
	require.ErrorIs(t, err, context.Canceled)
	// an operation with less work than one context check answers
	s, err := ParseSetContext(ctx, "{ [i] : 0 <= i < 10 }")
	require.NoError(t, err)
	empty, err := s.IsEmptyContext(ctx)
	require.NoError(t, err)
	require.False(t, empty)
}

func TestPredicates(t *testing.T) {
	a := MustParseSet("[N] -> { S[i, j] : 0 <= i < N and i <= j < N }")
	b := MustParseSet("[N] -> { S[i, j] : 0 <= i, j < N }")
	e := MustParseSet("{ S[i, j] : 0 <= i < 2 and 2i = 2j + 1 }")
	require.Equal(t, No, a.IsEmpty())
	require.Equal(t, Yes, e.IsEmpty())
	require.Equal(t, Yes, a.IsSubset(b))
	require.Equal(t, No, b.IsSubset(a))
	require.Equal(t, Yes, a.IsEqual(a.Union(a)))
	m := MustParseMap("{ S[i, j] -> T[i + j] }")
	require.Equal(t, No, m.IsEmpty())
	require.Equal(t, Yes, m.IsSubset(m.Union(MustParseMap("{ S[i, j] -> T[i] }"))))
	require.Equal(t, Yes, m.IsEqual(MustParseMap("{ S[i, j] -> T[j + i] }")))
	r, err := a.SubtractContext(context.Background(), b)
	require.NoError(t, err)
	require.Equal(t, Yes, r.IsEmpty())
	empty, err := a.IsEmptyContext(context.Background())
	require.NoError(t, err)
	require.False(t, empty)
	_, err = ParseSet(nestedMods)
	require.True(t, errors.Is(err, ErrTooComplex))
}
