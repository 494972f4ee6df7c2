// This file cross-checks the package with isl itself, where libisl-dev is installed: a small C
// driver built at test time parses what this package prints and computes the same operations;
// the results are parsed back here and compared exactly (IsEqual). Without a C compiler or isl
// the test is skipped.

package volume

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// islDriver reads requests "op<TAB>a<TAB>b" line by line and answers each with one line: the
// result in isl notation, "True"/"False", or "ERROR".
const islDriver = `#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <isl/ctx.h>
#include <isl/options.h>
#include <isl/union_set.h>
#include <isl/union_map.h>

static char line[1 << 20];

int main(void) {
	isl_ctx *ctx = isl_ctx_alloc();
	isl_options_set_on_error(ctx, ISL_ON_ERROR_CONTINUE);
	while (fgets(line, sizeof line, stdin)) {
		line[strcspn(line, "\n")] = 0;
		char *op = strtok(line, "\t"), *a = strtok(NULL, "\t"), *b = strtok(NULL, "\t");
		char *out = NULL;
		if (!strcmp(op, "set")) {
			isl_union_set *s = isl_union_set_read_from_str(ctx, a);
			out = s ? isl_union_set_to_str(s) : NULL;
			isl_union_set_free(s);
		} else if (!strcmp(op, "map")) {
			isl_union_map *m = isl_union_map_read_from_str(ctx, a);
			out = m ? isl_union_map_to_str(m) : NULL;
			isl_union_map_free(m);
		} else if (!strcmp(op, "intersect") || !strcmp(op, "subtract") || !strcmp(op, "union") || !strcmp(op, "subset")) {
			isl_union_set *x = isl_union_set_read_from_str(ctx, a);
			isl_union_set *y = isl_union_set_read_from_str(ctx, b);
			if (x && y) {
				if (!strcmp(op, "subset")) {
					out = strdup(isl_union_set_is_subset(x, y) ? "True" : "False");
					isl_union_set_free(x);
					isl_union_set_free(y);
				} else {
					isl_union_set *r = !strcmp(op, "intersect") ? isl_union_set_intersect(x, y) :
						!strcmp(op, "subtract") ? isl_union_set_subtract(x, y) : isl_union_set_union(x, y);
					out = r ? isl_union_set_to_str(r) : NULL;
					isl_union_set_free(r);
				}
			}
		} else if (!strcmp(op, "apply") || !strcmp(op, "preimage")) {
			isl_union_set *x = isl_union_set_read_from_str(ctx, a);
			isl_union_map *m = isl_union_map_read_from_str(ctx, b);
			if (x && m) {
				if (!strcmp(op, "preimage"))
					m = isl_union_map_reverse(m);
				isl_union_set *r = isl_union_set_apply(x, m);
				out = r ? isl_union_set_to_str(r) : NULL;
				isl_union_set_free(r);
			}
		} else if (!strcmp(op, "compose")) {
			isl_union_map *x = isl_union_map_read_from_str(ctx, a);
			isl_union_map *y = isl_union_map_read_from_str(ctx, b);
			if (x && y) {
				isl_union_map *r = isl_union_map_apply_range(x, y);
				out = r ? isl_union_map_to_str(r) : NULL;
				isl_union_map_free(r);
			}
		}
		printf("%s\n", out ? out : "ERROR");
		fflush(stdout);
		free(out);
	}
	isl_ctx_free(ctx);
	return 0;
}
`

type isl struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

// startISL builds and starts the driver, or skips the test.
func startISL(t *testing.T) *isl {
	t.Helper()
	if _, err := os.Stat("/usr/include/isl/union_set.h"); err != nil {
		t.Skip("isl headers not installed (libisl-dev)")
	}
	cc := ""
	for _, c := range []string{"cc", "gcc", "clang", "clang-19"} {
		if p, err := exec.LookPath(c); err == nil {
			cc = p
			break
		}
	}
	if cc == "" {
		t.Skip("no C compiler")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "drv.c")
	if err := os.WriteFile(src, []byte(islDriver), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "drv")
	if out, err := exec.Command(cc, "-O1", "-o", bin, src, "-lisl").CombinedOutput(); err != nil {
		t.Skipf("cannot build the isl driver: %v\n%s", err, out)
	}
	cmd := exec.Command(bin)
	in, _ := cmd.StdinPipe()
	outp, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot run the isl driver: %v", err)
	}
	sc := bufio.NewScanner(outp)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	d := &isl{cmd: cmd, in: in, out: sc}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	return d
}

func (d *isl) ask(t *testing.T, op string, args ...string) string {
	t.Helper()
	fmt.Fprintf(d.in, "%s\t%s\n", op, strings.Join(args, "\t"))
	if !d.out.Scan() {
		t.Fatalf("isl driver died on %s %v", op, args)
	}
	return d.out.Text()
}

func TestISLCrossCheck(t *testing.T) {
	d := startISL(t)
	setOf := func(what, text string) (Set, bool) {
		if text == "ERROR" {
			t.Errorf("isl failed on %s", what)
			return Set{}, false
		}
		s, err := ParseSet(text)
		if err != nil {
			t.Errorf("isl's output for %s does not parse: %v\n%s", what, err, text)
			return Set{}, false
		}
		return s, true
	}
	cases(t, 50, func(t *testing.T, g *gen) bool {
		va, a := g.set(2)
		vb, b := g.set(2)
		_, m := g.mapv(3)
		// isl reads the generated text (mods, floors, coefficients before mods, negations,
		// exists) as the parser does
		for _, v := range []struct {
			text string
			s    Set
		}{{va.text, a}, {vb.text, b}} {
			r, ok := setOf("reading "+v.text, d.ask(t, "set", v.text))
			if !ok || !r.IsEqual(v.s).holds() {
				t.Errorf("isl reads %s as %s, graphc as %s", v.text, r, v.s)
				return false
			}
		}
		// isl reads what we print, with the same meaning
		for _, s := range []Set{a, b} {
			r, ok := setOf("reading "+s.String(), d.ask(t, "set", s.String()))
			if !ok || !r.IsEqual(s).holds() {
				t.Errorf("isl reads %s as %s", s, r)
				return false
			}
		}
		mr, err := ParseMap(d.ask(t, "map", m.String()))
		if err != nil || !mr.IsEqual(m).holds() {
			t.Errorf("isl reads %s as %s (%v)", m, mr, err)
			return false
		}
		// the same operations give the same results
		for _, c := range []struct {
			op   string
			got  Set
			args []string
		}{
			{"intersect", a.Intersect(b), []string{a.String(), b.String()}},
			{"subtract", a.Subtract(b), []string{a.String(), b.String()}},
			{"union", a.Union(b), []string{a.String(), b.String()}},
			{"apply", a.Apply(m), []string{a.String(), m.String()}},
			{"preimage", a.Preimage(m), []string{a.String(), m.String()}},
		} {
			want, ok := setOf(c.op, d.ask(t, c.op, c.args...))
			if !ok {
				return false
			}
			if !c.got.IsEqual(want).holds() {
				t.Errorf("%s(%s): volume %s, isl %s", c.op, strings.Join(c.args, ", "), c.got, want)
				return false
			}
		}
		if got, want := a.IsSubset(b).holds(), d.ask(t, "subset", a.String(), b.String()) == "True"; got != want {
			t.Errorf("IsSubset(%s, %s) = %v, isl %v", a, b, got, want)
			return false
		}
		return true
	})
}
