// This file checks the shared prefetch of the next compile-time panel (contraction.spread,
// TileShape.PanelSpreadMaxRowTiles): which convolutions take it, and that their kernels
// match the evaluator.

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

// TestSpreadPrefetch compiles convolutions with constant weights, channels-last behind a
// relu, and checks which share the prefetch of the next column's panel among the row tiles of
// a column: at 7×7 the 16-register tiles of SSE and AVX2 take 4 rows (7 = 4 + 3), 2 row tiles
// for each of 7 output rows, 14 a column: above the 8 for which every tile prefetches the
// whole panel, within the 24 that share it. At 14×14, 5-row tiles make 3·14 = 42 a column:
// none. AVX-512's tiles prefetch the whole panel for any count. The kernels then run against
// the evaluator, with row counts that leave partial row tiles (7 and 14 rows, 3×3 and 1×1
// windows; 40 output channels: a partial column of tiles too).
func TestSpreadPrefetch(t *testing.T) {
	ps, err := passes.ParsePipeline(passes.DefaultPipeline)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(41, 43))
	consts := func(n int) string { return randomValues(r, n) }
	const c = 48
	conv := func(name string, hw, win, k int) string {
		return fmt.Sprintf(`graph @%s(%%x: f32[1, %d, %d, %d]) {
  %%w = constant dense<[%s]> : f32[%d, %d, %d, %d]
  %%r = relu(%%x) : f32[1, %d, %d, %d]
  %%y = conv(%%r, %%w) {pads = [%d, %d, %d, %d]} : f32[1, %d, %d, %d]
  return %%y
}`, name, c, hw, hw, consts(k*c*win*win), k, c, win, win, c, hw, hw, win/2, win/2, win/2, win/2, k, hw, hw)
	}
	cases := []struct {
		text string
		// spread: the strategy shares the prefetch on SSE and AVX2
		spread bool
	}{
		{conv("conv3x3_7", 7, 3, 40), true},
		// 256 output channels: weight rows 1 KiB apart, packed (panelConflicts)
		{conv("conv1x1_7", 7, 1, 256), true},
		{conv("conv3x3_14", 14, 3, 40), false},
	}
	var names []string
	var ecs []*e2e.Case
	for _, tc := range cases {
		g, err := ir.Parse(tc.text)
		require.NoError(t, err)
		_, err = passes.Run(context.Background(), g, ps, &passes.Options{VerifyEach: true})
		require.NoError(t, err)
		for _, cpu := range []string{"x86-64", "x86-64-v3", "skylake-avx512"} {
			mod, err := lower.Lower(context.Background(), g, lower.Config{CPU: cpu})
			require.NoError(t, err)
			plan := mod.Plan()
			require.Contains(t, plan, "register-tiles", "%s at %s", g.Name, cpu)
			want := tc.spread && cpu != "skylake-avx512"
			require.Equal(t, want, strings.Contains(plan, "spread-prefetch/14"), "%s at %s:\n%s", g.Name, cpu, plan)
			if want {
				require.Contains(t, mod.String(), "llvm.prefetch", "%s at %s", g.Name, cpu)
			}
		}
		names = append(names, g.Name)
		ecs = append(ecs, &e2e.Case{Graph: g, Inputs: inputsFor(r, g, nil, false)})
	}
	// sums of up to 432 products of inputs in [0, 2] and weights in [-1, 1], reassociated (and
	// fused natively)
	tol := func(d ir.DType) (float64, float64) {
		if d == ir.F32 {
			return 1e-5, 2e-5
		}
		return reassocTolerance(d)
	}
	for _, m := range []e2e.Machine{e2e.Host(), e2e.Native(), {Target: "x86-64", CPU: "x86-64-v3"}} {
		t.Run(m.String(), func(t *testing.T) { runCasesTol(t, m, names, ecs, tol) })
	}
}
