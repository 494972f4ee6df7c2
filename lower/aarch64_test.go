// This file tests AArch64 code under qemu-aarch64 against the evaluator: the register-tile
// contractions (8×3 NEON tiles with fused multiply-adds) and the integer dot-product kernels of
// every AArch64 family (portable widening on generic, sdot with dotprod, usdot with i8mm),
// and checks with llc-19 that their hot loops are fmla, sdot and usdot instructions.

package lower_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/lower"
)

// aarch64FMATol bounds fused multiply-adds against the evaluator's separate roundings (sums of
// up to 600 products of [-1, 1] values).
func aarch64FMATol(d ir.DType) (float64, float64) {
	if d == ir.F64 {
		return 1e-13, 1e-13
	}
	return 1e-5, 1e-4
}

// TestAArch64Contractions runs contractions.graph as generic and cortex-x2 code.
func TestAArch64Contractions(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 7))
	names, gs := fileGraphs(t, "contractions.graph")
	var cases []*e2e.Case
	for _, g := range gs {
		cases = append(cases, &e2e.Case{Graph: g, Inputs: inputsFor(r, g, nil, false)})
	}
	for _, cpu := range []string{"generic", "cortex-x2"} {
		t.Run(cpu, func(t *testing.T) { runCasesTol(t, e2e.AArch64(cpu), names, cases, aarch64FMATol) })
	}
}

// TestAArch64IntDotKernels runs the quantized contractions of intDotGraphs with each AArch64
// instruction family.
func TestAArch64IntDotKernels(t *testing.T) {
	names, gs := intDotGraphs(t)
	r := rand.New(rand.NewPCG(5, 6))
	var cases []*e2e.Case
	for _, g := range gs {
		in := inputsFor(r, g, nil, false)
		for _, x := range in {
			lo, hi, _ := ir.QuantRange(x.Elem)
			for i := range x.I {
				x.I[i] = int64(lo) + r.Int64N(int64(hi-lo)+1)
			}
		}
		cases = append(cases, &e2e.Case{Graph: g, Inputs: in})
	}
	// cortex-x2: matrix products on usmmla, convolutions on usdot
	for _, mc := range []struct{ cpu, kind string }{{"generic", "generic"}, {"cortex-a76", "neon-sdot"}, {"cortex-x2", "neon-us(mmla gemm|dot conv|dot depthwise)"}} {
		t.Run(mc.cpu, func(t *testing.T) {
			m := e2e.AArch64(mc.cpu)
			cfg, err := m.Config()
			require.NoError(t, err)
			for i, g := range gs {
				mod, err := lower.Lower(context.Background(), g, cfg)
				require.NoError(t, err, names[i])
				require.Regexp(t, "int-dot "+mc.kind, mod.Entries[0].Strategies[0], "%s: %s", names[i], lower.WhyNotIntDot(g.Ops[0], cfg))
			}
			runCases(t, m, names, cases)
		})
	}
}

// aarch64Asm compiles g for cpu with llc-19 and returns the assembly.
func aarch64Asm(t *testing.T, llc string, g *ir.Graph, cpu string) string {
	t.Helper()
	cfg, err := e2e.AArch64(cpu).Config()
	require.NoError(t, err)
	mod, err := lower.Lower(context.Background(), g, cfg)
	require.NoError(t, err)
	ll := filepath.Join(t.TempDir(), "m.ll")
	require.NoError(t, os.WriteFile(ll, []byte(mod.String()), 0o644))
	out, err := exec.Command(llc, "-O2", "-mtriple=aarch64-unknown-linux-gnu", "-mcpu="+cpu, ll, "-o", "-").CombinedOutput()
	require.NoError(t, err, firstLines(string(out), 20))
	return string(out)
}

// TestAArch64HotLoopInstructions: llc-19 turns the float tiles into fmla on 4 lanes and the
// integer kernels into sdot (cortex-a76) and usdot or sudot (cortex-x2; the broadcast
// activations taken by element), inside loops.
func TestAArch64HotLoopInstructions(t *testing.T) {
	llc, err := exec.LookPath("llc-19")
	if err != nil {
		t.Skip("llc-19 not installed")
	}
	fmla := regexp.MustCompile(`\bfmla\s+v\d+\.4s, v\d+\.4s, v\d+\.(4s|s\[\d\])`)
	names, gs := fileGraphs(t, "contractions.graph")
	n, full := 0, 0
	for i, g := range gs {
		cfg, err := e2e.AArch64("cortex-a76").Config()
		require.NoError(t, err)
		mod, err := lower.Lower(context.Background(), g, cfg)
		require.NoError(t, err)
		if !strings.HasPrefix(mod.Entries[0].Strategies[len(mod.Entries[0].Strategies)-1], "register-tiles 8x12") || g.Outputs[0].Type.Elem != ir.F32 {
			continue
		}
		n++
		k := len(fmla.FindAllString(hotLoops(aarch64Asm(t, llc, g, "cortex-a76")), -1))
		require.GreaterOrEqual(t, k, 3, "%s: fmla in loops", names[i])
		if k >= 24 {
			full++ // the whole 8×3 tile's multiply-adds in one loop
		}
	}
	require.Positive(t, n, "some contraction takes 8×12 tiles")
	require.Positive(t, full, "some tile loop holds 24 fmla")
	inames, igs := intDotGraphs(t)
	for _, c := range []struct{ cpu, instr string }{{"cortex-a76", "sdot"}, {"cortex-x2", "(usdot|sudot|usmmla)"}} {
		re := regexp.MustCompile(`\b` + c.instr + `\s+v\d+\.4s, v\d+\.16b, v\d+\.(16b|4b\[\d\])`)
		for i, g := range igs {
			if strings.HasPrefix(inames[i], "depthwise") {
				continue // 9-tap reductions: i32 multiplies of widened bytes
			}
			asm := aarch64Asm(t, llc, g, c.cpu)
			require.GreaterOrEqual(t, len(re.FindAllString(hotLoops(asm), -1)), 4, fmt.Sprintf("%s on %s: %s in loops", inames[i], c.cpu, c.instr))
		}
	}
}

// hotLoops returns the assembly of the basic blocks that branch back to themselves (the
// innermost loops): from a label to a branch to that label.
func hotLoops(asm string) string {
	lines := strings.Split(asm, "\n")
	var sb strings.Builder
	for i, l := range lines {
		label, ok := strings.CutSuffix(strings.TrimSpace(strings.SplitN(l, "//", 2)[0]), ":")
		if !ok || !strings.HasPrefix(label, ".LBB") {
			continue
		}
		for j := i + 1; j < len(lines); j++ {
			f := strings.Fields(lines[j])
			if len(f) >= 2 && strings.HasPrefix(f[0], "b") && f[len(f)-1] == label {
				sb.WriteString(strings.Join(lines[i:j+1], "\n"))
				sb.WriteString("\n")
				break
			}
		}
	}
	return sb.String()
}
