// This file tests the nbits-gemv kernel (nbits.go) on testdata/lowering/nbits_gemv.graph's
// graphs, whose CHECK lines state its lowering: values against the evaluator as x86-64 code
// for the host, for x86-64-v3 (AVX2) and for baseline x86-64, and as hexagonv67 code (integer HVX, scalar float)
// under qemu-hexagon; and HVX loads, float multiplies and adds inside the inner loop of llc-19's
// hexagonv68 assembly.

package lower_test

import (
	"context"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/lower"
)

func TestNBitsKernelValues(t *testing.T) {
	names, gs := fileGraphs(t, "nbits_gemv.graph")
	r := rand.New(rand.NewPCG(34, 1))
	var cases []*e2e.Case
	for _, g := range gs {
		cases = append(cases, &e2e.Case{Graph: g, Inputs: inputsFor(r, g, nil, false)})
	}
	// AVX2 (x86-64-v3) beside the host's AVX-512 and baseline SSE2: the nibble lanes at 8, 16
	// and 4 lanes
	for _, m := range []e2e.Machine{e2e.Native(), {Target: "x86-64", CPU: "x86-64-v3"}, e2e.Host(), e2e.HexagonHVX()} {
		// sums in vector lanes, blocks scaled then accumulated: reassociated
		t.Run(m.String(), func(t *testing.T) { runCasesTol(t, m, names, cases, reassocTolerance) })
	}
}

// TestNBitsHVXAssembly: built for hexagonv68 with HVX, the kernel's block loop unpacks,
// converts and multiplies in HVX registers.
func TestNBitsHVXAssembly(t *testing.T) {
	llc, err := exec.LookPath("llc-19")
	if err != nil {
		t.Skip("llc-19 not installed")
	}
	_, gs := fileGraphs(t, "nbits_gemv.graph")
	hex, err := lower.LoadTarget("hexagon")
	require.NoError(t, err)
	mod, err := lower.Lower(context.Background(), gs[0], lower.Config{Target: hex})
	require.NoError(t, err)
	ll := filepath.Join(t.TempDir(), "m.ll")
	verifyModule(t, mod.String(), ll)
	out, err := exec.Command(llc, "-O2", "-relocation-model=pic", ll, "-o", "-").CombinedOutput()
	require.NoError(t, err, firstLines(string(out), 20))
	asm := string(out)
	start := strings.Index(asm, "main_graph.k0.matmul_nbits:")
	require.GreaterOrEqual(t, start, 0, "the kernel's label")
	end := strings.Index(asm[start:], ".Lfunc_end")
	require.Greater(t, end, 0)
	kernel := asm[start : start+end]
	// the block loop, an inner loop (llc marks its header), up to its back edge: HVX float
	// arithmetic and vector instructions in its body, the unpacking not left to scalar code
	loops := innerLoops(kernel)
	require.NotEmpty(t, loops, "inner loops of the kernel")
	hot := ""
	for _, l := range loops {
		if len(hvxPattern.FindAllString(l, -1)) > len(hvxPattern.FindAllString(hot, -1)) {
			hot = l
		}
	}
	require.Regexp(t, `v\d+\.qf32 = vmpy\(|v\d+\.qf32 = vadd\(`, hot, "HVX float multiplies and adds in the inner loop")
	require.Regexp(t, `= vmem\(`, hot, "HVX vector loads in the inner loop")
	require.Greater(t, len(hvxPattern.FindAllString(hot, -1)), 8, "HVX instructions in the inner loop")
}

// innerLoops returns the bodies of the inner loops of Hexagon assembly: from each label llc
// marks "This Inner Loop Header" to the branch back to it (a jump or a hardware loop's end).
func innerLoops(asm string) []string {
	header := regexp.MustCompile(`(?m)^(\.LBB\d+_\d+):[^\n]*\n(?:[ \t]*//[^\n]*\n)*?[ \t]*// =>\s*This Inner Loop Header`)
	var out []string
	for _, m := range header.FindAllStringSubmatchIndex(asm, -1) {
		label := asm[m[2]:m[3]]
		body := asm[m[0]:]
		back := regexp.MustCompile(`jump(?::\w+)? ` + regexp.QuoteMeta(label) + `\b|:endloop0`)
		if e := back.FindStringIndex(body[len(label):]); e != nil {
			out = append(out, body[:len(label)+e[1]])
		}
	}
	return out
}
