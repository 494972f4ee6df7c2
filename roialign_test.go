package graphc_test

// This file checks RoiAlign (the algorithm op roi_align, ir/ops_roialign.go and
// lower/algo_roialign.go) on random images and regions: regions inside the image, across its
// border, outside it, reversed (x2 < x1) and larger than it, so that samples are invalid,
// clamped to the last row and column, and adaptive grids take from 0 to a dozen samples per
// axis. The evaluator is checked exactly against an independent reference written here after
// onnxruntime's loops (every sample of the grid, invalid ones at zero weight); the compiled code
// (x86-64, and Hexagon v67 under qemu) exactly against the evaluator; onnxruntime against
// graphc within float rounding; and a model whose regions are selected at run time (a bounded
// number of them) and one where DIE keeps a channel and a row of bins.

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/internal/ortref"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
	"github.com/graphc/graphc/volume"
)

// roiCase is one RoiAlign node and its operand shapes.
type roiCase struct {
	opset        int64
	mode, ctm    string
	ratio        int64
	elem         ir.DType
	n, c, h, w   int64
	regions      int64
	outH, outW   int64
	spatialScale float32
}

func (tc roiCase) String() string {
	return fmt.Sprintf("opset%d_%s_%s_ratio%d_%s_%dx%dx%dx%d_r%d_out%dx%d_scale%g", tc.opset, tc.mode, tc.ctm, tc.ratio, tc.elem,
		tc.n, tc.c, tc.h, tc.w, tc.regions, tc.outH, tc.outW, tc.spatialScale)
}

// halfPixel says whether the node's coordinates are shifted by half a pixel (opset 16's
// default; earlier opsets never are).
func (tc roiCase) halfPixel() bool { return tc.opset >= 16 && tc.ctm != "output_half_pixel" }

// model writes the one-node model of tc.
func (tc roiCase) model(t *testing.T) string {
	m := onnxgen.New("roi_align", tc.opset)
	m.Input("X", tc.elem, tc.n, tc.c, tc.h, tc.w)
	m.Input("rois", tc.elem, tc.regions, 4)
	m.Input("batch", ir.I64, tc.regions)
	attrs := []onnxgen.Attr{onnxgen.StringAttr("mode", tc.mode), onnxgen.IntAttr("output_height", tc.outH),
		onnxgen.IntAttr("output_width", tc.outW), onnxgen.IntAttr("sampling_ratio", tc.ratio), onnxgen.FloatAttr("spatial_scale", tc.spatialScale)}
	if tc.opset >= 16 && tc.ctm != "" {
		attrs = append(attrs, onnxgen.StringAttr("coordinate_transformation_mode", tc.ctm))
	}
	m.Node("RoiAlign", "roi", []string{"X", "rois", "batch"}, []string{"Y"}, attrs...)
	m.Output("Y", tc.elem, tc.regions, tc.c, tc.outH, tc.outW)
	path := filepath.Join(t.TempDir(), "roi.onnx")
	require.NoError(t, m.Write(path))
	return path
}

// inputs returns a random image, regions (in image coordinates over spatial_scale) and batch
// indices.
func (tc roiCase) inputs(r *rand.Rand) []*ir.Tensor {
	x := ir.NewTensor(tc.elem, []int64{tc.n, tc.c, tc.h, tc.w})
	for i := range x.F {
		x.F[i] = ir.RoundFloat(tc.elem, r.NormFloat64())
	}
	rois := ir.NewTensor(tc.elem, []int64{tc.regions, 4})
	s := float64(tc.spatialScale)
	for k := range tc.regions {
		var x1, y1, x2, y2 float64
		switch k % 5 {
		case 0: // inside
			x1, y1 = r.Float64()*float64(tc.w), r.Float64()*float64(tc.h)
			x2, y2 = x1+r.Float64()*float64(tc.w-1), y1+r.Float64()*float64(tc.h-1)
		case 1: // across the border, larger than the image (adaptive grids of many samples)
			x1, y1 = -r.Float64()*float64(tc.w), -r.Float64()*float64(tc.h)
			x2, y2 = float64(tc.w)*(1+2*r.Float64()), float64(tc.h)*(1+2*r.Float64())
		case 2: // outside
			x1, y1 = float64(tc.w)+2+r.Float64()*3, -5-r.Float64()*3
			x2, y2 = x1+r.Float64()*4, y1+r.Float64()*4
		case 3: // reversed, or a point
			x1, y1 = r.Float64()*float64(tc.w), r.Float64()*float64(tc.h)
			x2, y2 = x1-r.Float64()*3, y1
		default: // on the last row and column
			x1, y1 = float64(tc.w)-1.5, float64(tc.h)-1.5
			x2, y2 = float64(tc.w)+0.7, float64(tc.h)+0.2
		}
		for j, v := range []float64{x1, y1, x2, y2} {
			rois.F[k*4+int64(j)] = ir.RoundFloat(tc.elem, v/s)
		}
	}
	b := ir.NewTensor(ir.I64, []int64{tc.regions})
	for i := range b.I {
		b.I[i] = r.Int64N(tc.n)
	}
	return []*ir.Tensor{x, rois, b}
}

// roiReference computes RoiAlign after onnxruntime's loops: for every region, every sample of
// every bin's grid (an invalid sample at zero weight on pixel 0), then for every channel the
// sum or max over the samples, in the arithmetic of T.
func roiReference[T float32 | float64](tc roiCase, ins []*ir.Tensor) []float64 {
	x, rois, bi := ins[0], ins[1], ins[2]
	var off T
	if tc.halfPixel() {
		off = 0.5
	}
	scale := T(tc.spatialScale)
	out := make([]float64, 0, tc.regions*tc.c*tc.outH*tc.outW)
	type pre struct {
		pos [4]int64
		w   [4]T
	}
	for r := range tc.regions {
		at := func(k int64) T { return T(T(T(rois.F[r*4+k])*scale) - off) }
		sw, sh, ew, eh := at(0), at(1), at(2), at(3)
		rw, rh := T(ew-sw), T(eh-sh)
		if !tc.halfPixel() {
			rw, rh = max(rw, 1), max(rh, 1)
		}
		bh, bw := T(rh/T(tc.outH)), T(rw/T(tc.outW))
		gh, gw := tc.ratio, tc.ratio
		if tc.ratio == 0 {
			gh, gw = int64(math.Ceil(float64(bh))), int64(math.Ceil(float64(bw)))
		}
		count := T(max(gh*gw, 1))
		var pc []pre
		for i := range tc.outH {
			for j := range tc.outW {
				for iy := range gh {
					yy := T(T(sh+T(T(i)*bh)) + T(T(T(float32(iy)+0.5)*bh)/T(gh)))
					for ix := range gw {
						xx := T(T(sw+T(T(j)*bw)) + T(T(T(float32(ix)+0.5)*bw)/T(gw)))
						y, xv := yy, xx
						if y < -1 || y > T(tc.h) || xv < -1 || xv > T(tc.w) {
							pc = append(pc, pre{})
							continue
						}
						y, xv = max(y, 0), max(xv, 0)
						yl, xl := int64(y), int64(xv)
						yh, xh := yl+1, xl+1
						if yl >= tc.h-1 {
							yl, yh, y = tc.h-1, tc.h-1, T(tc.h-1)
						}
						if xl >= tc.w-1 {
							xl, xh, xv = tc.w-1, tc.w-1, T(tc.w-1)
						}
						ly, lx := T(y-T(yl)), T(xv-T(xl))
						hy, hx := T(1-ly), T(1-lx)
						pc = append(pc, pre{pos: [4]int64{yl*tc.w + xl, yl*tc.w + xh, yh*tc.w + xl, yh*tc.w + xh},
							w: [4]T{T(hy * hx), T(hy * lx), T(ly * hx), T(ly * lx)}})
					}
				}
			}
		}
		for c := range tc.c {
			plane := x.F[(bi.I[r]*tc.c+c)*tc.h*tc.w:]
			k := 0
			for range tc.outH * tc.outW {
				var v T
				first := true
				for range max(gh, 0) * max(gw, 0) {
					p := pc[k]
					k++
					var t [4]T
					for q := range t {
						t[q] = T(p.w[q] * T(plane[p.pos[q]]))
					}
					if tc.mode == "max" {
						m := max(max(max(t[0], t[1]), t[2]), t[3])
						if first || v < m {
							v = m
						}
						first = false
					} else {
						v = T(v + T(T(T(t[0]+t[1])+t[2])+t[3]))
					}
				}
				if tc.mode != "max" {
					v = T(v / count)
				}
				out = append(out, float64(v))
			}
		}
	}
	return out
}

// roiCases are the node variants: both opsets, modes and coordinate transformations, fixed and
// adaptive grids, f32 and f64.
func roiCases() []roiCase {
	var cs []roiCase
	for _, opset := range []int64{10, 16} {
		for _, mode := range []string{"avg", "max"} {
			for _, ratio := range []int64{0, 1, 2, 3} {
				ctms := []string{""}
				if opset >= 16 {
					ctms = []string{"half_pixel", "output_half_pixel"}
				}
				for _, ctm := range ctms {
					cs = append(cs, roiCase{opset: opset, mode: mode, ctm: ctm, ratio: ratio, elem: ir.F32,
						n: 2, c: 3, h: 9, w: 11, regions: 10, outH: 3, outW: 4, spatialScale: 0.5})
				}
			}
		}
	}
	cs = append(cs,
		roiCase{opset: 16, mode: "avg", ctm: "half_pixel", ratio: 0, elem: ir.F64, n: 1, c: 2, h: 6, w: 5, regions: 5, outH: 2, outW: 2, spatialScale: 0.25},
		roiCase{opset: 16, mode: "max", ctm: "output_half_pixel", ratio: 2, elem: ir.F64, n: 2, c: 2, h: 5, w: 7, regions: 5, outH: 7, outW: 7, spatialScale: 1},
		roiCase{opset: 16, mode: "avg", ctm: "half_pixel", ratio: 2, elem: ir.F32, n: 1, c: 4, h: 1, w: 1, regions: 5, outH: 2, outW: 3, spatialScale: 1},
	)
	return cs
}

// TestRoiAlignEvaluator: the evaluator equals the reference exactly.
func TestRoiAlignEvaluator(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(35, 10))
	for _, tc := range roiCases() {
		t.Run(tc.String(), func(t *testing.T) {
			g, err := graphc.Load(ctx, tc.model(t))
			require.NoError(t, err)
			for range 5 {
				ins := tc.inputs(r)
				got, err := eval.Run(g, map[string]*ir.Tensor{"X": ins[0], "rois": ins[1], "batch": ins[2]})
				require.NoError(t, err)
				want := roiReference[float32](tc, ins)
				if tc.elem == ir.F64 {
					want = roiReference[float64](tc, ins)
				}
				require.Equal(t, want, got[0].F)
			}
		})
	}
}

// TestRoiAlignCompiled: the compiled kernel equals the evaluator exactly on x86-64, and as
// Hexagon v67 code under qemu.
func TestRoiAlignCompiled(t *testing.T) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	r := rand.New(rand.NewPCG(35, 12))
	var hexCases []*e2e.Case
	var hexWant [][]*ir.Tensor
	for n, tc := range roiCases() {
		if n%3 != 0 && tc.elem == ir.F32 {
			continue // a third of the f32 variants (every mode and ratio appears), clang's time
		}
		t.Run(tc.String(), func(t *testing.T) {
			res, err := graphc.Compile(ctx, tc.model(t), graphc.WithVerifyEach(true))
			require.NoError(t, err)
			prog, err := e2e.Build(ctx, t.TempDir(), res.Graph, res.Module)
			require.NoError(t, err)
			for range 3 {
				ins := tc.inputs(r)
				want, err := eval.Run(res.Graph, map[string]*ir.Tensor{"X": ins[0], "rois": ins[1], "batch": ins[2]})
				require.NoError(t, err)
				got, _, err := prog.Run(ctx, ins, nil, 1)
				require.NoError(t, err)
				require.Equal(t, want[0].F, got[0].F)
				hexCases = append(hexCases, &e2e.Case{Graph: res.Graph, Inputs: ins})
				hexWant = append(hexWant, want)
			}
		})
	}
	hm := e2e.HexagonScalar()
	hp, err := e2e.BuildBatch(ctx, filepath.Join(t.TempDir(), hm.String()), hm, hexCases)
	require.NoError(t, err)
	if !e2e.CanRun(t, hm) {
		return
	}
	for i, res := range hp.Run(ctx) {
		require.NoError(t, res.Err)
		require.Zero(t, res.Status)
		require.NoError(t, e2e.Compare(res.Outputs[0], hexWant[i][0], 0, 0, nil), "case %d on %s", i, hm)
	}
}

// TestRoiAlignMatchesORT: onnxruntime's RoiAlign and graphc's agree within rounding on every
// variant (they compute the same operations; the tolerance only covers -0 against +0 and
// fused multiply-adds onnxruntime may use).
func TestRoiAlignMatchesORT(t *testing.T) {
	if why := ortref.Missing(); why != "" {
		t.Skip(why)
	}
	ctx := context.Background()
	r := rand.New(rand.NewPCG(35, 14))
	for _, tc := range roiCases() {
		t.Run(tc.String(), func(t *testing.T) {
			path := tc.model(t)
			g, err := graphc.Load(ctx, path)
			require.NoError(t, err)
			for range 2 {
				ins := tc.inputs(r)
				want, err := ortref.Run(ctx, path, []string{"X", "rois", "batch"}, ins)
				require.NoError(t, err)
				got, err := eval.Run(g, map[string]*ir.Tensor{"X": ins[0], "rois": ins[1], "batch": ins[2]})
				require.NoError(t, err)
				require.NoError(t, e2e.Compare(got[0], want[0], 1e-5, 1e-6, nil))
			}
		})
	}
}

// roiSelectModel is a detector's second stage in miniature: the regions whose score passes 0.5
// (NonZero: a bounded number of them) are pooled from a feature map with RoiAlign, then
// scaled; the count is the model's second output.
func roiSelectModel(t *testing.T, k, c, h, w int64) string {
	m := onnxgen.New("roi_select", 16)
	m.Input("X", ir.F32, 1, c, h, w)
	m.Input("boxes", ir.F32, k, 4)
	m.Input("scores", ir.F32, k)
	half := ir.NewTensor(ir.F32, []int64{})
	half.F[0] = 0.5
	m.Init("half", half)
	axes := ir.NewTensor(ir.I64, []int64{1})
	m.Init("axes0", axes)
	m.Node("Greater", "gt", []string{"scores", "half"}, []string{"mask"})
	m.Node("NonZero", "nz", []string{"mask"}, []string{"nz"})
	m.Node("Squeeze", "sq", []string{"nz", "axes0"}, []string{"idx"})
	m.Node("Gather", "g", []string{"boxes", "idx"}, []string{"rois"})
	m.Node("Mul", "zero", []string{"idx", "zeroI"}, []string{"batch"})
	zero := ir.NewTensor(ir.I64, []int64{})
	m.Init("zeroI", zero)
	m.Node("RoiAlign", "roi", []string{"X", "rois", "batch"}, []string{"pooled"}, onnxgen.IntAttr("output_height", 3),
		onnxgen.IntAttr("output_width", 3), onnxgen.IntAttr("sampling_ratio", 2), onnxgen.FloatAttr("spatial_scale", 0.25))
	m.Node("Mul", "scale", []string{"pooled", "half"}, []string{"Y"})
	m.Node("Shape", "shape", []string{"idx"}, []string{"count"})
	m.Output("Y", ir.F32, "n", c, 3, 3)
	m.Output("count", ir.I64, 1)
	path := filepath.Join(t.TempDir(), "roi_select.onnx")
	require.NoError(t, m.Write(path))
	return path
}

// TestRoiAlignBoundedRegions: regions selected at run time (none, some, all) pooled by the
// compiled code match onnxruntime (or, without it, the evaluator).
func TestRoiAlignBoundedRegions(t *testing.T) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	const k, c, h, w = 12, 3, 8, 10
	path := roiSelectModel(t, k, c, h, w)
	res, err := graphc.Compile(ctx, path, graphc.WithVerifyEach(true))
	require.NoError(t, err)
	require.Len(t, res.Graph.Bounded, 1)
	require.EqualValues(t, k, res.Graph.Bounded[0].Bound)
	ref, err := graphc.Load(ctx, path)
	require.NoError(t, err)
	prog, err := e2e.Build(ctx, t.TempDir(), res.Graph, res.Module)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(35, 16))
	tc := roiCase{n: 1, c: c, h: h, w: w, regions: k, elem: ir.F32, spatialScale: 0.25}
	for trial, pass := range []float64{0, 0.5, 1} { // the share of scores above 0.5
		ins := tc.inputs(r)
		scores := ir.NewTensor(ir.F32, []int64{k})
		for i := range scores.F {
			scores.F[i] = 0.25
			if r.Float64() < pass {
				scores.F[i] = 0.75
			}
		}
		feeds := []*ir.Tensor{ins[0], ins[1], scores}
		want, err := eval.Run(ref, map[string]*ir.Tensor{"X": feeds[0], "boxes": feeds[1], "scores": feeds[2]})
		require.NoError(t, err)
		if why := ortref.Missing(); why == "" {
			ort, err := ortref.Run(ctx, path, []string{"X", "boxes", "scores"}, feeds)
			require.NoError(t, err)
			require.Equal(t, ort[0].Shape, want[0].Shape, "trial %d: the evaluator's regions", trial)
			require.NoError(t, e2e.Compare(want[0], ort[0], 1e-5, 1e-6, nil), "trial %d: the evaluator against onnxruntime", trial)
		}
		got, _, err := prog.Run(ctx, feeds, e2e.AtBounds(res.Graph, nil), 1)
		require.NoError(t, err)
		require.Equal(t, want[0].Shape, got[0].Shape, "trial %d: the compiled regions", trial)
		require.Equal(t, want[0].F, got[0].F, "trial %d", trial)
		require.Equal(t, want[1].I, got[1].I, "trial %d: the count", trial)
	}
}

// TestRoiAlignDIE: only channel 1 and the first row of bins of a RoiAlign are required; DIE
// keeps exactly those iterations and the compiled code still matches the evaluator there.
func TestRoiAlignDIE(t *testing.T) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	tc := roiCase{opset: 16, mode: "avg", ratio: 0, elem: ir.F32, n: 2, c: 3, h: 9, w: 11, regions: 10, outH: 3, outW: 4, spatialScale: 0.5}
	m := onnxgen.New("roi_die", 16)
	m.Input("X", ir.F32, tc.n, tc.c, tc.h, tc.w)
	m.Input("rois", ir.F32, tc.regions, 4)
	m.Input("batch", ir.I64, tc.regions)
	m.Node("RoiAlign", "roi", []string{"X", "rois", "batch"}, []string{"P"}, onnxgen.IntAttr("output_height", tc.outH),
		onnxgen.IntAttr("output_width", tc.outW), onnxgen.IntAttr("sampling_ratio", 0), onnxgen.FloatAttr("spatial_scale", tc.spatialScale))
	ints := func(v ...int64) *ir.Tensor {
		t := ir.NewTensor(ir.I64, []int64{int64(len(v))})
		copy(t.I, v)
		return t
	}
	m.Init("starts", ints(1, 0))
	m.Init("ends", ints(2, 1))
	m.Init("axes", ints(1, 2))
	m.Node("Slice", "s", []string{"P", "starts", "ends", "axes"}, []string{"Y"})
	m.Output("Y", ir.F32, tc.regions, 1, 1, tc.outW)
	path := filepath.Join(t.TempDir(), "roi_die.onnx")
	require.NoError(t, m.Write(path))
	res, err := graphc.Compile(ctx, path, graphc.WithVerifyEach(true))
	require.NoError(t, err)
	var dom volume.Set
	for _, op := range res.Graph.Ops {
		if op.Kind == "roi_align" {
			dom = op.Domain
		}
	}
	want, err := volume.ParseSet(fmt.Sprintf("{ [r, c, i, j] : 0 <= r < %d and c = 1 and i = 0 and 0 <= j < %d }", tc.regions, tc.outW))
	require.NoError(t, err)
	require.Equal(t, volume.Yes, dom.IsEqual(want), "roi_align's domain after DIE: %s", dom)
	ref, err := graphc.Load(ctx, path)
	require.NoError(t, err)
	prog, err := e2e.Build(ctx, t.TempDir(), res.Graph, res.Module)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(35, 18))
	for range 3 {
		ins := tc.inputs(r)
		w, err := eval.Run(ref, map[string]*ir.Tensor{"X": ins[0], "rois": ins[1], "batch": ins[2]})
		require.NoError(t, err)
		got, _, err := prog.Run(ctx, ins, nil, 1)
		require.NoError(t, err)
		require.Equal(t, w[0].F, got[0].F)
	}
}

// TestRoiAlignHostileRegions: a region whose adaptive grid would exceed 2^20 samples per axis,
// or whose batch index is out of range, is an error in the evaluator and a failing status in
// the compiled code, not a hang or a read outside the image.
func TestRoiAlignHostileRegions(t *testing.T) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	tc := roiCase{opset: 16, mode: "avg", ctm: "half_pixel", ratio: 0, elem: ir.F32, n: 1, c: 1, h: 4, w: 4, regions: 2, outH: 1, outW: 1, spatialScale: 1}
	path := tc.model(t)
	ref, err := graphc.Load(ctx, path)
	require.NoError(t, err)
	res, err := graphc.Compile(ctx, path)
	require.NoError(t, err)
	prog, err := e2e.Build(ctx, t.TempDir(), res.Graph, res.Module)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(35, 20))
	huge := tc.inputs(r)
	copy(huge[1].F[4:], []float64{-1e9, -1e9, 1e9, 1e9})
	oob := tc.inputs(r)
	oob[2].I[1] = 1
	for name, ins := range map[string][]*ir.Tensor{"huge region": huge, "batch index 1 of 1 image": oob} {
		_, err := eval.Run(ref, map[string]*ir.Tensor{"X": ins[0], "rois": ins[1], "batch": ins[2]})
		require.Error(t, err, name)
		_, _, err = prog.Run(ctx, ins, nil, 1)
		require.Error(t, err, name)
	}
}
