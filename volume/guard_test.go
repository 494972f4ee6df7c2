package volume

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestErrorValues: an operation that gives up returns an error value, which keeps the result's
// space; operations on it return error values with the same error, predicates answer Unknown,
// and the operations that return errors return its error. No panic leaves the package.
func TestErrorValues(t *testing.T) {
	huge := AffConst(1 << 62).Add(AffConst(1 << 62))
	require.ErrorIs(t, huge.Err(), ErrOverflow)
	require.ErrorIs(t, huge.Mul(2).FloorDiv(3).Err(), ErrOverflow, "arithmetic on an error value")
	_, ok := huge.IsConst()
	require.False(t, ok)
	require.False(t, huge.Equal(huge))
	require.ErrorIs(t, AffDim(0).FloorDiv(0).Err(), ErrSpaceMismatch)

	bad := Box(nil, "S", []string{"i", "j"}, []Aff{AffConst(4), huge})
	require.ErrorIs(t, bad.Err(), ErrOverflow)
	require.Equal(t, 2, bad.NDim(), "an error value keeps its space")
	require.Equal(t, "S", bad.TupleName())
	require.NoError(t, bad.SingleSpace())
	require.Contains(t, bad.String(), "(error: ")
	_, err := ParseSet(bad.String())
	require.Error(t, err, "an error value's text is no set")

	good := MustParseSet("{ S[i, j] : 0 <= i, j < 4 }")
	m := MustParseMap("{ S[i, j] -> T[i + j] }")
	results := []Set{bad.Intersect(good), good.Intersect(bad), good.Union(bad), good.Subtract(bad),
		bad.Complement(), bad.Simplify(), bad.Coalesce(), bad.ProjectOut(0, 1), bad.ProjectOnto(1),
		bad.FixParam("N", 1), bad.IntersectParams(Universe(nil, "", nil)), bad.SetTupleName("U"),
		bad.SetDimNames([]string{"a", "b"}), bad.ProjectOutParam("N"), m.IntersectDomain(bad).Domain()}
	for i, r := range results {
		require.ErrorIs(t, r.Err(), ErrOverflow, "result %d", i)
		require.Equal(t, Unknown, r.IsEmpty(), "result %d", i)
	}
	require.Equal(t, 1, bad.Apply(m).NDim(), "the image's space: T[x]")
	require.Equal(t, "T", bad.Apply(m).TupleName())
	require.ErrorIs(t, bad.Apply(m).Err(), ErrOverflow)
	require.ErrorIs(t, m.IntersectRange(bad.Apply(m)).Err(), ErrOverflow)
	for _, tri := range []Tri{bad.IsEmpty(), bad.IsSubset(good), good.IsSubset(bad), bad.IsEqual(bad),
		bad.Contains("S", []int64{0, 0}, nil), m.IntersectDomain(bad).IsEmpty()} {
		require.Equal(t, Unknown, tri)
	}
	_, found := bad.Sample()
	require.Equal(t, Unknown, found)
	require.False(t, bad.PlainIsEmpty(), "an error value is not plainly empty")
	_, err = bad.Card(nil)
	require.ErrorIs(t, err, ErrOverflow)
	_, err = bad.Points(nil, 10)
	require.ErrorIs(t, err, ErrOverflow)
	_, err = bad.Scan()
	require.ErrorIs(t, err, ErrOverflow)
	_, err = bad.DimBounds(0)
	require.ErrorIs(t, err, ErrOverflow)
	_, err = bad.Lexmin()
	require.ErrorIs(t, err, ErrOverflow)
	_, err = bad.IsEmptyContext(context.Background())
	require.ErrorIs(t, err, ErrOverflow)
	require.ErrorIs(t, FirstErr(good, m, bad), ErrOverflow)
	require.NoError(t, FirstErr(good, m))
	for _, tup := range bad.Tuples() {
		require.ErrorIs(t, tup.Err(), ErrOverflow)
	}
}

// TestSpaceMismatchValues: a space mismatch (a caller's mistake, or a model's through the IR
// parser) is an error value too, and a set in several spaces says so instead of panicking.
func TestSpaceMismatchValues(t *testing.T) {
	s := MustParseSet("{ S[i, j] : 0 <= i, j < 4 }")
	require.ErrorIs(t, s.ProjectOut(1, 5).Err(), ErrSpaceMismatch)
	require.ErrorIs(t, s.IntersectParams(s).Err(), ErrSpaceMismatch)
	require.ErrorIs(t, s.SetDimNames([]string{"a"}).Err(), ErrSpaceMismatch)
	_, err := s.DimBounds(7)
	require.ErrorIs(t, err, ErrSpaceMismatch)
	require.Equal(t, Unknown, s.Contains("S", []int64{0, 0}, nil).And(MustParseSet("[N] -> { S[i] : i < N }").Contains("S", []int64{0}, nil)))
	two := s.Union(MustParseSet("{ T[i] : 0 <= i < 2 }"))
	require.ErrorIs(t, two.SingleSpace(), ErrSpaceMismatch)
	require.Equal(t, 0, two.NDim())
	require.Equal(t, "", two.TupleName())
	require.Nil(t, two.DimNames())
	require.ErrorIs(t, two.ProjectOut(0, 1).Err(), ErrSpaceMismatch)
}
