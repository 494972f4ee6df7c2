package onnx_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/frontend/onnx"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
	"github.com/graphc/graphc/passes"
)

func randTensor(rng *rand.Rand, shape ...int64) *ir.Tensor {
	t := ir.NewTensor(ir.F32, shape)
	for i := range t.F {
		t.F[i] = ir.RoundFloat(ir.F32, rng.Float64()*2-1)
	}
	return t
}

func i64(vals ...int64) *ir.Tensor {
	t := ir.NewTensor(ir.I64, []int64{int64(len(vals))})
	copy(t.I, vals)
	return t
}

// batchModel is a small CNN head whose batch dim is the dim_param N: Conv, MaxPool, then a
// flatten written the way exporters write it, Reshape(P, Concat(Unsqueeze(Shape(P)[0]), [-1])),
// and a Transpose.
func batchModel(rng *rand.Rand) *onnxgen.Model {
	m := onnxgen.New("batch", 13)
	m.Input("X", ir.F32, "N", 3, 8, 8)
	m.Init("W", randTensor(rng, 4, 3, 3, 3))
	m.Init("B", randTensor(rng, 4))
	m.Init("zero", ir.NewTensor(ir.I64, []int64{}))
	m.Init("axes0", i64(0))
	m.Init("minus1", i64(-1))
	m.Node("Conv", "conv", []string{"X", "W", "B"}, []string{"Y"}, onnxgen.IntsAttr("pads", 1, 1, 1, 1))
	m.Node("MaxPool", "pool", []string{"Y"}, []string{"P"}, onnxgen.IntsAttr("kernel_shape", 2, 2), onnxgen.IntsAttr("strides", 2, 2))
	m.Node("Shape", "shape", []string{"P"}, []string{"S"})
	m.Node("Gather", "batch", []string{"S", "zero"}, []string{"n"})
	m.Node("Unsqueeze", "n1", []string{"n", "axes0"}, []string{"n1"})
	m.Node("Concat", "target", []string{"n1", "minus1"}, []string{"shp"}, onnxgen.IntAttr("axis", 0))
	m.Node("Reshape", "flatten", []string{"P", "shp"}, []string{"R"})
	m.Node("Transpose", "t", []string{"R"}, []string{"T"}, onnxgen.IntsAttr("perm", 1, 0))
	m.Output("T", ir.F32, 64, "N")
	return m
}

func run(t *testing.T, g *ir.Graph, x *ir.Tensor) *ir.Tensor {
	t.Helper()
	out, err := eval.Run(g, map[string]*ir.Tensor{g.Inputs[0].Name: x})
	require.NoError(t, err)
	return out[0]
}

// TestSymbolicBatch imports a model whose batch dim is symbolic: the dim stays a parameter,
// the shape subgraph folds into the reshape's symbolic target, and the graph runs for two batch
// sizes, matching the model imported with the batch bound (--dim) and, row by row, the model
// run on each image alone.
func TestSymbolicBatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	m := batchModel(rng)
	g, err := onnx.Import(m.Proto(), "batch.onnx")
	require.NoError(t, err)
	require.Equal(t, []string{"N"}, g.Params)
	require.Equal(t, "f32[N, 3, 8, 8]", g.Inputs[0].Type.String())
	require.Equal(t, "f32[64, N]", g.Outputs[0].Type.String())
	var kinds []string
	for _, op := range g.Ops {
		kinds = append(kinds, op.Kind)
	}
	require.Equal(t, []string{"conv", "max_pool", "reshape", "transpose"}, kinds, "the shape subgraph folds away:\n%s", g)
	require.Equal(t, `"[N, 64]"`, g.Ops[2].Attrs["shape"].String())
	require.NoError(t, ir.Verify(g))

	// the default pipeline keeps the graph symbolic and verifiable
	ps, err := passes.ParsePipeline(passes.DefaultPipeline)
	require.NoError(t, err)
	_, err = passes.Run(context.Background(), g, ps, &passes.Options{VerifyEach: true})
	require.NoError(t, err)

	single, err := onnx.Import(m.Proto(), "batch.onnx", onnx.WithDim("N", 1))
	require.NoError(t, err)
	for _, n := range []int64{2, 3} {
		x := randTensor(rng, n, 3, 8, 8)
		got := run(t, g, x)
		require.Equal(t, []int64{64, n}, got.Shape)

		static, err := onnx.Import(m.Proto(), "batch.onnx", onnx.WithDim("N", n))
		require.NoError(t, err)
		require.Empty(t, static.Params)
		require.Equal(t, got.F, run(t, static, x).F, "batch %d: symbolic and bound imports differ", n)

		for b := int64(0); b < n; b++ {
			img := ir.NewTensor(ir.F32, []int64{1, 3, 8, 8})
			copy(img.F, x.F[b*192:(b+1)*192])
			one := run(t, single, img)
			for f := int64(0); f < 64; f++ {
				require.Equal(t, one.F[f], got.F[f*n+b], "batch %d of %d, feature %d", b, n, f)
			}
		}
	}
}

// TestShapeSubgraphFoldsStatic: with static shapes the same subgraph folds to constants.
func TestShapeSubgraphFoldsStatic(t *testing.T) {
	m := batchModel(rand.New(rand.NewPCG(3, 4)))
	g, err := onnx.Import(m.Proto(), "batch.onnx", onnx.WithDim("N", 2))
	require.NoError(t, err)
	require.Equal(t, `"[2, 64]"`, g.OpByName("flatten").Attrs["shape"].String())
	require.Len(t, g.Ops, 4, "%s", g)
	for _, c := range g.Consts {
		require.Contains(t, []string{"W", "B"}, c.Name, "only the weights stay constants:\n%s", g)
	}
}

// TestSymbolicShapeMaterialised: a symbolic shape read as data becomes a values op.
func TestSymbolicShapeMaterialised(t *testing.T) {
	m := onnxgen.New("shape", 15)
	m.Input("X", ir.F32, "N", 5)
	m.Init("two", i64(2))
	m.Node("Shape", "s", []string{"X"}, []string{"S"})
	m.Node("Mul", "m", []string{"S", "two"}, []string{"S2"})
	m.Output("S2", ir.I64, 2)
	g, err := onnx.Import(m.Proto(), "shape.onnx")
	require.NoError(t, err)
	require.Len(t, g.Ops, 1)
	require.Equal(t, "values", g.Ops[0].Kind)
	out := run(t, g, ir.NewTensor(ir.F32, []int64{7, 5}))
	require.Equal(t, []int64{14, 10}, out.I)
}

// TestDimParamShared: one dim_param names the same symbolic dim in every input.
func TestDimParamShared(t *testing.T) {
	m := onnxgen.New("shared", 13)
	m.Input("A", ir.F32, "batch", 4)
	m.Input("B", ir.F32, "batch", 2)
	m.Node("Concat", "c", []string{"A", "B"}, []string{"C"}, onnxgen.IntAttr("axis", 1))
	m.Output("C", ir.F32, "batch", 6)
	g, err := onnx.Import(m.Proto(), "shared.onnx")
	require.NoError(t, err)
	require.Equal(t, []string{"batch"}, g.Params)
	require.Equal(t, "f32[batch, 6]", g.Outputs[0].Type.String())
	g2, err := onnx.Import(m.Proto(), "shared.onnx", onnx.WithDim("batch", 3))
	require.NoError(t, err)
	require.Equal(t, "f32[3, 6]", g2.Outputs[0].Type.String())
	require.True(t, slices.Equal(g2.Params, nil))
}

// TestSymbolicMalformed: shape computations on a symbolic shape that a hostile model gets wrong
// (FuzzImport findings) fail or import like any node, without panicking: a Gather with one
// input, and a Slice whose step would overflow the index.
func TestSymbolicMalformed(t *testing.T) {
	shapeModel := func(build func(m *onnxgen.Model)) *onnxgen.Model {
		m := onnxgen.New("m", 13)
		m.Input("X", ir.F32, "N", 3)
		m.Node("Shape", "shape", []string{"X"}, []string{"S"})
		build(m)
		return m
	}
	gather := shapeModel(func(m *onnxgen.Model) {
		m.Node("Gather", "g", []string{"S"}, []string{"Y"})
		m.Output("Y", ir.I64, 2)
	})
	_, err := onnx.Import(gather.Proto(), "m.onnx")
	require.ErrorContains(t, err, `node "g" (Gather, opset 13)`)

	slice := shapeModel(func(m *onnxgen.Model) {
		m.Init("starts", i64(1))
		m.Init("ends", i64(2))
		m.Init("axes", i64(0))
		m.Init("steps", i64(1<<63-1))
		m.Node("Slice", "s", []string{"S", "starts", "ends", "axes", "steps"}, []string{"Y"})
		m.Output("Y", ir.I64, 1)
	})
	g, err := onnx.Import(slice.Proto(), "m.onnx")
	require.NoError(t, err)
	out, err := eval.Run(g, map[string]*ir.Tensor{"X": ir.NewTensor(ir.F32, []int64{5, 3})}, eval.WithParams(map[string]int64{"N": 5}))
	require.NoError(t, err)
	require.Equal(t, []int64{3}, out[0].I) // the second element of the shape [N, 3]
}
