package eval_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
)

// in is an operand of a golden case: its data (the type is taken from it).
type in = *ir.Tensor

func f32(shape []int64, v ...float64) *ir.Tensor { return tensorOf(ir.F32, shape, v...) }
func i64(shape []int64, v ...float64) *ir.Tensor { return tensorOf(ir.I64, shape, v...) }
func i32(shape []int64, v ...float64) *ir.Tensor { return tensorOf(ir.I32, shape, v...) }
func bl(shape []int64, v ...float64) *ir.Tensor  { return tensorOf(ir.Bool, shape, v...) }

func tensorOf(e ir.DType, shape []int64, v ...float64) *ir.Tensor {
	t := ir.NewTensor(e, shape)
	if int64(len(v)) != ir.NumElements(shape) {
		panic(fmt.Sprintf("%d values for shape %v", len(v), shape))
	}
	for i, x := range v {
		if e.IsFloat() {
			t.F[i] = ir.RoundFloat(e, x)
		} else {
			t.I[i] = ir.IntInit(e, x)
		}
	}
	return t
}

func s(d ...int64) []int64 { return d }

// goldenCase is one op on concrete operands and its result, computed by hand or taken from the
// numpy / ONNX documentation of the op (the comment of each case says which).
type goldenCase struct {
	name  string
	kind  string
	attrs ir.Attrs
	ins   []in
	want  *ir.Tensor
}

var inf = math.Inf(1)

var goldenCases = []goldenCase{
	// unary math: values from the C library (erf(0.5), e^-1, ln 2, Φ(1))
	{"erf", "erf", nil, []in{f32(s(3), 0, 0.5, -1)}, f32(s(3), 0, 0.5204998778, -0.8427007929)},
	{"floor", "floor", nil, []in{f32(s(5), -1.5, -0.5, 0.5, 1.5, 2.5)}, f32(s(5), -2, -1, 0, 1, 2)},
	{"ceil", "ceil", nil, []in{f32(s(5), -1.5, -0.5, 0.5, 1.5, 2.5)}, f32(s(5), -1, 0, 1, 2, 3)},
	{"round_half_even", "round", nil, []in{f32(s(5), -1.5, -0.5, 0.5, 1.5, 2.5)}, f32(s(5), -2, 0, 0, 2, 2)},
	{"sign", "sign", nil, []in{f32(s(3), -3, 0, 2)}, f32(s(3), -1, 0, 1)},
	{"reciprocal", "reciprocal", nil, []in{f32(s(3), 2, -4, 0.5)}, f32(s(3), 0.5, -0.25, 2)},
	{"softplus", "softplus", nil, []in{f32(s(2), 0, 1)}, f32(s(2), math.Ln2, 1.3132616875)},
	{"softsign", "softsign", nil, []in{f32(s(2), -3, 1)}, f32(s(2), -0.75, 0.5)},
	{"leaky_relu", "leaky_relu", ir.Attrs{"alpha": ir.FloatAttr(0.1)}, []in{f32(s(2), -2, 3)}, f32(s(2), -0.2, 3)},
	{"elu", "elu", ir.Attrs{"alpha": ir.FloatAttr(2)}, []in{f32(s(2), -1, 2)}, f32(s(2), 2*(math.Exp(-1)-1), 2)},
	{"celu", "celu", nil, []in{f32(s(2), -1, 2)}, f32(s(2), math.Exp(-1)-1, 2)},
	// ONNX Selu example: selu([-1, 0, 1]) = [-1.1113307, 0, 1.050701]
	{"selu", "selu", nil, []in{f32(s(3), -1, 0, 1)}, f32(s(3), -1.1113307, 0, 1.050701)},
	{"hard_sigmoid", "hard_sigmoid", nil, []in{f32(s(4), -3, 0, 1, 3)}, f32(s(4), 0, 0.5, 0.7, 1)},
	{"hard_swish", "hard_swish", nil, []in{f32(s(3), -4, 1, 4)}, f32(s(3), 0, 1*(1.0/6+0.5), 4)},
	{"thresholded_relu", "thresholded_relu", ir.Attrs{"alpha": ir.FloatAttr(1)}, []in{f32(s(3), 0.5, 1, 2)}, f32(s(3), 0, 0, 2)},
	// Φ(1) = 0.8413447; the tanh approximation gives 0.8411920
	{"gelu", "gelu", nil, []in{f32(s(2), 1, 0)}, f32(s(2), 0.8413447461, 0)},
	{"gelu_tanh", "gelu", ir.Attrs{"approximate": ir.StringAttr("tanh")}, []in{f32(s(1), 1)}, f32(s(1), 0.8411919906)},
	{"shrink", "shrink", ir.Attrs{"lambd": ir.FloatAttr(1), "bias": ir.FloatAttr(0.5)}, []in{f32(s(4), -2, -1, 0.5, 3)}, f32(s(4), -1.5, 0, 0, 2.5)},
	// swish(1) = sigmoid(1) = 0.7310586; mish(1) = tanh(ln(1 + e)) = 0.8650984
	{"swish", "swish", nil, []in{f32(s(2), 1, 0)}, f32(s(2), 0.7310585786, 0)},
	{"mish", "mish", nil, []in{f32(s(1), 1)}, f32(s(1), 0.8650983882)},
	{"is_nan", "is_nan", nil, []in{f32(s(3), math.NaN(), inf, 1)}, bl(s(3), 1, 0, 0)},
	{"is_inf", "is_inf", nil, []in{f32(s(4), math.NaN(), inf, -inf, 1)}, bl(s(4), 0, 1, 1, 0)},
	{"is_inf_negative", "is_inf", ir.Attrs{"detect_positive": ir.IntAttr(0)}, []in{f32(s(3), inf, -inf, 1)}, bl(s(3), 0, 1, 0)},
	{"bitwise_and", "bitwise_and", nil, []in{i32(s(2), 12, -1), i32(s(2), 10, 7)}, i32(s(2), 8, 7)},
	{"bitwise_or", "bitwise_or", nil, []in{i32(s(2), 12, -8), i32(s(2), 10, 7)}, i32(s(2), 14, -1)},
	{"bitwise_xor", "bitwise_xor", nil, []in{i32(s(2), 12, -1), i32(s(2), 10, 0)}, i32(s(2), 6, -1)},
	// shifts of u8: 200 << 1 wraps to 144, shifts by the width give 0; 200 >> 3 = 25
	{"shift_left_u8", "shift_left", nil, []in{tensorOf(ir.U8, s(3), 200, 1, 3), tensorOf(ir.U8, s(3), 1, 8, 2)}, tensorOf(ir.U8, s(3), 144, 0, 12)},
	{"shift_right_u8", "shift_right", nil, []in{tensorOf(ir.U8, s(3), 200, 255, 3), tensorOf(ir.U8, s(3), 3, 8, 0)}, tensorOf(ir.U8, s(3), 25, 0, 3)},
	{"bitwise_not_u8", "bitwise_not", nil, []in{tensorOf(ir.U8, s(2), 0, 5)}, tensorOf(ir.U8, s(2), 255, 250)},
	// running sums of [1, 2, 3, 4]: inclusive, exclusive, reversed
	{"cumsum", "cumsum", nil, []in{f32(s(4), 1, 2, 3, 4)}, f32(s(4), 1, 3, 6, 10)},
	{"cumsum_exclusive", "cumsum", ir.Attrs{"exclusive": ir.IntAttr(1)}, []in{f32(s(4), 1, 2, 3, 4)}, f32(s(4), 0, 1, 3, 6)},
	{"cumsum_reverse", "cumsum", ir.Attrs{"reverse": ir.IntAttr(1)}, []in{f32(s(4), 1, 2, 3, 4)}, f32(s(4), 10, 9, 7, 4)},
	{"cumsum_axis1", "cumsum", ir.Attrs{"axis": ir.IntAttr(-1)}, []in{i32(s(2, 2), 1, 2, 3, 4)}, i32(s(2, 2), 1, 3, 3, 7)},
	{"cumprod_reverse_exclusive", "cumprod", ir.Attrs{"reverse": ir.IntAttr(1), "exclusive": ir.IntAttr(1)}, []in{f32(s(4), 1, 2, 3, 4)}, f32(s(4), 24, 12, 4, 1)},
	// one_hot of [1, -1, 5] with depth 3 (5 is out of range: all off)
	{"one_hot", "one_hot", ir.Attrs{"depth": ir.IntAttr(3), "type": ir.StringAttr("f32"), "on": ir.FloatAttr(2), "off": ir.FloatAttr(-1)},
		[]in{i64(s(3), 1, -1, 5)}, f32(s(3, 3), -1, 2, -1, -1, -1, 2, -1, -1, -1)},
	{"one_hot_axis0", "one_hot", ir.Attrs{"axis": ir.IntAttr(0), "depth": ir.IntAttr(2), "type": ir.StringAttr("i32")},
		[]in{f32(s(2), 0, 1.5)}, i32(s(2, 2), 1, 0, 0, 0)},
	// NLL picks of logp = [[-1, -2, -3], [-4, -5, -6]] at targets [2, 0] with weights [1, 2, 3];
	// ignoring class 0 zeroes the second position
	{"nll_pick", "nll_pick", nil, []in{f32(s(2, 3), -1, -2, -3, -4, -5, -6), i64(s(2), 2, 0), f32(s(3), 1, 2, 3)}, f32(s(2), 9, 4)},
	{"nll_pick_ignore", "nll_pick", ir.Attrs{"has_ignore": ir.IntAttr(1), "ignore_index": ir.IntAttr(0)},
		[]in{f32(s(2, 3), -1, -2, -3, -4, -5, -6), i64(s(2), 2, 0)}, f32(s(2), 3, 0)},
	{"nll_pick_spatial", "nll_pick", nil, []in{f32(s(1, 2, 2), -1, -2, -3, -4), i32(s(1, 2), 1, 0)}, f32(s(1, 2), 3, 2)},
	{"nll_weight", "nll_weight", ir.Attrs{"has_ignore": ir.IntAttr(1), "ignore_index": ir.IntAttr(-1)},
		[]in{i64(s(3), 2, -1, 0), f32(s(3), 1, 2, 3)}, f32(s(3), 3, 0, 1)},
	// comparisons and logic
	{"equal", "equal", nil, []in{f32(s(3), 1, 2, 3), f32(s(3), 1, 0, 3)}, bl(s(3), 1, 0, 1)},
	{"greater_bcast", "greater", nil, []in{i64(s(2, 2), 1, 5, 3, 2), i64(s(2), 2, 2)}, bl(s(2, 2), 0, 1, 1, 0)},
	{"less_equal", "less_equal", nil, []in{f32(s(3), 1, 2, 3), f32(s(1), 2)}, bl(s(3), 1, 1, 0)},
	{"and", "and", nil, []in{bl(s(4), 0, 0, 1, 1), bl(s(4), 0, 1, 0, 1)}, bl(s(4), 0, 0, 0, 1)},
	{"or", "or", nil, []in{bl(s(4), 0, 0, 1, 1), bl(s(4), 0, 1, 0, 1)}, bl(s(4), 0, 1, 1, 1)},
	{"xor", "xor", nil, []in{bl(s(4), 0, 0, 1, 1), bl(s(4), 0, 1, 0, 1)}, bl(s(4), 0, 1, 1, 0)},
	{"not", "not", nil, []in{bl(s(2), 0, 1)}, bl(s(2), 1, 0)},
	// Python's % and C's fmod: -4 % 3 = 2, 4 % -3 = -2; fmod(-4, 3) = -1, fmod(4, -3) = 1
	{"mod", "mod", nil, []in{i32(s(4), -4, 4, -3, 3), i32(s(4), 3, -3, 2, 2)}, i32(s(4), 2, -2, 1, 1)},
	{"rem", "rem", nil, []in{i32(s(4), -4, 4, -3, 3), i32(s(4), 3, -3, 2, 2)}, i32(s(4), -1, 1, -1, 1)},
	{"where_bcast", "where", nil, []in{bl(s(2, 1), 1, 0), f32(s(2), 1, 2), f32(nil, 9)}, f32(s(2, 2), 1, 2, 9, 9)},
	{"cast_f32_i32_truncates", "cast", ir.Attrs{"to": ir.StringAttr("i32")}, []in{f32(s(3), -1.7, 2.9, 0.2)}, i32(s(3), -1, 2, 0)},
	{"cast_i32_bool", "cast", ir.Attrs{"to": ir.StringAttr("i1")}, []in{i32(s(3), 0, 3, -1)}, bl(s(3), 0, 1, 1)},
	{"cast_f32_f16_rounds", "cast", ir.Attrs{"to": ir.StringAttr("f16")}, []in{f32(s(1), 1.0001)}, tensorOf(ir.F16, s(1), 1)},
	// reductions of [[1, 2, 3], [4, 5, 6]]
	{"reduce_sum_axis1", "reduce_sum", ir.Attrs{"axes": ir.IntsAttr(1), "keepdims": ir.IntAttr(0)}, []in{f32(s(2, 3), 1, 2, 3, 4, 5, 6)}, f32(s(2), 6, 15)},
	{"reduce_sum_keep", "reduce_sum", ir.Attrs{"axes": ir.IntsAttr(-1)}, []in{f32(s(2, 3), 1, 2, 3, 4, 5, 6)}, f32(s(2, 1), 6, 15)},
	{"reduce_sum_none", "reduce_sum", ir.Attrs{"axes": ir.IntsAttr()}, []in{f32(s(2), 1, 2)}, f32(s(2), 1, 2)},
	{"reduce_prod_axis0", "reduce_prod", ir.Attrs{"axes": ir.IntsAttr(0), "keepdims": ir.IntAttr(0)}, []in{f32(s(2, 3), 1, 2, 3, 4, 5, 6)}, f32(s(3), 4, 10, 18)},
	{"reduce_max_all", "reduce_max", ir.Attrs{"axes": ir.IntsAttr(0, 1), "keepdims": ir.IntAttr(0)}, []in{f32(s(2, 3), 1, 2, 3, 4, 5, 6)}, f32(nil, 6)},
	{"reduce_min_int", "reduce_min", ir.Attrs{"axes": ir.IntsAttr(1), "keepdims": ir.IntAttr(0)}, []in{i64(s(2, 2), 3, -2, 7, 9)}, i64(s(2), -2, 7)},
	// empty sets: the identities of each reduction
	{"reduce_sum_empty", "reduce_sum", ir.Attrs{"axes": ir.IntsAttr(0), "keepdims": ir.IntAttr(0)}, []in{f32(s(0, 2))}, f32(s(2), 0, 0)},
	{"reduce_prod_empty", "reduce_prod", ir.Attrs{"axes": ir.IntsAttr(0), "keepdims": ir.IntAttr(0)}, []in{f32(s(0, 2))}, f32(s(2), 1, 1)},
	{"reduce_max_empty", "reduce_max", ir.Attrs{"axes": ir.IntsAttr(0), "keepdims": ir.IntAttr(0)}, []in{f32(s(0, 2))}, f32(s(2), -inf, -inf)},
	{"reduce_min_empty_i64", "reduce_min", ir.Attrs{"axes": ir.IntsAttr(0)}, []in{i64(s(0, 1))}, &ir.Tensor{Elem: ir.I64, Shape: s(1, 1), I: []int64{math.MaxInt64}}},
	{"reduce_max_empty_i32", "reduce_max", ir.Attrs{"axes": ir.IntsAttr(0)}, []in{i32(s(0))}, i32(s(1), math.MinInt32)},
	{"reduce_empty_result", "reduce_sum", ir.Attrs{"axes": ir.IntsAttr(1)}, []in{f32(s(0, 3))}, f32(s(0, 1))},
	// arg reductions: first and last extremum
	{"argmax", "argmax", ir.Attrs{"axis": ir.IntAttr(1), "keepdims": ir.IntAttr(0)}, []in{f32(s(2, 3), 1, 5, 5, 7, 0, 7)}, i64(s(2), 1, 0)},
	{"argmax_last", "argmax", ir.Attrs{"axis": ir.IntAttr(1), "keepdims": ir.IntAttr(0), "select_last_index": ir.IntAttr(1)}, []in{f32(s(2, 3), 1, 5, 5, 7, 0, 7)}, i64(s(2), 2, 2)},
	{"argmin_keep", "argmin", nil, []in{f32(s(2, 3), 1, 5, 5, 7, 0, 7)}, i64(s(1, 3), 0, 1, 0)},
	// the ONNX BatchNormalization example: (x - mean) / sqrt(var + eps) * scale + bias
	{"batch_norm", "batch_norm", ir.Attrs{"epsilon": ir.FloatAttr(0)},
		[]in{f32(s(1, 2, 1, 3), -1, 0, 1, 2, 3, 4), f32(s(2), 1, 1.5), f32(s(2), 0, 1), f32(s(2), 0, 3), f32(s(2), 1, 2.25)},
		f32(s(1, 2, 1, 3), -1, 0, 1, 0, 1, 2)},
	{"instance_norm_stats", "batch_norm", ir.Attrs{"epsilon": ir.FloatAttr(0)},
		[]in{f32(s(2, 1, 2), 1, 3, 10, 30), f32(s(1), 2), f32(s(1), 1), f32(s(2, 1), 2, 20), f32(s(2, 1), 1, 100)},
		f32(s(2, 1, 2), -1, 3, -1, 3)},
	// window sums over channels of [1, 2, 3, 4]: size 3 is c-1..c+1, size 2 is c..c+1
	{"channel_window_sum_3", "channel_window_sum", ir.Attrs{"size": ir.IntAttr(3)}, []in{f32(s(1, 4), 1, 2, 3, 4)}, f32(s(1, 4), 3, 6, 9, 7)},
	{"channel_window_sum_2", "channel_window_sum", ir.Attrs{"size": ir.IntAttr(2)}, []in{f32(s(1, 4), 1, 2, 3, 4)}, f32(s(1, 4), 3, 5, 7, 4)},
	// einsum
	{"einsum_matmul", "einsum", ir.Attrs{"equation": ir.StringAttr("ij,jk->ik")}, []in{f32(s(2, 2), 1, 2, 3, 4), f32(s(2, 1), 5, 6)}, f32(s(2, 1), 17, 39)},
	{"einsum_transpose", "einsum", ir.Attrs{"equation": ir.StringAttr("ij->ji")}, []in{f32(s(2, 3), 1, 2, 3, 4, 5, 6)}, f32(s(3, 2), 1, 4, 2, 5, 3, 6)},
	{"einsum_diagonal", "einsum", ir.Attrs{"equation": ir.StringAttr("ii->i")}, []in{f32(s(2, 2), 1, 2, 3, 4)}, f32(s(2), 1, 4)},
	{"einsum_trace", "einsum", ir.Attrs{"equation": ir.StringAttr("ii")}, []in{f32(s(2, 2), 1, 2, 3, 4)}, f32(nil, 5)},
	{"einsum_implicit_matvec", "einsum", ir.Attrs{"equation": ir.StringAttr("ij,j")}, []in{f32(s(2, 2), 1, 2, 3, 4), f32(s(2), 1, 1)}, f32(s(2), 3, 7)},
	{"einsum_batch_bcast", "einsum", ir.Attrs{"equation": ir.StringAttr("...j,...j->...")}, []in{f32(s(2, 2), 1, 2, 3, 4), f32(s(1, 2), 1, 10)}, f32(s(2), 21, 43)},
}

func TestGoldenMath(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			g := ir.NewGraph("g")
			inputs := map[string]*ir.Tensor{}
			var ops []*ir.Value
			for k, x := range tc.ins {
				v := g.AddInput(fmt.Sprintf("x%d", k), ir.StaticType(x.Elem, x.Shape...))
				inputs[v.Name] = x
				ops = append(ops, v)
			}
			op, err := g.NewOp(tc.kind, "", ops, tc.attrs)
			require.NoError(t, err)
			g.Outputs = []*ir.Value{op.Result}
			// evaluate the graph as the text format rebuilds it
			h, err := ir.Parse(g.String())
			require.NoError(t, err, "%s", g)
			require.Equal(t, g.String(), h.String())
			out, err := eval.Run(h, inputs)
			require.NoError(t, err)
			got := out[0]
			require.Equal(t, tc.want.Elem, got.Elem)
			require.Equal(t, fmt.Sprint(tc.want.Shape), fmt.Sprint(got.Shape))
			if got.Elem.IsFloat() {
				for i, w := range tc.want.F {
					require.InDelta(t, w, got.F[i], 1e-6*math.Max(1, math.Abs(w)), "element %d of %v", i, got.F)
				}
			} else {
				require.Equal(t, tc.want.I, got.I)
			}
		})
	}
}

// TestSymbolicReduction evaluates a reduction over a symbolic extent bound by the input.
func TestSymbolicReduction(t *testing.T) {
	g, err := ir.Parse(`graph @g[N](%x: f32[N, 2]) {
  %s = reduce_sum(%x) {axes = [0], keepdims = 0} : f32[2]
  %m = argmax(%x) {axis = 1} : i64[N, 1]
  return %s, %m
}`)
	require.NoError(t, err)
	out, err := eval.Run(g, map[string]*ir.Tensor{"x": f32(s(3, 2), 1, 2, 3, 4, 5, 6)})
	require.NoError(t, err)
	require.Equal(t, []float64{9, 12}, out[0].F)
	require.Equal(t, []int64{1, 1, 1}, out[1].I)
	out, err = eval.Run(g, map[string]*ir.Tensor{"x": f32(s(0, 2))})
	require.NoError(t, err)
	require.Equal(t, []float64{0, 0}, out[0].F)
	require.Empty(t, out[1].I)
}
