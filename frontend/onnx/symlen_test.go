package onnx_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/frontend/onnx"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
)

// seqLenModel is what torch.onnx.export writes for a sequence length T read off the input's
// shape (dynamic_axes): positions arange(T) gathered from an embedding table, a registered
// 6x6 buffer sliced to [:T, :T], Expand(x, Where(Equal(shape, -1), 1, shape)) and a Reshape
// whose -1 extent is a product of symbolic dims over the same dims.
func seqLenModel(rng *rand.Rand) *onnxgen.Model {
	m := onnxgen.New("seqlen", 17)
	m.Input("X", ir.F32, "B", "T", 4)
	m.Init("wpe", randTensor(rng, 6, 4))
	m.Init("buf", randTensor(rng, 6, 6))
	m.Init("zero", ir.NewTensor(ir.I64, []int64{}))
	one := ir.NewTensor(ir.I64, []int64{})
	one.I[0] = 1
	m.Init("one", one)
	m.Init("axes0", i64(0))
	m.Init("ones", i64(1, 1, 1))
	m.Init("minus1s", i64(-1, -1, -1))
	m.Init("shape_bt", i64(0, 0, -1))
	m.Node("Shape", "shape", []string{"X"}, []string{"S"})
	m.Node("Gather", "t", []string{"S", "one"}, []string{"t"})
	m.Node("Cast", "cast", []string{"t"}, []string{"tc"}, onnxgen.IntAttr("to", 7))
	m.Node("Range", "range", []string{"zero", "tc", "one"}, []string{"pos"})
	m.Node("Gather", "wpe_pos", []string{"wpe", "pos"}, []string{"pe"})
	m.Node("Add", "add_pe", []string{"X", "pe"}, []string{"H"})
	m.Node("Unsqueeze", "tu", []string{"t", "axes0"}, []string{"t1"})
	m.Node("Concat", "ends", []string{"t1", "t1"}, []string{"ends"}, onnxgen.IntAttr("axis", 0))
	m.Init("starts", i64(0, 0))
	m.Init("axes01", i64(0, 1))
	m.Node("Slice", "slice", []string{"buf", "starts", "ends", "axes01"}, []string{"M"})
	m.Node("MatMul", "mm", []string{"M", "H"}, []string{"Y0"})
	m.Node("Equal", "eq", []string{"S", "minus1s"}, []string{"E"})
	m.Node("Where", "where", []string{"E", "ones", "S"}, []string{"W"})
	m.Node("Expand", "expand", []string{"Y0", "W"}, []string{"Y1"})
	m.Node("Reshape", "reshape", []string{"Y1", "shape_bt"}, []string{"Y"})
	m.Output("Y", ir.F32, "B", "T", 4)
	return m
}

// TestSymbolicSequenceLength imports seqLenModel with T symbolic (no --dim): arange(T) is a
// range op, the buffer slice a symbolic slice that requires T <= 6, and the graph runs for two
// sequence lengths, matching the model imported with T bound; T = 7 is refused by the
// requirement, not read out of the buffer.
func TestSymbolicSequenceLength(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	m := seqLenModel(rng)
	g, err := onnx.Import(m.Proto(), "seqlen.onnx")
	require.NoError(t, err)
	require.Equal(t, []string{"B", "T"}, g.Params)
	require.Equal(t, "f32[B, T, 4]", g.Outputs[0].Type.String())
	var kinds []string
	for _, op := range g.Ops {
		kinds = append(kinds, op.Kind)
	}
	require.Contains(t, kinds, "range")
	require.NoError(t, ir.Verify(g))
	for _, T := range []int64{5, 2} {
		x := randTensor(rng, 2, T, 4)
		got := run(t, g, x)
		bound, err := onnx.Import(m.Proto(), "seqlen.onnx", onnx.WithDim("B", 2), onnx.WithDim("T", T))
		require.NoError(t, err)
		want := run(t, bound, x)
		require.Equal(t, want.Shape, got.Shape)
		require.InDeltaSlice(t, want.F, got.F, 1e-6, "T = %d", T)
	}
	_, err = eval.Run(g, map[string]*ir.Tensor{g.Inputs[0].Name: randTensor(rng, 1, 7, 4)})
	require.ErrorContains(t, err, "violate the requirement")
}
