package graphc_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
)

// lightModel builds a CNN the way the ONNX zoo's light models are written (opset 9, every
// weight a ConstantOfShape of its shape, BatchNorm statistics too): conv+BN+ReLU twice, a
// global average pool and a Gemm classifier.
func lightModel(r *rand.Rand) *onnxgen.Model {
	m := onnxgen.New("light", 9)
	m.Input("x", ir.F32, 1, 3, 12, 12)
	m.Output("y", ir.F32, 1, 10)
	fill := func(name string, dims ...int64) string {
		shape := ir.NewTensor(ir.I64, []int64{int64(len(dims))})
		copy(shape.I, dims)
		m.Init(name+"__SHAPE", shape)
		v := ir.NewTensor(ir.F32, []int64{1})
		v.F[0] = ir.RoundFloat(ir.F32, 0.05+r.Float64()*0.5)
		m.Node("ConstantOfShape", name, []string{name + "__SHAPE"}, []string{name}, onnxgen.TensorAttr("value", v))
		return name
	}
	x := "x"
	for i, c := range []int64{16, 24} {
		in := int64(3)
		if i > 0 {
			in = 16
		}
		w := fill(fmt.Sprintf("conv%d_w", i), c, in, 3, 3)
		conv := fmt.Sprintf("conv%d", i)
		m.Node("Conv", conv, []string{x, w}, []string{conv}, onnxgen.IntsAttr("pads", 1, 1, 1, 1))
		bn := fmt.Sprintf("bn%d", i)
		m.Node("BatchNormalization", bn, []string{conv, fill(bn+"_s", c), fill(bn+"_b", c), fill(bn+"_m", c), fill(bn+"_v", c)}, []string{bn})
		relu := fmt.Sprintf("relu%d", i)
		m.Node("Relu", relu, []string{bn}, []string{relu})
		x = relu
	}
	m.Node("GlobalAveragePool", "gap", []string{x}, []string{"gap"})
	shape := ir.NewTensor(ir.I64, []int64{2})
	copy(shape.I, []int64{1, 24})
	m.Init("flat_shape", shape)
	m.Node("Reshape", "flat", []string{"gap", "flat_shape"}, []string{"flat"})
	m.Node("Gemm", "fc", []string{"flat", fill("fc_w", 10, 24), fill("fc_b", 10)}, []string{"y"}, onnxgen.IntAttr("transB", 1))
	return m
}

// TestFoldLightModel compiles a light-zoo-shaped model: with the default pipeline every
// weight reaches its convolution or Gemm as a constant (no op is left that reads no input),
// and the compiled code computes what the evaluator computes on the unoptimised graph.
func TestFoldLightModel(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(32, 9))
	dir := t.TempDir()
	path := filepath.Join(dir, "light.onnx")
	require.NoError(t, lightModel(r).Write(path))
	res, err := graphc.Compile(ctx, path, graphc.WithoutLowering(), graphc.WithVerifyEach(true))
	require.NoError(t, err)
	input := res.Graph.Inputs[0]
	reads := map[*ir.Value]bool{input: true}
	for _, op := range res.Graph.Ops {
		for _, o := range op.Operands {
			if reads[o] {
				reads[op.Result] = true
			}
		}
		require.Truef(t, reads[op.Result], "op %%%s (%s) reads no input: a weight left computed\n%s", op.Result.Name, op.Kind, res.Graph)
	}
	require.Positive(t, res.Passes.State.FoldedBytes)
	raw, err := graphc.Compile(ctx, path, graphc.WithPipeline(""), graphc.WithoutLowering())
	require.NoError(t, err)
	in := e2e.RandomTensor(r, ir.F32, []int64{1, 3, 12, 12})
	want, err := eval.Run(raw.Graph, map[string]*ir.Tensor{raw.Graph.Inputs[0].Name: in})
	require.NoError(t, err)
	got, err := eval.Run(res.Graph, map[string]*ir.Tensor{input.Name: in})
	require.NoError(t, err)
	require.NoError(t, e2e.Compare(got[0], want[0], 1e-5, 1e-6, nil), "the optimised graph under the evaluator")
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	full, err := graphc.Compile(ctx, path)
	require.NoError(t, err)
	prog, err := e2e.Build(ctx, dir, full.Graph, full.Module)
	require.NoError(t, err)
	out, _, err := prog.Run(ctx, []*ir.Tensor{in}, nil, 1)
	require.NoError(t, err)
	require.NoError(t, e2e.Compare(out[0], want[0], 1e-4, 1e-5, nil), "compiled code")
}
