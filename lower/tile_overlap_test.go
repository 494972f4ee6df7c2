// This file tests the register tiles whose columns are more than a vector but not whole vectors
// (columnGroups): NCHW rows of 14 or 28 pixels, a matmul of 28 columns. Their last vector
// overlaps the one before it instead of splitting into a half and a quarter vector.

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

// partialVector matches a vector of 2 or 4 floats (a half or a quarter of AVX2's 8 lanes).
var partialVector = regexp.MustCompile(`<[24] x float>`)

// TestTileColumnsOverlap checks that grouped and plain convolutions over rows of 14 and 28
// pixels (ShuffleNet v1's 14×14 and 28×28 stages, grouped 1×1 convolutions read NCHW), a
// 3×3 convolution with pads at that width and a 20-column matmul run their tiles on whole
// 8-lane vectors at AVX2 (before, 14 columns took 8 + 4 + 2 lanes, 6×3 accumulators that
// spilled), and that rows of 7 (the 7×7 stage) take 4-row tiles of one vector a row (a
// half, a quarter and a scalar register: 6 rows spilled), with residual and Relu epilogues,
// and give the evaluator's results on random inputs.
func TestTileColumnsOverlap(t *testing.T) {
	cases := []struct {
		name string
		text string
		tile string // the tile shape the strategy prints, when the case checks it
	}{
		{"grouped-1x1-14", fmt.Sprintf(`graph @g(%%x: f32[1, 16, 14, 14], %%s: f32[1, 24, 14, 14]) {
  %%w = constant %s : f32[24, 4, 1, 1]
  %%y = conv(%%x, %%w) {group = 4} : f32[1, 24, 14, 14]
  %%a = add(%%y, %%s) : f32[1, 24, 14, 14]
  %%r = relu(%%a) : f32[1, 24, 14, 14]
  return %%r
}`, denseText(24*4)), ""},
		{"grouped-1x1-7", fmt.Sprintf(`graph @g(%%x: f32[1, 32, 7, 7]) {
  %%w = constant %s : f32[32, 8, 1, 1]
  %%y = conv(%%x, %%w) {group = 4} : f32[1, 32, 7, 7]
  return %%y
}`, denseText(32*8)), "register-tiles 4x8 "},
		{"grouped-1x1-28", fmt.Sprintf(`graph @g(%%x: f32[1, 12, 28, 28]) {
  %%w = constant %s : f32[12, 3, 1, 1]
  %%y = conv(%%x, %%w) {group = 4} : f32[1, 12, 28, 28]
  %%r = relu(%%y) : f32[1, 12, 28, 28]
  return %%r
}`, denseText(12*3)), ""},
		{"depthwise-3x3-14", fmt.Sprintf(`graph @g(%%x: f32[1, 8, 14, 14]) {
  %%w = constant %s : f32[8, 1, 3, 3]
  %%y = conv(%%x, %%w) {pads = [1, 1, 1, 1], group = 8} : f32[1, 8, 14, 14]
  return %%y
}`, denseText(8*9)), ""},
		{"conv-3x3-s2-28", fmt.Sprintf(`graph @g(%%x: f32[1, 3, 28, 28]) {
  %%w = constant %s : f32[8, 3, 3, 3]
  %%y = conv(%%x, %%w) {pads = [1, 1, 1, 1], strides = [2, 2]} : f32[1, 8, 14, 14]
  return %%y
}`, denseText(8*3*9)), ""},
		{"matmul-28", fmt.Sprintf(`graph @g(%%x: f32[9, 32]) {
  %%w = constant %s : f32[32, 28]
  %%y = matmul(%%x, %%w) : f32[9, 28]
  return %%y
}`, denseText(32*28)), ""},
	}
	tgt, err := lower.LoadTarget("x86-64")
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(32, 14))
	var names []string
	var ecs []*e2e.Case
	for _, c := range cases {
		g, err := ir.Parse(c.text)
		require.NoError(t, err, c.name)
		// NCHW throughout (channels-last would take the plain 7×7 convolution): the
		// default pipeline without fuse and channels-last
		gl, err := ir.Parse(c.text)
		require.NoError(t, err, c.name)
		ps, err := passes.ParsePipeline(strings.Replace(unfusedPipeline, ",channels-last", "", 1))
		require.NoError(t, err)
		_, err = passes.Run(context.Background(), gl, ps, &passes.Options{VerifyEach: true})
		require.NoError(t, err)
		mod, err := lower.Lower(context.Background(), gl, lower.Config{Target: tgt, CPU: "x86-64-v3"})
		require.NoError(t, err, c.name)
		tiles := false
		for _, s := range mod.Entries[0].Strategies {
			tiles = tiles || strings.HasPrefix(s, "register-tiles") && strings.HasPrefix(s, c.tile)
		}
		require.True(t, tiles, "%s: %v", c.name, mod.Entries[0].Strategies)
		for _, f := range mod.LLVM.Funcs {
			if c.tile != "" {
				break // fewer columns than a vector: a half, a quarter and a scalar register
			}
			if strings.Contains(f.Name(), ".conv") || strings.Contains(f.Name(), ".matmul") {
				require.False(t, partialVector.MatchString(f.LLString()), "%s: %s keeps half or quarter vectors", c.name, f.Name())
			}
		}
		names = append(names, c.name)
		ecs = append(ecs, &e2e.Case{Graph: g, Inputs: inputsFor(r, g, nil, false)})
	}
	// x86-64-v3 fuses each product and sum (FMA): not the evaluator's bits
	runCasesTol(t, e2e.Machine{Target: "x86-64", CPU: "x86-64-v3"}, names, ecs, func(ir.DType) (float64, float64) {
		return 1e-5, 1e-4
	})
}
