package calc

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/volume"
)

func run(t *testing.T, src string) []string {
	t.Helper()
	var sb strings.Builder
	require.NoError(t, Run(src, &sb), src)
	return strings.Split(strings.TrimRight(sb.String(), "\n"), "\n")
}

// TestValues compares set and map results exactly (IsEqual), and the other results as text.
func TestValues(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"{ [i] : 0 <= i < 10 } * { [i] : i >= 5 }", "{ [i] : 5 <= i <= 9 }"},
		{"{ [i] : 0 <= i < 3 } + { [i] : 3 <= i < 5 }", "{ [i] : 0 <= i <= 4 }"},
		{"{ [i] : 0 <= i < 10 } - { [i] : i mod 2 = 0 }", "{ [i] : 0 <= i < 10 and i mod 2 = 1 }"},
		{"M := { A[i] -> B[2i] }; M({ A[i] : 0 <= i < 3 })", "{ B[0]; B[2]; B[4] }"},
		{"{ A[i] -> B[2i] }^-1", "{ B[o] -> A[i] : o = 2i }"},
		{"dom { A[i] -> B[j] : 0 <= i < j < 4 }", "{ A[i] : 0 <= i <= 2 }"},
		{"ran { A[i] -> B[j] : 0 <= i < j < 4 }", "{ B[j] : 1 <= j <= 3 }"},
		{"{ A[i] -> B[i + 1] } . { B[j] -> C[2j] }", "{ A[i] -> C[2i + 2] }"},
		{"{ A[i] -> B[i] } * { A[i] : i > 0 }", "{ A[i] -> B[i] : i > 0 }"},
		{"lexmin { A[i, j] : 0 <= i < 3 and 1 <= j < 3; B[k] : k >= 7 }", "{ A[0, 1]; B[7] }"},
		{"lexmax { A[i, j] : 0 <= i < 3 and 1 <= j < 3 and i + j < 4 }", "{ A[2, 1] }"},
		{"coalesce ({ [i] : 0 <= i < 3 } + { [i] : 3 <= i < 5 })", "{ [i] : 0 <= i <= 4 }"},
		{"[N] -> { [i] : 0 <= i < N } * [N] -> { [i] : i >= N - 2 }", "[N] -> { [i] : 0 <= i < N and i >= N - 2 }"},
	} {
		out := run(t, c.src)
		require.Len(t, out, 1, c.src)
		want := volume.MustParseSet("{ }")
		if g, err := volume.ParseSet(out[0]); err == nil {
			want = volume.MustParseSet(c.want)
			assert.True(t, g.IsEqual(want) == volume.Yes, "%s: got %s, want %s", c.src, out[0], c.want)
		} else {
			g := volume.MustParseMap(out[0])
			assert.True(t, g.IsEqual(volume.MustParseMap(c.want)) == volume.Yes, "%s: got %s, want %s", c.src, out[0], c.want)
		}
	}
	assert.Equal(t, []string{"True", "False", "True", "True", "False", "5"},
		run(t, "A := { [i] : 0 <= i < 5 }; B := { [i] : 0 <= i < 9 }; A <= B; B <= A; A < B; B >= A; A = B; card A"))
}

func TestErrors(t *testing.T) {
	for _, c := range []struct{ src, msg string }{
		{"X", "line 1, column 1: unknown variable X"},
		{"A := { [i] };\n  B", "line 2, column 3: unknown variable B"},
		{"{ [i] : i < }", "line 1, column 13: expected an expression"},
		{"{ [i] ", "unterminated set or map"},
		{"dom { [i] }", "dom needs a map, got a set"},
		{"{ A[i] -> B[i] }({ B[i] })", ""},
		{"card { [i] : i >= 0 }", "card: volume: set is unbounded"},
		{"{ [i] } { [j] }", "expected \";\" between statements"},
		{"{ [i] } $", "unexpected character '$'"},
	} {
		var sb strings.Builder
		err := Run(c.src, &sb)
		if c.msg == "" { // applying a map to a set of another tuple is empty, not an error
			require.NoError(t, err, c.src)
			continue
		}
		require.Error(t, err, c.src)
		var ce *Error
		assert.True(t, errors.As(err, &ce), c.src)
		assert.Contains(t, err.Error(), c.msg, c.src)
	}
}

// TestErrorsWrapVolume: errors of volume operations stay visible through the calculator's Error.
func TestErrorsWrapVolume(t *testing.T) {
	for _, c := range []struct {
		src  string
		want error
	}{
		{"card { [i] : i >= 0 }", volume.ErrUnbounded},
		{"lexmax { [i] : i >= 0 }", volume.ErrUnbounded},
	} {
		err := Run(c.src, io.Discard)
		require.Error(t, err, c.src)
		var ce *Error
		require.True(t, errors.As(err, &ce), c.src)
		assert.ErrorIs(t, err, c.want, c.src)
	}
}

// TestOperatorsDocumented keeps the operator list graphc calc --help prints and the package
// documentation the same table.
func TestOperatorsDocumented(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	for _, l := range strings.Split(strings.TrimSpace(Operators), "\n") {
		require.Contains(t, string(doc), "//\t"+l)
	}
	require.Contains(t, Operators, "codegen S")
}
