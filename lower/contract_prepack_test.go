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
	consts := func(n int) string {
		var sb strings.Builder
		for i := 0; i < n; i++ {
			if i > 0 {
				sb.WriteString(", ")
			}
			fmt.Fprintf(&sb, "%.3f", r.Float64()*2-1)
		}
		return sb.String()
	}
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
	// sums of up to 648 products of inputs in [-2, 2] and weights in [-1, 1], reassociated (and
	// fused on the native build): a rounding error of about √n·ε·2 ≈ 3e-6 where a sum cancels
	tol := func(d ir.DType) (float64, float64) {
		if d == ir.F32 {
			return 1e-5, 2e-5
		}
		return reassocTolerance(d)
	}
	runCasesTol(t, e2e.Host(), names, cases, tol)
	runCasesTol(t, e2e.Native(), names, cases, tol)
}
