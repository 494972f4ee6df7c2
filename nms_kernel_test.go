package graphc_test

// This file checks NonMaxSuppression over run-time boxes and scores, which imports as the
// algorithm ops argsort and nms (ir/ops_argsort.go, ir/ops_nms.go, lower/algo.go): the
// evaluator against an independent greedy suppression written here (sort by score, ties by
// index, onnxruntime's IoU test), and the compiled kernels against the evaluator, on random
// boxes with tied scores, duplicated boxes (IoU 1), pairs whose IoU is exactly the threshold
// (not suppressed: the test is >), limits of 0, 2 and above the box count, with and without a
// score threshold, in both box encodings, and more boxes than the unrolled form allowed (512);
// and more kept boxes than two vectors of the kernel's lanes, suppressing from the remainder.

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
)

// nmsReference is the greedy suppression as the ONNX operator describes it, written
// independently of the evaluator: the selected (batch, class, box) triples in order.
func nmsReference(boxes, scores *ir.Tensor, limit int64, iou float32, st float32, hasST, center bool) []int64 {
	nb, nc, n := scores.Shape[0], scores.Shape[1], scores.Shape[2]
	corner := func(b, i int64) [4]float32 {
		var v [4]float32
		for k := range v {
			v[k] = float32(boxes.F[(b*n+i)*4+int64(k)])
		}
		if center {
			return [4]float32{v[1] - v[3]/2, v[0] - v[2]/2, v[1] + v[3]/2, v[0] + v[2]/2}
		}
		return [4]float32{min(v[0], v[2]), min(v[1], v[3]), max(v[0], v[2]), max(v[1], v[3])}
	}
	overlaps := func(p, q [4]float32) bool {
		ix := min(p[3], q[3]) - max(p[1], q[1])
		iy := min(p[2], q[2]) - max(p[0], q[0])
		if ix <= 0 || iy <= 0 {
			return false
		}
		inter := ix * iy
		a1, a2 := (p[3]-p[1])*(p[2]-p[0]), (q[3]-q[1])*(q[2]-q[0])
		if inter <= 0 || a1 <= 0 || a2 <= 0 || a1+a2-inter <= 0 {
			return false
		}
		return inter/(a1+a2-inter) > iou
	}
	out := []int64{}
	for b := range nb {
		for c := range nc {
			score := func(i int64) float32 { return float32(scores.F[(b*nc+c)*n+i]) }
			var cand []int64
			for i := range n {
				if !hasST || score(i) > st {
					cand = append(cand, i)
				}
			}
			slices.SortStableFunc(cand, func(i, j int64) int { return cmp.Compare(score(j), score(i)) })
			var kept []int64
			for _, i := range cand {
				if int64(len(kept)) >= limit {
					break
				}
				if !slices.ContainsFunc(kept, func(j int64) bool { return overlaps(corner(b, j), corner(b, i)) }) {
					kept = append(kept, i)
					out = append(out, b, c, i)
				}
			}
		}
	}
	return out
}

// nmsBoxes returns random boxes [nb, n, 4] on a small grid (so that scores tie and boxes
// repeat), with box 1 a copy of box 0 (IoU 1) and box 3 sharing half of box 2's area (IoU
// exactly 0.5).
func nmsBoxes(r *rand.Rand, nb, n int64, center bool) *ir.Tensor {
	t := ir.NewTensor(ir.F32, []int64{nb, n, 4})
	for i := range t.F {
		t.F[i] = float64(r.IntN(16)) / 2
	}
	for b := range nb {
		f := t.F[b*n*4:]
		copy(f[4:8], f[0:4])
		if n >= 4 {
			if center { // x, y, w, h: same centre column, half the height, top-aligned
				copy(f[8:12], []float64{2, 2, 2, 2})
				copy(f[12:16], []float64{2, 1.5, 2, 1})
			} else { // y1, x1, y2, x2
				copy(f[8:12], []float64{0, 0, 2, 2})
				copy(f[12:16], []float64{0, 0, 1, 2})
			}
		}
	}
	return t
}

// nmsCase is a NonMaxSuppression model's shapes and attributes.
type nmsCase struct {
	nb, nc, n, limit int64
	iou, st          float32
	hasST, center    bool
}

// nmsProgram is the model of c: its graph for the evaluator, its compiled program, the
// parameters it runs with (its bounded dim at the bound) and its selected count from outputs.
type nmsProgram struct {
	ref    *ir.Graph
	prog   *e2e.Program
	params map[string]int64
}

func (p *nmsProgram) count(outs []*ir.Tensor) int64 {
	if len(outs) == 1 {
		return outs[0].Shape[0]
	}
	return outs[1].I[0]
}

func buildNMS(t *testing.T, c nmsCase) *nmsProgram {
	ctx := context.Background()
	m := onnxgen.New("nms", 13)
	m.Input("B", ir.F32, c.nb, c.n, 4)
	m.Input("S", ir.F32, c.nb, c.nc, c.n)
	lim := ir.NewTensor(ir.I64, []int64{1})
	lim.I[0] = c.limit
	iou := ir.NewTensor(ir.F32, []int64{1})
	iou.F[0] = float64(c.iou)
	st := ir.NewTensor(ir.F32, []int64{1})
	st.F[0] = float64(c.st)
	m.Init("lim", lim)
	m.Init("iou", iou)
	ins := []string{"B", "S", "lim", "iou"}
	if c.hasST {
		m.Init("st", st)
		ins = append(ins, "st")
	}
	center := int64(0)
	if c.center {
		center = 1
	}
	m.Node("NonMaxSuppression", "nms", ins, []string{"Y"}, onnxgen.IntAttr("center_point_box", center))
	m.Output("Y", ir.I64, "n", 3)
	dir := t.TempDir()
	path := filepath.Join(dir, "m.onnx")
	require.NoError(t, m.Write(path))
	ref, err := graphc.Load(ctx, path)
	require.NoError(t, err)
	res, err := graphc.Compile(ctx, path, graphc.WithVerifyEach(true))
	require.NoError(t, err)
	prog, err := e2e.Build(ctx, dir, res.Graph, res.Module)
	require.NoError(t, err)
	params := map[string]int64{}
	if c.limit == 0 {
		require.Empty(t, res.Graph.Bounded, "no box can be selected: the output is empty, not bounded")
	} else {
		b := res.Graph.Bounded[0]
		params[b.Param] = b.Bound
	}
	return &nmsProgram{ref: ref, prog: prog, params: params}
}

// check runs the evaluator and the compiled program on boxes and scores against want.
func (p *nmsProgram) check(t *testing.T, boxes, scores *ir.Tensor, want []int64, trial int) {
	got, err := eval.Run(p.ref, map[string]*ir.Tensor{"B": boxes, "S": scores})
	require.NoError(t, err)
	require.Equal(t, int64(len(want)/3), p.count(got), "trial %d: the evaluator's count", trial)
	require.Equal(t, want, append([]int64{}, got[0].I...), "trial %d: the evaluator's selection", trial)
	out, _, err := p.prog.Run(context.Background(), []*ir.Tensor{boxes, scores}, p.params, 1)
	require.NoError(t, err)
	require.Equal(t, int64(len(want)/3), p.count(out), "trial %d: the compiled count", trial)
	require.Equal(t, want, append([]int64{}, out[0].I[:len(want)]...), "trial %d: the compiled selection", trial)
}

func TestNMSKernel(t *testing.T) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	r := rand.New(rand.NewPCG(35, 9))
	cases := []nmsCase{
		{1, 1, 40, 1000, 0.5, 0, false, false}, // every box, IoU 0.5 exactly not suppressed
		{2, 3, 40, 2, 0.5, 0.2, true, false},   // two per class, a score threshold
		{1, 2, 40, 0, 0.5, 0, false, true},     // no box at all
		{2, 2, 33, 5, 0, 0.9, true, true},      // IoU 0: any overlap suppresses; few pass 0.9
		{1, 1, 700, 700, 0.3, 0.1, true, false},
	}
	for _, c := range cases {
		name := fmt.Sprintf("b%d_c%d_n%d_limit%d_iou%g_st%g_%t_center%t", c.nb, c.nc, c.n, c.limit, c.iou, c.st, c.hasST, c.center)
		t.Run(name, func(t *testing.T) {
			p := buildNMS(t, c)
			for trial := range 4 {
				boxes := nmsBoxes(r, c.nb, c.n, c.center)
				scores := ir.NewTensor(ir.F32, []int64{c.nb, c.nc, c.n})
				for i := range scores.F {
					scores.F[i] = float64(r.IntN(8)) / 8 // ties
					if trial == 3 {
						scores.F[i] = 0.5 // every score alike: the order is the boxes'
					}
				}
				want := nmsReference(boxes, scores, c.limit, c.iou, c.st, c.hasST, c.center)
				p.check(t, boxes, scores, want, trial)
			}
		})
	}
}

// TestNMSKernelTailLanes: the compiled kernel tests a candidate against the kept boxes a vector
// at a time (8 lanes with AVX2, 4 with SSE). In class 0, 21 disjoint boxes are kept first (two
// full vectors of 8 and a remainder of 5; five of 4 and a remainder of 1), then copies of kept
// boxes 20 (the last one kept, in the remainder at either width), 17 (in the remainder of 8)
// and 1 come as candidates: each must be suppressed, which a kernel skipping the remainder, or
// reading one vector too few, would miss. Class 1 keeps box 5 first, then meets the copy of box
// 1, which class 0 left in the scratch lane after class 1's one kept box: it must not suppress
// (lanes past the kept count are no kept boxes).
func TestNMSKernelTailLanes(t *testing.T) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	const n = 28
	p := buildNMS(t, nmsCase{nb: 1, nc: 2, n: n, limit: 100, iou: 0.5})
	boxes := ir.NewTensor(ir.F32, []int64{1, n, 4})
	box := func(i int64, k int) { // box i: the square of side 1 at (0, 3k)
		copy(boxes.F[i*4:], []float64{0, float64(3 * k), 1, float64(3*k + 1)})
	}
	for i := range int64(21) {
		box(i, int(i))
	}
	box(21, 20)
	box(22, 17)
	box(23, 1)
	for i := int64(24); i < n; i++ {
		box(i, int(i))
	}
	scores := ir.NewTensor(ir.F32, []int64{1, 2, n})
	for i := range int64(n) {
		scores.F[i] = float64(n-i) / n // class 0: in box order
		scores.F[n+i] = float64(n-i) / (2 * n)
	}
	scores.F[n+5], scores.F[n+23] = 1, 0.9 // class 1: box 5, then box 23
	want := nmsReference(boxes, scores, 100, 0.5, 0, false, false)
	kept := [2][]int64{}
	for k := 0; k < len(want); k += 3 {
		kept[want[k+1]] = append(kept[want[k+1]], want[k+2])
	}
	require.Equal(t, []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 24, 25, 26, 27}, kept[0],
		"class 0: the reference suppresses the three copies and keeps the rest")
	require.Equal(t, []int64{5, 23}, kept[1][:2], "class 1: box 23 kept second")
	require.NotContains(t, kept[1], int64(1), "class 1: box 1 suppressed by box 23")
	p.check(t, boxes, scores, want, 0)
}

// TestArgsortKernel: TopK over a long last axis imports as argsort (a heap sort when compiled)
// and gather_elements. Values are quantized so that many tie (ties go by index) and a few are
// NaN (first when largest, as argsort orders them); the evaluator is checked against a stable
// sort written here, the compiled code against the evaluator.
func TestArgsortKernel(t *testing.T) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	r := rand.New(rand.NewPCG(35, 10))
	for _, largest := range []int64{1, 0} {
		t.Run(fmt.Sprintf("largest%d", largest), func(t *testing.T) {
			const rows, n, k = 3, 150, 70
			m := onnxgen.TopK(rows, n, k, largest)
			dir := t.TempDir()
			path := filepath.Join(dir, "m.onnx")
			require.NoError(t, m.Write(path))
			ref, err := graphc.Load(ctx, path)
			require.NoError(t, err)
			require.True(t, slices.ContainsFunc(ref.Ops, func(op *ir.Op) bool { return op.Kind == "argsort" }), "a long axis sorts with argsort")
			res, err := graphc.Compile(ctx, path, graphc.WithVerifyEach(true))
			require.NoError(t, err)
			prog, err := e2e.Build(ctx, dir, res.Graph, res.Module)
			require.NoError(t, err)
			for trial := range 3 {
				x := ir.NewTensor(ir.F32, []int64{rows, n})
				for i := range x.F {
					x.F[i] = float64(r.IntN(20)) / 4
					if trial == 2 && r.IntN(10) == 0 {
						x.F[i] = math.NaN()
					}
				}
				got, err := eval.Run(ref, map[string]*ir.Tensor{"X": x})
				require.NoError(t, err)
				for row := range int64(rows) {
					idx := make([]int64, n)
					for i := range idx {
						idx[i] = int64(i)
					}
					v := func(i int64) float64 { return x.F[row*n+i] }
					slices.SortStableFunc(idx, func(i, j int64) int {
						a, b := v(i), v(j)
						switch {
						case math.IsNaN(a) && math.IsNaN(b):
							return 0
						case math.IsNaN(a) || math.IsNaN(b):
							if math.IsNaN(a) == (largest == 1) {
								return -1
							}
							return 1
						case largest == 1:
							return cmp.Compare(b, a)
						}
						return cmp.Compare(a, b)
					})
					require.Equal(t, idx[:k], got[1].I[row*k:(row+1)*k], "trial %d row %d: the evaluator's indices", trial, row)
				}
				out, _, err := prog.Run(ctx, []*ir.Tensor{x}, nil, 1)
				require.NoError(t, err)
				require.Equal(t, got[1].I, out[1].I, "trial %d: compiled indices", trial)
				for i := range got[0].F {
					require.True(t, got[0].F[i] == out[0].F[i] || math.IsNaN(got[0].F[i]) && math.IsNaN(out[0].F[i]), "trial %d value %d", trial, i)
				}
			}
		})
	}
}
