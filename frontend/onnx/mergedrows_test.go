package onnx_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/frontend/onnx"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/passes"
)

// mergedRowsModel is the output projection of PyTorch's multi-head attention with a symbolic
// sequence T and batch B: heads X[T, 2B, 3] are viewed as rows[T·B, 6] (the target computed
// as Shape → Gather → Mul → Unsqueeze → Concat), go through Gemm (transB) and Relu, then
// (when tail is "") MatMul and a bias Add, and are viewed back as [T, B, 4] with the trailing
// extent read from the Shape of the rows. tail names an op that is not row-wise to apply to
// the rows instead of the splitting Reshape.
func mergedRowsModel(rng *rand.Rand, tail string) *onnxgen.Model {
	m := onnxgen.New("mha_rows", 17)
	m.Input("X", ir.F32, "T", "B", 6)
	m.Init("W", randTensor(rng, 5, 6))
	m.Init("bias", randTensor(rng, 5))
	m.Init("W2", randTensor(rng, 5, 4))
	m.Init("bias2", randTensor(rng, 4))
	m.Init("i0", ir.NewTensor(ir.I64, []int64{}))
	one := ir.NewTensor(ir.I64, []int64{})
	one.I[0] = 1
	m.Init("i1", one)
	two := ir.NewTensor(ir.I64, []int64{})
	two.I[0] = 2
	m.Init("two", two)
	m.Init("axes0", i64(0))
	m.Init("c3", i64(3))
	m.Init("c6", i64(6))
	m.Node("Shape", "shape", []string{"X"}, []string{"S"})
	m.Node("Gather", "t", []string{"S", "i0"}, []string{"t"})
	m.Node("Gather", "b", []string{"S", "i1"}, []string{"b"})
	// the heads: X viewed as [T, 2B, 3] (2B is affine)
	m.Node("Mul", "bh", []string{"b", "two"}, []string{"bh"})
	m.Node("Unsqueeze", "t1", []string{"t", "axes0"}, []string{"t1"})
	m.Node("Unsqueeze", "bh1", []string{"bh", "axes0"}, []string{"bh1"})
	m.Node("Concat", "hshape", []string{"t1", "bh1", "c3"}, []string{"hs"}, onnxgen.IntAttr("axis", 0))
	m.Node("Reshape", "heads", []string{"X", "hs"}, []string{"H"})
	// rows: H viewed as [T·B, 6]
	m.Node("Mul", "tb", []string{"t", "b"}, []string{"tb"})
	m.Node("Unsqueeze", "tb1", []string{"tb", "axes0"}, []string{"tb1"})
	m.Node("Concat", "rshape", []string{"tb1", "c6"}, []string{"rs"}, onnxgen.IntAttr("axis", 0))
	m.Node("Reshape", "merge", []string{"H", "rs"}, []string{"R"})
	m.Node("Gemm", "proj", []string{"R", "W", "bias"}, []string{"G"}, onnxgen.IntAttr("transB", 1))
	m.Node("Relu", "relu", []string{"G"}, []string{"A"})
	if tail != "" {
		m.Node(tail, "other", []string{"A"}, []string{"Y"})
		m.Output("Y", ir.F32, "TB", 5)
		return m
	}
	m.Node("MatMul", "proj2", []string{"A", "W2"}, []string{"M"})
	m.Node("Add", "bias2", []string{"M", "bias2"}, []string{"P"})
	m.Node("Shape", "pshape", []string{"P"}, []string{"PS"})
	m.Node("Gather", "e", []string{"PS", "i1"}, []string{"e"})
	m.Node("Unsqueeze", "b1", []string{"b", "axes0"}, []string{"b1"})
	m.Node("Unsqueeze", "e1", []string{"e", "axes0"}, []string{"e1"})
	m.Node("Concat", "sshape", []string{"t1", "b1", "e1"}, []string{"ss"}, onnxgen.IntAttr("axis", 0))
	m.Node("Reshape", "split", []string{"P", "ss"}, []string{"Y"})
	m.Output("Y", ir.F32, "T", "B", 4)
	return m
}

// TestMergedRows imports the merged-rows idiom with both dims symbolic: the rows stay
// unmerged, and the graph matches the model imported with the dims bound at two sizes.
func TestMergedRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	m := mergedRowsModel(rng, "")
	g, err := onnx.Import(m.Proto(), "mha_rows.onnx")
	require.NoError(t, err)
	require.Equal(t, []string{"T", "B"}, g.Params)
	require.Equal(t, "f32[T, B, 4]", g.Outputs[0].Type.String())
	require.NoError(t, ir.Verify(g))
	ps, err := passes.ParsePipeline(passes.DefaultPipeline)
	require.NoError(t, err)
	sym, err := onnx.Import(m.Proto(), "mha_rows.onnx")
	require.NoError(t, err)
	_, err = passes.Run(context.Background(), sym, ps, &passes.Options{VerifyEach: true})
	require.NoError(t, err)

	for _, size := range [][2]int64{{3, 2}, {2, 5}} {
		tl, b := size[0], size[1]
		x := randTensor(rng, tl, b, 6)
		got := run(t, g, x)
		require.Equal(t, []int64{tl, b, 4}, got.Shape)
		static, err := onnx.Import(m.Proto(), "mha_rows.onnx", onnx.WithDim("T", tl), onnx.WithDim("B", b))
		require.NoError(t, err)
		require.Empty(t, static.Params)
		want := run(t, static, x)
		require.InDeltaSlice(t, want.F, got.F, 1e-6, "T=%d B=%d: symbolic and bound imports differ", tl, b)
		require.Equal(t, got.F, run(t, sym, x).F, "T=%d B=%d: the pipeline changed the result", tl, b)
	}
}

// TestMergedRowsBoundSequence: with T bound the rows' extent 3B is affine, but the merging
// reshape of [3, 2B, 3] to [3B, 6] would not have a quasi-affine access; it is imported as
// merged rows too.
func TestMergedRowsBoundSequence(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	m := mergedRowsModel(rng, "")
	g, err := onnx.Import(m.Proto(), "mha_rows.onnx", onnx.WithDim("T", 3))
	require.NoError(t, err)
	require.Equal(t, []string{"B"}, g.Params)
	require.Equal(t, "f32[3, B, 4]", g.Outputs[0].Type.String())
	require.NoError(t, ir.Verify(g))
	for _, b := range []int64{2, 5} {
		x := randTensor(rng, 3, b, 6)
		static, err := onnx.Import(m.Proto(), "mha_rows.onnx", onnx.WithDim("T", 3), onnx.WithDim("B", b))
		require.NoError(t, err)
		require.InDeltaSlice(t, run(t, static, x).F, run(t, g, x).F, 1e-6, "B=%d: symbolic and bound imports differ", b)
	}
}

// TestMergedRowsOtherConsumer: an op that is not row-wise on the merged rows (here a graph
// output of the rows' shape, through a Softmax) gets the merging Reshape's own error.
func TestMergedRowsOtherConsumer(t *testing.T) {
	m := mergedRowsModel(rand.New(rand.NewPCG(3, 4)), "Softmax")
	_, err := onnx.Import(m.Proto(), "mha_rows.onnx")
	require.ErrorIs(t, err, onnx.ErrUnsupported)
	require.ErrorContains(t, err, `node "merge" (Reshape, opset 17)`)
	require.ErrorContains(t, err, `input "rs" (shape) must be known at compile time`)
}
