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

// denseList prints n random elements as a dense<[...]> literal (integers in [lo, hi] when
// integer is set).
func denseList(r *rand.Rand, n int, integer bool, lo, hi int) string {
	parts := make([]string, n)
	for i := range parts {
		if integer {
			parts[i] = fmt.Sprint(lo + r.IntN(hi-lo+1))
		} else {
			parts[i] = fmt.Sprintf("%.4f", r.Float64()*2-1)
		}
	}
	return "dense<[" + strings.Join(parts, ", ") + "]>"
}

// foldCase is a graph whose contraction or normalisation reads a weight computed by a
// constant subgraph (what exporters and converters write), with the value that must reach it
// as a constant after fold-constants (or stay computed, when keep is set).
type foldCase struct {
	name   string
	text   func(r *rand.Rand) string
	weight string // the op whose operands must all be constants or graph inputs afterwards
	keep   string // an op that must stay (a fill as large as what it is added to)
	ops    int    // ops left after folding (default 1)
}

var foldCases = []foldCase{
	{name: "fill_matmul", weight: "y", text: func(r *rand.Rand) string {
		return `graph @g(%x: f32[4, 8]) {
  %w = fill() {type = "f32[8, 6]", value = 0.25} : f32[8, 6]
  %y = matmul(%x, %w) : f32[4, 6]
  return %y
}`
	}},
	{name: "fill_conv_batchnorm", weight: "c", ops: 2, text: func(r *rand.Rand) string {
		// a light zoo net: every weight a ConstantOfShape, BatchNorm statistics too
		return `graph @g(%x: f32[1, 3, 6, 6]) {
  %w = fill() {type = "f32[4, 3, 3, 3]", value = 0.02} : f32[4, 3, 3, 3]
  %c = conv(%x, %w) {pads = [1, 1, 1, 1]} : f32[1, 4, 6, 6]
  %s = fill() {type = "f32[4]", value = 1.5} : f32[4]
  %b = fill() {type = "f32[4]", value = -0.5} : f32[4]
  %m = fill() {type = "f32[4]", value = 0.1} : f32[4]
  %v = fill() {type = "f32[4]", value = 2.0} : f32[4]
  %y = batch_norm(%c, %s, %b, %m, %v) {epsilon = 0.00001} : f32[1, 4, 6, 6]
  return %y
}`
	}},
	{name: "expand_matmul", weight: "y", text: func(r *rand.Rand) string {
		return fmt.Sprintf(`graph @g(%%x: f32[3, 5]) {
  %%c = constant %s : f32[1, 4]
  %%w = expand(%%c) {shape = "[5, 4]"} : f32[5, 4]
  %%y = matmul(%%x, %%w) : f32[3, 4]
  return %%y
}`, denseList(r, 4, false, 0, 0))
	}},
	{name: "tile_matmul", weight: "y", text: func(r *rand.Rand) string {
		return fmt.Sprintf(`graph @g(%%x: f32[3, 6]) {
  %%c = constant %s : f32[2, 4]
  %%w = tile(%%c) {repeats = [3, 1]} : f32[6, 4]
  %%y = matmul(%%x, %%w) : f32[3, 4]
  return %%y
}`, denseList(r, 8, false, 0, 0))
	}},
	{name: "transpose_reshape_weight", weight: "y", text: func(r *rand.Rand) string {
		// a TensorFlow converter's weight: stored [out, in] flat, reshaped and transposed
		return fmt.Sprintf(`graph @g(%%x: f32[2, 6]) {
  %%c = constant %s : f32[24]
  %%r = reshape(%%c) {shape = "[4, 6]"} : f32[4, 6]
  %%w = transpose(%%r) {perm = [1, 0]} : f32[6, 4]
  %%y = matmul(%%x, %%w) : f32[2, 4]
  return %%y
}`, denseList(r, 24, false, 0, 0))
	}},
	{name: "weight_norm", weight: "y", text: func(r *rand.Rand) string {
		// torch.nn.utils.weight_norm: w = g · v / ‖v‖ per output row
		return fmt.Sprintf(`graph @g(%%x: f32[3, 5]) {
  %%v = constant %s : f32[4, 5]
  %%gn = constant %s : f32[4, 1]
  %%sq = mul(%%v, %%v) : f32[4, 5]
  %%ss = reduce_sum(%%sq) {axes = [1], keepdims = 1} : f32[4, 1]
  %%n = sqrt(%%ss) : f32[4, 1]
  %%d = div(%%v, %%n) : f32[4, 5]
  %%wr = mul(%%gn, %%d) : f32[4, 5]
  %%w = transpose(%%wr) {perm = [1, 0]} : f32[5, 4]
  %%y = matmul(%%x, %%w) : f32[3, 4]
  return %%y
}`, denseList(r, 20, false, 0, 0), denseList(r, 4, false, 0, 0))
	}},
	{name: "dequantize_weight", weight: "y", text: func(r *rand.Rand) string {
		return fmt.Sprintf(`graph @g(%%x: f32[1, 2, 5, 5]) {
  %%q = constant %s : i8[3, 2, 3, 3]
  %%s = constant %s : f32[3]
  %%z = constant dense<[0, 0, 0]> : i8[3]
  %%w = dequantize_linear(%%q, %%s, %%z) {axis = 0} : f32[3, 2, 3, 3]
  %%y = conv(%%x, %%w) : f32[1, 3, 3, 3]
  return %%y
}`, denseList(r, 54, true, -127, 127), "dense<[0.01, 0.02, 0.005]>")
	}},
	{name: "activation_sized_fill_stays", keep: "z", text: func(r *rand.Rand) string {
		return `graph @g(%x: f32[4, 8]) {
  %z = fill() {type = "f32[4, 8]", value = 1.0} : f32[4, 8]
  %y = add(%x, %z) : f32[4, 8]
  return %y
}`
	}},
}

// TestFoldConstants checks every case with the evaluator on random inputs (bit for bit, alone
// and in the default pipeline) and that the contraction then reads constants.
func TestFoldConstants(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 0))
	fold := passes.Lookup("fold-constants")
	require.NotNil(t, fold)
	def, err := passes.ParsePipeline(passes.DefaultPipeline)
	require.NoError(t, err)
	for _, c := range foldCases {
		for trial := 0; trial < 3; trial++ {
			text := c.text(r)
			checkSemantics(t, c.name, []*passes.Pass{fold}, text, nil, r)
			checkSemantics(t, c.name+" (default pipeline)", def, text, nil, r)
			g, err := ir.Parse(text)
			require.NoError(t, err, c.name)
			res, err := passes.Run(context.Background(), g, []*passes.Pass{fold}, &passes.Options{VerifyEach: true})
			require.NoError(t, err, c.name)
			if c.weight != "" {
				op := g.OpByName(c.weight)
				require.NotNil(t, op, c.name)
				for _, o := range op.Operands {
					require.Truef(t, o.Data != nil || o.Def == nil, "%s: operand %%%s of %%%s is still computed:\n%s", c.name, o.Name, c.weight, g)
				}
				require.Len(t, g.Ops, max(c.ops, 1), "%s: only the ops reading the input stay:\n%s", c.name, g)
				require.Positive(t, res.State.FoldedBytes, c.name)
			}
			if c.keep != "" {
				require.NotNil(t, g.OpByName(c.keep), "%s: %%%s was folded:\n%s", c.name, c.keep, g)
				require.Zero(t, res.State.FoldedBytes, c.name)
			}
		}
	}
}

// TestFoldConstantsBound checks that the byte bound holds: a fill larger than what remains
// stays computed, and a smaller one still folds.
func TestFoldConstantsBound(t *testing.T) {
	text := `graph @g(%x: f32[2, 64], %u: f32[2, 8]) {
  %big = fill() {type = "f32[64, 32]", value = 0.5} : f32[64, 32]
  %y = matmul(%x, %big) : f32[2, 32]
  %small = fill() {type = "f32[8, 4]", value = 0.5} : f32[8, 4]
  %z = matmul(%u, %small) : f32[2, 4]
  return %y, %z
}`
	g, err := ir.Parse(text)
	require.NoError(t, err)
	res, err := passes.Run(context.Background(), g, []*passes.Pass{passes.Lookup("fold-constants")}, &passes.Options{VerifyEach: true, FoldBytes: 1024})
	require.NoError(t, err)
	require.NotNil(t, g.OpByName("big"), "the 8 KiB fill exceeds the 1 KiB bound")
	require.Nil(t, g.OpByName("small"), "the 128-byte fill fits")
	require.Equal(t, int64(8*4*4), res.State.FoldedBytes)
	g2, err := ir.Parse(text)
	require.NoError(t, err)
	_, err = passes.Run(context.Background(), g2, []*passes.Pass{passes.Lookup("fold-constants")}, &passes.Options{FoldBytes: -1})
	require.NoError(t, err)
	require.Len(t, g2.Ops, 4, "a negative bound disables folding")
}

// TestFoldTransposesWeights checks that a contraction reading a constant weight with the
// reduction innermost (Gemm transB, a batched head) reads it transposed afterwards, with the
// same values, and that weights already in the columns' order are left alone.
func TestFoldTransposesWeights(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 1))
	fold := passes.Lookup("fold-constants")
	cases := []struct{ x, eq, w, wshape, out, want string }{
		{"f32[3, 5]", "ik,jk->ij", "", "f32[4, 5]", "f32[3, 4]", "ik,kj->ij"},
		{"f32[2, 3, 5]", "bik,jk->bij", "", "f32[4, 5]", "f32[2, 3, 4]", "bik,kj->bij"},
		{"f32[3, 5]", "ik,kj->ij", "", "f32[5, 4]", "f32[3, 4]", "ik,kj->ij"},
		{"f32[2, 3, 5]", "bik,hjk->bhij", "", "f32[2, 4, 5]", "f32[2, 2, 3, 4]", "bik,hkj->bhij"},
	}
	for _, c := range cases {
		n := 1
		for _, d := range strings.Split(strings.Trim(c.wshape[3:], "[]"), ", ") {
			var v int
			fmt.Sscan(d, &v)
			n *= v
		}
		text := fmt.Sprintf(`graph @g(%%x: %s) {
  %%w = constant %s : %s
  %%y = einsum(%%x, %%w) {equation = "%s"} : %s
  return %%y
}`, c.x, denseList(r, n, false, 0, 0), c.wshape, c.eq, c.out)
		checkSemantics(t, c.eq, []*passes.Pass{fold}, text, nil, r)
		g, err := ir.Parse(text)
		require.NoError(t, err)
		_, err = passes.Run(context.Background(), g, []*passes.Pass{fold}, &passes.Options{VerifyEach: true})
		require.NoError(t, err)
		require.Equal(t, c.want, g.Ops[0].Attrs["equation"].Str, c.eq)
		require.Len(t, g.Consts, 1, "%s: the weight as written is dropped", c.eq)
	}
}

// TestFoldTransposesFoldedWeight checks that a weight computed by folding and then transposed
// for its einsum is counted once and does not stay beside its transpose.
func TestFoldTransposesFoldedWeight(t *testing.T) {
	text := `graph @g(%x: f32[2, 64]) {
  %w = fill() {type = "f32[32, 64]", value = 0.5} : f32[32, 64]
  %y = einsum(%x, %w) {equation = "ik,jk->ij"} : f32[2, 32]
  return %y
}`
	r := rand.New(rand.NewPCG(32, 2))
	checkSemantics(t, "folded transposed", []*passes.Pass{passes.Lookup("fold-constants")}, text, nil, r)
	g, err := ir.Parse(text)
	require.NoError(t, err)
	res, err := passes.Run(context.Background(), g, []*passes.Pass{passes.Lookup("fold-constants")}, &passes.Options{VerifyEach: true})
	require.NoError(t, err)
	require.Equal(t, "ik,kj->ij", g.Ops[0].Attrs["equation"].Str)
	require.Len(t, g.Consts, 1)
	require.Equal(t, int64(32*64*4), res.State.FoldedBytes, "the fill's bytes, once")
}
