// This file holds the depthwise convolutions of the integer dot-product kernels (intdot.go):
// one input channel per output channel, a 9-tap reduction that has no use for 4-way dot
// products, so the products are i32 multiplies of the widened bytes by weights whose zero
// point is subtracted at compile time. NCHW: lanes over output columns of a padded copy of
// each channel's plane; channels-last: lanes over channels, read in place.

package lower

import (
	"fmt"

	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/ir"
)

// planDepthwise plans a depthwise convolution (one input channel per output channel): the
// padded input plane of each channel is copied (phase-split by the column stride), and the
// kernel runs lanes over output columns with one broadcast weight per tap. The weights' zero
// point is subtracted at compile time; Σ (x - xz)·w' = Σ x·w' - xz·Σ w'.
func (d *intDot) planDepthwise(op *ir.Op, lo, hi []int64, shape []int64) string {
	p := d.p
	d.conv = true
	d.xSigned = false // x is widened as it is (sign- or zero-extended)
	d.H, d.W = shape[2], shape[3]
	d.OH, d.OW = hi[2]+1, hi[3]+1
	d.paddedExtents()
	L := int64(d.lanes)
	d.nv = int(min(4, (d.OW+L-1)/L))
	if d.HP*d.s[1]*(d.WQ+int64(d.nv)*L+4) > convScratchLimit {
		return "the input plane is too large"
	}
	d.chans = hi[1] - lo[1] + 1
	d.R = d.KH * d.KW
	// one padded plane [HP][s1][row] (emitIntDepthwise)
	d.scratch = d.HP * d.s[1] * ((d.WQ + int64(d.nv)*L + 3) / 4 * 4)
	x := make([]int64, 7)
	copy(x, lo)
	d.xzByte = constData(op, p.xz, x)
	d.dwW = make([]int64, d.chans*d.R)
	d.corr = make([]int64, d.chans)
	d.depthwiseWeights(op, x, 1, lo[1], d.xzByte, func(m, t, w int64) {
		d.dwW[m*d.R+t] = w // [M][kh·KW + kw]
	})
	return ""
}

// emitIntDepthwise emits the depthwise kernel planned by planDepthwise.
func (kb *kernelBuilder) emitIntDepthwise(d *intDot) error {
	fb := kb.fb
	p := d.p
	L := int64(d.lanes)
	vt, bt, widen := kb.depthwiseLanes(d)
	zero := constant.NewZeroInitializer(vt)
	s1 := d.s[1]
	rowBytes := (d.WQ + int64(d.nv)*L + 3) / 4 * 4
	phaseBytes := rowBytes
	hBytes := s1 * phaseBytes
	total := d.HP * hBytes
	if total != d.scratch {
		return fmt.Errorf("internal error: integer convolution scratch %d, planned %d", total, d.scratch)
	}
	bp := kb.scratch
	wtab := kb.i32Global("dw", d.dwW, 0)
	corr := kb.i32Global("corr", d.corr, 0)
	xw := kb.ops[p.x]
	pat := int64(int32(uint32(uint8(d.xzByte)) * 0x01010101))
	return kb.outerLoops(d, 2, func(outer []value.Value) error {
		n, mAbs := outer[0], outer[1]
		m := fb.sub(mAbs, i64(d.lo[1]))
		if err := fb.loop(i64(0), i64(total/4-1), 1, "fill", func(iv value.Value) error {
			st := fb.cur.NewStore(constant.NewInt(types.I32, pat), fb.cur.NewBitCast(kb.gep8(bp, fb.mul(iv, i64(4))), types.NewPointer(types.I32)))
			st.Align = 4
			return nil
		}); err != nil {
			return err
		}
		if err := fb.loop(i64(0), i64(d.H-1), 1, "h", func(h value.Value) error {
			base := fb.offset(xw, []value.Value{n, mAbs, h, i64(0)})
			rowOff := fb.mul(fb.add(h, i64(d.pb[0])), i64(hBytes))
			return fb.loop(i64(0), i64(d.W-1), 1, "w", func(w value.Value) error {
				x := fb.cur.NewLoad(types.I8, fb.elemPtr(xw, fb.add(base, w)))
				cw := fb.add(w, i64(d.pb[1]))
				off := fb.add(rowOff, fb.add(fb.mul(fb.cur.NewSRem(cw, i64(s1)), i64(phaseBytes)), fb.cur.NewSDiv(cw, i64(s1))))
				fb.cur.NewStore(x, kb.gep8(bp, off))
				return nil
			})
		}); err != nil {
			return err
		}
		// the taps' weights, broadcast once per channel
		taps := make([]value.Value, d.R)
		for t := range taps {
			taps[t] = kb.splatI32At(d, wtab, fb.add(fb.mul(m, i64(d.R)), i64(int64(t))))
		}
		cv := kb.splatI32At(d, corr, m)
		tile := func(oh, ow0 value.Value, nvec, lastLanes int) error {
			accs := d.newAccs(zero, nvec, 0)
			for kh := int64(0); kh < d.KH; kh++ {
				hrow := fb.add(fb.mul(oh, i64(d.s[0])), i64(kh*d.d[0]))
				for kw := int64(0); kw < d.KW; kw++ {
					src := fb.add(fb.add(fb.mul(hrow, i64(hBytes)), i64((kw*d.d[1])%s1*phaseBytes)), fb.add(ow0, i64((kw*d.d[1])/s1)))
					for v := range accs {
						ld := fb.cur.NewLoad(bt, fb.cur.NewBitCast(kb.gep8(bp, fb.add(src, i64(int64(v)*L))), types.NewPointer(bt)))
						ld.Align = 1
						accs[v] = fb.cur.NewAdd(accs[v], fb.cur.NewMul(widen(ld), taps[kh*d.KW+kw]))
					}
				}
			}
			for v := range accs {
				cnt := d.lanes
				if v == nvec-1 {
					cnt = lastLanes
				}
				off := fb.offset(kb.res, []value.Value{n, mAbs, oh, fb.add(ow0, i64(int64(v)*L))})
				kb.storeLanes(d, fb.cur.NewAdd(accs[v], cv), off, cnt)
			}
			return nil
		}
		return kb.outputRowTiles(d, tile)
	})
}

// planDepthwiseNHWC plans a channels-last depthwise convolution: Y[n, oh, ow, m] = Σ_{kh, kw}
// X[n, s0·oh + d0·kh - p0, s1·ow + d1·kw - p1, m]·W[kh, kw, m] (+ B[m]): lanes over channels
// (contiguous in X, W and Y), rows over output pixels, i32 products of the widened bytes. The
// weights' zero point is subtracted at compile time, Σ (x - xz)·w' = Σ x·w' - xz·Σ w'.
func (d *intDot) planDepthwiseNHWC(op *ir.Op, lo, hi []int64, shape []int64) string {
	p := d.p
	flo, fhi, err := constBounds(op.Full)
	if err != nil {
		return err.Error()
	}
	if flo[4] != 0 || fhi[4] != 0 {
		return "more than one input channel per group"
	}
	if !spatialWhole(op, lo, hi, 1) {
		return "the spatial result is restricted"
	}
	d.conv, d.nhwc, d.depthwise = true, true, true
	d.H, d.W, d.C = shape[1], shape[2], shape[3]
	d.KH, d.KW = fhi[5]+1, fhi[6]+1
	d.OH, d.OW = hi[1]+1, hi[2]+1
	d.chans = hi[3] - lo[3] + 1
	if lo[3] < 0 || hi[3] >= d.C {
		return "channels outside the input"
	}
	d.R = d.KH * d.KW
	L := int64(d.lanes)
	d.mr, d.nv = 4, 2
	d.nv = int(min(int64(d.nv), (d.chans+L-1)/L))
	nr := int64(d.nv) * L
	mpad := (d.chans + nr - 1) / nr * nr
	x := make([]int64, 7)
	copy(x, lo)
	xz := constData(op, p.xz, x)
	d.xzBytes = make([]byte, mpad)
	for i := range d.xzBytes {
		d.xzBytes[i] = byte(xz)
	}
	d.dwW = make([]int64, d.R*mpad)
	d.corr = make([]int64, mpad)
	d.depthwiseWeights(op, x, 3, lo[3], xz, func(m, t, w int64) {
		d.dwW[t*mpad+m] = w // [kh·KW + kw][channels, padded to whole tiles]
	})
	return ""
}

// emitDepthwiseNHWC emits the kernel planned by planDepthwiseNHWC: per image, tiles of mr output
// pixels by nv vectors of channels; a tap outside the image reads the zero point bytes.
func (kb *kernelBuilder) emitDepthwiseNHWC(d *intDot) error {
	fb := kb.fb
	p := d.p
	L := int64(d.lanes)
	vt, bt, widen := kb.depthwiseLanes(d)
	zero := constant.NewZeroInitializer(vt)
	nr := int64(d.nv) * L
	mpad := int64(len(d.xzBytes))
	wtab := kb.i32Global("dw", d.dwW, 0)
	corr := kb.i32Global("corr", d.corr, 0)
	xzp := kb.byteGlobal("xz", d.xzBytes)
	xw := kb.ops[p.x]
	kb.intDotSplit(d, 1, nil, "pt", ceilDiv(d.OH*d.OW, int64(d.mr)), "mt", ceilDiv(d.chans, nr))
	defer kb.endTileRegion()
	return kb.outerLoops(d, 1, func(outer []value.Value) error {
		kb.setOuter(d, outer)
		n := outer[0]
		tile := func(p0, mt value.Value, npix, nvec, lastLanes int) {
			m0 := fb.mul(mt, i64(nr))
			oh, ow := kb.pixelCoords(d, p0, npix, nil)
			accs := d.newAccs(zero, npix*nvec, 0)
			for t := int64(0); t < d.R; t++ {
				kh, kw := t/d.KW, t%d.KW
				wv := make([]value.Value, nvec)
				for v := range wv {
					wv[v] = kb.loadI32Vec(d, wtab, fb.add(i64(t*mpad), fb.add(m0, i64(int64(v)*L))))
				}
				for r := 0; r < npix; r++ {
					in, ihc, iwc := kb.tapInImage(d, oh[r], ow[r], kh, kw)
					at := fb.cur.NewBitCast(fb.elemPtr(xw, fb.offset(xw, []value.Value{n, ihc, iwc, fb.add(m0, i64(d.lo[3]))})), types.I8Ptr)
					src := fb.cur.NewSelect(in, at, kb.gep8(xzp, m0))
					for v := 0; v < nvec; v++ {
						var xv value.Value
						if v == nvec-1 && lastLanes < d.lanes {
							// the channels end inside this vector: bytes one by one (a whole
							// vector could read past the tensor)
							var b value.Value = constant.NewZeroInitializer(bt)
							for l := 0; l < lastLanes; l++ {
								e := fb.cur.NewLoad(types.I8, kb.gep8(src, i64(int64(v)*L+int64(l))))
								b = fb.cur.NewInsertElement(b, e, i32c(int64(l)))
							}
							xv = b
						} else {
							ld := fb.cur.NewLoad(bt, fb.cur.NewBitCast(kb.gep8(src, i64(int64(v)*L)), types.NewPointer(bt)))
							ld.Align = 1
							xv = ld
						}
						accs[r*nvec+v] = fb.cur.NewAdd(accs[r*nvec+v], fb.cur.NewMul(widen(xv), wv[v]))
					}
				}
			}
			for v := 0; v < nvec; v++ {
				ch := fb.add(m0, i64(int64(v)*L))
				cl := kb.loadI32Vec(d, corr, ch)
				cnt := d.lanes
				if v == nvec-1 {
					cnt = lastLanes
				}
				for r := 0; r < npix; r++ {
					off := fb.offset(kb.res, []value.Value{n, oh[r], ow[r], fb.add(ch, i64(d.lo[3]))})
					kb.storeLanes(d, fb.cur.NewAdd(accs[r*nvec+v], cl), off, cnt)
				}
			}
		}
		return kb.pixelChannelTiles(d, tile)
	})
}

// depthwiseLanes returns the vector types of a depthwise kernel, lanes i32 and lanes activation
// bytes, and the widening of such bytes to i32: sign-extended for i8 activations,
// zero-extended for u8 (the products take the bytes as they are, d.xSigned is false).
func (kb *kernelBuilder) depthwiseLanes(d *intDot) (vt, bt *types.VectorType, widen func(value.Value) value.Value) {
	fb := kb.fb
	vt = d.vecType()
	bt = types.NewVector(uint64(d.lanes), types.I8)
	signed := kb.op.Operands[d.p.x].Type.Elem == ir.I8
	return vt, bt, func(v value.Value) value.Value {
		if signed {
			return fb.cur.NewSExt(v, vt)
		}
		return fb.cur.NewZExt(v, vt)
	}
}
