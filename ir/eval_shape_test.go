package ir_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
)

// goldenCase is a one-op graph in the text format, its inputs (row-major, in graph order) and
// the hand-computed result.
type goldenCase struct {
	name   string
	text   string
	inputs [][]float64
	want   []float64
}

// Hand-computed results of the layout, padding, index, convolution, pooling and resize ops.
var goldenShapeCases = []goldenCase{
	{"transpose", `graph @g(%x: f32[2, 3]) {
  %y = transpose(%x) {perm = [1, 0]} : f32[3, 2]
  return %y
}`, [][]float64{{0, 1, 2, 3, 4, 5}}, []float64{0, 3, 1, 4, 2, 5}},
	{"reshape", `graph @g(%x: f32[2, 3]) {
  %y = reshape(%x) {shape = "[3, 1, 2]"} : f32[3, 1, 2]
  return %y
}`, [][]float64{{0, 1, 2, 3, 4, 5}}, []float64{0, 1, 2, 3, 4, 5}},
	{"slice_negative_step", `graph @g(%x: f32[5]) {
  %y = slice(%x) {ends = [-100], starts = [-1], steps = [-2]} : f32[3]
  return %y
}`, [][]float64{{0, 1, 2, 3, 4}}, []float64{4, 2, 0}},
	{"concat_with_empty", `graph @g(%a: f32[2, 1], %e: f32[2, 0], %b: f32[2, 2]) {
  %y = concat(%a, %e, %b) {axis = 1} : f32[2, 3]
  return %y
}`, [][]float64{{1, 2}, {}, {3, 4, 5, 6}}, []float64{1, 3, 4, 2, 5, 6}},
	{"expand", `graph @g(%x: f32[3, 1]) {
  %y = expand(%x) {shape = "[2, 1, 2]"} : f32[2, 3, 2]
  return %y
}`, [][]float64{{1, 2, 3}}, []float64{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}},
	{"tile", `graph @g(%x: f32[2]) {
  %y = tile(%x) {repeats = [3]} : f32[6]
  return %y
}`, [][]float64{{1, 2}}, []float64{1, 2, 1, 2, 1, 2}},
	{"pad_constant", `graph @g(%x: f32[2, 2]) {
  %y = pad(%x) {pads = [1, 0, 0, 1], value = 9.0} : f32[3, 3]
  return %y
}`, [][]float64{{1, 2, 3, 4}}, []float64{9, 9, 9, 1, 2, 9, 3, 4, 9}},
	{"pad_edge", `graph @g(%x: f32[3]) {
  %y = pad(%x) {mode = "edge", pads = [2, 1]} : f32[6]
  return %y
}`, [][]float64{{1, 2, 3}}, []float64{1, 1, 1, 2, 3, 3}},
	{"pad_reflect", `graph @g(%x: f32[3]) {
  %y = pad(%x) {mode = "reflect", pads = [2, 2]} : f32[7]
  return %y
}`, [][]float64{{1, 2, 3}}, []float64{3, 2, 1, 2, 3, 2, 1}},
	{"pad_wrap", `graph @g(%x: f32[3]) {
  %y = pad(%x) {mode = "wrap", pads = [2, 4]} : f32[9]
  return %y
}`, [][]float64{{1, 2, 3}}, []float64{2, 3, 1, 2, 3, 1, 2, 3, 1}},
	{"pad_crop", `graph @g(%x: f32[4]) {
  %y = pad(%x) {pads = [-1, 1], value = 7.0} : f32[4]
  return %y
}`, [][]float64{{1, 2, 3, 4}}, []float64{2, 3, 4, 7}},
	{"depth_to_space_dcr", `graph @g(%x: f32[1, 8, 1, 1]) {
  %y = depth_to_space(%x) {blocksize = 2} : f32[1, 2, 2, 2]
  return %y
}`, [][]float64{{0, 1, 2, 3, 4, 5, 6, 7}}, []float64{0, 2, 4, 6, 1, 3, 5, 7}},
	{"depth_to_space_crd", `graph @g(%x: f32[1, 8, 1, 1]) {
  %y = depth_to_space(%x) {blocksize = 2, mode = "CRD"} : f32[1, 2, 2, 2]
  return %y
}`, [][]float64{{0, 1, 2, 3, 4, 5, 6, 7}}, []float64{0, 1, 2, 3, 4, 5, 6, 7}},
	{"space_to_depth", `graph @g(%x: f32[1, 2, 2, 2]) {
  %y = space_to_depth(%x) {blocksize = 2} : f32[1, 8, 1, 1]
  return %y
}`, [][]float64{{0, 2, 4, 6, 1, 3, 5, 7}}, []float64{0, 1, 2, 3, 4, 5, 6, 7}},
	{"gather_negative", `graph @g(%x: f32[3, 2], %i: i64[2]) {
  %y = gather(%x, %i) : f32[2, 2]
  return %y
}`, [][]float64{{1, 2, 3, 4, 5, 6}, {2, -3}}, []float64{5, 6, 1, 2}},
	{"gather_elements", `graph @g(%x: f32[2, 2], %i: i64[2, 2]) {
  %y = gather_elements(%x, %i) {axis = 1} : f32[2, 2]
  return %y
}`, [][]float64{{1, 2, 3, 4}, {0, 0, 1, 0}}, []float64{1, 1, 4, 3}},
	{"trilu_runtime_k", `graph @g(%x: f32[3, 3], %k: i64[1]) {
  %y = trilu(%x, %k) : f32[3, 3]
  return %y
}`, [][]float64{{1, 2, 3, 4, 5, 6, 7, 8, 9}, {1}}, []float64{0, 2, 3, 0, 0, 6, 0, 0, 0}},
	{"values", `graph @g[N](%x: f32[N]) {
  %y = values() {type = "i64[3]", values = ["N", "3", "2*N - 1"]} : i64[3]
  return %y
}`, [][]float64{{0, 0, 0, 0, 0}}, []float64{5, 3, 9}},
	{"conv_pad_bias", `graph @g(%x: f32[1, 1, 3, 3], %w: f32[1, 1, 2, 2], %b: f32[1]) {
  %y = conv(%x, %w, %b) {pads = [1, 0, 0, 0]} : f32[1, 1, 3, 2]
  return %y
}`, [][]float64{{1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 0, 0, 1}, {10}}, []float64{12, 13, 16, 18, 22, 24}},
	{"conv_transpose_stride", `graph @g(%x: f32[1, 1, 2], %w: f32[1, 1, 2]) {
  %y = conv_transpose(%x, %w) {strides = [2]} : f32[1, 1, 4]
  return %y
}`, [][]float64{{1, 2}, {1, 10}}, []float64{1, 10, 2, 20}},
	{"max_pool_pads", `graph @g(%x: f32[1, 1, 4]) {
  %y = max_pool(%x) {kernel = [2], pads = [1, 1], strides = [2]} : f32[1, 1, 3]
  return %y
}`, [][]float64{{1, 3, 2, 4}}, []float64{1, 3, 4}},
	{"avg_pool_exclude_pad", `graph @g(%x: f32[1, 1, 4]) {
  %y = avg_pool(%x) {kernel = [2], pads = [1, 0]} : f32[1, 1, 4]
  return %y
}`, [][]float64{{1, 3, 2, 4}}, []float64{1, 2, 2.5, 3}},
	{"avg_pool_include_pad", `graph @g(%x: f32[1, 1, 4]) {
  %y = avg_pool(%x) {count_include_pad = 1, kernel = [2], pads = [1, 0]} : f32[1, 1, 4]
  return %y
}`, [][]float64{{1, 3, 2, 4}}, []float64{0.5, 2, 2.5, 3}},
	{"global_avg_pool", `graph @g(%x: f32[1, 2, 2]) {
  %y = global_avg_pool(%x) : f32[1, 2, 1]
  return %y
}`, [][]float64{{1, 2, 3, 4}}, []float64{1.5, 3.5}},
	{"global_max_pool", `graph @g(%x: f32[1, 2, 2]) {
  %y = global_max_pool(%x) : f32[1, 2, 1]
  return %y
}`, [][]float64{{1, 2, 4, 3}}, []float64{2, 4}},
	{"lp_pool", `graph @g(%x: f32[1, 1, 3]) {
  %y = lp_pool(%x) {kernel = [2], pads = [1, 0]} : f32[1, 1, 3]
  return %y
}`, [][]float64{{1, -2, 3}}, []float64{1, 5, 13}},
	{"eye", `graph @g() {
  %y = eye() {k = 1, type = "i64[2, 3]"} : i64[2, 3]
  return %y
}`, nil, []float64{0, 1, 0, 0, 0, 1}},
	{"max_pool_index", `graph @g(%x: f32[2, 1, 2, 2]) {
  %y = max_pool_index(%x) {kernel = [2, 2]} : i64[2, 1, 1, 1]
  return %y
}`, [][]float64{{1, 4, 3, 2, 5, 5, 6, 6}}, []float64{1, 6}},
	{"resize_nearest", `graph @g(%x: f32[2]) {
  %y = resize(%x) {coordinate_transformation_mode = "asymmetric", nearest_mode = "floor", scales = [2.0], shape = "[4]"} : f32[4]
  return %y
}`, [][]float64{{1, 2}}, []float64{1, 1, 2, 2}},
	// numpy/PyTorch bilinear with half-pixel centres: [1, 2] upsampled to [1, 1.25, 1.75, 2]
	{"resize_linear", `graph @g(%x: f32[2]) {
  %y = resize(%x) {mode = "linear", scales = [2.0], shape = "[4]"} : f32[4]
  return %y
}`, [][]float64{{1, 2}}, []float64{1, 1.25, 1.75, 2}},
}

func TestGoldenShapeOps(t *testing.T) {
	for _, tc := range goldenShapeCases {
		t.Run(tc.name, func(t *testing.T) {
			g, err := ir.Parse(tc.text + "\n")
			require.NoError(t, err)
			require.NoError(t, ir.Verify(g))
			roundTrip(t, g)
			in := map[string]*ir.Tensor{}
			for i, v := range g.Inputs {
				shape, err := v.Type.EvalShape(map[string]int64{"N": int64(len(tc.inputs[i]))})
				require.NoError(t, err)
				x := ir.NewTensor(v.Type.Elem, shape)
				for k, f := range tc.inputs[i] {
					if x.Elem.IsFloat() {
						x.F[k] = f
					} else {
						x.I[k] = int64(f)
					}
				}
				in[v.Name] = x
			}
			out, err := eval.Run(g, in)
			require.NoError(t, err)
			got := make([]float64, out[0].Len())
			for k := range got {
				got[k] = out[0].Float(k)
			}
			require.Equal(t, tc.want, got)
		})
	}
}

// TestReshapeConstantTimesSymbol: extents like 2N (Flatten of [N, 2, 3] at axis 2) are a
// constant times a symbolic factor, so reshapes between them and [N, 2, ...] group into runs;
// the result keeps the row-major order (N = 2: the 12 inputs in order). A symbolic extent that
// is not the leading dim of its run stays an error.
func TestReshapeConstantTimesSymbol(t *testing.T) {
	for _, c := range []struct{ from, to string }{
		{"[N, 2, 3]", "[2N, 3]"}, {"[N, 2, 3]", "[6N]"}, {"[2N, 3]", "[N, 2, 3]"}, {"[6N]", "[N, 3, 2]"},
		{"[3, 2N]", "[3, 2, N]"},
	} {
		text := `graph @g[N](%x: f32` + c.from + `) {
  %y = reshape(%x) {shape = "` + c.to + `"} : f32` + c.to + `
  return %y
}`
		g, err := ir.Parse(text)
		if c.from == "[3, 2N]" {
			require.ErrorContains(t, err, "symbolic extent", text)
			continue
		}
		require.NoError(t, err, text)
		require.NoError(t, ir.Verify(g))
		shape, err := g.Inputs[0].Type.EvalShape(map[string]int64{"N": 2})
		require.NoError(t, err)
		x := ir.NewTensor(ir.F32, shape)
		for k := range x.F {
			x.F[k] = float64(k)
		}
		out, err := eval.Run(g, map[string]*ir.Tensor{"x": x}, eval.WithParams(map[string]int64{"N": 2}))
		require.NoError(t, err, text)
		require.Equal(t, x.F, out[0].F, text)
	}
}
