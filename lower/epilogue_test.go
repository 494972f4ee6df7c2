// This file runs contractions with epilogues (testdata/lowering/epilogues.graph), grouped
// convolutions on register tiles and padding copies written in place against the evaluator.

package lower_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/lower"
	"github.com/graphc/graphc/passes"
)

// TestEpilogues runs the graphs of testdata/lowering/epilogues.graph, whose CHECK lines state
// which elementwise consumers of register-tile contractions fuse into them, against the
// evaluator; their modules verify on every vector width.
func TestEpilogues(t *testing.T) {
	names, gs := fileGraphs(t, "epilogues.graph")
	r := rand.New(rand.NewPCG(6, 6))
	var ecs []*e2e.Case
	for i, g := range gs {
		for _, cpu := range []string{"x86-64", "haswell", "skylake-avx512"} {
			tgt, err := lower.LoadTarget("x86-64")
			require.NoError(t, err)
			mod, err := lower.Lower(context.Background(), g, lower.Config{Target: tgt, CPU: cpu})
			require.NoError(t, err, names[i])
			verifyModule(t, mod.String(), "")
		}
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

// TestEpilogueDedup runs six MLP layers whose bias and relu are epilogues (mlp6_epilogues of
// testdata/lowering/kernel_dedup.graph, whose CHECK lines state one call per layer and three
// kernels) against the evaluator.
func TestEpilogueDedup(t *testing.T) {
	names, gs := fileGraphs(t, "kernel_dedup.graph")
	i := slices.Index(names, "mlp6_epilogues")
	require.GreaterOrEqual(t, i, 0)
	r := rand.New(rand.NewPCG(9, 9))
	runCases(t, e2e.Host(), []string{"mlp6"}, []*e2e.Case{{Graph: gs[i], Inputs: inputsFor(r, gs[i], nil, false)}})
}

// laneByLane matches a vector built one lane at a time (vload's laneLoads).
var laneByLane = regexp.MustCompile(`insertelement <\d+ x float> %\S+, float %\S+, i32 [1-9]`)

// TestGroupedConvTiles checks that grouped convolutions take register tiles whose vectors fit
// the groups' output channels (channels-last where the layout cost check keeps it: 16 channels
// a group; NCHW rows at full width where groups are narrower than the lanes), never load a
// group's input lane by lane, and compute the evaluator's values.
func TestGroupedConvTiles(t *testing.T) {
	cases := []struct {
		name       string
		c, m, g, k int64
		lanes      string // the tile's columns, as the strategy prints them
	}{
		{"g32-mg4", 64, 128, 32, 3, "16x16 "}, // four channels a group: NCHW (the layout cost check refuses channels-last, passes/cost_groups.go)
		{"g4-mg16", 32, 64, 4, 3, "x48 "},
		{"g2-mg6", 8, 12, 2, 1, "16x16 "}, // six a group: NCHW as well
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
