// This file emits the kernel of roi_align (ir/ops_roialign.go). For every region of the stored
// box it computes, once for all channels, the samples of every bin along each axis (separable:
// a sample's weights are products of its row's and its column's), as onnxruntime precomputes
// them: the two neighbouring rows (columns) as offsets in the image plane and their weights,
// kept in the workspace. A fixed grid keeps every sample (an invalid one as a zero weight at
// pixel 0, loops of constant length that LLVM unrolls); an adaptive grid keeps the interval of
// valid samples a binary search finds (its samples increase), at most
// ir.RoiAlignTapBound(n) of them. Then, channel by channel (the plane stays in cache), every bin
// of the stored box sums (or maxes) its samples in the arithmetic of the element type, in
// onnxruntime's order of operations.

package lower

import (
	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/ir"
)

// roiLayout is the scratch layout of roi_align: per bin of each axis, up to g samples of two
// offsets (i64) and two weights (the element type), the number of samples kept and whether
// some sample of the bin is invalid.
type roiLayout struct {
	gy, gx value.Value // samples kept per bin, rows and columns
	oh, ow int64
	ft     types.Type
}

func roiLayoutOf(fb *funcBuilder, op *ir.Op) roiLayout {
	p := ir.RoiAlignParamsOf(op)
	ext := fb.extents(op.Operands[0].Type)
	l := roiLayout{oh: p.OutH, ow: p.OutW, ft: types.Float}
	if op.Operands[0].Type.Elem == ir.F64 {
		l.ft = types.Double
	}
	if p.Ratio > 0 {
		l.gy, l.gx = i64(p.Ratio), i64(p.Ratio)
	} else {
		bound := func(n value.Value) value.Value { return fb.add(fb.mul(n, i64(4)), i64(8)) } // ir.RoiAlignTapBound
		l.gy, l.gx = bound(ext[2]), bound(ext[3])
	}
	return l
}

// taps returns the samples kept along both axes (the number of offset and weight pairs).
func (l roiLayout) taps(fb *funcBuilder) value.Value {
	return fb.add(fb.mul(i64(l.oh), l.gy), fb.mul(i64(l.ow), l.gx))
}

// roiScratchBytes is the scratch of roi_align: offsets, counts and flags (i64), then weights.
func roiScratchBytes(fb *funcBuilder, op *ir.Op) value.Value {
	l := roiLayoutOf(fb, op)
	n := l.taps(fb)
	fs := int64(4)
	if l.ft == types.Double {
		fs = 8
	}
	return fb.add(fb.mul(n, i64(2*8+2*fs)), i64(8*2*(l.oh+l.ow)))
}

// roiAxis are the scratch arrays of one axis: per bin k, samples k·g .. k·g+count-1.
type roiAxis struct {
	offs, ws    value.Value // i64*, ft*: pairs (lo, hi) per sample
	count, inv  value.Value // i64* per bin
	g           value.Value
	bins        int64
	n, lo, step value.Value // the axis's pixels, its box origin and stride in the image
}

func emitRoiAlign(kb *kernelBuilder) error {
	fb := kb.fb
	op := kb.op
	p := ir.RoiAlignParamsOf(op)
	x, rois, bi := kb.ops[0], kb.ops[1], kb.ops[2]
	l := roiLayoutOf(fb, op)
	ft := l.ft
	c := func() *llvm.Block { return fb.cur }
	fc := func(v float64) value.Value { return constant.NewFloat(ft.(*types.FloatType), v) }
	toF := func(v value.Value) value.Value { return c().NewSIToFP(v, ft) }
	xe := fb.extents(x.v.Type)
	// the scratch: every axis's offsets, counts and flags, then the weights
	sp := fb.cur.NewBitCast(kb.scratch, types.NewPointer(types.I64))
	wp := fb.cur.NewBitCast(fb.cur.NewGetElementPtr(types.I8, kb.scratch, fb.add(fb.mul(l.taps(fb), i64(16)), i64(8*2*(l.oh+l.ow)))),
		types.NewPointer(ft))
	ay := &roiAxis{g: l.gy, bins: l.oh, n: xe[2], lo: x.lo[2], step: x.strides[2]}
	ax := &roiAxis{g: l.gx, bins: l.ow, n: xe[3], lo: x.lo[3], step: x.strides[3]}
	at := func(base value.Value, k value.Value) value.Value { return c().NewGetElementPtr(types.I64, base, k) }
	ay.offs, ay.ws = sp, wp
	ax.offs, ax.ws = at(sp, fb.mul(i64(2*l.oh), l.gy)), c().NewGetElementPtr(ft, wp, fb.mul(i64(2*l.oh), l.gy))
	cnt := at(sp, fb.mul(l.taps(fb), i64(2)))
	ay.count, ay.inv = cnt, at(cnt, i64(l.oh))
	ax.count, ax.inv = at(cnt, i64(2*l.oh)), at(cnt, i64(2*l.oh+l.ow))

	scale := fc(float64(float32(p.Scale)))
	off := fc(0)
	if p.HalfPixel {
		off = fc(0.5)
	}
	res := kb.res
	last := func(d int) value.Value { return fb.sub(fb.add(res.lo[d], res.ext[d]), i64(1)) }
	return fb.loop(res.lo[0], last(0), 1, "roi", func(r value.Value) error {
		b := fb.widen64(kb.loadAt(bi, r), false)
		fb.check(c().NewAnd(c().NewICmp(enum.IPredSGE, b, i64(0)), c().NewICmp(enum.IPredSLT, b, xe[0])), statusIndexOOB, "roi.batch")
		coord := func(k int64) value.Value {
			return c().NewFSub(c().NewFMul(kb.loadAt(rois, r, i64(k)), scale), off)
		}
		sw, sh, ew, eh := coord(0), coord(1), coord(2), coord(3)
		rw, rh := c().NewFSub(ew, sw), c().NewFSub(eh, sh)
		var wv, hv value.Value = rw, rh
		if !p.HalfPixel { // std::max(v, 1): v unless v < 1
			one := fc(1)
			wv = fb.sel(c().NewFCmp(enum.FPredOLT, rw, one), one, rw)
			hv = fb.sel(c().NewFCmp(enum.FPredOLT, rh, one), one, rh)
		}
		binH, binW := fb.fdiv(hv, toF(i64(p.OutH))), fb.fdiv(wv, toF(i64(p.OutW)))
		gh, gw := value.Value(i64(p.Ratio)), value.Value(i64(p.Ratio))
		if p.Ratio == 0 {
			gh, gw = kb.roiAdaptiveGrid(binH, ft), kb.roiAdaptiveGrid(binW, ft)
		}
		for _, a := range []struct {
			ax               *roiAxis
			start, bin, grid value.Value
		}{{ay, sh, binH, gh}, {ax, sw, binW, gw}} {
			if err := fb.loop(i64(0), i64(a.ax.bins-1), 1, "roi.bin", func(k value.Value) error {
				return kb.roiAxisTaps(a.ax, a.start, a.bin, k, a.grid, p.Ratio == 0, ft)
			}); err != nil {
				return err
			}
		}
		samples := fb.mul(gh, gw)
		count := toF(fb.smax(samples, i64(1)))
		return fb.loop(res.lo[1], last(1), 1, "roi.c", func(ch value.Value) error {
			plane := c().NewGetElementPtr(mustMemType(x.v.Type.Elem), x.ptr, fb.offset(x, []value.Value{b, ch, x.lo[2], x.lo[3]}))
			px := func(oy, ox value.Value) value.Value {
				ld := c().NewLoad(ft, c().NewGetElementPtr(ft, plane, c().NewAdd(oy, ox)))
				return ld
			}
			return fb.loop(res.lo[2], last(2), 1, "roi.i", func(i value.Value) error {
				ny := kb.roiTapCount(ay, i, p.Ratio)
				return fb.loop(res.lo[3], last(3), 1, "roi.j", func(j value.Value) error {
					nx := kb.roiTapCount(ax, j, p.Ratio)
					out := kb.variable(ft, fc(0))
					var first *variable
					if p.Max {
						// the first sample sets the max, unless an invalid one (a 0) or none came first
						none := c().NewICmp(enum.IPredSLE, samples, i64(0))
						inv := c().NewOr(c().NewICmp(enum.IPredNE, c().NewLoad(types.I64, at(ay.inv, i)), i64(0)),
							c().NewICmp(enum.IPredNE, c().NewLoad(types.I64, at(ax.inv, j)), i64(0)))
						first = kb.variable(types.I1, c().NewXor(c().NewOr(none, inv), constant.True))
					}
					err := fb.loop(i64(0), fb.sub(ny, i64(1)), 1, "roi.sy", func(sy value.Value) error {
						ty := kb.roiTapAt(ay, i, sy, ft)
						return fb.loop(i64(0), fb.sub(nx, i64(1)), 1, "roi.sx", func(sx value.Value) error {
							tx := kb.roiTapAt(ax, j, sx, ft)
							t1 := c().NewFMul(c().NewFMul(ty.wlo, tx.wlo), px(ty.lo, tx.lo))
							t2 := c().NewFMul(c().NewFMul(ty.wlo, tx.wh), px(ty.lo, tx.hi))
							t3 := c().NewFMul(c().NewFMul(ty.wh, tx.wlo), px(ty.hi, tx.lo))
							t4 := c().NewFMul(c().NewFMul(ty.wh, tx.wh), px(ty.hi, tx.hi))
							if !p.Max {
								s := c().NewFAdd(c().NewFAdd(c().NewFAdd(t1, t2), t3), t4)
								out.set(c().NewFAdd(out.get(), s))
								return nil
							}
							// std::max(a, b): b when a < b
							mx := func(a, b value.Value) value.Value { return fb.sel(c().NewFCmp(enum.FPredOLT, a, b), b, a) }
							v := mx(mx(mx(t1, t2), t3), t4)
							o := out.get()
							out.set(fb.sel(c().NewOr(first.get(), c().NewFCmp(enum.FPredOLT, o, v)), v, o))
							first.set(constant.False)
							return nil
						})
					})
					if err != nil {
						return err
					}
					v := out.get()
					if !p.Max {
						v = fb.fdiv(v, count)
					}
					c().NewStore(fb.toMem(v, res.v.Type.Elem), fb.elemPtr(res, fb.offset(res, []value.Value{r, ch, i, j})))
					return nil
				})
			})
		})
	})
}

// roiTapCount returns the samples kept for bin k: the fixed grid's ratio (a constant), or the
// count the adaptive grid stored.
func (kb *kernelBuilder) roiTapCount(a *roiAxis, k value.Value, ratio int64) value.Value {
	if ratio > 0 {
		return i64(ratio)
	}
	return kb.fb.cur.NewLoad(types.I64, kb.fb.cur.NewGetElementPtr(types.I64, a.count, k))
}

// roiTapV is one kept sample: row (column) offsets of its two neighbours and their weights.
type roiTapV struct{ lo, hi, wlo, wh value.Value }

// roiTapAt loads sample s of bin k.
func (kb *kernelBuilder) roiTapAt(a *roiAxis, k, s value.Value, ft types.Type) roiTapV {
	c := kb.fb.cur
	idx := kb.fb.mul(kb.fb.add(kb.fb.mul(k, a.g), s), i64(2))
	ld := func(base value.Value, t types.Type, d int64) value.Value {
		return c.NewLoad(t, c.NewGetElementPtr(t, base, kb.fb.add(idx, i64(d))))
	}
	return roiTapV{lo: ld(a.offs, types.I64, 0), hi: ld(a.offs, types.I64, 1), wlo: ld(a.ws, ft, 0), wh: ld(a.ws, ft, 1)}
}

// roiAdaptiveGrid emits ir's roiAdaptiveGrid: ceil(v) for v in (0, RoiAlignMaxGrid], 0 when v
// is not positive (or NaN); beyond the limit the kernel fails with statusIndexOOB.
func (kb *kernelBuilder) roiAdaptiveGrid(v value.Value, ft types.Type) value.Value {
	fb := kb.fb
	c := fb.cur
	lim := constant.NewFloat(ft.(*types.FloatType), ir.RoiAlignMaxGrid)
	fb.check(c.NewFCmp(enum.FPredULE, v, lim), statusIndexOOB, "roi.grid")
	c = fb.cur
	pos := c.NewFCmp(enum.FPredOGT, v, constant.NewFloat(ft.(*types.FloatType), 0))
	// v in (0, 2^20] when pos: truncation is defined; elsewhere it is discarded
	safe := fb.sel(pos, v, constant.NewFloat(ft.(*types.FloatType), 0))
	t := c.NewFPToSI(safe, types.I64)
	up := c.NewFCmp(enum.FPredOLT, c.NewSIToFP(t, ft), safe)
	ceil := fb.sel(up, c.NewAdd(t, i64(1)), t)
	return fb.sel(pos, ceil, i64(0))
}

// roiAxisTaps stores the samples of bin k of axis a (ir's roiAxisTaps).
func (kb *kernelBuilder) roiAxisTaps(a *roiAxis, start, bin, k, grid value.Value, adaptive bool, ft types.Type) error {
	fb := kb.fb
	c := func() *llvm.Block { return fb.cur }
	f := ft.(*types.FloatType)
	toF := func(v value.Value) value.Value { return c().NewSIToFP(v, ft) }
	nf := toF(a.n)
	base := c().NewFAdd(start, c().NewFMul(toF(k), bin))
	gf := toF(grid)
	sample := func(s value.Value) value.Value {
		h := c().NewFAdd(c().NewSIToFP(s, types.Float), constant.NewFloat(types.Float, 0.5))
		var hv value.Value = h
		if ft == types.Double {
			hv = c().NewFPExt(h, types.Double)
		}
		return c().NewFAdd(base, fb.fdiv(c().NewFMul(hv, bin), gf))
	}
	store := func(s value.Value, lo, hi, wlo, wh value.Value) {
		idx := fb.mul(fb.add(fb.mul(k, a.g), s), i64(2))
		c().NewStore(lo, c().NewGetElementPtr(types.I64, a.offs, idx))
		c().NewStore(hi, c().NewGetElementPtr(types.I64, a.offs, fb.add(idx, i64(1))))
		c().NewStore(wlo, c().NewGetElementPtr(ft, a.ws, idx))
		c().NewStore(wh, c().NewGetElementPtr(ft, a.ws, fb.add(idx, i64(1))))
	}
	// tap: the neighbours (as offsets in the plane) and weights of a valid coordinate v
	tap := func(v value.Value) (lo, hi, wlo, wh value.Value) {
		v = fb.sel(c().NewFCmp(enum.FPredOLE, v, constant.NewFloat(f, 0)), constant.NewFloat(f, 0), v)
		t := c().NewFPToSI(v, types.I64)
		nm1 := fb.sub(a.n, i64(1))
		end := c().NewICmp(enum.IPredSGE, t, nm1)
		lo = fb.sel(end, nm1, t)
		hi = fb.sel(end, nm1, c().NewAdd(t, i64(1)))
		v = fb.sel(end, toF(lo), v)
		l := c().NewFSub(v, toF(lo))
		pos := func(p value.Value) value.Value { return fb.mul(fb.sub(p, a.lo), a.step) }
		return pos(lo), pos(hi), c().NewFSub(constant.NewFloat(f, 1), l), l
	}
	slot := func(p value.Value) value.Value { return c().NewGetElementPtr(types.I64, p, k) }
	if !adaptive {
		inv := kb.variable(types.I1, constant.False)
		if err := fb.loop(i64(0), fb.sub(grid, i64(1)), 1, "roi.tap", func(s value.Value) error {
			v := sample(s)
			ok := c().NewAnd(c().NewFCmp(enum.FPredOGE, v, constant.NewFloat(f, -1)), c().NewFCmp(enum.FPredOLE, v, nf))
			lo, hi, wlo, wh := tap(fb.sel(ok, v, constant.NewFloat(f, 0)))
			z := constant.NewFloat(f, 0)
			store(s, fb.sel(ok, lo, i64(0)), fb.sel(ok, hi, i64(0)), fb.sel(ok, wlo, z), fb.sel(ok, wh, z))
			inv.set(c().NewOr(inv.get(), c().NewXor(ok, constant.True)))
			return nil
		}); err != nil {
			return err
		}
		c().NewStore(grid, slot(a.count))
		c().NewStore(c().NewZExt(inv.get(), types.I64), slot(a.inv))
		return nil
	}
	// the valid samples are [first, end): first s with sample >= -1, first with sample > n
	search := func(pred func(v value.Value) value.Value) (value.Value, error) {
		lo, hi := kb.variable(types.I64, i64(0)), kb.variable(types.I64, grid)
		err := fb.whileLoop("roi.search", func() value.Value {
			return c().NewICmp(enum.IPredSLT, lo.get(), hi.get())
		}, func() (value.Value, error) {
			l, h := lo.get(), hi.get()
			m := c().NewAdd(l, c().NewLShr(c().NewSub(h, l), i64(1)))
			yes := pred(sample(m))
			hi.set(fb.sel(yes, m, h))
			lo.set(fb.sel(yes, l, c().NewAdd(m, i64(1))))
			return constant.True, nil
		})
		return lo.get(), err
	}
	first, err := search(func(v value.Value) value.Value { return c().NewFCmp(enum.FPredOGE, v, constant.NewFloat(f, -1)) })
	if err != nil {
		return err
	}
	end, err := search(func(v value.Value) value.Value { return c().NewFCmp(enum.FPredOGT, v, nf) })
	if err != nil {
		return err
	}
	n := fb.smax(fb.sub(end, first), i64(0))
	fb.check(c().NewICmp(enum.IPredSLE, n, a.g), statusIndexOOB, "roi.taps")
	if err := fb.loop(i64(0), fb.sub(n, i64(1)), 1, "roi.tap", func(s value.Value) error {
		lo, hi, wlo, wh := tap(sample(fb.add(first, s)))
		store(s, lo, hi, wlo, wh)
		return nil
	}); err != nil {
		return err
	}
	c().NewStore(n, slot(a.count))
	c().NewStore(c().NewZExt(c().NewICmp(enum.IPredSLT, n, grid), types.I64), slot(a.inv))
	return nil
}
