// This file tests the work budget of operations, the tri-state predicates and the variants bound
// to a context.

package volume

import (
	"context"
	"errors"
	"fmt"
	"strings"
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
	// a standalone allowance (scanFeasible's) running out leaves its test undecided too
	r = catch(func() { (*budget)(nil).child(10).spend(11) })
	require.True(t, undecided(r), "a standalone allowance running out: %v", r)
}

// TestGistParamsManyParams: the gist of { [j] : 0 <= j < p0 + … + p89 } in the context
// 0 <= pi <= 4 (SSDlite's concatenation of 90 classes' top-k scores). Its redundancy tests run
// on standalone allowances; one that ran out failed the whole gist (ErrTooComplex) instead of
// leaving its constraint in.
func TestGistParamsManyParams(t *testing.T) {
	for _, n := range []int{10, 90, 200} {
		ps := make([]string, n)
		ctx := make([]string, n)
		for c := range n {
			ps[c] = fmt.Sprintf("p%d", c)
			ctx[c] = fmt.Sprintf("0 <= %s <= 4", ps[c])
		}
		params := strings.Join(ps, ", ")
		s := MustParseSet(fmt.Sprintf("[%s] -> { [j] : 0 <= j < %s }", params, strings.Join(ps, " + ")))
		c := MustParseSet(fmt.Sprintf("[%s] -> { [] : %s }", params, strings.Join(ctx, " and ")))
		g := s.GistParams(c)
		require.NoError(t, g.Err(), "n = %d", n)
		require.Equal(t, Yes, s.Intersect(c).IsEqual(g.Intersect(c)), "n = %d: the gist agrees with the set in the context", n)
	}
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

// TestScanFeasibleManyBoundedVars: scanning's feasibility test decides, on its own allowance
// (scanWork), systems where n variables are each bounded on their own (0 <= p_i <= 4, the
// counts of n classes) beside the rows that decide: eliminated one at a time (the cheapest
// steps, taken first) the bounds cost n steps over all the rows, n² work (8,100 rows at n = 90
// ran the allowance out on DIE's gist of SSDlite's concatenation of 90 classes), after which the
// test was undecided (true); dropped as independent variables they cost one pass.
func TestScanFeasibleManyBoundedVars(t *testing.T) {
	for _, n := range []int{10, 90, 300} {
		// columns: constant, p0..p(n-1), x, y
		w := 3 + n
		x, y := 1+n, 2+n
		row := func(c int64, coef map[int]int64) []int64 {
			r := make([]int64, w)
			r[0] = c
			for k, v := range coef {
				r[k] = v
			}
			return r
		}
		var rows [][]int64
		for i := range n {
			rows = append(rows, row(0, map[int]int64{1 + i: 1}), row(4, map[int]int64{1 + i: -1}))
		}
		// x >= 1, y >= x and y <= top: infeasible for top = 0, feasible for top = 1
		for top, want := range []bool{false, true} {
			sys := append(rows[:len(rows):len(rows)], row(-1, map[int]int64{x: 1}), row(0, map[int]int64{y: 1, x: -1}),
				row(int64(top), map[int]int64{y: -1}))
			require.Equal(t, want, scanFeasible(nil, sys), "n = %d, y <= %d", n, top)
		}
	}
	// an independent variable whose own bounds contradict each other makes the system infeasible
	require.False(t, scanFeasible(nil, [][]int64{{-3, 1, 0}, {2, -1, 0}, {5, 1, -1}}), "3 <= x <= 2")
}

// TestGistParamsManyPieces: the gist of a concatenation's required volume over n classes (n
// pieces { [j] : p0 + … + p(c-1) <= j < p0 + … + pc }, 0 <= pi <= 4). Its redundancy tests
// share one allowance (gistWork): at 90 classes testing every constraint of every piece took
// minutes of a compile, and past the allowance the remaining constraints are kept. The gist
// must agree with the set wherever the context holds, whatever was kept.
func TestGistParamsManyPieces(t *testing.T) {
	for _, n := range []int{4, 30, 90} {
		ps := make([]string, n)
		ctx := make([]string, n)
		for c := range n {
			ps[c] = fmt.Sprintf("p%d", c)
			ctx[c] = fmt.Sprintf("0 <= %s <= 4", ps[c])
		}
		pieces := make([]string, n)
		for c := range n {
			lo := "0"
			if c > 0 {
				lo = strings.Join(ps[:c], " + ")
			}
			pieces[c] = fmt.Sprintf("[j] : %s <= j < %s", lo, strings.Join(ps[:c+1], " + "))
		}
		params := strings.Join(ps, ", ")
		s := MustParseSet(fmt.Sprintf("[%s] -> { %s }", params, strings.Join(pieces, "; ")))
		c := MustParseSet(fmt.Sprintf("[%s] -> { [] : %s }", params, strings.Join(ctx, " and ")))
		g := s.GistParams(c)
		require.NoError(t, g.Err(), "n = %d", n)
		// checked at points: every pi in {0, 2, 4} by turns, j over the whole range
		for _, v := range []int64{0, 2, 4} {
			a, b := s, g
			for i, p := range ps {
				a, b = a.FixParam(p, (v+int64(i))%5), b.FixParam(p, (v+int64(i))%5)
			}
			require.Equal(t, Yes, a.IsEqual(b), "n = %d, params from %d", n, v)
		}
	}
}
