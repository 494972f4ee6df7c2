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
	"github.com/graphc/graphc/passes"
)

// TestPitchPaddedConv compiles 3×3 convolutions (stride 1 and 2) over 512 channels, whose
// padded channels-last copy gets 528-channel pixels (passes/layout_pad.go: pitch padding), and
// runs them against the evaluator: the relu before each is written in place into the copy,
// whose 16 extra channels the convolution never reads.
func TestPitchPaddedConv(t *testing.T) {
	ps, err := passes.ParsePipeline(passes.DefaultPipeline)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(32, 528))
	const c, k = 512, 8
	var w strings.Builder
	for i := 0; i < k*c*9; i++ {
		if i > 0 {
			w.WriteString(", ")
		}
		fmt.Fprintf(&w, "%.3f", r.Float64()*2-1)
	}
	var names []string
	var cases []*e2e.Case
	for _, stride := range []int{1, 2} {
		out := (5-1)/stride + 1
		text := fmt.Sprintf(`graph @pitch(%%x: f32[1, %d, 5, 5]) {
  %%w = constant dense<[%s]> : f32[%d, %d, 3, 3]
  %%r = relu(%%x) : f32[1, %d, 5, 5]
  %%y = conv(%%r, %%w) {pads = [1, 1, 1, 1], strides = [%d, %d]} : f32[1, %d, %d, %d]
  return %%y
}`, c, w.String(), k, c, c, stride, stride, k, out, out)
		g, err := ir.Parse(text)
		require.NoError(t, err)
		_, err = passes.Run(context.Background(), g, ps, &passes.Options{VerifyEach: true})
		require.NoError(t, err)
		padded := false
		for _, op := range g.Ops {
			if n := op.Result.Type.Shape; len(n) == 4 {
				if x, ok := n[3].IsConst(); ok && x == c+16 {
					padded = true
				}
			}
		}
		require.True(t, padded, "stride %d: a 528-channel copy\n%s", stride, g)
		names = append(names, fmt.Sprintf("pitch-s%d", stride))
		cases = append(cases, &e2e.Case{Graph: g, Inputs: inputsFor(r, g, nil, false)})
	}
	runCasesTol(t, e2e.Host(), names, cases, reassocTolerance)
}
