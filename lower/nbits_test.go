// This file tests the nbits-gemv kernel (nbits.go) on testdata/lowering/nbits_gemv.graph's
// graphs, whose CHECK lines state its lowering: values against the evaluator as x86-64 code
// for the host, for x86-64-v3 (AVX2) and for baseline x86-64, and as hexagonv67 code (integer HVX, scalar float)
// under qemu-hexagon; and HVX instructions in llc-19's hexagonv68 assembly of its loop.

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
	// the block loop: a loop label followed by HVX float arithmetic and vector moves
	loop := regexp.MustCompile(`(?s)\.LBB\d+_\d+:.*?endloop|(?s)\.LBB\d+_\d+:.*?jump`)
	require.Regexp(t, loop, kernel)
	require.Regexp(t, `qf32|\.sf`, kernel, "HVX float arithmetic")
	require.Greater(t, len(hvxPattern.FindAllString(kernel, -1)), 8, "HVX instructions in the kernel")
}
