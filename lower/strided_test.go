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
)

// TestStridedLanes: on x86-64, an elementwise op that reads its input transposed (the
// requantization and dequantization of a channels-last convolution's i32 result, written in
// NCHW order) runs its body on vectors whose strided lanes are loaded one by one, and a plain
// transpose stays a scalar nest; both give the evaluator's bits.
func TestStridedLanes(t *testing.T) {
	const requant = `mul(cast<f32>(sub(cast<i32>(cast<u8>(select(gt(select(lt(add(round(mul(cast<f32>(in0), in1)), 128.0:f32), 0.0:f32), 0.0:f32, add(round(mul(cast<f32>(in0), in1)), 128.0:f32)), 255.0:f32), 255.0:f32, select(lt(add(round(mul(cast<f32>(in0), in1)), 128.0:f32), 0.0:f32), 0.0:f32, add(round(mul(cast<f32>(in0), in1)), 128.0:f32))))), 128:i32)), 0.5:f32)`
	graph := func(body, elem string) string {
		return `graph @g(%acc: i32[1, 8, 8, 32], %m: f32[32]) {
  %y = generic(%acc, %m) {access = ["{ [i, j, k, l] -> [i, k, l, j] }", "{ [i, j, k, l] -> [j] }"], body = "` + body + `", domain = "{ [i, j, k, l] : i = 0 and 0 <= j < 32 and 0 <= k < 8 and 0 <= l < 8 }", iterators = ["parallel", "parallel", "parallel", "parallel"], out = "{ [i, j, k, l] -> [i, j, k, l] }", type = "` + elem + `[1, 32, 8, 8]"} : ` + elem + `[1, 32, 8, 8]
  return %y
}`
	}
	cases := []struct {
		name, text string
		vector     bool
	}{
		{"requant-transposed", graph(requant, "f32"), true},
		{"transpose", graph("in0", "i32"), false},
	}
	x86, err := lower.LoadTarget("x86-64")
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(3, 4))
	var names []string
	var ecs []*e2e.Case
	for _, c := range cases {
		g, err := ir.Parse(c.text)
		require.NoError(t, err, c.name)
		mod, err := lower.Lower(context.Background(), g, lower.Config{Target: x86})
		require.NoError(t, err, c.name)
		s := mod.Entries[0].Strategies[0]
		require.Equal(t, c.vector, strings.Contains(s, "+vector"), "%s: %s", c.name, s)
		in := inputsFor(r, g, nil, false)
		for i := range in[0].I {
			in[0].I[i] = r.Int64N(2001) - 1000 // around the u8 range once scaled
		}
		for i := range in[1].F {
			in[1].F[i] = float64(float32(0.05 + 0.2*r.Float64()))
		}
		names = append(names, c.name)
		ecs = append(ecs, &e2e.Case{Graph: g, Inputs: in})
	}
	runCases(t, e2e.Host(), names, ecs)
	m := e2e.Host()
	m.VectorBytes = 64
	runCases(t, m, names, ecs)
}
