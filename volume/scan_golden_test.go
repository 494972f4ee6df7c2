// This file holds the golden tests of scanning: testdata/scan/*.in holds a set in isl notation
// (with # comments, and "# params N=5" giving parameter values), *.c the C that C prints for its
// scan (refresh with go test ./volume -run Scan -update). Where clang-19 is installed, the
// printed C of every case with parameter values is compiled and run, and must visit the points
// Walk visits, in the same order.

package volume

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func init() {
	// other tests of the package may define -update too: share it
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files")
	}
}

func updateGolden() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// scanCase is one golden case.
type scanCase struct {
	name   string
	set    Set
	params map[string]int64 // nil: no values given
}

func loadScanCases(t *testing.T) []scanCase {
	files, err := filepath.Glob("testdata/scan/*.in")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	var out []scanCase
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		c := scanCase{name: strings.TrimSuffix(filepath.Base(f), ".in")}
		var text []string
		for _, line := range strings.Split(string(data), "\n") {
			if rest, ok := strings.CutPrefix(line, "# params"); ok {
				c.params = map[string]int64{}
				for _, kv := range strings.Fields(rest) {
					k, v, _ := strings.Cut(kv, "=")
					n, err := strconv.ParseInt(v, 10, 64)
					require.NoError(t, err, "%s: %s", f, kv)
					c.params[k] = n
				}
			} else if !strings.HasPrefix(line, "#") {
				text = append(text, line)
			}
		}
		c.set, err = ParseSet(strings.Join(text, "\n"))
		require.NoError(t, err, f)
		if c.params == nil && len(c.set.Params()) == 0 {
			c.params = map[string]int64{}
		}
		out = append(out, c)
	}
	return out
}

// scanNames returns the dimension names and the statement names of a golden case.
func (c scanCase) scanNames() (dims []string, stmts []string) {
	if len(c.set.u.spaces) > 0 {
		dims = c.set.u.spaces[0].out.dims
	}
	for _, n := range c.set.ScanStmtNames() {
		if n == "" {
			n = "S"
		}
		stmts = append(stmts, n)
	}
	return dims, stmts
}

func TestScanGolden(t *testing.T) {
	for _, c := range loadScanCases(t) {
		t.Run(c.name, func(t *testing.T) {
			ast, err := c.set.Scan()
			require.NoError(t, err)
			dims, stmts := c.scanNames()
			got := C(ast, dims, func(k int) string { return stmts[k] })
			golden := filepath.Join("testdata/scan", c.name+".c")
			if updateGolden() {
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
				return
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run go test ./volume -run Scan -update to create it")
			require.Equal(t, string(want), got)
		})
	}
}

// TestScanGoldenClang compiles the printed C of the golden cases into one program and checks that
// each case visits the points Walk visits, in the same order.
func TestScanGoldenClang(t *testing.T) {
	clang, err := exec.LookPath("clang-19")
	if err != nil {
		t.Skip("clang-19 is not installed")
	}
	var prog strings.Builder
	prog.WriteString("#include <stdarg.h>\n#include <stdio.h>\n#include <string.h>\n")
	prog.WriteString(CHelpers)
	prog.WriteString(`static void emit(const char *name, int n, ...) {
  va_list ap;
  va_start(ap, n);
  printf("%s", name);
  for (int i = 0; i < n; i++) printf(" %d", va_arg(ap, int));
  va_end(ap);
  printf("\n");
}
`)
	var want strings.Builder
	var names []string
	for _, c := range loadScanCases(t) {
		if c.params == nil {
			continue
		}
		ast, err := c.set.Scan()
		require.NoError(t, err)
		dims, stmts := c.scanNames()
		fmt.Fprintf(&prog, "static void case_%d(void) {\n", len(names))
		for _, p := range c.set.Params() {
			fmt.Fprintf(&prog, "  int %s = %d;\n", p, c.params[p])
		}
		for _, s := range stmts {
			fmt.Fprintf(&prog, "#define %s(...) emit(%q, %d __VA_OPT__(,) __VA_ARGS__)\n", s, s, len(dims))
		}
		prog.WriteString(C(ast, dims, func(k int) string { return stmts[k] }))
		for _, s := range slices.Compact(slices.Sorted(slices.Values(stmts))) {
			fmt.Fprintf(&prog, "#undef %s\n", s)
		}
		prog.WriteString("}\n")
		fmt.Fprintf(&want, "case %s\n", c.name)
		require.NoError(t, Walk(ast, len(dims), c.params, func(k int, x []int64) {
			want.WriteString(stmts[k])
			for _, v := range x {
				fmt.Fprintf(&want, " %d", v)
			}
			want.WriteString("\n")
		}))
		names = append(names, c.name)
	}
	prog.WriteString("int main(void) {\n")
	for i, n := range names {
		fmt.Fprintf(&prog, "  printf(\"case %s\\n\");\n  case_%d();\n", n, i)
	}
	prog.WriteString("  return 0;\n}\n")
	dir := t.TempDir()
	src := filepath.Join(dir, "scan.c")
	require.NoError(t, os.WriteFile(src, []byte(prog.String()), 0o644))
	bin := filepath.Join(dir, "scan")
	out, err := exec.Command(clang, "-std=gnu2x", "-O1", "-Wall", "-Wno-unused-variable", "-Werror", "-o", bin, src).CombinedOutput()
	require.NoError(t, err, "%s\n%s", out, prog.String())
	got, err := exec.Command(bin).Output()
	require.NoError(t, err)
	require.Equal(t, want.String(), string(got))
	require.Greater(t, len(names), 10)
}
