package lower_test

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/lower"
	"github.com/graphc/graphc/passes"
)

// TestConcatWrittenInPlace checks that the producers of a concatenation's operands write into
// the concatenation's buffer (alias.go), so that its copy writes nothing of theirs, and that
// the results are the evaluator's: a SqueezeNet Fire module (two Relu'd convolutions
// concatenated along the channels, the inner dim once channels-last: strided slices of the
// rows; fuse keeps each Relu as its convolution's epilogue, passes/fuse_inplace.go), products
// concatenated along the rows, a gather's nest and a product writing 24 and 40 columns of
// 64-wide rows, and a concatenation one of whose operands has a second reader (that one keeps
// its own buffer and is copied).
func TestConcatWrittenInPlace(t *testing.T) {
	ps, err := passes.ParsePipeline(passes.DefaultPipeline)
	require.NoError(t, err)
	cases := []struct {
		name, text string
		inPlace    []string // the values written in place
	}{
		{"fire", `graph @fire(%x: f32[1, 16, 12, 13]) {
  %w1 = constant ` + denseText(24*16) + ` : f32[24, 16, 1, 1]
  %w3 = constant ` + denseText(40*16*9) + ` : f32[40, 16, 3, 3]
  %ws = constant ` + denseText(16*64) + ` : f32[16, 64, 1, 1]
  %a = conv(%x, %w1) : f32[1, 24, 12, 13]
  %ra = relu(%a) : f32[1, 24, 12, 13]
  %b = conv(%x, %w3) {pads = [1, 1, 1, 1]} : f32[1, 40, 12, 13]
  %rb = relu(%b) : f32[1, 40, 12, 13]
  %c = concat(%ra, %rb) {axis = 1} : f32[1, 64, 12, 13]
  %z = conv(%c, %ws) : f32[1, 16, 12, 13]
  return %z
}`, []string{"ra", "rb"}},
		{"rows", `graph @rows(%x: f32[30, 32]) {
  %w1 = constant ` + denseText(32*48) + ` : f32[32, 48]
  %w2 = constant ` + denseText(48*32) + ` : f32[32, 48]
  %w3 = constant ` + denseText(48*16) + ` : f32[48, 16]
  %a = matmul(%x, %w1) : f32[30, 48]
  %ra = relu(%a) : f32[30, 48]
  %b = matmul(%x, %w2) : f32[30, 48]
  %c = concat(%ra, %b) {axis = 0} : f32[60, 48]
  %y = matmul(%c, %w3) : f32[60, 16]
  return %y
}`, []string{"ra", "b"}},
		{"gathered", `graph @gathered(%t: f32[10, 24], %x: f32[30, 16]) {
  %i = constant dense<[3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4, 6, 2, 6, 4, 3, 3, 8, 3, 2, 7]> : i64[30]
  %w = constant ` + denseText(16*40) + ` : f32[16, 40]
  %w2 = constant ` + denseText(64*8) + ` : f32[64, 8]
  %y = gather(%t, %i) {axis = 0} : f32[30, 24]
  %b = matmul(%x, %w) : f32[30, 40]
  %c = concat(%y, %b) {axis = 1} : f32[30, 64]
  %z = matmul(%c, %w2) : f32[30, 8]
  return %z
}`, []string{"y", "b"}},
		{"shared", `graph @shared(%x: f32[1, 16, 12, 13]) {
  %w1 = constant ` + denseText(24*16) + ` : f32[24, 16, 1, 1]
  %w3 = constant ` + denseText(24*16*9) + ` : f32[24, 16, 3, 3]
  %ws = constant ` + denseText(24*48) + ` : f32[24, 48, 1, 1]
  %a = conv(%x, %w1) : f32[1, 24, 12, 13]
  %ra = relu(%a) : f32[1, 24, 12, 13]
  %b = conv(%x, %w3) {pads = [1, 1, 1, 1]} : f32[1, 24, 12, 13]
  %rb = relu(%b) : f32[1, 24, 12, 13]
  %c = concat(%ra, %rb) {axis = 1} : f32[1, 48, 12, 13]
  %z = conv(%c, %ws) : f32[1, 24, 12, 13]
  %s = add(%z, %ra) : f32[1, 24, 12, 13]
  return %s
}`, []string{"rb"}},
	}
	r := rand.New(rand.NewPCG(41, 7))
	var names []string
	var ecs []*e2e.Case
	for _, c := range cases {
		g, err := ir.Parse(c.text)
		require.NoError(t, err, c.name)
		_, err = passes.Run(context.Background(), g, ps, &passes.Options{VerifyEach: true})
		require.NoError(t, err, c.name)
		for _, cpu := range []string{"", "x86-64-v3"} {
			mod, err := lower.Lower(context.Background(), g, lower.Config{CPU: cpu})
			require.NoError(t, err, c.name)
			var got []string
			for _, op := range mod.Entries[0].Plan.Ops {
				if strings.HasPrefix(op.Buffer, "in place in %c ") {
					// the value itself, or the epilogue that computes it in its
					// convolution's kernel (channels-last renames the convolution)
					got = append(got, strings.TrimSuffix(op.Result, "_nhwc"))
				}
			}
			require.ElementsMatch(t, c.inPlace, got, "%s (cpu %q): values written into %%c", c.name, cpu)
			verifyModule(t, mod.String(), "")
		}
		names = append(names, c.name)
		ecs = append(ecs, &e2e.Case{Graph: g, Inputs: inputsFor(r, g, nil, false)})
	}
	// sums of up to 144 products (16 channels × 9 taps) then 64, reassociated in vector
	// lanes (fused natively): as TestPaddingWrittenInPlace
	tol := func(d ir.DType) (float64, float64) { return 1e-5, 1e-5 }
	runCasesTol(t, e2e.Host(), names, ecs, tol)
	runCasesTol(t, e2e.Native(), names, ecs, tol)
}
