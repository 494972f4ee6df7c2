package onnx_test

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
	"github.com/graphc/graphc/passes"
	"github.com/graphc/graphc/proto/onnxpb"
)

// These tests pin the attribute semantics that changed between opsets (the node-test suite
// mostly exercises the newest versions), with results computed by hand.

func TestSoftmaxCoercionBeforeOpset13(t *testing.T) {
	// x = [[[0, ln 3], [0, 0]]]: opset 11 with axis = 1 normalises over the 4 trailing elements
	// (e^0 + 3 + 1 + 1 = 6), opset 13 over the last axis alone.
	x := tensor(ir.F32, []int64{1, 2, 2}, 0, math.Log(3), 0, 0)
	for _, tc := range []struct {
		opset int64
		want  []float64
	}{
		{11, []float64{1.0 / 6, 3.0 / 6, 1.0 / 6, 1.0 / 6}},
		{13, []float64{0.25, 0.75, 0.5, 0.5}},
	} {
		m := onnxgen.New("m", tc.opset)
		m.Input("X", ir.F32, 1, 2, 2)
		m.Node("Softmax", "s", []string{"X"}, []string{"Y"}, onnxgen.IntAttr("axis", 1))
		if tc.opset >= 13 {
			m.G.Node[0].Attribute = nil // default axis -1
		}
		m.Output("Y", ir.F32, 1, 2, 2)
		out := runModel(t, m.Proto(), map[string]*ir.Tensor{"X": x})
		require.InDeltaSlice(t, tc.want, out[0].F, 1e-6, "opset %d", tc.opset)
	}
}

func TestClipBoundsAttributesThenInputs(t *testing.T) {
	x := tensor(ir.F32, []int64{4}, -3, -1, 1, 3)
	old := onnxgen.New("m", 6)
	old.Input("X", ir.F32, 4)
	old.Node("Clip", "c", []string{"X"}, []string{"Y"}, onnxgen.FloatAttr("min", -2), onnxgen.FloatAttr("max", 2))
	old.Output("Y", ir.F32, 4)
	require.Equal(t, []float64{-2, -1, 1, 2}, runModel(t, old.Proto(), map[string]*ir.Tensor{"X": x})[0].F)

	m := onnxgen.New("m", 13)
	m.Input("X", ir.F32, 4)
	m.Init("hi", tensor(ir.F32, nil, 0))
	m.Node("Clip", "c", []string{"X", "", "hi"}, []string{"Y"})
	m.Output("Y", ir.F32, 4)
	require.Equal(t, []float64{-3, -1, 0, 0}, runModel(t, m.Proto(), map[string]*ir.Tensor{"X": x})[0].F)
}

func TestReduceAxesAttributeThenInput(t *testing.T) {
	x := tensor(ir.F32, []int64{2, 3}, 1, 2, 3, 4, 5, 6)
	old := onnxgen.New("m", 11)
	old.Input("X", ir.F32, 2, 3)
	old.Node("ReduceMean", "r", []string{"X"}, []string{"Y"}, onnxgen.IntsAttr("axes", 1), onnxgen.IntAttr("keepdims", 0))
	old.Output("Y", ir.F32, 2)
	require.Equal(t, []float64{2, 5}, runModel(t, old.Proto(), map[string]*ir.Tensor{"X": x})[0].F)

	m := onnxgen.New("m", 18)
	m.Input("X", ir.F32, 2, 3)
	m.Init("axes", tensor(ir.I64, []int64{1}, 0))
	m.Node("ReduceMean", "r", []string{"X", "axes"}, []string{"Y"})
	m.Output("Y", ir.F32, 1, 3)
	require.Equal(t, []float64{2.5, 3.5, 4.5}, runModel(t, m.Proto(), map[string]*ir.Tensor{"X": x})[0].F)

	// no axes: every axis, unless noop_with_empty_axes
	all := onnxgen.New("m", 18)
	all.Input("X", ir.F32, 2, 3)
	all.Node("ReduceMax", "r", []string{"X"}, []string{"Y"}, onnxgen.IntAttr("keepdims", 0))
	all.Output("Y", ir.F32)
	require.Equal(t, []float64{6}, runModel(t, all.Proto(), map[string]*ir.Tensor{"X": x})[0].F)
	noop := onnxgen.New("m", 18)
	noop.Input("X", ir.F32, 2, 3)
	noop.Node("ReduceMax", "r", []string{"X"}, []string{"Y"}, onnxgen.IntAttr("noop_with_empty_axes", 1))
	noop.Output("Y", ir.F32, 2, 3)
	require.Equal(t, x.F, runModel(t, noop.Proto(), map[string]*ir.Tensor{"X": x})[0].F)
}

func TestReduceL2OfIntegers(t *testing.T) {
	// sqrt(3² + 4²) = 5 and sqrt(1 + 1) = 1.41… truncated to 1, as numpy's astype does
	m := onnxgen.New("m", 18)
	m.Input("X", ir.I32, 2, 2)
	m.Node("ReduceL2", "r", []string{"X"}, []string{"Y"}, onnxgen.IntAttr("keepdims", 0))
	m.G.Node[0].Input = append(m.G.Node[0].Input, "axes")
	m.Init("axes", tensor(ir.I64, []int64{1}, 1))
	m.Output("Y", ir.I32, 2)
	out := runModel(t, m.Proto(), map[string]*ir.Tensor{"X": tensor(ir.I32, []int64{2, 2}, 3, 4, 1, -1)})
	require.Equal(t, []int64{5, 1}, out[0].I)
}

func TestDropoutInference(t *testing.T) {
	x := tensor(ir.F32, []int64{3}, 1, 2, 3)
	for _, opset := range []int64{7, 10, 13} {
		m := onnxgen.New("m", opset)
		m.Input("X", ir.F32, 3)
		m.Node("Dropout", "d", []string{"X"}, []string{"Y", "M"}, onnxgen.FloatAttr("ratio", 0.5))
		if opset >= 12 {
			m.G.Node[0].Attribute = nil
		}
		mask := ir.Bool
		if opset < 10 {
			mask = ir.F32
		}
		m.Output("Y", ir.F32, 3)
		m.Output("M", mask, 3)
		out := runModel(t, m.Proto(), map[string]*ir.Tensor{"X": x})
		require.Equal(t, x.F, out[0].F, "opset %d", opset)
		require.Equal(t, 3, out[1].Len())
		for i := 0; i < 3; i++ {
			require.Equal(t, 1.0, out[1].Float(i))
		}
	}
	// training mode with a nonzero ratio and no seed is random: refused
	m := onnxgen.New("m", 13)
	m.Input("X", ir.F32, 3)
	m.Init("r", tensor(ir.F32, nil, 0.5))
	m.Init("t", tensor(ir.Bool, nil, 1))
	m.Node("Dropout", "d", []string{"X", "r", "t"}, []string{"Y"})
	m.Output("Y", ir.F32, 3)
	_, err := importModel(m)
	require.EqualError(t, err, `m.onnx: node "d" (Dropout, opset 13): unsupported: training-mode dropout with ratio 0.5 and no seed draws random numbers`)
}

func TestBatchNormTrainingOutputsNeedTrainingMode(t *testing.T) {
	m := onnxgen.New("m", 15)
	for _, n := range []string{"X", "s", "b", "mean", "var"} {
		if n == "X" {
			m.Input(n, ir.F32, 1, 2, 2)
		} else {
			m.Input(n, ir.F32, 2)
		}
	}
	m.Node("BatchNormalization", "bn", []string{"X", "s", "b", "mean", "var"}, []string{"Y", "rm"})
	m.Output("Y", ir.F32, 1, 2, 2)
	m.Output("rm", ir.F32, 2)
	_, err := importModel(m)
	require.EqualError(t, err, `m.onnx: node "bn" (BatchNormalization, opset 15): unsupported: output #1 (training statistics) outside training mode`)
}

func TestGemmTransposesAndScales(t *testing.T) {
	// A = [[1, 2], [3, 4]] stored transposed, B = I, C = [10, 20]: 2 A + 0.5 C
	m := onnxgen.New("m", 13)
	m.Input("At", ir.F32, 2, 2)
	m.Input("B", ir.F32, 2, 2)
	m.Input("C", ir.F32, 2)
	m.Node("Gemm", "g", []string{"At", "B", "C"}, []string{"Y"}, onnxgen.IntAttr("transA", 1),
		onnxgen.FloatAttr("alpha", 2), onnxgen.FloatAttr("beta", 0.5))
	m.Output("Y", ir.F32, 2, 2)
	out := runModel(t, m.Proto(), map[string]*ir.Tensor{
		"At": tensor(ir.F32, []int64{2, 2}, 1, 3, 2, 4),
		"B":  tensor(ir.F32, []int64{2, 2}, 1, 0, 0, 1),
		"C":  tensor(ir.F32, []int64{2}, 10, 20),
	})
	require.Equal(t, []float64{7, 14, 11, 18}, out[0].F)
}

func TestPowMixedTypes(t *testing.T) {
	m := onnxgen.New("m", 15)
	m.Input("X", ir.F32, 3)
	m.Input("Y", ir.I64, 3)
	m.Node("Pow", "p", []string{"X", "Y"}, []string{"Z"})
	m.Output("Z", ir.F32, 3)
	out := runModel(t, m.Proto(), map[string]*ir.Tensor{"X": tensor(ir.F32, []int64{3}, 2, 3, 4), "Y": tensor(ir.I64, []int64{3}, 3, 2, 0)})
	require.Equal(t, []float64{8, 9, 1}, out[0].F)
}

func TestBatchNormMixedParameterTypes(t *testing.T) {
	// opset 15: f16 x with f32 parameters, computed in f16; (x - 1) / sqrt(4 + 0) * 2 + 1
	m := onnxgen.New("m", 15)
	m.Input("X", ir.F16, 1, 1, 2)
	for _, n := range []string{"s", "b", "mean", "var"} {
		m.Input(n, ir.F32, 1)
	}
	m.Node("BatchNormalization", "bn", []string{"X", "s", "b", "mean", "var"}, []string{"Y"}, onnxgen.FloatAttr("epsilon", 0))
	m.Output("Y", ir.F16, 1, 1, 2)
	one := func(v float64) *ir.Tensor { return tensor(ir.F32, []int64{1}, v) }
	out := runModel(t, m.Proto(), map[string]*ir.Tensor{"X": tensor(ir.F16, []int64{1, 1, 2}, 1, 5),
		"s": one(2), "b": one(1), "mean": one(1), "var": one(4)})
	require.Equal(t, []float64{1, 5}, out[0].F)
}

// TestSymbolicExtents imports ops over a symbolic batch: the shapes stay symbolic, and a mean
// over the symbolic axis divides by a count computed at run time.
func TestSymbolicExtents(t *testing.T) {
	m := onnxgen.New("m", 18)
	m.Input("X", ir.F32, "batch", 2)
	m.Init("axes", tensor(ir.I64, []int64{1}, 0))
	m.Node("ReduceMean", "mean", []string{"X", "axes"}, []string{"M"}, onnxgen.IntAttr("keepdims", 0))
	m.Node("Softmax", "sm", []string{"X"}, []string{"S"})
	m.Node("LayerNormalization", "ln", []string{"X", "g"}, []string{"L"}, onnxgen.FloatAttr("epsilon", 0))
	m.Init("g", tensor(ir.F32, []int64{2}, 1, 1))
	m.Output("M", ir.F32, 2)
	m.Output("S", ir.F32, "batch", 2)
	m.Output("L", ir.F32, "batch", 2)
	g, err := importModel(m)
	require.NoError(t, err)
	require.Equal(t, []string{"batch"}, g.Params)
	require.Equal(t, "f32[batch, 2]", g.Outputs[1].Type.String())
	// the default pipeline keeps the results (DIE through the run-time count)
	ps, err := passes.ParsePipeline(passes.DefaultPipeline)
	require.NoError(t, err)
	_, err = passes.Run(context.Background(), g, ps, &passes.Options{VerifyEach: true})
	require.NoError(t, err)
	x := tensor(ir.F32, []int64{3, 2}, 1, 2, 3, 6, 5, 10)
	out, err := eval.Run(g, map[string]*ir.Tensor{"X": x})
	require.NoError(t, err)
	require.InDeltaSlice(t, []float64{3, 6}, out[0].F, 1e-6)
	e := math.Exp(1)
	require.InDeltaSlice(t, []float64{1 / (1 + e), e / (1 + e)}, out[1].F[:2], 1e-6)
	require.InDeltaSlice(t, []float64{-1, 1, -1, 1, -1, 1}, out[2].F, 1e-6)
}

// TestGroupNormScalePerGroupThenPerChannel: opset 18 scales and shifts per group, opset 21 per
// channel; a per-channel scale repeating each group's value gives the same result.
func TestGroupNormScalePerGroupThenPerChannel(t *testing.T) {
	model := func(opset int64, params int) *onnxgen.Model {
		m := onnxgen.New("gn", opset)
		m.Input("X", ir.F32, 2, 6, 3)
		m.Input("S", ir.F32, params)
		m.Input("B", ir.F32, params)
		m.Node("GroupNormalization", "gn", []string{"X", "S", "B"}, []string{"Y"}, onnxgen.IntAttr("num_groups", 3))
		m.Output("Y", ir.F32, 2, 6, 3)
		return m
	}
	x := tensor(ir.F32, []int64{2, 6, 3})
	for i := range x.F {
		x.F[i] = float64(i*i%17) - 8
	}
	sg, bg := tensor(ir.F32, []int64{3}, 2, -1, 0.5), tensor(ir.F32, []int64{3}, 1, 0, -3)
	sc, bc := tensor(ir.F32, []int64{6}, 2, 2, -1, -1, 0.5, 0.5), tensor(ir.F32, []int64{6}, 1, 1, 0, 0, -3, -3)
	perGroup := runModel(t, model(18, 3).Proto(), map[string]*ir.Tensor{"X": x, "S": sg, "B": bg})
	perChannel := runModel(t, model(21, 6).Proto(), map[string]*ir.Tensor{"X": x, "S": sc, "B": bc})
	require.InDeltaSlice(t, perChannel[0].F, perGroup[0].F, 1e-6)
	// group 0 of batch 0 holds x[0, 0:2, :]: normalised, times 2, plus 1
	var mean, sq float64
	for i := 0; i < 6; i++ {
		mean += x.F[i] / 6
		sq += x.F[i] * x.F[i] / 6
	}
	want := (x.F[0]-mean)/math.Sqrt(sq-mean*mean+1e-5)*2 + 1
	require.InDelta(t, want, perGroup[0].F[0], 1e-5)
}

// TestDet3x3: det [[2, 0, 1], [1, 3, 2], [1, 1, 1]] = 2(3 - 2) - 0 + 1(1 - 3) = 0, and a 4x4
// upper triangular matrix gives the product of its diagonal.
func TestDet3x3(t *testing.T) {
	m := onnxgen.New("det", 13)
	m.Input("X", ir.F32, 2, 3, 3)
	m.Node("Det", "det", []string{"X"}, []string{"Y"})
	m.Output("Y", ir.F32, 2)
	x := tensor(ir.F32, []int64{2, 3, 3}, 2, 0, 1, 1, 3, 2, 1, 1, 1, 1, 2, 3, 0, 4, 5, 0, 0, 6)
	out := runModel(t, m.Proto(), map[string]*ir.Tensor{"X": x})
	require.Equal(t, []float64{0, 24}, out[0].F)
}

// TestTfIdfWeights: counts of the unigrams 1 and 2 in [1, 2, 1] are 2 and 1; TFIDF weighs
// them (0.5, 2), IDF weighs their presence.
func TestTfIdfWeights(t *testing.T) {
	for mode, want := range map[string][]float64{"TF": {2, 1}, "TFIDF": {1, 2}, "IDF": {0.5, 2}} {
		m := onnxgen.New("tfidf", 13)
		m.Input("X", ir.I64, 3)
		m.Node("TfIdfVectorizer", "tfidf", []string{"X"}, []string{"Y"}, onnxgen.StringAttr("mode", mode),
			onnxgen.IntAttr("min_gram_length", 1), onnxgen.IntAttr("max_gram_length", 1), onnxgen.IntAttr("max_skip_count", 0),
			onnxgen.IntsAttr("pool_int64s", 1, 2), onnxgen.IntsAttr("ngram_counts", 0), onnxgen.IntsAttr("ngram_indexes", 0, 1),
			&onnxpb.AttributeProto{Name: proto.String("weights"), Type: onnxpb.AttributeProto_FLOATS.Enum(), Floats: []float32{0.5, 2}})
		m.Output("Y", ir.F32, 2)
		out := runModel(t, m.Proto(), map[string]*ir.Tensor{"X": tensor(ir.I64, []int64{3}, 1, 2, 1)})
		require.Equal(t, want, out[0].F, mode)
	}
}
