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
	err := Try(func() { newBudget(nil).spend(maxOpWork + 1) })
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

func TestTryPredicates(t *testing.T) {
	a := MustParseSet("[N] -> { S[i, j] : 0 <= i < N and i <= j < N }")
	b := MustParseSet("[N] -> { S[i, j] : 0 <= i, j < N }")
	e := MustParseSet("{ S[i, j] : 0 <= i < 2 and 2i = 2j + 1 }")
	check := func(got bool, err error, want bool) {
		t.Helper()
		require.NoError(t, err)
		require.Equal(t, want, got)
	}
	got, err := a.TryIsEmpty()
	check(got, err, false)
	got, err = e.TryIsEmpty()
	check(got, err, true)
	got, err = a.TryIsSubset(b)
	check(got, err, true)
	got, err = b.TryIsSubset(a)
	check(got, err, false)
	got, err = a.TryIsEqual(a.Union(a))
	check(got, err, true)
	m := MustParseMap("{ S[i, j] -> T[i + j] }")
	got, err = m.TryIsEmpty()
	check(got, err, false)
	got, err = m.TryIsSubset(m.Union(MustParseMap("{ S[i, j] -> T[i] }")))
	check(got, err, true)
	got, err = m.TryIsEqual(MustParseMap("{ S[i, j] -> T[j + i] }"))
	check(got, err, true)
	r, err := a.SubtractContext(context.Background(), b)
	require.NoError(t, err)
	require.True(t, r.IsEmpty())
	_, err = ParseSet(nestedMods)
	require.True(t, errors.Is(err, ErrTooComplex))
}
