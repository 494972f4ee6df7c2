// This file holds the fuzz target of the ONNX reader and importer and the generator of its seed
// corpus (testdata/fuzz/FuzzImport, rewritten with -update, the flag of opsdoc_test.go): one small model per op family
// built with onnxgen, and a few models of the ONNX backend node tests copied byte for byte.

package onnx_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/graphc/graphc/frontend/onnx"
	"github.com/graphc/graphc/internal/conformance"
	"github.com/graphc/graphc/internal/fuzzcheck"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/proto/onnxpb"
)

// nodeTestSuite is the ONNX backend node test suite (DESIGN.md, testing layer 3): the current
// suite of internal/conformance's search ($GRAPHC_ONNX_TESTS, beside the repository, `make
// onnx-tests`), "" when there is none.
var nodeTestSuite = func() string {
	s, _ := conformance.FindCurrentSuite(".")
	return s.Dir
}()

// nodeTestSeeds are the node tests whose model.onnx is copied into the corpus: one or two per
// importer family, and a few "_expanded" models whose function bodies exercise shape folding.
var nodeTestSeeds = []string{
	"test_argmax_negative_axis_keepdims_example", "test_averagepool_2d_pads", "test_batchnorm_epsilon",
	"test_center_crop_pad_crop_and_pad", "test_clip_default_inbounds", "test_concat_3d_axis_negative_1",
	"test_constantofshape_int_zeros", "test_conv_with_strides_padding", "test_convtranspose_pads",
	"test_cumsum_1d_reverse_exclusive", "test_depthtospace_crd_mode_example", "test_einsum_batch_diagonal",
	"test_expand_dim_changed", "test_eyelike_with_dtype", "test_gather_elements_negative_indices",
	"test_gemm_all_attributes", "test_hardmax_axis_1", "test_instancenorm_example",
	"test_layer_normalization_4d_axis1", "test_lppool_2d_pads", "test_lrn", "test_matmul_4d",
	"test_maxpool_2d_same_upper", "test_mod_mixed_sign_int64", "test_nllloss_NCd1d2_with_weight",
	"test_onehot_negative_indices", "test_range_float_type_positive_delta_expanded",
	"test_reduce_sum_keepdims_example", "test_reshape_negative_dim", "test_resize_upsample_sizes_nearest",
	"test_shape_start_1_end_negative_1", "test_slice_neg_steps", "test_softmax_axis_1",
	"test_split_variable_parts_2d_opset18", "test_squeeze_negative_axes", "test_tile",
	"test_transpose_all_permutations_0", "test_unsqueeze_three_axes", "test_where_long_example",
	"test_layer_normalization_4d_axis1_expanded", "test_sce_mean_weight_expanded",
	"test_attention_4d_with_qk_matmul_softmax_expanded", "test_group_normalization_epsilon_expanded",
}

// fuzzWeights is the external data file beside the fuzzed model: 16 float32 values.
func fuzzWeights() []byte {
	w := ir.NewTensor(ir.F32, []int64{16})
	for i := range w.F {
		w.F[i] = float64(i) / 4
	}
	return w.Bytes()
}

func f32(shape []int64, vals ...float64) *ir.Tensor {
	t := ir.NewTensor(ir.F32, shape)
	for i := range t.F {
		t.F[i] = ir.RoundFloat(ir.F32, vals[i%len(vals)])
	}
	return t
}

func i64s(v ...int64) *ir.Tensor {
	t := ir.NewTensor(ir.I64, []int64{int64(len(v))})
	copy(t.I, v)
	return t
}

// seedModels returns one small model per op family.
func seedModels() map[string]*onnxgen.Model {
	seeds := map[string]*onnxgen.Model{}
	add := func(name string, opset int64, build func(m *onnxgen.Model)) {
		m := onnxgen.New(name, opset)
		build(m)
		seeds[name] = m
	}
	I, F, S := onnxgen.IntAttr, onnxgen.FloatAttr, onnxgen.StringAttr
	Is := onnxgen.IntsAttr
	add("math", 17, func(m *onnxgen.Model) {
		m.Input("x", ir.F32, "N", 4)
		m.Input("y", ir.F32, 4)
		m.Node("Add", "add", []string{"x", "y"}, []string{"a"})
		m.Node("Relu", "relu", []string{"a"}, []string{"r"})
		m.Node("Sigmoid", "sig", []string{"y"}, []string{"s"})
		m.Node("Pow", "pow", []string{"r", "s"}, []string{"p"})
		m.Node("Greater", "gt", []string{"p", "y"}, []string{"c"})
		m.Node("Where", "where", []string{"c", "p", "x"}, []string{"w"})
		m.Node("Cast", "cast", []string{"w"}, []string{"i"}, I("to", int64(onnxpb.TensorProto_INT32)))
		m.Node("Clip", "clip", []string{"w"}, []string{"k"})
		m.Output("i", ir.I32, "N", 4)
		m.Output("k", ir.F32, "N", 4)
	})
	add("contraction", 17, func(m *onnxgen.Model) {
		m.Input("a", ir.F32, 2, 5, 3)
		m.Input("b", ir.F32, 4, 3)
		m.Init("c", f32([]int64{4}, 0.5, -1))
		m.Node("Einsum", "einsum", []string{"a", "b"}, []string{"e"}, S("equation", "bkm,nm->bkn"))
		m.Node("Transpose", "bt", []string{"b"}, []string{"bt"})
		m.Node("MatMul", "matmul", []string{"a", "bt"}, []string{"mm"})
		m.Node("Gemm", "gemm", []string{"b", "b", "c"}, []string{"g"}, I("transB", 1), F("alpha", 0.5), F("beta", 2))
		m.Output("e", ir.F32, 2, 5, 4)
		m.Output("mm", ir.F32, 2, 5, 4)
		m.Output("g", ir.F32, 4, 4)
	})
	add("reduce", 18, func(m *onnxgen.Model) {
		m.Input("x", ir.F32, "N", 3, 4)
		m.Init("axes", i64s(0, -1))
		m.Node("ReduceSum", "sum", []string{"x", "axes"}, []string{"s"}, I("keepdims", 1))
		m.Node("ReduceMean", "mean", []string{"x", "axes"}, []string{"mean"}, I("keepdims", 0))
		m.Node("ReduceLogSumExp", "lse", []string{"x"}, []string{"l"})
		m.Node("ArgMax", "argmax", []string{"x"}, []string{"am"}, I("axis", 1), I("select_last_index", 1))
		m.Node("CumSum", "cumsum", []string{"x", "one"}, []string{"cs"}, I("reverse", 1))
		m.Init("one", i64s(1))
		m.Output("s", ir.F32, 1, 3, 1)
		m.Output("am", ir.I64, "N", 1, 4)
		m.Output("cs", ir.F32, "N", 3, 4)
	})
	add("norm", 17, func(m *onnxgen.Model) {
		m.Input("x", ir.F32, 1, 3, 4, 4)
		for _, n := range []string{"scale", "bias", "mean", "var"} {
			m.Init(n, f32([]int64{3}, 1, 0.5, 2))
		}
		m.Node("BatchNormalization", "bn", []string{"x", "scale", "bias", "mean", "var"}, []string{"b"}, F("epsilon", 1e-3))
		m.Node("InstanceNormalization", "in", []string{"b", "scale", "bias"}, []string{"i"})
		m.Init("ln_scale", f32([]int64{4}, 1, 2))
		m.Node("LayerNormalization", "ln", []string{"i", "ln_scale"}, []string{"l"}, I("axis", -1))
		m.Node("Softmax", "softmax", []string{"l"}, []string{"s"}, I("axis", 1))
		m.Node("LogSoftmax", "logsoftmax", []string{"l"}, []string{"ls"})
		m.Output("s", ir.F32, 1, 3, 4, 4)
		m.Output("ls", ir.F32, 1, 3, 4, 4)
	})
	add("layout", 17, func(m *onnxgen.Model) {
		m.Input("x", ir.F32, "N", 2, 3)
		m.Node("Transpose", "t", []string{"x"}, []string{"t"}, Is("perm", 0, 2, 1))
		m.Init("shape", i64s(-1, 6))
		m.Node("Reshape", "r", []string{"t", "shape"}, []string{"r"})
		m.Init("ax", i64s(1))
		m.Node("Unsqueeze", "u", []string{"r", "ax"}, []string{"u"})
		m.Node("Squeeze", "s", []string{"u", "ax"}, []string{"s"})
		m.Node("Concat", "c", []string{"s", "r"}, []string{"c"}, I("axis", -1))
		m.Node("Flatten", "f", []string{"x"}, []string{"f"}, I("axis", 2))
		m.Init("split", i64s(2, 4))
		m.Node("Split", "sp", []string{"r", "split"}, []string{"sp0", "sp1"}, I("axis", 1))
		m.Output("c", ir.F32, "N", 12)
		m.Output("f", ir.F32, "N*2", 3)
		m.Output("sp1", ir.F32, "N", 4)
	})
	add("slice_pad", 18, func(m *onnxgen.Model) {
		m.Input("x", ir.F32, 4, "W", 5)
		m.Init("starts", i64s(1, -1))
		m.Init("ends", i64s(math.MaxInt64, math.MinInt64))
		m.Init("axes", i64s(0, 2))
		m.Init("steps", i64s(1, -2))
		m.Node("Slice", "slice", []string{"x", "starts", "ends", "axes", "steps"}, []string{"s"})
		m.Init("pads", i64s(1, 0, 2, 0, 1, 1))
		m.Node("Pad", "reflect", []string{"s", "pads"}, []string{"r"}, S("mode", "reflect"))
		m.Init("v", f32(nil, 7))
		m.Node("Pad", "constant", []string{"x", "pads", "v"}, []string{"c"})
		m.Output("r", ir.F32, 4, "W+1", 6)
		m.Output("c", ir.F32, 5, "W+1", 8)
	})
	add("conv", 17, func(m *onnxgen.Model) {
		m.Input("x", ir.F32, 1, 4, 7, 6)
		m.Init("w", f32([]int64{4, 2, 2, 3}, 0.25, -0.5, 1))
		m.Init("b", f32([]int64{4}, 1))
		m.Node("Conv", "conv", []string{"x", "w", "b"}, []string{"c"}, I("group", 2), Is("strides", 2, 1),
			Is("dilations", 1, 2), Is("pads", 1, 0, 0, 1))
		m.Node("MaxPool", "maxpool", []string{"c"}, []string{"mp"}, Is("kernel_shape", 2, 2), S("auto_pad", "SAME_UPPER"))
		m.Node("AveragePool", "avgpool", []string{"x"}, []string{"ap"}, Is("kernel_shape", 3, 3), Is("strides", 2, 2),
			I("count_include_pad", 1), Is("pads", 1, 1, 1, 1))
		m.Node("ConvTranspose", "convt", []string{"ap", "w"}, []string{"ct"}, I("group", 2), Is("strides", 2, 2))
		m.Node("GlobalAveragePool", "gap", []string{"ct"}, []string{"g"})
		m.Output("mp", ir.F32, 1, 4, 4, 3)
		m.Output("g", ir.F32, 1, 4, 1, 1)
	})
	add("index", 17, func(m *onnxgen.Model) {
		m.Input("x", ir.F32, 4, 6)
		m.Input("idx", ir.I64, 3)
		m.Node("Gather", "gather", []string{"x", "idx"}, []string{"g"}, I("axis", 0))
		m.Init("reps", i64s(1, 2))
		m.Node("Tile", "tile", []string{"g", "reps"}, []string{"t"})
		m.Init("depth", i64s(5))
		m.Init("values", f32([]int64{2}, 0, 1))
		m.Node("OneHot", "onehot", []string{"idx", "depth", "values"}, []string{"oh"})
		m.Init("eshape", i64s(2, 1, 6))
		m.Node("Expand", "expand", []string{"x", "eshape"}, []string{"e"})
		m.Init("ei", i64s(1, 0, 3))
		m.Node("Reshape", "eir", []string{"ei", "eshape2"}, []string{"ei2"})
		m.Init("eshape2", i64s(3, 1))
		m.Node("GatherElements", "ge", []string{"x", "ei2"}, []string{"gel"}, I("axis", 0))
		m.Output("t", ir.F32, 3, 12)
		m.Output("oh", ir.F32, 3, 5)
		m.Output("e", ir.F32, 2, 4, 6)
		m.Output("gel", ir.F32, 3, 1)
	})
	add("symbolic_shape", 17, func(m *onnxgen.Model) {
		// Keras-style flatten: Reshape(x, Concat(Gather(Shape(x), 0), [-1]))
		m.Input("x", ir.F32, "batch", 2, 3)
		m.Node("Shape", "shape", []string{"x"}, []string{"s"})
		m.Init("zero", ir.NewTensor(ir.I64, nil))
		m.Node("Gather", "batch", []string{"s", "zero"}, []string{"b"})
		m.Init("ax0", i64s(0))
		m.Node("Unsqueeze", "ub", []string{"b", "ax0"}, []string{"ub"})
		m.Init("minus1", i64s(-1))
		m.Node("Concat", "newshape", []string{"ub", "minus1"}, []string{"ns"}, I("axis", 0))
		m.Node("Reshape", "flatten", []string{"x", "ns"}, []string{"y"})
		m.Node("ConstantOfShape", "zeros", []string{"s"}, []string{"z"})
		m.Node("Size", "size", []string{"x"}, []string{"n"})
		m.Output("y", ir.F32, "batch", 6)
		m.Output("z", ir.F32, "batch", 2, 3)
		m.Output("n", ir.I64)
	})
	add("constants", 17, func(m *onnxgen.Model) {
		t := onnxpb.AttributeProto_TENSOR
		m.Node("Constant", "c", nil, []string{"c"}, &onnxpb.AttributeProto{Name: proto.String("value"), Type: &t,
			T: onnx.TensorToProto("", f32([]int64{2, 3}, 1, 2, 3))})
		m.Node("Constant", "start", nil, []string{"start"}, I("value_int", 0))
		m.Node("Constant", "limit", nil, []string{"limit"}, I("value_int", 6))
		m.Node("Constant", "delta", nil, []string{"delta"}, I("value_int", 2))
		m.Node("Range", "range", []string{"start", "limit", "delta"}, []string{"r"})
		m.Input("x", ir.F32, 2, 3)
		m.Node("Mul", "mul", []string{"x", "c"}, []string{"y"})
		m.Node("Trilu", "trilu", []string{"y", "k"}, []string{"tr"}, I("upper", 0))
		m.Init("k", ir.NewTensor(ir.I64, nil))
		m.Output("r", ir.I64, 3)
		m.Output("tr", ir.F32, 2, 3)
	})
	add("resize", 19, func(m *onnxgen.Model) {
		m.Input("x", ir.F32, 1, 1, 3, 4)
		m.Init("scales", f32([]int64{4}, 1, 1, 2, 1.5))
		m.Node("Resize", "linear", []string{"x", "", "scales"}, []string{"l"}, S("mode", "linear"),
			S("coordinate_transformation_mode", "half_pixel"))
		m.Init("sizes", i64s(1, 1, 5, 5))
		m.Node("Resize", "nearest", []string{"x", "", "", "sizes"}, []string{"n"}, S("mode", "nearest"),
			S("nearest_mode", "round_prefer_ceil"))
		m.Output("l", ir.F32, 1, 1, 6, 6)
		m.Output("n", ir.F32, 1, 1, 5, 5)
	})
	add("external", 14, func(m *onnxgen.Model) {
		// W's data is fuzzWeights, beside the fuzzed model, from byte 8 for 12 bytes
		m.Input("X", ir.F32, 3)
		w := onnx.TensorToProto("W", ir.NewTensor(ir.F32, []int64{3}))
		w.RawData = nil
		w.DataLocation = onnxpb.TensorProto_EXTERNAL.Enum()
		for _, kv := range [][2]string{{"location", "weights.bin"}, {"offset", "8"}, {"length", "12"}} {
			w.ExternalData = append(w.ExternalData, &onnxpb.StringStringEntryProto{Key: proto.String(kv[0]), Value: proto.String(kv[1])})
		}
		m.G.Initializer = append(m.G.Initializer, w)
		m.Node("Add", "add", []string{"X", "W"}, []string{"Y"})
		m.Output("Y", ir.F32, 3)
	})
	add("value_info", 13, func(m *onnxgen.Model) {
		// initializers listed as inputs (runtime inputs under WithInitializerInputs), value_info
		m.Input("x", ir.F32, "N", 3)
		m.Input("w", ir.F32, 3, 2)
		m.Init("w", f32([]int64{3, 2}, 1, -1, 0.5))
		m.Node("MatMul", "mm", []string{"x", "w"}, []string{"h"})
		m.G.ValueInfo = append(m.G.ValueInfo, onnxgen.ValueInfo("h", ir.F32, "N", 2))
		m.Node("Dropout", "dropout", []string{"h"}, []string{"d"})
		m.Node("Identity", "id", []string{"d"}, []string{"y"})
		m.Output("y", ir.F32, "N", 2)
	})
	seeds["qlinear_matmul"] = onnxgen.QLinearMatMul(3, 5, 4)
	seeds["qlinear_conv"] = onnxgen.QLinearConv(2, 4, 3)
	add("qdq", 13, func(m *onnxgen.Model) {
		// the QDQ form quantization tools write: DequantizeLinear → Conv → Relu → QuantizeLinear
		m.Input("x", ir.F32, 1, 2, 4, 4)
		s := ir.NewTensor(ir.F32, nil)
		s.F[0] = 0.1
		m.Init("s", s)
		m.Init("z", ir.NewTensor(ir.U8, nil))
		w := ir.NewTensor(ir.I8, []int64{3, 2, 3, 3})
		for i := range w.I {
			w.I[i] = int64(i%7 - 3)
		}
		m.Init("w", w)
		m.Init("ws", f32([]int64{3}, 0.01, 0.02))
		m.Init("wz", ir.NewTensor(ir.I8, []int64{3}))
		m.Node("QuantizeLinear", "qx", []string{"x", "s", "z"}, []string{"xq"})
		m.Node("DequantizeLinear", "dqx", []string{"xq", "s", "z"}, []string{"xd"})
		m.Node("DequantizeLinear", "dqw", []string{"w", "ws", "wz"}, []string{"wd"}, I("axis", 0))
		m.Node("Conv", "conv", []string{"xd", "wd"}, []string{"c"}, Is("pads", 1, 1, 1, 1))
		m.Node("Relu", "relu", []string{"c"}, []string{"r"})
		m.Node("QuantizeLinear", "qy", []string{"r", "s", "z"}, []string{"yq"})
		m.Node("DequantizeLinear", "dqy", []string{"yq", "s", "z"}, []string{"y"})
		m.Node("MaxPool", "pool", []string{"y"}, []string{"p"}, Is("kernel_shape", 2, 2))
		m.Node("QuantizeLinear", "qp", []string{"p", "s", "z"}, []string{"pq"})
		m.Node("DynamicQuantizeLinear", "dyn", []string{"x"}, []string{"dq", "dqs", "dqz"})
		m.Output("pq", ir.U8, 1, 3, 3, 3)
		m.Output("dq", ir.U8, 1, 2, 4, 4)
	})
	seeds["matmul_trilu"] = onnxgen.MatMulTrilu(4, true)
	seeds["last_row_logits"] = onnxgen.LastRowLogits(3, 4, 5)
	seeds["conv_relu"] = onnxgen.ConvRelu(2, 5, 3)
	seeds["transformer_block"] = onnxgen.TransformerBlock(4, 4)
	// the merged rows of multi-head attention (mergedrows.go), both dims symbolic
	seeds["merged_rows"] = mergedRowsModel(rand.New(rand.NewPCG(5, 6)), "")
	return seeds
}

// corpusEntry is the text of a corpus file for FuzzImport's arguments.
func corpusEntry(data []byte, initInputs bool) []byte {
	return fmt.Appendf(nil, "go test fuzz v1\n[]byte(%q)\nbool(%v)\n", data, initInputs)
}

// readCorpusEntry decodes a corpus file written by corpusEntry.
func readCorpusEntry(t *testing.T, path string) []byte {
	have, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./frontend/onnx -run TestFuzzCorpus -update")
	lines := strings.Split(string(have), "\n")
	require.GreaterOrEqual(t, len(lines), 3, path)
	data, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
	require.NoError(t, err, path)
	return []byte(data)
}

// TestFuzzCorpus keeps testdata/fuzz/FuzzImport in step with seedModels and nodeTestSeeds: every
// generated seed imports (beside the external data file), its corpus entry decodes to it, and
// the copied node test models are the suite's bytes (checked where the suite is installed).
func TestFuzzCorpus(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzImport")
	modelDir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(modelDir, "weights.bin"), fuzzWeights(), 0o644))
	if *update {
		require.NoError(t, os.MkdirAll(dir, 0o755))
	}
	for name, m := range seedModels() {
		data, err := m.Bytes()
		require.NoError(t, err)
		_, err = onnx.Read(bytes.NewReader(data), filepath.Join(modelDir, name+".onnx"))
		require.NoError(t, err, name)
		path := filepath.Join(dir, "seed_"+name)
		if *update {
			require.NoError(t, os.WriteFile(path, corpusEntry(data, false), 0o644))
		}
		have, err := onnx.Unmarshal(readCorpusEntry(t, path))
		require.NoError(t, err, path)
		require.True(t, proto.Equal(m.Proto(), have), "%s is stale: run go test ./frontend/onnx -run TestFuzzCorpus -update", path)
	}
	if nodeTestSuite == "" {
		t.Skipf("copied seeds not checked: no current node test suite (%s)", conformance.SuiteHint)
	}
	for _, name := range nodeTestSeeds {
		data, err := os.ReadFile(filepath.Join(nodeTestSuite, name, "model.onnx"))
		require.NoError(t, err)
		path := filepath.Join(dir, "node_"+name)
		if *update {
			require.NoError(t, os.WriteFile(path, corpusEntry(data, false), 0o644))
		}
		require.Equal(t, data, readCorpusEntry(t, path), "%s is stale: run go test ./frontend/onnx -run TestFuzzCorpus -update", path)
	}
}

// fuzzLimits keep what one input may allocate small: a constant of 2^20 elements is 8 MiB, and
// builders that allocate per output index (Resize's tables) stay under 2^24 entries; the
// defaults fit models of hundreds of GiB.
var fuzzLimits = ir.Limits{MaxFileBytes: 1 << 20, MaxConstantElements: 1 << 20, MaxTensorElements: 1 << 24}

// FuzzImport feeds the reader and importer (initializers listed as inputs are constants, or
// runtime inputs when initInputs is set): whatever decodes must import into a graph the verifier
// accepts or be rejected with an error (not one wrapping volume.ErrInternal, a bug), and the
// evaluator must run the graph (symbolic dims bound to 2, zero inputs) without panicking, all
// within fuzzcheck.TimeLimit. The model sits beside a small external data file (weights.bin, 64 bytes).
func FuzzImport(f *testing.F) {
	dir := f.TempDir()
	require.NoError(f, os.WriteFile(filepath.Join(dir, "weights.bin"), fuzzWeights(), 0o644))
	name := filepath.Join(dir, "fuzz.onnx")
	// the merged-rows idiom with each Reshape's target mutated (mergedrows_mutate_test.go)
	for _, data := range mergedRowsMutants(f) {
		f.Add(data, false)
	}
	f.Fuzz(func(t *testing.T, data []byte, initInputs bool) {
		defer fuzzcheck.Watchdog(fuzzcheck.TimeLimit)()
		opts := []onnx.Option{onnx.WithLimits(fuzzLimits)}
		if initInputs {
			opts = append(opts, onnx.WithInitializerInputs())
		}
		g, err := onnx.Read(bytes.NewReader(data), name, opts...)
		fuzzcheck.Imported(t, g, err)
	})
}
