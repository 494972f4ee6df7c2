package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/volume"
)

// calcLines runs `graphc calc EXPR` and returns its output lines; it requires exit status 0.
func calcLines(t *testing.T, expr string) []string {
	t.Helper()
	out, stderr, code := runCLI(t, t.TempDir(), "calc", expr)
	require.Equal(t, 0, code, "calc %q: %s", expr, stderr)
	return strings.Split(strings.TrimRight(out, "\n"), "\n")
}

// sameSet requires the printed result to be the set want (compared exactly, not as text).
func sameSet(t *testing.T, got, want string) {
	t.Helper()
	g, err := volume.ParseSet(got)
	require.NoError(t, err, "output %q does not parse", got)
	assert.True(t, g.IsEqual(volume.MustParseSet(want)) == volume.Yes, "got %s, want %s", got, want)
}

func sameMap(t *testing.T, got, want string) {
	t.Helper()
	g, err := volume.ParseMap(got)
	require.NoError(t, err, "output %q does not parse", got)
	assert.True(t, g.IsEqual(volume.MustParseMap(want)) == volume.Yes, "got %s, want %s", got, want)
}

func TestCalcSetOperations(t *testing.T) {
	out := calcLines(t, `A := [N] -> { S[i, j] : 0 <= i < N and i <= j < N and exists (e : i + j = 2e) };
		B := [N] -> { S[i, j] : j < 3 };
		A * B; A + B; A - B; A - B + A * B = A; A * B <= A; A <= A * B`)
	require.Len(t, out, 6)
	sameSet(t, out[0], "[N] -> { S[i, j] : 0 <= i <= j < N and j < 3 and (i + j) mod 2 = 0 }")
	sameSet(t, out[1], "[N] -> { S[i, j] : (0 <= i <= j < N and (i + j) mod 2 = 0) or j < 3 }")
	sameSet(t, out[2], "[N] -> { S[i, j] : 0 <= i <= j < N and j >= 3 and (i + j) mod 2 = 0 }")
	assert.Equal(t, []string{"True", "True", "False"}, out[3:])
}

func TestCalcMapOperations(t *testing.T) {
	out := calcLines(t, `M := { A[i, j] -> B[i + 1, 2j] }; S := { A[i, j] : 0 <= i, j < 3 };
		M(S); M^-1; dom M; ran (M * S); M . { B[x, y] -> C[x + y] }; M^-1^-1 = M; dom (M * S) = S`)
	require.Len(t, out, 7)
	sameSet(t, out[0], "{ B[x, y] : 1 <= x <= 3 and 0 <= y <= 4 and y mod 2 = 0 }")
	sameMap(t, out[1], "{ B[x, y] -> A[x - 1, j] : y = 2j }")
	sameSet(t, out[2], "{ A[i, j] }")
	sameSet(t, out[3], "{ B[x, y] : 1 <= x <= 3 and 0 <= y <= 4 and y mod 2 = 0 }")
	sameMap(t, out[4], "{ A[i, j] -> C[i + 1 + 2j] }")
	assert.Equal(t, []string{"True", "True"}, out[5:])
}

func TestCalcCardLexSample(t *testing.T) {
	out := calcLines(t, `S := { A[i, j] : 0 <= i < 4 and 0 <= j < 5 and (i + j) mod 2 = 0; B[k] : 3 <= k <= 9 };
		card S; lexmin S; lexmax S; sample S <= S; card { [i] : 0 <= i < 1099511627776 }`)
	require.Len(t, out, 5)
	assert.Equal(t, "17", out[0]) // 10 points in A, 7 in B
	sameSet(t, out[1], "{ A[0, 0]; B[3] }")
	sameSet(t, out[2], "{ A[3, 3]; B[9] }")
	assert.Equal(t, "True", out[3])
	assert.Equal(t, "1099511627776", out[4]) // 2^40 points, counted in closed form
}

func TestCalcStdinAndErrors(t *testing.T) {
	cmd := exec.Command(graphcBin, "calc")
	cmd.Stdin = strings.NewReader("# a comment\nT := { [i] : 0 <= i < 10 };\ncard T;\n")
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	require.NoError(t, cmd.Run(), e.String())
	assert.Equal(t, "10\n", o.String())

	for _, c := range []struct{ expr, msg string }{
		{"card X", "line 1, column 6: unknown variable X"},
		{"{ [i] : 0 <= i < 2 } + { A[i] -> B[i] }", `"+" needs two sets or two maps`},
		{"S := { [i] : i <= 0 };\nlexmin S", "line 2, column 1: lexmin: volume: set is unbounded"},
		{"{ [i] : 0 <= i < }", "line 1, column 18: expected an expression"},
		{"{ [i] : i < N }", "unknown identifier N"},
		{"card [N] -> { [i] : 0 <= i < N }", "bind them first"},
		{"{ [i] } <= { A[i] -> B[i] }", "compares two sets or two maps"},
	} {
		_, stderr, code := runCLI(t, t.TempDir(), "calc", c.expr)
		assert.Equal(t, 1, code, c.expr)
		assert.Contains(t, stderr, c.msg, c.expr)
	}
}

// TestCalcCodegenCompiles compiles the loops `codegen` prints and checks that they visit every
// point of the set once, in lexicographic order.
func TestCalcCodegenCompiles(t *testing.T) {
	out, stderr, code := runCLI(t, t.TempDir(), "calc", "codegen { S[i, j] : 0 <= i < 6 and i <= j < 6 and (i + j) mod 3 = 0 }")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "S(")
	cc, err := exec.LookPath("clang-19")
	if err != nil {
		if cc, err = exec.LookPath("cc"); err != nil {
			t.Skip("no C compiler")
		}
	}
	dir := t.TempDir()
	src := "#include <stdio.h>\n" + volume.CHelpers + `
#define S(i, j) printf("%d %d\n", i, j)
int main(void) {
` + out + `return 0;
}
`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "scan.c"), []byte(src), 0o644))
	bin := filepath.Join(dir, "scan")
	b, err := exec.Command(cc, "-w", "-o", bin, filepath.Join(dir, "scan.c")).CombinedOutput()
	require.NoError(t, err, "%s\n%s", b, src)
	got, err := exec.Command(bin).Output()
	require.NoError(t, err)
	var want strings.Builder
	for i := 0; i < 6; i++ {
		for j := i; j < 6; j++ {
			if (i+j)%3 == 0 {
				want.WriteString(strings.Join([]string{itoa(i), itoa(j)}, " ") + "\n")
			}
		}
	}
	assert.Equal(t, want.String(), string(got), "loops:\n%s", out)
}

func itoa(i int) string { return string(rune('0' + i)) }
