// This file declares roi_align, an algorithm op (ops_algo.go): every output bin of every
// region of interest averages (or takes the max of) bilinear samples of its image on a
// sampling grid, in onnxruntime's arithmetic (the element type's, in its order of operations).
// The grid has sampling_ratio samples per bin and axis, or, adaptive (sampling_ratio 0),
// ceil(the bin's size) of them, a number the region's coordinates decide at run time: no
// per-point body with a fixed reduction expresses that, so roi_align is an algorithm whose
// element maps read the region's row, its batch index and every pixel of the element's channel
// in every image (the named over-approximation). DIE may still restrict the regions, channels
// and bins computed.
//
// The samples of an axis are separable: a sample (y, x) is valid when both coordinates are, and
// its weights are products of the two axes' weights. Along an axis of n pixels, sample s of bin
// k sits at start + k·bin + (s + 0.5)·bin/grid; it is valid when -1 <= it <= n (an invalid
// sample adds 0·x[b, c, 0, 0] to the average and is a candidate 0 of the max, as onnxruntime's
// zero weights at position 0 make it; a NaN coordinate is invalid, where onnxruntime reads
// outside the image). The samples of an adaptive grid are increasing, so the valid ones form an
// interval that a binary search finds: the work is the valid samples', whatever the region's
// size, and an adaptive grid above RoiAlignMaxGrid samples per axis is an error (onnxruntime
// would allocate grid² entries per bin).

package ir

import (
	"fmt"
	"math"

	"github.com/graphc/graphc/volume"
)

// RoiAlignMaxGrid is the largest adaptive grid per bin and axis: a bin of a million pixels.
// Below it the sample index s + 0.5 is exact in float32.
const RoiAlignMaxGrid = 1 << 20

// RoiAlignTapBound is the most valid samples an axis of n pixels can hold in a bin of an
// adaptive grid: samples of a grid of g >= 2 are bin/ceil(bin) > 1/2 apart, so at most
// 2(n+1)+1 of them lie in [-1, n]; the bound doubles that for rounding. The kernel keeps that
// many samples per bin and fails beyond (never seen: it would take coordinates beyond 2^20).
func RoiAlignTapBound(n int64) int64 { return 4*n + 8 }

func init() {
	register(&OpDef{
		Name: "roi_align",
		Summary: "y[r, c, i, j] = the mean (or max) over the sampling grid of bin (i, j) of region r of bilinear samples of " +
			"x[batch[r], c]; rois[r] = x1, y1, x2, y2 (an algorithm: the adaptive grid's size is data)",
		Example:     `%y = roi_align(%x, %rois, %b) {output_height = 2, output_width = 2, sampling_ratio = 2} : f32[3, 1, 2, 2]`,
		MinOperands: 3, MaxOperands: 3,
		Attrs: []AttrDef{
			{Name: "mode", Kind: AttrString, Default: dflt(StringAttr("avg")), Doc: "avg or max"},
			{Name: "output_height", Kind: AttrInt, Default: dflt(IntAttr(1)), Doc: "bins per region, vertically"},
			{Name: "output_width", Kind: AttrInt, Default: dflt(IntAttr(1)), Doc: "bins per region, horizontally"},
			{Name: "sampling_ratio", Kind: AttrInt, Default: dflt(IntAttr(0)), Doc: "samples per bin and axis; 0: ceil(the bin's size)"},
			{Name: "spatial_scale", Kind: AttrFloat, Default: dflt(FloatAttr(1)), Doc: "scale of the region coordinates"},
			{Name: "half_pixel", Kind: AttrInt, Default: dflt(IntAttr(1)), Doc: "1 shifts the coordinates by half a pixel (aligned); 0 makes regions at least 1×1"},
		},
		Build:     buildRoiAlign,
		Algorithm: &Algorithm{Eval: evalRoiAlign},
	})
}

// RoiAlignParams are roi_align's attributes.
type RoiAlignParams struct {
	OutH, OutW, Ratio int64
	Scale             float64
	HalfPixel, Max    bool
}

// RoiAlignParamsOf reads op's attributes.
func RoiAlignParamsOf(op *Op) RoiAlignParams {
	a := op.Attrs
	return RoiAlignParams{
		OutH: a.Int("output_height", 1), OutW: a.Int("output_width", 1), Ratio: a.Int("sampling_ratio", 0),
		Scale: a.Float("spatial_scale", 1), HalfPixel: a.Int("half_pixel", 1) != 0, Max: a.Str("mode", "avg") == "max",
	}
}

func buildRoiAlign(b *Builder) error {
	x, rois, bi := b.In(0), b.In(1), b.In(2)
	if x.Rank() != 4 || x.Elem != F32 && x.Elem != F64 {
		return b.Errorf("x %s must be an f32 or f64 tensor [N, C, H, W]", x)
	}
	if c, ok := rois.Shape[1].IsConst(); rois.Rank() != 2 || !ok || c != 4 || rois.Elem != x.Elem {
		return b.Errorf("rois %s must be [R, 4] of x's type %s", rois, x.Elem)
	}
	if err := checkIndexType(b, 2); err != nil {
		return err
	}
	if bi.Rank() != 1 || !bi.Shape[0].Equal(rois.Shape[0]) {
		return b.Errorf("batch indices %s must be [R] of rois %s", bi, rois)
	}
	p := RoiAlignParamsOf(b.Op)
	mode := b.Op.Attrs.Str("mode", "avg")
	if p.OutH <= 0 || p.OutW <= 0 || p.Ratio < 0 || mode != "avg" && mode != "max" {
		return b.Errorf("output %d×%d, sampling_ratio %d and mode %q: positive sizes, a ratio >= 0 and avg or max needed", p.OutH, p.OutW, p.Ratio, mode)
	}
	res := TensorType{Elem: x.Elem, Shape: []volume.Aff{rois.Shape[0], x.Shape[1], volume.AffConst(p.OutH), volume.AffConst(p.OutW)}}
	// y[r, c, i, j] reads every pixel of channel c of every image, row r of rois and batch[r]
	return setAlgorithmForm(b, res, [][]int{{-1, 1, -1, -1}, {0, -1}, {0}})
}

// roiFloat is the arithmetic of roi_align: the element type's.
type roiFloat interface{ ~float32 | ~float64 }

// roiTap is one valid sample along an axis: the neighbouring pixels and their weights.
type roiTap[T roiFloat] struct {
	lo, hi  int64
	wlo, wh T // weights of lo and hi (1 - l, l)
}

// roiSample is the coordinate of sample s of bin k: start + k·bin + (s + 0.5)·bin/grid, as
// onnxruntime rounds it (s + 0.5 in float32, then the element type).
func roiSample[T roiFloat](start, bin T, k, s, grid int64) T {
	a := T(start + T(T(k)*bin))
	return T(a + T(T(T(float32(s)+0.5)*bin)/T(grid)))
}

// roiValid reports whether a sample coordinate lies in [-1, n] (NaN does not).
func roiValid[T roiFloat](v T, n int64) bool { return v >= -1 && v <= T(n) }

// roiTapAt returns the neighbours and weights of valid coordinate v along an axis of n pixels.
func roiTapAt[T roiFloat](v T, n int64) roiTap[T] {
	if v <= 0 {
		v = 0
	}
	lo := int64(v)
	hi := lo + 1
	if lo >= n-1 {
		lo, hi = n-1, n-1
		v = T(lo)
	}
	l := T(v - T(lo))
	return roiTap[T]{lo: lo, hi: hi, wlo: T(1 - l), wh: l}
}

// roiAdaptiveGrid returns ceil(v) for the adaptive grid of a bin of size v: 0 when v is not
// positive (no sample: the output is 0), an error above RoiAlignMaxGrid.
func roiAdaptiveGrid[T roiFloat](v T) (int64, error) {
	if !(v > 0) {
		return 0, nil
	}
	if v > RoiAlignMaxGrid {
		return 0, fmt.Errorf("an adaptive sampling grid of %g samples per bin and axis (at most %d)", float64(v), RoiAlignMaxGrid)
	}
	return int64(math.Ceil(float64(v))), nil
}

// roiFirst returns the least s in [0, grid) with pred(s), grid when none; pred is monotone
// (false, then true).
func roiFirst(grid int64, pred func(s int64) bool) int64 {
	lo, hi := int64(0), grid
	for lo < hi {
		m := lo + (hi-lo)/2
		if pred(m) {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// roiAxisTaps returns the valid samples of bin k along an axis of n pixels, and whether some
// sample is invalid. A fixed grid's invalid samples are kept as zero taps at pixel 0 (as
// onnxruntime computes them); an adaptive grid's valid samples are the interval found by binary
// search (its samples increase with s).
func roiAxisTaps[T roiFloat](start, bin T, k, grid, n int64, adaptive bool) (taps []roiTap[T], invalid bool, err error) {
	at := func(s int64) T { return roiSample(start, bin, k, s, grid) }
	if !adaptive {
		for s := range grid {
			if v := at(s); roiValid(v, n) {
				taps = append(taps, roiTapAt(v, n))
			} else {
				taps, invalid = append(taps, roiTap[T]{}), true
			}
		}
		return taps, invalid, nil
	}
	first := roiFirst(grid, func(s int64) bool { return at(s) >= -1 })
	end := roiFirst(grid, func(s int64) bool { return at(s) > T(n) })
	if end-first > RoiAlignTapBound(n) {
		return nil, false, fmt.Errorf("%d valid samples in a bin along an axis of %d pixels (at most %d)", end-first, n, RoiAlignTapBound(n))
	}
	for s := first; s < end; s++ {
		taps = append(taps, roiTapAt(at(s), n))
	}
	return taps, end-first < grid, nil
}

func evalRoiAlign(op *Op, ins []*Tensor, shape []int64) (*Tensor, error) {
	x := ins[0]
	if err := algoShape(op, shape, ins[1].Shape[0], x.Shape[1], RoiAlignParamsOf(op).OutH, RoiAlignParamsOf(op).OutW); err != nil {
		return nil, err
	}
	res := NewTensor(x.Elem, shape)
	if x.Elem == F64 {
		return res, roiAlign[float64](op, ins, res)
	}
	return res, roiAlign[float32](op, ins, res)
}

// roiAlign computes roi_align into res in the arithmetic of T.
func roiAlign[T roiFloat](op *Op, ins []*Tensor, res *Tensor) error {
	x, rois, bi := ins[0], ins[1], ins[2]
	p := RoiAlignParamsOf(op)
	nb, nc, h, w := x.Shape[0], x.Shape[1], x.Shape[2], x.Shape[3]
	scale := T(float32(p.Scale))
	if x.Elem == F64 {
		scale = T(p.Scale)
	}
	var off T
	if p.HalfPixel {
		off = 0.5
	}
	for r := range rois.Shape[0] {
		b := bi.Int(int(r))
		if b < 0 || b >= nb {
			return errorOutOfRange(op, b, nb)
		}
		coord := func(k int64) T { return T(T(T(rois.Float(int(r*4+k)))*scale) - off) }
		sw, sh, ew, eh := coord(0), coord(1), coord(2), coord(3)
		rw, rh := T(ew-sw), T(eh-sh)
		if !p.HalfPixel {
			rw, rh = max(rw, 1), max(rh, 1)
		}
		binH, binW := T(rh/T(p.OutH)), T(rw/T(p.OutW))
		gh, gw := p.Ratio, p.Ratio
		if p.Ratio == 0 {
			var err error
			if gh, err = roiAdaptiveGrid(binH); err != nil {
				return fmt.Errorf("%s: region %d: %w", op.Kind, r, err)
			}
			if gw, err = roiAdaptiveGrid(binW); err != nil {
				return fmt.Errorf("%s: region %d: %w", op.Kind, r, err)
			}
		}
		samples := gh * gw
		count := T(max(samples, 1))
		ys := make([][]roiTap[T], p.OutH)
		xs := make([][]roiTap[T], p.OutW)
		yInv := make([]bool, p.OutH)
		xInv := make([]bool, p.OutW)
		for i := range p.OutH {
			var err error
			if ys[i], yInv[i], err = roiAxisTaps(sh, binH, i, gh, h, p.Ratio == 0); err != nil {
				return fmt.Errorf("%s: region %d: %w", op.Kind, r, err)
			}
		}
		for j := range p.OutW {
			var err error
			if xs[j], xInv[j], err = roiAxisTaps(sw, binW, j, gw, w, p.Ratio == 0); err != nil {
				return fmt.Errorf("%s: region %d: %w", op.Kind, r, err)
			}
		}
		for c := range nc {
			plane := (b*nc + c) * h * w
			px := func(y, xx int64) T { return T(x.Float(int(plane + y*w + xx))) }
			for i := range p.OutH {
				for j := range p.OutW {
					var out T
					if p.Max {
						// onnxruntime starts from the first sample; an invalid one is a 0
						first := !(yInv[i] || xInv[j]) && samples > 0
						for _, ty := range ys[i] {
							for _, tx := range xs[j] {
								v := roiMax4(T(T(ty.wlo*tx.wlo)*px(ty.lo, tx.lo)), T(T(ty.wlo*tx.wh)*px(ty.lo, tx.hi)),
									T(T(ty.wh*tx.wlo)*px(ty.hi, tx.lo)), T(T(ty.wh*tx.wh)*px(ty.hi, tx.hi)))
								if first || out < v {
									out = v
								}
								first = false
							}
						}
					} else {
						for _, ty := range ys[i] {
							for _, tx := range xs[j] {
								s := T(T(T(ty.wlo*tx.wlo)*px(ty.lo, tx.lo)) + T(T(ty.wlo*tx.wh)*px(ty.lo, tx.hi)))
								s = T(s + T(T(ty.wh*tx.wlo)*px(ty.hi, tx.lo)))
								s = T(s + T(T(ty.wh*tx.wh)*px(ty.hi, tx.hi)))
								out = T(out + s)
							}
						}
						out = T(out / count)
					}
					res.F[((r*nc+c)*p.OutH+i)*p.OutW+j] = float64(out)
				}
			}
		}
	}
	return nil
}

// roiMax4 is max(max(max(a, b), c), d) as std::max takes it (the first on ties and NaN).
func roiMax4[T roiFloat](a, b, c, d T) T {
	m := a
	for _, v := range []T{b, c, d} {
		if m < v {
			m = v
		}
	}
	return m
}
