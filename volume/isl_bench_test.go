// This file times isl itself on the inputs of bench_test.go, so that the figures of this
// package can be compared with isl's on the same machine: `go test -run '^$' -bench . ./volume`
// prints BenchmarkISL/<op> next to the package's own benchmarks. The C driver
// (testdata/islbench/islbench.c) is built at benchmark time; without a C compiler or libisl-dev the
// benchmark is skipped. Each isl result is also compared with this package's (IsEqual), so the
// two sides are known to compute the same sets.

package volume

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// buildISLBench compiles the isl benchmark driver into dir, or skips b.
func buildISLBench(b *testing.B, dir string) string {
	b.Helper()
	if _, err := os.Stat("/usr/include/isl/set.h"); err != nil {
		b.Skip("isl headers not installed (libisl-dev)")
	}
	cc := ""
	for _, c := range []string{"cc", "gcc", "clang"} {
		if p, err := exec.LookPath(c); err == nil {
			cc = p
			break
		}
	}
	if cc == "" {
		b.Skip("no C compiler")
	}
	bin := filepath.Join(dir, "islbench")
	src := filepath.Join("testdata", "islbench", "islbench.c")
	if out, err := exec.Command(cc, "-O2", "-o", bin, src, "-lisl").CombinedOutput(); err != nil {
		b.Skipf("cannot build the isl benchmark: %v\n%s", err, out)
	}
	return bin
}

// runISLBench runs op n times in the driver and returns the total time of the operations and
// isl's result in isl notation.
func runISLBench(bin, op string, n int) (ns int64, result string, err error) {
	cmd := exec.Command(bin, op, strconv.Itoa(n))
	cmd.Stdin = strings.NewReader(strings.Join([]string{benchDomainText, benchBandText, benchEmptyText,
		benchAccessText, benchOutText, benchReqText, benchPiecesText}, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		return 0, "", fmt.Errorf("islbench %s: %w", op, err)
	}
	total, result, ok := strings.Cut(strings.TrimSpace(string(out)), " ")
	if !ok {
		return 0, "", fmt.Errorf("islbench %s: unexpected output %q", op, out)
	}
	ns, err = strconv.ParseInt(total, 10, 64)
	if err != nil {
		return 0, "", fmt.Errorf("islbench %s: %w", op, err)
	}
	return ns, result, nil
}

// BenchmarkISL reports, as ns/op, isl's time for each operation of bench_test.go on the same
// inputs (parsed afresh for each run, outside the timed region).
func BenchmarkISL(b *testing.B) {
	bin := buildISLBench(b, b.TempDir())
	isEmpty := func(s Set) string {
		if s.IsEmpty().holds() {
			return "True"
		}
		return "False"
	}
	for _, c := range []struct {
		name, op string
		want     func() string // this package's result, in isl notation or True/False
	}{
		{"Intersect", "intersect", func() string { return benchDomain.Intersect(benchBand).String() }},
		{"Subtract", "subtract", func() string { return benchDomain.Subtract(benchBand).String() }},
		{"Image", "image", func() string { return benchDomain.Apply(benchAccess).String() }},
		{"Preimage", "preimage", func() string { return benchReq.Preimage(benchOut).String() }},
		{"PreimageMultiAff", "preimage-multi-aff", func() string { return benchReq.Preimage(benchOut).String() }},
		{"IsEmptyNonEmpty", "is-empty-nonempty", func() string { return isEmpty(benchDomain.Intersect(benchBand)) }},
		{"IsEmptyEmpty", "is-empty-empty", func() string { return "True" }},
		{"Coalesce", "coalesce", func() string { return benchPieces.Coalesce().String() }},
	} {
		b.Run(c.name, func(b *testing.B) {
			ns, got, err := runISLBench(bin, c.op, b.N)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(ns)/float64(b.N), "ns/op")
			want := c.want()
			if want == "True" || want == "False" {
				if got != want {
					b.Fatalf("isl answers %s, volume %s", got, want)
				}
				return
			}
			g, err := ParseSet(got)
			if err != nil {
				b.Fatalf("isl's result does not parse: %v\n%s", err, got)
			}
			if !g.IsEqual(MustParseSet(want)).holds() {
				b.Fatalf("isl computes %s, volume %s", got, want)
			}
		})
	}
}
