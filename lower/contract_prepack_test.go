package lower_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/lower"
	"github.com/graphc/graphc/passes"
)

// TestPrepackedPanels compiles register-tile kernels whose packed operand is a constant, so
// that its panels are laid out at compile time (contract_prepack.go), and runs them against
// the evaluator: a 3×3 convolution whose 72 input channels leave a short last chunk and whose
// 40 output channels a partial column of tiles, a strided one, and a matmul by a constant
// 200×512 matrix (rows 2 KiB apart: packed). Two convolutions of one shape with different weights check that a kernel
// shared by them reads each op's own panels.
func TestPrepackedPanels(t *testing.T) {
	ps, err := passes.ParsePipeline(passes.DefaultPipeline)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(32, 24))
	consts := func(n int) string { return randomValues(r, n) }
	const c, k = 72, 40
	graphs := []string{
		fmt.Sprintf(`graph @conv(%%x: f32[1, %d, 12, 12]) {
  %%w = constant dense<[%s]> : f32[%d, %d, 3, 3]
  %%v = constant dense<[%s]> : f32[%d, %d, 3, 3]
  %%r = relu(%%x) : f32[1, %d, 12, 12]
  %%y = conv(%%r, %%w) {pads = [1, 1, 1, 1]} : f32[1, %d, 12, 12]
  %%z = conv(%%r, %%v) {pads = [1, 1, 1, 1]} : f32[1, %d, 12, 12]
  %%s = add(%%y, %%z) : f32[1, %d, 12, 12]
  return %%s
}`, c, consts(k*c*9), k, c, consts(k*c*9), k, c, c, k, k, k),
		fmt.Sprintf(`graph @convs2(%%x: f32[1, %d, 16, 16]) {
  %%w = constant dense<[%s]> : f32[%d, %d, 3, 3]
  %%y = conv(%%x, %%w) {pads = [1, 1, 1, 1], strides = [2, 2]} : f32[1, %d, 8, 8]
  return %%y
}`, c, consts(k*c*9), k, c, k),
		fmt.Sprintf(`graph @mm(%%x: f32[30, 200]) {
  %%w = constant dense<[%s]> : f32[200, 512]
  %%y = matmul(%%x, %%w) : f32[30, 512]
  return %%y
}`, consts(200*512)),
	}
	var names []string
	var cases []*e2e.Case
	packed := 0
	for _, text := range graphs {
		g, err := ir.Parse(text)
		require.NoError(t, err)
		_, err = passes.Run(context.Background(), g, ps, &passes.Options{VerifyEach: true})
		require.NoError(t, err)
		mod, err := lower.Lower(context.Background(), g, lower.Config{})
		require.NoError(t, err)
		if strings.Contains(mod.String(), ".packed") {
			packed++
		} else {
			t.Logf("%s: no compile-time panels", g.Name)
		}
		names = append(names, g.Name)
		cases = append(cases, &e2e.Case{Graph: g, Inputs: inputsFor(r, g, nil, false)})
	}
	require.Equal(t, len(graphs), packed, "every graph has compile-time panels")
	runCasesTol(t, e2e.Host(), names, cases, prepackTol)
	runCasesTol(t, e2e.Native(), names, cases, prepackTol)
}

// TestPrepackedPanelsSymbolicRows checks that a constant operand is packed at compile time
// when the other operand's row count is symbolic (a conv1d over T time steps, a matmul over T
// tokens): the panels do not depend on the rows, so the plan reads the packed global
// (prepacked=, and no variant for few rows that would read the weights in place) and the
// kernel copies nothing at run time. Each graph then runs against the evaluator at row counts
// below, at and past a tile's rows (1; 5, 6, 7 around AVX2's 6-row tiles; 13, 50).
func TestPrepackedPanelsSymbolicRows(t *testing.T) {
	ps, err := passes.ParsePipeline(passes.DefaultPipeline)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(32, 25))
	consts := func(n int) string { return randomValues(r, n) }
	mm := func(name string, n int) string {
		return fmt.Sprintf(`graph @%s(%%x: f32[T, 200]) {
  %%w = constant dense<[%s]> : f32[200, %d]
  %%y = matmul(%%x, %%w) : f32[T, %d]
  return %%y
}`, name, consts(200*n), n, n)
	}
	const c, k, taps = 64, 224, 5
	graphs := []struct {
		text string
		cpus []string // where the panels conflict in L1 (planPacks), so that the plan packs
	}{
		// 200×1024 f32 is 800 KiB, past tileStreamBytes: the plan has variants for few rows
		// that stream the weights in place, which compile-time panels replace
		{mm("mm_rows", 1024), []string{"", "x86-64-v3"}},
		// 1030 columns: a partial column of 16-wide tiles
		{mm("mm_partial", 1030), []string{"x86-64-v3"}},
		{fmt.Sprintf(`graph @conv1d_rows(%%x: f32[1, %d, T]) {
  %%w = constant dense<[%s]> : f32[%d, %d, %d]
  %%y = conv(%%x, %%w) {pads = [2, 2]} : f32[1, %d, T]
  return %%y
}`, c, consts(k*c*taps), k, c, taps, k), []string{"", "x86-64-v3"}},
	}
	var names []string
	var cases []*e2e.Case
	for _, gr := range graphs {
		g, err := ir.Parse(gr.text)
		require.NoError(t, err)
		_, err = passes.Run(context.Background(), g, ps, &passes.Options{VerifyEach: true})
		require.NoError(t, err)
		for _, cpu := range gr.cpus {
			mod, err := lower.Lower(context.Background(), g, lower.Config{CPU: cpu})
			require.NoError(t, err)
			require.Contains(t, mod.String(), ".packed", "%s (cpu %q): compile-time panels", g.Name, cpu)
			tiles := 0
			for _, s := range mod.Entries[0].Strategies {
				if !strings.HasPrefix(s, "register-tiles") {
					continue
				}
				tiles++
				require.Contains(t, s, "prepacked=", "%s (cpu %q)", g.Name, cpu)
				require.NotContains(t, s, "+rows<=", "%s (cpu %q): a variant reads the weights in place", g.Name, cpu)
			}
			require.Equal(t, 1, tiles, "%s (cpu %q): one register-tile kernel", g.Name, cpu)
		}
		for _, rows := range []int64{1, 5, 6, 7, 13, 50} {
			p := map[string]int64{"T": rows}
			names = append(names, fmt.Sprintf("%s/T=%d", g.Name, rows))
			cases = append(cases, &e2e.Case{Graph: g, Params: p, Inputs: inputsFor(r, g, p, false)})
		}
	}
	// sums of up to 320 products (64 channels × 5 taps): within prepackTol
	runCasesTol(t, e2e.Host(), names, cases, prepackTol)
	runCasesTol(t, e2e.Native(), names, cases, prepackTol)
}

// randomValues returns n values uniform in [-1, 1], comma-separated, for a constant's text.
func randomValues(r *rand.Rand, n int) string {
	var sb strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			sb.WriteString(", ")
		}
		fmt.Fprintf(&sb, "%.3f", r.Float64()*2-1)
	}
	return sb.String()
}

// prepackTol bounds sums of up to 648 products of inputs in [-2, 2] and weights in [-1, 1],
// reassociated (and fused on the native build): a rounding error of about √n·ε·2 ≈ 3e-6 where
// a sum cancels.
func prepackTol(d ir.DType) (float64, float64) {
	if d == ir.F32 {
		return 1e-5, 2e-5
	}
	return reassocTolerance(d)
}
