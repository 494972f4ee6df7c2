package lower_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"regexp"
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
		{"matmul-square-sigmoid", `graph @g(%a: f32[21, 40], %b: f32[40, 50]) {
  %m = matmul(%a, %b) : f32[21, 50]
  %s = mul(%m, %m) : f32[21, 50]
  %r = sigmoid(%s) : f32[21, 50]
  return %r
}`, 2}, // one consumer reading the result twice (SiLU's x·sigmoid(x) after fuse)
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
		// the result read twice by one consumer (GELU's x·Φ(x) once fuse has merged it)
		{"matmul-square-bias", `graph @g(%a: f32[21, 40], %b: f32[40, 53], %c: f32[53]) {
  %m = matmul(%a, %b) : f32[21, 53]
  %s = mul(%m, %m) : f32[21, 53]
  %t = add(%s, %c) : f32[21, 53]
  return %t
}`, 2},
		// two matmuls of one form whose consumers differ only in reading the result twice or
		// another tensor: their fused kernels must differ
		{"matmul-square-or-product", `graph @g(%a: f32[21, 40], %b: f32[40, 53], %x: f32[21, 53]) {
  %m = matmul(%a, %b) : f32[21, 53]
  %s = mul(%m, %m) : f32[21, 53]
  %n = matmul(%a, %b) : f32[21, 53]
  %p = mul(%n, %x) : f32[21, 53]
  %t = add(%s, %p) : f32[21, 53]
  return %t
}`, 1},
	}
	r := rand.New(rand.NewPCG(6, 6))
	var names []string
	var ecs []*e2e.Case
	for _, c := range cases {
		g, err := ir.Parse(c.text)
		require.NoError(t, err, c.name)
		ps, err := passes.ParsePipeline(unfusedPipeline)
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

// laneByLane matches a vector built one lane at a time (vload's laneLoads).
var laneByLane = regexp.MustCompile(`insertelement <\d+ x float> %\S+, float %\S+, i32 [1-9]`)

// TestGroupedConvTiles checks that grouped convolutions (after channels-last) take register
// tiles whose vectors fit the groups' output channels, and compute the evaluator's values.
func TestGroupedConvTiles(t *testing.T) {
	cases := []struct {
		name       string
		c, m, g, k int64
		lanes      string // the tile's columns, as the strategy prints them
	}{
		{"g32-mg4", 64, 128, 32, 3, "x12 "},
		{"g4-mg16", 32, 64, 4, 3, "x48 "},
		{"g2-mg6", 8, 12, 2, 1, "x6 "},
	}
	r := rand.New(rand.NewPCG(12, 12))
	var names []string
	var ecs []*e2e.Case
	for _, c := range cases {
		oh, ow := 9+2-c.k+1, 10+2-c.k+1
		text := fmt.Sprintf(`graph @g(%%x: f32[1, %d, 9, 10]) {
  %%w = constant %s : f32[%d, %d, %d, %d]
  %%w2 = constant %s : f32[%d, %d, 1, 1]
  %%y = conv(%%x, %%w) {pads = [1, 1, 1, 1], group = %d} : f32[1, %d, %d, %d]
  %%r = relu(%%y) : f32[1, %d, %d, %d]
  %%z = conv(%%r, %%w2) {group = %d} : f32[1, %d, %d, %d]
  return %%z
}`, c.c, denseText(int(c.m*(c.c/c.g)*c.k*c.k)), c.m, c.c/c.g, c.k, c.k, denseText(int(c.m*(c.m/c.g))), c.m, c.m/c.g,
			c.g, c.m, oh, ow, c.m, oh, ow, c.g, c.m, oh, ow)
		g, err := ir.Parse(text)
		require.NoError(t, err, c.name)
		ps, err := passes.ParsePipeline(unfusedPipeline)
		require.NoError(t, err)
		_, err = passes.Run(context.Background(), g, ps, &passes.Options{VerifyEach: true})
		require.NoError(t, err)
		tgt, err := lower.LoadTarget("x86-64")
		require.NoError(t, err)
		mod, err := lower.Lower(context.Background(), g, lower.Config{Target: tgt, CPU: "skylake-avx512"})
		require.NoError(t, err, c.name)
		found := false
		for _, s := range mod.Entries[0].Strategies {
			found = found || strings.HasPrefix(s, "register-tiles") && strings.Contains(s, c.lanes)
		}
		require.True(t, found, "%s: %v", c.name, mod.Entries[0].Strategies)
		// the input within a group is one broadcast per block of lanes, never loaded lane
		// by lane (that ran ResNeXt's grouped convolutions at a tenth of their speed)
		require.False(t, laneByLane.MatchString(mod.String()), "%s: grouped input loaded lane by lane", c.name)
		names = append(names, c.name)
		ecs = append(ecs, &e2e.Case{Graph: g, Inputs: inputsFor(r, g, nil, false)})
	}
	require.NotEmpty(t, names)
	// the x86-64 baseline has no FMA: the evaluator's bits; AVX-512 fuses each product
	runCases(t, e2e.Host(), names, ecs)
	runCasesTol(t, e2e.Machine{Target: "x86-64", CPU: "skylake-avx512"}, names, ecs, func(d ir.DType) (float64, float64) {
		return 1e-5, 1e-4
	})
}

// TestPaddingWrittenInPlace checks that the producers of padded convolution inputs write into
// the padded buffers (the padding copies write only their borders), including through
// epilogues, and that the results are the evaluator's.
func TestPaddingWrittenInPlace(t *testing.T) {
	text := `graph @g(%x: f32[1, 16, 12, 13]) {
  %w1 = constant ` + denseText(32*16) + ` : f32[32, 16, 1, 1]
  %w2 = constant ` + denseText(32*9) + ` : f32[32, 1, 3, 3]
  %w3 = constant ` + denseText(16*32*9) + ` : f32[16, 32, 3, 3]
  %a = conv(%x, %w1) : f32[1, 32, 12, 13]
  %r = relu(%a) : f32[1, 32, 12, 13]
  %d = conv(%r, %w2) {pads = [1, 1, 1, 1], group = 32, strides = [2, 2]} : f32[1, 32, 6, 7]
  %s = sigmoid(%d) : f32[1, 32, 6, 7]
  %z = conv(%s, %w3) {pads = [1, 1, 1, 1]} : f32[1, 16, 6, 7]
  return %z
}`
	g := optimized(t, text)
	mod, err := lower.Lower(context.Background(), g, lower.Config{})
	require.NoError(t, err)
	inPlace := 0
	for _, s := range mod.Entries[0].Strategies {
		if strings.Contains(s, "interior written in place") {
			inPlace++
		}
	}
	require.Equal(t, 2, inPlace, "%v", mod.Entries[0].Strategies)

	verifyModule(t, mod.String(), "")
	r := rand.New(rand.NewPCG(13, 13))
	c := []*e2e.Case{{Graph: g, Inputs: inputsFor(r, g, nil, false)}}
	// float32 sigmoid is a polynomial within 3 ulp (math_vec.go), summed 288 times by the
	// last convolution in vector lanes (reassociated): within 287·ε·Σ|x| ≈ 10^-5 of the
	// evaluator's where the sum cancels, 10^-5 relative elsewhere
	tol := func(d ir.DType) (float64, float64) { return 1e-5, 1e-5 }
	runCasesTol(t, e2e.Host(), []string{"in-place"}, c, tol)
	m := e2e.Host()
	m.VectorBytes = 128
	runCasesTol(t, m, []string{"in-place-vectors"}, c, tol)
}
