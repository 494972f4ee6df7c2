package onnx_test

// This file tests the data-dependent ops over run-time data (ops_bounded.go): their extents are
// bounded dims computed by the graph and returned as extra outputs; the evaluator's results are
// checked against direct computations on random inputs, all-zero inputs (count 0) and all-
// non-zero ones (the bound reached).

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/frontend/onnx"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
)

// maskData returns n values: all zero (mode 0), all non-zero (1) or about half zero (2).
func maskData(rng *rand.Rand, elem ir.DType, shape []int64, mode int) *ir.Tensor {
	t := ir.NewTensor(elem, shape)
	for i := 0; i < t.Len(); i++ {
		v := float64(rng.IntN(5) + 1)
		if mode == 0 || mode == 2 && rng.IntN(2) == 0 {
			v = 0
		}
		if elem.IsFloat() {
			t.F[i] = v
		} else if elem == ir.Bool {
			t.I[i] = min(int64(v), 1)
		} else {
			t.I[i] = int64(v)
		}
	}
	return t
}

func TestNonZeroRuntime(t *testing.T) {
	m := onnxgen.New("nz", 13)
	m.Input("X", ir.F32, 2, 3, 4)
	m.Node("NonZero", "nz", []string{"X"}, []string{"Y"})
	m.Output("Y", ir.I64, 3, "n")
	g, err := onnx.Import(m.Proto(), "nz.onnx")
	require.NoError(t, err)
	require.NoError(t, ir.Verify(g))
	require.Len(t, g.Bounded, 1)
	require.Equal(t, int64(24), g.Bounded[0].Bound)
	require.Len(t, g.Outputs, 2, "the model's output, then the count")
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 12 {
		x := maskData(rng, ir.F32, []int64{2, 3, 4}, trial%3)
		out, err := eval.Run(g, map[string]*ir.Tensor{"X": x})
		require.NoError(t, err)
		var want [3][]int64
		for i := 0; i < x.Len(); i++ {
			if x.F[i] != 0 {
				want[0] = append(want[0], int64(i/12))
				want[1] = append(want[1], int64(i/4%3))
				want[2] = append(want[2], int64(i%4))
			}
		}
		n := int64(len(want[0]))
		require.Equal(t, n, out[1].I[0], "count")
		require.Equal(t, []int64{3, n}, out[0].Shape)
		require.Equal(t, append(append(append([]int64{}, want[0]...), want[1]...), want[2]...), out[0].I)
	}
}

func TestCompressRuntime(t *testing.T) {
	m := onnxgen.New("c", 13)
	m.Input("X", ir.F32, 3, 5)
	m.Input("cond", ir.Bool, 4)
	m.Node("Compress", "c", []string{"X", "cond"}, []string{"Y"}, onnxgen.IntAttr("axis", 1))
	m.Output("Y", ir.F32, 3, "n")
	g, err := onnx.Import(m.Proto(), "c.onnx")
	require.NoError(t, err)
	require.NoError(t, ir.Verify(g))
	require.Equal(t, int64(4), g.Bounded[0].Bound)
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 9 {
		x := maskData(rng, ir.F32, []int64{3, 5}, 1)
		c := maskData(rng, ir.Bool, []int64{4}, trial%3)
		out, err := eval.Run(g, map[string]*ir.Tensor{"X": x, "cond": c})
		require.NoError(t, err)
		var cols []int
		for i, v := range c.I {
			if v != 0 {
				cols = append(cols, i)
			}
		}
		want := []float64{}
		for r := range 3 {
			for _, j := range cols {
				want = append(want, x.F[r*5+j])
			}
		}
		require.Equal(t, int64(len(cols)), out[1].I[0])
		require.Equal(t, []int64{3, int64(len(cols))}, out[0].Shape)
		require.Equal(t, want, append([]float64{}, out[0].F...))
	}
}

func TestTopKRuntimeK(t *testing.T) {
	m := onnxgen.New("t", 13)
	m.Input("X", ir.F32, 2, 6)
	m.Input("K", ir.I64, 1)
	m.Node("TopK", "t", []string{"X", "K"}, []string{"V", "I"}, onnxgen.IntAttr("axis", 1))
	m.Output("V", ir.F32, 2, "k")
	m.Output("I", ir.I64, 2, "k")
	g, err := onnx.Import(m.Proto(), "t.onnx")
	require.NoError(t, err)
	require.NoError(t, ir.Verify(g))
	require.Equal(t, int64(6), g.Bounded[0].Bound)
	rng := rand.New(rand.NewPCG(5, 6))
	x := maskData(rng, ir.F32, []int64{2, 6}, 2)
	for k := int64(0); k <= 6; k++ {
		out, err := eval.Run(g, map[string]*ir.Tensor{"X": x, "K": tensor(ir.I64, []int64{1}, float64(k))})
		require.NoError(t, err)
		require.Equal(t, k, out[2].I[0])
		for r := range 2 {
			row := x.F[r*6 : r*6+6]
			taken := make([]bool, 6)
			for j := int64(0); j < k; j++ {
				best := -1
				for i, v := range row {
					if !taken[i] && (best < 0 || v > row[best]) {
						best = i
					}
				}
				taken[best] = true
				require.Equal(t, row[best], out[0].F[int64(r)*k+j])
				require.Equal(t, int64(best), out[1].I[int64(r)*k+j])
			}
		}
	}
	_, err = eval.Run(g, map[string]*ir.Tensor{"X": x, "K": tensor(ir.I64, []int64{1}, 7)})
	require.ErrorContains(t, err, "outside [0, 6]")
}

// TestUniqueRuntime: Unique over run-time data, pairwise (12 elements) and sorted (200: argsort
// and runs, uniqueSorted), against the import-time computation on the same data.
func TestUniqueRuntime(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, shape := range [][]int64{{3, 4}, {10, 20}} {
		total := shape[0] * shape[1]
		for _, sorted := range []int64{1, 0} {
			m := onnxgen.New("u", 13)
			m.Input("X", ir.F32, shape[0], shape[1])
			m.Node("Unique", "u", []string{"X"}, []string{"Y", "I", "V", "C"}, onnxgen.IntAttr("sorted", sorted))
			m.Output("Y", ir.F32, "n")
			m.Output("I", ir.I64, "n")
			m.Output("V", ir.I64, total)
			m.Output("C", ir.I64, "n")
			g, err := onnx.Import(m.Proto(), "u.onnx")
			require.NoError(t, err)
			require.NoError(t, ir.Verify(g))
			require.Equal(t, total, g.Bounded[0].Bound)
			kinds := map[string]bool{}
			for _, op := range g.Ops {
				kinds[op.Kind] = true
			}
			require.Equal(t, total > 64, kinds["argsort"], "%v: sorted by argsort beyond 64 elements", shape)
			for trial := range 7 {
				x := ir.NewTensor(ir.F32, shape)
				for i := range x.F {
					// few distinct values (trial 0: one), or all distinct (trial 1: the bound)
					x.F[i] = []float64{0, float64((i * 7) % int(total)), float64(rng.IntN(5)) - 2, float64(rng.IntN(50)) / 4}[min(trial, 3)]
				}
				// the same through the import-time path, the reference
				want := runModel(t, m.Proto(), nil, onnx.WithConstInput("X", x))
				got, err := eval.Run(g, map[string]*ir.Tensor{"X": x})
				require.NoError(t, err)
				for o := range 4 {
					require.Equal(t, want[o].Shape, got[o].Shape, "%v sorted %d trial %d output %d", shape, sorted, trial, o)
					require.Equal(t, want[o].F, got[o].F, "%v sorted %d trial %d output %d", shape, sorted, trial, o)
					require.Equal(t, want[o].I, got[o].I, "%v sorted %d trial %d output %d", shape, sorted, trial, o)
				}
				require.Equal(t, int64(len(want[0].F)), got[4].I[0])
			}
		}
	}
}

// nmsModel is NonMaxSuppression over run-time boxes [B, N, 4] and scores [B, C, N].
func nmsModel(b, c, n int64, center int64, maxOut int64, iou, score float64) *onnxgen.Model {
	m := onnxgen.New("nms", 13)
	m.Input("boxes", ir.F32, b, n, 4)
	m.Input("scores", ir.F32, b, c, n)
	mo := ir.NewTensor(ir.I64, []int64{1})
	mo.I[0] = maxOut
	m.Init("max", mo)
	it := ir.NewTensor(ir.F32, []int64{1})
	it.F[0] = iou
	m.Init("iou", it)
	ins := []string{"boxes", "scores", "max", "iou"}
	if score > -1e9 {
		st := ir.NewTensor(ir.F32, []int64{1})
		st.F[0] = score
		m.Init("score", st)
		ins = append(ins, "score")
	}
	m.Node("NonMaxSuppression", "nms", ins, []string{"sel"}, onnxgen.IntAttr("center_point_box", center))
	m.Output("sel", ir.I64, "n", 3)
	return m
}

// nmsInputs returns boxes clustered so that many overlap (both encodings read them as
// corners or centres and sizes) and scores in [0, 1) with repeats.
func nmsInputs(rng *rand.Rand, b, c, n int64) (*ir.Tensor, *ir.Tensor) {
	boxes := ir.NewTensor(ir.F32, []int64{b, n, 4})
	for i := range boxes.F {
		boxes.F[i] = float64(float32(float64(rng.IntN(8)) + rng.Float64()*2))
	}
	scores := ir.NewTensor(ir.F32, []int64{b, c, n})
	for i := range scores.F {
		scores.F[i] = float64(float32(float64(rng.IntN(10)) / 10))
	}
	return boxes, scores
}

func TestNMSRuntime(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	partial := 0
	for _, tc := range []struct {
		center, maxOut int64
		iou, score     float64
	}{{0, 6, 0.1, -2e9}, {1, 4, 0.2, 0.35}, {0, 100, 0, 0.5}, {1, 0, 0.5, -2e9}, {0, 5, 0.7, 0.95}, {0, 2, 0.9, -2e9}} {
		m := nmsModel(2, 3, 9, tc.center, tc.maxOut, tc.iou, tc.score)
		g, err := onnx.Import(m.Proto(), "nms.onnx")
		require.NoError(t, err)
		require.NoError(t, ir.Verify(g))
		if tc.maxOut == 0 {
			// nothing can be selected: an empty constant, no bounded dim
			require.Empty(t, g.Bounded)
			boxes, scores := nmsInputs(rng, 2, 3, 9)
			got, err := eval.Run(g, map[string]*ir.Tensor{"boxes": boxes, "scores": scores})
			require.NoError(t, err)
			require.Equal(t, []int64{0, 3}, got[0].Shape)
			continue
		}
		require.Equal(t, 2*3*min(tc.maxOut, 9), g.Bounded[0].Bound)
		for range 3 {
			boxes, scores := nmsInputs(rng, 2, 3, 9)
			want := runModel(t, m.Proto(), nil, onnx.WithConstInput("boxes", boxes), onnx.WithConstInput("scores", scores))
			got, err := eval.Run(g, map[string]*ir.Tensor{"boxes": boxes, "scores": scores})
			require.NoError(t, err)
			require.Equal(t, want[0].Shape, got[0].Shape, "%+v", tc)
			require.Equal(t, want[0].I, got[0].I, "%+v", tc)
			if n := got[1].I[0]; n > 0 && n < g.Bounded[0].Bound {
				partial++
			}
		}
	}
	require.Greater(t, partial, 6, "most selections keep some boxes and suppress others")
}

// TestTopKCappedK: SSD's k = min(300, count), exported as ReduceMin(Concat(300, count)), is
// bounded by the constant rather than by the selection's own bound.
func TestTopKCappedK(t *testing.T) {
	m := onnxgen.New("sk", 13)
	m.Input("S", ir.F32, 20)
	thr := ir.NewTensor(ir.F32, nil)
	thr.F[0] = 0.5
	m.Init("thr", thr)
	m.Init("kmax", tensor(ir.I64, []int64{1}, 5))
	m.Init("zero", tensor(ir.I64, []int64{1}, 0))
	m.Init("zs", tensor(ir.I64, nil, 0))
	m.Init("one", tensor(ir.I64, []int64{1}, 1))
	m.Node("Greater", "gt", []string{"S", "thr"}, []string{"M"})
	m.Node("NonZero", "nz", []string{"M"}, []string{"NZ"})
	m.Node("Squeeze", "sq", []string{"NZ", "zero"}, []string{"IDX"})
	m.Node("Gather", "ga", []string{"S", "IDX"}, []string{"SEL"})
	m.Node("Shape", "sh", []string{"SEL"}, []string{"SHP"})
	m.Node("Gather", "g0", []string{"SHP", "zs"}, []string{"CNT"})
	m.Node("Unsqueeze", "un", []string{"CNT", "zero"}, []string{"CNT1"})
	m.Node("Concat", "cc", []string{"kmax", "CNT1"}, []string{"BOTH"}, onnxgen.IntAttr("axis", 0))
	m.Node("ReduceMin", "rm", []string{"BOTH"}, []string{"KMIN"}, onnxgen.IntAttr("keepdims", 0))
	m.Node("Reshape", "rs", []string{"KMIN", "one"}, []string{"K"})
	m.Node("TopK", "tk", []string{"SEL", "K"}, []string{"V", "I"})
	m.Output("V", ir.F32, "k")
	m.Output("I", ir.I64, "k")
	g, err := onnx.Import(m.Proto(), "sk.onnx")
	require.NoError(t, err)
	require.NoError(t, ir.Verify(g))
	require.Len(t, g.Bounded, 2)
	require.Equal(t, int64(20), g.Bounded[0].Bound)
	require.Equal(t, int64(5), g.Bounded[1].Bound)
	rng := rand.New(rand.NewPCG(11, 12))
	for range 5 {
		s := ir.NewTensor(ir.F32, []int64{20})
		var sel []float64
		for i := range s.F {
			s.F[i] = float64(float32(rng.Float64()))
			if s.F[i] > 0.5 {
				sel = append(sel, s.F[i])
			}
		}
		out, err := eval.Run(g, map[string]*ir.Tensor{"S": s})
		require.NoError(t, err)
		k := min(5, len(sel))
		require.Equal(t, int64(k), out[3].I[0])
		slices.SortStableFunc(sel, func(a, b float64) int { return cmp.Compare(b, a) })
		require.Equal(t, sel[:k], append([]float64{}, out[0].F...))
	}
}

// TestSelectionLongMask checks NonZero and Compress over masks longer than the direct running
// sum (the doubling scan and the binary search of the selected positions), of lengths around
// powers of two, with none, all and about half selected.
func TestSelectionLongMask(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 2))
	for _, l := range []int64{33, 64, 65, 127, 300} {
		nz := onnxgen.New("nz", 13)
		nz.Input("X", ir.Bool, l)
		nz.Node("NonZero", "nz", []string{"X"}, []string{"Y"})
		nz.Output("Y", ir.I64, 1, "n")
		gn, err := onnx.Import(nz.Proto(), "nz.onnx")
		require.NoError(t, err)
		require.NoError(t, ir.Verify(gn))
		cp := onnxgen.New("c", 13)
		cp.Input("X", ir.F32, 2, l)
		cp.Input("cond", ir.Bool, l)
		cp.Node("Compress", "c", []string{"X", "cond"}, []string{"Y"}, onnxgen.IntAttr("axis", 1))
		cp.Output("Y", ir.F32, 2, "n")
		gc, err := onnx.Import(cp.Proto(), "c.onnx")
		require.NoError(t, err)
		require.NoError(t, ir.Verify(gc))
		for trial := range 6 {
			x := maskData(rng, ir.Bool, []int64{l}, trial%3)
			out, err := eval.Run(gn, map[string]*ir.Tensor{"X": x})
			require.NoError(t, err)
			want := []int64{}
			for i, v := range x.I {
				if v != 0 {
					want = append(want, int64(i))
				}
			}
			require.Equal(t, int64(len(want)), out[1].I[0], "length %d: the count", l)
			require.Equal(t, want, append([]int64{}, out[0].I...), "length %d", l)
			d := maskData(rng, ir.F32, []int64{2, l}, 1)
			out, err = eval.Run(gc, map[string]*ir.Tensor{"X": d, "cond": x})
			require.NoError(t, err)
			var wantF []float64
			for r := range int64(2) {
				for _, j := range want {
					wantF = append(wantF, d.F[r*l+j])
				}
			}
			require.Equal(t, []int64{2, int64(len(want))}, out[0].Shape)
			require.Equal(t, wantF, append([]float64(nil), out[0].F...), "length %d", l)
		}
	}
}

// TestNonZeroOfSelection: NonZero over a 1-D input whose extent is a bounded dim (the selected
// scores of an earlier NonZero, as Faster R-CNN's box_roi_pool selects per level) counts only
// within the extent, checked against a selection written here.
func TestNonZeroOfSelection(t *testing.T) {
	m := onnxgen.New("nn", 13)
	m.Input("S", ir.F32, 40)
	m.Init("a", tensor(ir.F32, []int64{}, 0.25))
	m.Init("b", tensor(ir.F32, []int64{}, 0.5))
	m.Init("zero", tensor(ir.I64, []int64{1}, 0))
	m.Node("Greater", "g1", []string{"S", "a"}, []string{"M1"})
	m.Node("NonZero", "nz1", []string{"M1"}, []string{"NZ1"})
	m.Node("Squeeze", "sq", []string{"NZ1", "zero"}, []string{"I1"})
	m.Node("Gather", "ga", []string{"S", "I1"}, []string{"SEL"})
	m.Node("Greater", "g2", []string{"SEL", "b"}, []string{"M2"})
	m.Node("NonZero", "nz2", []string{"M2"}, []string{"NZ2"})
	m.Output("NZ2", ir.I64, 1, "m")
	g, err := onnx.Import(m.Proto(), "nn.onnx")
	require.NoError(t, err)
	require.NoError(t, ir.Verify(g))
	require.Len(t, g.Bounded, 2)
	require.Equal(t, int64(40), g.Bounded[1].Bound, "at most the first selection's bound")
	rng := rand.New(rand.NewPCG(35, 9))
	for trial := range 6 {
		s := ir.NewTensor(ir.F32, []int64{40})
		for i := range s.F {
			s.F[i] = []float64{0, 1, rng.Float64()}[min(trial, 2)]
		}
		var sel []float64
		for _, v := range s.F {
			if v > 0.25 {
				sel = append(sel, v)
			}
		}
		want := []int64{}
		for i, v := range sel {
			if v > 0.5 {
				want = append(want, int64(i))
			}
		}
		out, err := eval.Run(g, map[string]*ir.Tensor{"S": s})
		require.NoError(t, err)
		require.Equal(t, []int64{1, int64(len(want))}, out[0].Shape, "trial %d", trial)
		require.Equal(t, want, append([]int64{}, out[0].I...), "trial %d", trial)
	}
}
