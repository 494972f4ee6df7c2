// This file tests Slice against ONNX Slice, and StridedSlice against the examples of
// TensorFlow's documentation and against a direct implementation of Python's indexing (which
// tf.Tensor.__getitem__ encodes into StridedSlice's masks) on random index expressions.

package tf_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/internal/tfgen"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
)

func TestSliceSameAsONNX(t *testing.T) {
	for _, tc := range []struct {
		begin, size        []int64
		starts, ends, axes []int64
		shape              []int64
		params             map[string]int64
	}{
		{[]int64{1, 0, 2}, []int64{1, -1, 2}, []int64{1, 2}, []int64{2, 4}, []int64{0, 2}, []int64{2, 3, 4}, nil},
		{[]int64{0, 1, 0}, []int64{2, 2, 4}, []int64{1}, []int64{3}, []int64{1}, []int64{2, 3, 4}, nil},
		{[]int64{0, 0}, []int64{-1, 3}, []int64{0}, []int64{3}, []int64{1}, []int64{-1, 5}, map[string]int64{"x_d0": 3}},
		{[]int64{1, 2}, []int64{-1, -1}, []int64{1, 2}, []int64{1 << 40, 1 << 40}, []int64{0, 1}, []int64{-1, 5}, map[string]int64{"x_d0": 4}},
	} {
		tg := tfgen.New()
		tg.Placeholder("x", ir.F32, tc.shape...)
		tg.Int32s("b", tc.begin)
		tg.Int32s("s", tc.size)
		tg.Node("Slice", "y", []string{"x", "b", "s"})
		m := onnxgen.New("m", 18)
		dims := anyDims(tc.shape)
		if tc.params != nil {
			dims[0] = "x_d0"
		}
		m.Input("x", ir.F32, dims...)
		m.Init("starts", i64(tc.starts...))
		m.Init("ends", i64(tc.ends...))
		m.Init("axes", i64(tc.axes...))
		m.Node("Slice", "y", []string{"x", "starts", "ends", "axes"}, []string{"y"})
		onnxOut(m, "y")
		checkSame(t, sameCase{tf: tg, onnx: m, params: tc.params})
	}
}

// pyIndex is one item of a Python index expression: an integer, a slice (nil bounds are
// None), an Ellipsis or a newaxis.
type pyIndex struct {
	kind              byte // 'i', 's', '.', 'n'
	i                 int64
	start, stop, step *int64
}

func (p pyIndex) String() string {
	str := func(v *int64) string {
		if v == nil {
			return ""
		}
		return fmt.Sprint(*v)
	}
	switch p.kind {
	case 'i':
		return fmt.Sprint(p.i)
	case '.':
		return "..."
	case 'n':
		return "newaxis"
	}
	return str(p.start) + ":" + str(p.stop) + ":" + str(p.step)
}

// stridedSliceNode encodes an index expression as tf.Tensor.__getitem__ does.
func stridedSliceNode(tg *tfgen.Graph, x string, items []pyIndex) {
	var begin, end, strides []int64
	var bm, em, el, na, sh int64
	for k, it := range items {
		b, e, s := int64(0), int64(0), int64(1)
		switch it.kind {
		case 'i':
			b, e = it.i, it.i+1
			sh |= 1 << k
		case '.':
			el |= 1 << k
		case 'n':
			na |= 1 << k
		case 's':
			if it.start == nil {
				bm |= 1 << k
			} else {
				b = *it.start
			}
			if it.stop == nil {
				em |= 1 << k
			} else {
				e = *it.stop
			}
			if it.step != nil {
				s = *it.step
			}
		}
		begin, end, strides = append(begin, b), append(end, e), append(strides, s)
	}
	tg.Int32s("begin", begin)
	tg.Int32s("end", end)
	tg.Int32s("strides", strides)
	tg.Node("StridedSlice", "y", []string{x, "begin", "end", "strides"}, tfgen.Int("begin_mask", bm), tfgen.Int("end_mask", em),
		tfgen.Int("ellipsis_mask", el), tfgen.Int("new_axis_mask", na), tfgen.Int("shrink_axis_mask", sh))
}

// pyRange is range(*slice(start, stop, step).indices(n)).
func pyRange(n int64, start, stop, step *int64) []int64 {
	st := int64(1)
	if step != nil {
		st = *step
	}
	norm := func(v *int64, def, lo, hi int64) int64 {
		if v == nil {
			return def
		}
		x := *v
		if x < 0 {
			x += n
		}
		return min(max(x, lo), hi)
	}
	var out []int64
	if st > 0 {
		for i := norm(start, 0, 0, n); i < norm(stop, n, 0, n); i += st {
			out = append(out, i)
		}
	} else {
		for i := norm(start, n-1, -1, n-1); i > norm(stop, -1, -1, n-1); i += st {
			out = append(out, i)
		}
	}
	return out
}

// pyGetItem indexes x like numpy (nil when an integer index is out of range).
func pyGetItem(x *ir.Tensor, items []pyIndex) *ir.Tensor {
	r := len(x.Shape)
	consumed := 0
	hasEllipsis := false
	for _, it := range items {
		if it.kind == 'i' || it.kind == 's' {
			consumed++
		}
		hasEllipsis = hasEllipsis || it.kind == '.'
	}
	if !hasEllipsis {
		items = append(items, pyIndex{kind: '.'})
	}
	// per input axis, the indices read; and the result shape
	var idx [][]int64
	var shape []int64
	var outAxis []int // per input axis, its result axis (-1: dropped)
	for _, it := range items {
		switch it.kind {
		case '.':
			for k := consumed; k < r; k++ {
				n := x.Shape[len(idx)]
				idx = append(idx, pyRange(n, nil, nil, nil))
				outAxis = append(outAxis, len(shape))
				shape = append(shape, n)
			}
			consumed = r
		case 'n':
			shape = append(shape, 1)
		case 'i':
			i := it.i
			if i < 0 {
				i += x.Shape[len(idx)]
			}
			if i < 0 || i >= x.Shape[len(idx)] {
				return nil
			}
			idx = append(idx, []int64{i})
			outAxis = append(outAxis, -1)
		case 's':
			sel := pyRange(x.Shape[len(idx)], it.start, it.stop, it.step)
			idx = append(idx, sel)
			outAxis = append(outAxis, len(shape))
			shape = append(shape, int64(len(sel)))
		}
	}
	out := ir.NewTensor(x.Elem, shape)
	pos := make([]int64, len(shape))
	for o := 0; o < out.Len(); o++ {
		// o's multi-index
		rem := int64(o)
		for a := len(shape) - 1; a >= 0; a-- {
			pos[a] = rem % shape[a]
			rem /= shape[a]
		}
		flat := int64(0)
		for d := 0; d < r; d++ {
			var i int64
			if outAxis[d] < 0 {
				i = idx[d][0]
			} else {
				i = idx[d][pos[outAxis[d]]]
			}
			flat = flat*x.Shape[d] + i
		}
		out.F[o] = x.F[flat]
	}
	return out
}

func p64(v int64) *int64 { return &v }

// TestStridedSliceDocExamples: the examples of tf.strided_slice's documentation.
func TestStridedSliceDocExamples(t *testing.T) {
	x := f32([]int64{3, 2, 3}, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6)
	for _, tc := range []struct {
		begin, end, strides []int64
		shape               []int64
		want                []float64
	}{
		{[]int64{1, 0, 0}, []int64{2, 1, 3}, []int64{1, 1, 1}, []int64{1, 1, 3}, []float64{3, 3, 3}},
		{[]int64{1, 0, 0}, []int64{2, 2, 3}, []int64{1, 1, 1}, []int64{1, 2, 3}, []float64{3, 3, 3, 4, 4, 4}},
		{[]int64{1, -1, 0}, []int64{2, -3, 3}, []int64{1, -1, 1}, []int64{1, 2, 3}, []float64{4, 4, 4, 3, 3, 3}},
	} {
		tg := tfgen.New()
		tg.Const("x", x)
		tg.Int32s("b", tc.begin)
		tg.Int32s("e", tc.end)
		tg.Int32s("s", tc.strides)
		tg.Node("StridedSlice", "y", []string{"x", "b", "e", "s"})
		g, err := tg.Import()
		require.NoError(t, err)
		out, err := eval.Run(g, nil)
		require.NoError(t, err)
		require.Equal(t, tc.shape, out[0].Shape)
		require.Equal(t, tc.want, out[0].F)
	}
}

// randIndex draws a Python index expression for a tensor of rank r.
func randIndex(r *rand.Rand, rank int, n int64) []pyIndex {
	var items []pyIndex
	consumed, ellipsis := 0, false
	for k := r.IntN(5); k >= 0; k-- {
		bound := func() *int64 {
			if r.IntN(4) == 0 {
				return nil
			}
			return p64(r.Int64N(2*n+5) - n - 2)
		}
		switch c := r.IntN(10); {
		case c < 2 && consumed < rank:
			items = append(items, pyIndex{kind: 'i', i: r.Int64N(2*n) - n})
			consumed++
		case c < 6 && consumed < rank:
			step := []*int64{nil, p64(1), p64(2), p64(-1), p64(-2), p64(3)}[r.IntN(6)]
			items = append(items, pyIndex{kind: 's', start: bound(), stop: bound(), step: step})
			consumed++
		case c < 8 && !ellipsis:
			items = append(items, pyIndex{kind: '.'})
			ellipsis = true
		case c < 10:
			items = append(items, pyIndex{kind: 'n'})
		}
	}
	return items
}

// TestStridedSliceLikePython compares StridedSlice with numpy-style indexing on random index
// expressions (integers, slices with any bounds and steps, an ellipsis, new axes).
func TestStridedSliceLikePython(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	shape := []int64{4, 5, 3}
	for trial := 0; trial < 400; trial++ {
		items := randIndex(r, len(shape), 4)
		x := randTensor(r, ir.F32, shape, anyValues)
		tg := tfgen.New()
		tg.Placeholder("x", ir.F32, shape...)
		stridedSliceNode(tg, "x", items)
		g, err := tg.Import()
		want := pyGetItem(x, items)
		if want == nil {
			require.ErrorContains(t, err, "out of range", "%v", items)
			continue
		}
		require.NoError(t, err, "%v", items)
		require.NoError(t, ir.Verify(g))
		got, err := eval.Run(g, map[string]*ir.Tensor{"x": x})
		require.NoError(t, err, "%v", items)
		require.Equal(t, want.Shape, got[0].Shape, "x%v", items)
		require.Equal(t, want.F, got[0].F, "x%v", items)
	}
}

// TestStridedSliceSymbolic: the usual indexing of a tensor with a symbolic batch (x[:, 1:],
// x[..., -1], x[:, ::-1], x[:, newaxis]) keeps the batch symbolic and agrees with Python's
// indexing for several batch sizes.
func TestStridedSliceSymbolic(t *testing.T) {
	all := pyIndex{kind: 's'}
	for _, items := range [][]pyIndex{
		{all, {kind: 's', start: p64(1)}},
		{{kind: '.'}, {kind: 'i', i: -1}},
		{all, {kind: 's', step: p64(-1)}},
		{all, {kind: 'n'}, {kind: 's', start: p64(-3), stop: p64(-1)}},
		{{kind: 's', start: p64(-1)}},
		{{kind: 's', step: p64(-2)}},
		{{kind: 'i', i: 0}},
	} {
		tg := tfgen.New()
		tg.Placeholder("x", ir.F32, -1, 4)
		stridedSliceNode(tg, "x", items)
		g, err := tg.Import()
		require.NoError(t, err, "%v", items)
		require.Equal(t, []string{"x_d0"}, g.Params)
		for _, n := range []int64{1, 2, 5} {
			x := randTensor(rand.New(rand.NewPCG(1, uint64(n))), ir.F32, []int64{n, 4}, anyValues)
			got, err := eval.Run(g, map[string]*ir.Tensor{"x": x}, eval.WithParams(map[string]int64{"x_d0": n}))
			require.NoError(t, err, "%v", items)
			want := pyGetItem(x, items)
			require.Equal(t, want.Shape, got[0].Shape, "x%v with batch %d", items, n)
			require.Equal(t, want.F, got[0].F, "x%v with batch %d", items, n)
		}
	}
}
