package passes_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/passes"
)

// TestFoldHoistsConstantSubexpressions: an inference BatchNorm over a computed activation
// with trained (per-channel, distinct) statistics, followed by a ReLU as in DenseNet's
// pre-activation layers, reads sqrt(var + eps) as a per-channel constant after
// fold-constants: no body takes a square root, the variance is no longer an operand, and the
// values are the evaluator's bits (checkSemantics), alone and in the default pipeline. A
// part that reads constants at different indices (the mean per channel, the variance per
// row) stays in the body.
func TestFoldHoistsConstantSubexpressions(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 2))
	fold := passes.Lookup("fold-constants")
	def, err := passes.ParsePipeline(passes.DefaultPipeline)
	require.NoError(t, err)
	bn := func() string {
		return fmt.Sprintf(`graph @g(%%x: f32[1, 6, 5, 5], %%z: f32[1, 6, 5, 5]) {
  %%a = add(%%x, %%z) : f32[1, 6, 5, 5]
  %%s = constant %s : f32[6]
  %%b = constant %s : f32[6]
  %%m = constant %s : f32[6]
  %%v = constant %s : f32[6]
  %%n = batch_norm(%%a, %%s, %%b, %%m, %%v) {epsilon = 0.00001} : f32[1, 6, 5, 5]
  %%y = relu(%%n) : f32[1, 6, 5, 5]
  return %%y
}`, denseList(r, 6, false, 0, 0), denseList(r, 6, false, 0, 0), denseList(r, 6, false, 0, 0),
			strings.ReplaceAll(denseList(r, 6, false, 0, 0), "-", ""))
	}
	for trial := 0; trial < 3; trial++ {
		text := bn()
		checkSemantics(t, "batch_norm", []*passes.Pass{fold}, text, nil, r)
		checkSemantics(t, "batch_norm (default pipeline)", def, text, nil, r)
		g, err := ir.Parse(text)
		require.NoError(t, err)
		_, err = passes.Run(context.Background(), g, []*passes.Pass{fold}, &passes.Options{VerifyEach: true})
		require.NoError(t, err)
		n := g.OpByName("n")
		require.NotNil(t, n)
		require.NotContains(t, n.Body.String(), "sqrt", "the square root is a constant:\n%s", g)
		for _, o := range n.Operands {
			require.NotEqual(t, "v", o.Name, "the variance is read through its hoisted constant only:\n%s", g)
		}
		for _, c := range g.Consts {
			require.NotEqual(t, "v", c.Name, "the variance as written is dropped:\n%s", g)
		}
	}

	// the mean read per channel and the scale per row: no common index, nothing hoisted
	text := fmt.Sprintf(`graph @g(%%x: f32[4, 6]) {
  %%m = constant %s : f32[6]
  %%w = constant %s : f32[4, 1]
  %%y = generic(%%x, %%m, %%w) {access = ["{ [i, j] -> [i, j] }", "{ [i, j] -> [j] }", "{ [i, j] -> [i, 0] }"], body = "mul(in0, sqrt(add(in1, in2)))", domain = "{ [i, j] : 0 <= i < 4 and 0 <= j < 6 }", iterators = ["parallel", "parallel"], out = "{ [i, j] -> [i, j] }", type = "f32[4, 6]"} : f32[4, 6]
  return %%y
}`, strings.ReplaceAll(denseList(r, 6, false, 0, 0), "-", ""), strings.ReplaceAll(denseList(r, 4, false, 0, 0), "-", ""))
	checkSemantics(t, "two indices", []*passes.Pass{fold}, text, nil, r)
	g, err := ir.Parse(text)
	require.NoError(t, err)
	_, err = passes.Run(context.Background(), g, []*passes.Pass{fold}, &passes.Options{VerifyEach: true})
	require.NoError(t, err)
	require.Contains(t, g.OpByName("y").Body.String(), "sqrt", "reads at different indices stay in the body:\n%s", g)
}

// TestFoldKeepsWideningInBody: a body that dequantizes i8 weights (cast to f32, then
// scaled) keeps the cast in the body: its constant would take four times the weights'
// bytes, and the weights their quantized form.
func TestFoldKeepsWideningInBody(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 4))
	text := fmt.Sprintf(`graph @g(%%x: f32[4, 6]) {
  %%w = constant %s : i8[6]
  %%y = generic(%%x, %%w) {access = ["{ [i, j] -> [i, j] }", "{ [i, j] -> [j] }"], body = "mul(in0, mul(cast<f32>(in1), 0.5:f32))", domain = "{ [i, j] : 0 <= i < 4 and 0 <= j < 6 }", iterators = ["parallel", "parallel"], out = "{ [i, j] -> [i, j] }", type = "f32[4, 6]"} : f32[4, 6]
  return %%y
}`, denseList(r, 6, true, -100, 100))
	checkSemantics(t, "widening", []*passes.Pass{passes.Lookup("fold-constants")}, text, nil, r)
	g, err := ir.Parse(text)
	require.NoError(t, err)
	_, err = passes.Run(context.Background(), g, []*passes.Pass{passes.Lookup("fold-constants")}, &passes.Options{VerifyEach: true})
	require.NoError(t, err)
	require.Contains(t, g.OpByName("y").Body.String(), "cast<f32>(in1)", "the i8 weights stay i8:\n%s", g)
}
