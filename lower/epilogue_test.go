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

// TestEpilogues checks which elementwise consumers of register-tile contractions fuse into
// them (the strategy says how many) and that the fused kernels compute the evaluator's values,
// on every vector width.
func TestEpilogues(t *testing.T) {
	cases := []struct {
		name, text string
		fused      int // ops in the first contraction's epilogue chain (0: none)
	}{
		{"matmul-bias-relu", `graph @g(%a: f32[37, 64], %b: f32[64, 70], %c: f32[70]) {
  %m = matmul(%a, %b) : f32[37, 70]
  %s = add(%m, %c) : f32[37, 70]
  %r = relu(%s) : f32[37, 70]
  return %r
}`, 2},
		{"matmul-chunks-clip", `graph @g(%a: f32[19, 700], %b: f32[700, 50], %lo: f32[1], %hi: f32[1]) {
  %m = matmul(%a, %b) : f32[19, 50]
  %c = max(%m, %lo) : f32[19, 50]
  %r = min(%c, %hi) : f32[19, 50]
  return %r
}`, 2},
		{"matmul-two-users", `graph @g(%a: f32[20, 30], %b: f32[30, 40]) {
  %m = matmul(%a, %b) : f32[20, 40]
  %r = relu(%m) : f32[20, 40]
  %n = neg(%m) : f32[20, 40]
  %s = add(%r, %n) : f32[20, 40]
  return %s
}`, 0},
		{"matmul-triangle-epilogue", `graph @g(%a: f32[40, 30], %b: f32[30, 40], %c: f32[40, 40]) {
  %m = matmul(%a, %b) : f32[40, 40]
  %s = mul(%m, %c) : f32[40, 40]
  %t = trilu(%s) : f32[40, 40]
  return %t
}`, 0}, // DIE restricts the mul to the triangle: restricted consumers are not fused
		{"conv-residual-relu", `graph @g(%x: f32[1, 16, 9, 11]) {
  %w = constant ` + denseText(16*16*9) + ` : f32[16, 16, 3, 3]
  %b = constant ` + denseText(16) + ` : f32[16]
  %x1 = relu(%x) : f32[1, 16, 9, 11]
  %y = conv(%x1, %w, %b) {pads = [1, 1, 1, 1]} : f32[1, 16, 9, 11]
  %s = add(%y, %x1) : f32[1, 16, 9, 11]
  %r = relu(%s) : f32[1, 16, 9, 11]
  %z = conv(%r, %w) : f32[1, 16, 7, 9]
  return %z
}`, 2},
	}
	r := rand.New(rand.NewPCG(6, 6))
	var names []string
	var ecs []*e2e.Case
	for _, c := range cases {
		g, err := ir.Parse(c.text)
		require.NoError(t, err, c.name)
		ps, err := passes.ParsePipeline(passes.DefaultPipeline)
		require.NoError(t, err)
		_, err = passes.Run(context.Background(), g, ps, &passes.Options{VerifyEach: true})
		require.NoError(t, err)
		for _, cpu := range []string{"x86-64", "haswell", "skylake-avx512"} {
			tgt, err := lower.LoadTarget("x86-64")
			require.NoError(t, err)
			mod, err := lower.Lower(context.Background(), g, lower.Config{Target: tgt, CPU: cpu})
			require.NoError(t, err, c.name)
			got := 0
			for _, s := range mod.Entries[0].Strategies {
				if i := strings.Index(s, "+epilogue("); i >= 0 {
					got = int(s[i+len("+epilogue(")] - '0')
					break
				}
			}
			require.Equal(t, c.fused, got, "%s on %s: %v", c.name, cpu, mod.Entries[0].Strategies)
			verifyModule(t, mod.String(), "")
		}
		names = append(names, c.name)
		ecs = append(ecs, &e2e.Case{Graph: g, Inputs: inputsFor(r, g, nil, true)})
	}
	for _, cpu := range []string{"", "skylake-avx512"} {
		m := e2e.Host()
		m.CPU = cpu
		runCases(t, m, names, ecs)
	}
}

// denseText returns a constant's dense<[...]> text of n values in [-1, 1).
func denseText(n int) string {
	r := rand.New(rand.NewPCG(uint64(n), 3))
	var sb strings.Builder
	sb.WriteString("dense<[")
	for i := 0; i < n; i++ {
		if i > 0 {
			sb.WriteString(", ")
		}
		fmt.Fprintf(&sb, "%.3f", r.Float64()*2-1)
	}
	sb.WriteString("]>")
	return sb.String()
}

// TestEpilogueDedup checks that the layers of an MLP share their fused kernels: one call per
// layer (the bias and relu are epilogues) and at most three kernels however many layers.
func TestEpilogueDedup(t *testing.T) {
	g := optimized(t, mlpText(6, 24))
	mod, err := lower.Lower(context.Background(), g, lower.Config{})
	require.NoError(t, err)
	text := mod.String()
	verifyModule(t, text, "")
	require.Len(t, entryCalls(t, text, "main_graph"), 6)
	require.LessOrEqual(t, kernelDefs(text), 3)
	r := rand.New(rand.NewPCG(9, 9))
	runCases(t, e2e.Host(), []string{"mlp6"}, []*e2e.Case{{Graph: g, Inputs: inputsFor(r, g, nil, false)}})
}
