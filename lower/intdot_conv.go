// This file holds the NCHW convolution form of the integer dot-product kernels (intdot.go):
// the input is copied once per image into a zero-point-padded, 4-channel-interleaved layout,
// and the tiles run lanes over output columns (rows over output channels) or, for images
// narrower than a vector, lanes over output channels (rows over output pixels).

package lower

import (
	"fmt"

	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/ir"
)

// planConv: Y[n, m, oh, ow] = Σ_{c, kh, kw} X[n, c, s·oh + d·kh - p, s·ow + d·kw - p]·W[m, c, kh, kw]
// (+ B[m]), one group, X read only inside the image (padding contributes nothing).
func (d *intDot) planConv(op *ir.Op, lo, hi []int64) string {
	p := d.p
	xi := op.Access[p.x].Pieces[0].Index
	xt := op.Operands[p.x].Type
	shape, ok := xt.StaticShape()
	if !ok || len(xi) != 4 {
		return "the input is not a static 4-D tensor"
	}
	// X index: [n, c, s0·oh + d0·kh - p0, s1·ow + d1·kw - p1], or [n, m + c, ...] with one
	// input channel per group (depthwise)
	if !isDim(xi[0], 0) {
		return "the input is not read at [n, ...]"
	}
	if !isDim(xi[1], 4) {
		a := xi[1]
		dw := len(a.Floors) == 0 && len(a.Params) == 0 && a.Const == 0 && coefOf(a, 1) == 1 && coefOf(a, 4) == 1
		for dim := 0; dim < 7; dim++ {
			if dim != 1 && dim != 4 && coefOf(a, dim) != 0 {
				dw = false
			}
		}
		if !dw {
			return "the input is not read at [n, c, ...] (groups)"
		}
		d.depthwise = true
	}
	if why := d.windowAxes(xi[2:4], 2); why != "" {
		return why
	}
	// the guard may only keep the spatial reads inside the image
	for _, g := range op.Access[p.x].Pieces[0].Guard {
		if g.Eq {
			return "an equality guard"
		}
		if !boundsImage(g, xi[2:4], shape[2:4]) {
			return "a guard other than the image bounds"
		}
	}
	if !dependsOnly(op, p.w, 1, 4, 5, 6) || !dependsOnly(op, p.wz, 1) || !dependsOnly(op, p.xz) || p.bias >= 0 && !dependsOnly(op, p.bias, 1) {
		return "the weights depend on more than the channel and the reduction"
	}
	if accessStride(xi, 1) != strideInvariant && !d.depthwise {
		return "the input depends on the output channel (groups)"
	}
	// the result box must cover the whole spatial extent (stores are contiguous per row)
	if !spatialWhole(op, lo, hi, 2) {
		return "the spatial result is restricted"
	}
	flo, fhi, _ := constBounds(op.Full)
	d.conv = true
	d.xSigned = xt.Elem == ir.I8
	wUnsigned := op.Operands[p.w].Type.Elem == ir.U8
	d.C, d.H, d.W = fhi[4]+1, shape[2], shape[3]
	d.KH, d.KW = fhi[5]+1, fhi[6]+1
	if d.depthwise {
		if flo[4] != 0 || fhi[4] != 0 {
			return "more than one input channel per group"
		}
		return d.planDepthwise(op, lo, hi, shape)
	}
	if flo[4] != 0 || d.C != shape[1] {
		return "the reduction does not cover the channels"
	}
	d.OH, d.OW = hi[2]+1, hi[3]+1
	d.C4 = (d.C + 3) / 4
	d.R = d.C * d.KH * d.KW
	d.R4 = d.C4 * d.KH * d.KW
	d.paddedExtents()
	if d.C4*d.HP*d.s[1]*(d.WQ+int64(d.lanes)*4)*4 > convScratchLimit {
		return "the input copy is too large"
	}
	d.chans = hi[1] - lo[1] + 1
	d.mr, d.nv = tileShape(d.kind)
	L := int64(d.lanes)
	// lanes over output channels when output rows are narrower than a vector and there are
	// channels enough (the late layers of CNNs: 7×7 or 14×14 with 256-512 channels)
	d.chanLanes = d.OW < L && d.chans >= L
	if d.chanLanes {
		if d.kind == dotHVX {
			d.nv = 4
		}
		d.nv = int(min(int64(d.nv), (d.chans+L-1)/L))
	} else {
		d.nv = int(min(int64(d.nv), (d.OW+L-1)/L))
	}
	nr := int64(d.nv) * L
	x := make([]int64, 7)
	copy(x, lo)
	xz := constData(op, p.xz, x)
	if d.xSigned {
		xz += 128
	}
	d.xzByte = xz
	if d.chanLanes {
		d.wPacked = make([]byte, (d.chans+nr-1)/nr*nr*d.R4*4)
	} else {
		d.wPacked = make([]byte, d.chans*d.R4*4)
	}
	wsum, wz, bias := d.readWeights(op, x, 1, lo[1], []int{4, 5, 6}, []int64{0, 0, 0}, []int64{d.C, d.KH, d.KW}, wUnsigned, func(m int64, r []int64, w int64) {
		c, kh, kw := r[0], r[1], r[2]
		if d.chanLanes {
			// [channel tile][kh][kw][C4][nr][4]
			d.wPacked[(((((m/nr)*d.KH+kh)*d.KW+kw)*d.C4+c/4)*nr+m%nr)*4+c%4] = byte(int8(w))
		} else {
			// [M][kh][kw][C4][4]
			d.wPacked[(((m*d.KH+kh)*d.KW+kw)*d.C4+c/4)*4+c%4] = byte(int8(w))
		}
	})
	d.channelConsts(op, xz, wsum, wz, bias)
	// the input copy [C4][HP][s1][WQ + nr][4] (emitIntConv)
	d.scratch = d.C4 * d.HP * d.s[1] * (d.WQ + int64(d.nv*d.lanes)) * 4
	return ""
}

// emitIntConv: per image, the input is copied into the interleaved padded layout; then for
// each output row and tile of nr output columns, for each tile of mr output channels, the
// registers accumulate over kh, kw and the channel groups.
func (kb *kernelBuilder) emitIntConv(d *intDot) error {
	if d.depthwise {
		return kb.emitIntDepthwise(d)
	}
	p := d.p
	wp := kb.byteGlobal("wpack", d.wPacked)
	pad := 0
	if nrc := int64(d.nv * d.lanes); d.chanLanes {
		// whole vectors of channels are loaded
		pad = int((d.chans+nrc-1)/nrc*nrc - d.chans)
	}
	tab := kb.channelTables(d, pad)
	s1 := d.s[1]
	// the copy: [C4][HP][s1][WQ + slack][4]; the slack lets the last column tile read whole
	// vectors past the row (their lanes are not stored)
	rowBytes := (d.WQ + int64(d.nv*d.lanes)) * 4
	phaseBytes := rowBytes
	hBytes := s1 * phaseBytes
	cBytes := d.HP * hBytes
	total := d.C4 * cBytes
	if total != d.scratch {
		return fmt.Errorf("internal error: integer convolution scratch %d, planned %d", total, d.scratch)
	}
	bp := kb.scratch
	xw := kb.ops[p.x]
	return kb.outerLoops(d, 1, func(outer []value.Value) error {
		n := outer[0]
		// the copy: in the whole-range call only, before the tiles are handed to threads
		// (parallel_tiles.go)
		if err := kb.wholeOnly("copy", func() error { return kb.intConvCopy(d, n, xw, bp, cBytes, hBytes, phaseBytes) }); err != nil {
			return err
		}
		if d.chanLanes {
			kb.intDotSplit(d, 0, n, "pt", ceilDiv(d.OH*d.OW, int64(d.mr)), "mt", ceilDiv(d.chans, int64(d.nv*d.lanes)))
			defer kb.endTileRegion()
			return kb.emitConvChannels(d, n, bp, wp, tab, hBytes, phaseBytes, cBytes)
		}
		kb.beginTileRegion("oh", d.OH, 1, n, 1)
		defer kb.endTileRegion()
		return kb.intConvRowTiles(d, n, bp, wp, tab, hBytes, phaseBytes, cBytes)
	})
}

// intConvCopy copies image n of the activation into the interleaved padded layout at bp
// (emitIntConv).
func (kb *kernelBuilder) intConvCopy(d *intDot, n value.Value, xw *view, bp value.Value, cBytes, hBytes, phaseBytes int64) error {
	fb := kb.fb
	s1 := d.s[1]
	{
		// fill: every byte the zero point (spatial padding), but 0 for the channels past C in
		// the last group (their weights are 0, and Σx must not count them); then the image
		full := int64(int32(uint32(d.xzByte) * 0x01010101))
		last := full
		if r := d.C % 4; r > 0 {
			last = int64(int32(uint32(d.xzByte) * 0x01010101 & (1<<(8*r) - 1)))
		}
		if err := fb.loop(i64(0), i64(d.C4-1), 1, "fillc", func(c4 value.Value) error {
			pat := fb.cur.NewSelect(fb.cur.NewICmp(enum.IPredEQ, c4, i64(d.C4-1)), constant.NewInt(types.I32, last), constant.NewInt(types.I32, full))
			base := fb.mul(c4, i64(cBytes))
			return fb.loop(i64(0), i64(cBytes/4-1), 1, "fill", func(iv value.Value) error {
				st := fb.cur.NewStore(pat, fb.cur.NewBitCast(kb.gep8(bp, fb.add(base, fb.mul(iv, i64(4)))), types.NewPointer(types.I32)))
				st.Align = 4
				return nil
			})
		}); err != nil {
			return err
		}
		if err := fb.loop(i64(0), i64(d.C-1), 1, "c", func(c value.Value) error {
			return fb.loop(i64(0), i64(d.H-1), 1, "h", func(h value.Value) error {
				base := fb.offset(xw, []value.Value{n, c, h, i64(0)})
				// destination of (c, h, w): c4 = c/4, q = c%4, hp = h + pb0, column w + pb1 in
				// phase (w + pb1) % s1 at (w + pb1) / s1
				c4 := fb.cur.NewSDiv(c, i64(4))
				q := fb.cur.NewSRem(c, i64(4))
				rowOff := fb.add(fb.mul(c4, i64(cBytes)), fb.mul(fb.add(h, i64(d.pb[0])), i64(hBytes)))
				rowOff = fb.add(rowOff, q)
				return fb.loop(i64(0), i64(d.W-1), 1, "w", func(w value.Value) error {
					x := fb.cur.NewLoad(types.I8, fb.elemPtr(xw, fb.add(base, w)))
					var xb value.Value = x
					if d.xSigned {
						xb = fb.cur.NewXor(x, constant.NewInt(types.I8, -128))
					}
					cw := fb.add(w, i64(d.pb[1]))
					ph := fb.cur.NewSRem(cw, i64(s1))
					col := fb.cur.NewSDiv(cw, i64(s1))
					off := fb.add(rowOff, fb.add(fb.mul(ph, i64(phaseBytes)), fb.mul(col, i64(4))))
					fb.cur.NewStore(xb, kb.gep8(bp, off))
					return nil
				})
			})
		}); err != nil {
			return err
		}
	}
	return nil
}

// intConvRowTiles runs the tiles of image n of a convolution whose lanes run over output
// columns, from the interleaved copy at bp (emitIntConv).
func (kb *kernelBuilder) intConvRowTiles(d *intDot, n, bp, wp value.Value, tab channelTables, hBytes, phaseBytes, cBytes int64) error {
	fb := kb.fb
	s1 := d.s[1]
	zero := constant.NewZeroInitializer(d.accType())
	ones := splat(constant.NewInt(types.I32, 0x01010101), d.lanes)
	{
		tile := func(oh, ow0, m0 value.Value, nrows, nvec, lastLanes int) error {
			// with d.sumX, one Σx accumulator per vector of columns
			accs := d.newAccs(zero, nrows*nvec, nvec)
			for kh := int64(0); kh < d.KH; kh++ {
				for kw := int64(0); kw < d.KW; kw++ {
					// input row s0·oh + d0·kh (padded), column s1·(ow0 + l) + d1·kw: phase
					// (d1·kw) % s1, index ow0 + l + (d1·kw) / s1
					hrow := fb.add(fb.mul(oh, i64(d.s[0])), i64(kh*d.d[0]))
					ph := (kw * d.d[1]) % s1
					colBase := fb.add(ow0, i64((kw*d.d[1])/s1))
					src := fb.add(fb.add(fb.mul(hrow, i64(hBytes)), i64(ph*phaseBytes)), fb.mul(colBase, i64(4)))
					wbase := func(m value.Value) value.Value {
						return fb.mul(fb.add(fb.mul(fb.add(fb.mul(m, i64(d.KH)), i64(kh)), i64(d.KW)), i64(kw)), i64(d.C4*4))
					}
					wrow := make([]value.Value, nrows)
					for r := range wrow {
						wrow[r] = kb.gep8(wp, wbase(fb.add(m0, i64(int64(r)))))
					}
					accs = kb.tileLoop(d.C4, "c4", accs, func(c4 value.Value, accs []value.Value) []value.Value {
						out := make([]value.Value, len(accs))
						xv := make([]value.Value, nvec)
						at := fb.add(src, fb.mul(c4, i64(cBytes)))
						for v := range xv {
							xv[v] = kb.loadVec(d, kb.gep8(bp, fb.add(at, i64(int64(4*v*d.lanes)))), 4)
						}
						for r := 0; r < nrows; r++ {
							// packed weights: 4-byte groups of a 128-byte aligned global
							wv := kb.splat32(d, kb.load32(kb.gep8(wrow[r], fb.mul(c4, i64(4))), 4))
							for v := 0; v < nvec; v++ {
								out[r*nvec+v] = kb.dot(d, accs[r*nvec+v], xv[v], wv)
							}
						}
						if d.sumX {
							for v := 0; v < nvec; v++ {
								out[nrows*nvec+v] = kb.dot(d, accs[nrows*nvec+v], xv[v], ones)
							}
						}
						return out
					})
				}
			}
			for r := 0; r < nrows; r++ {
				m := fb.add(m0, i64(int64(r)))
				cv := kb.splatI32At(d, tab.corr, m)
				var wzv value.Value
				if d.sumX {
					wzv = kb.splatI32At(d, tab.wz, m)
				}
				for v := 0; v < nvec; v++ {
					var sum value.Value
					if d.sumX {
						sum = accs[nrows*nvec+v]
					}
					val := kb.zeroPointTerms(d, accs[r*nvec+v], cv, wzv, sum)
					cnt := d.lanes
					if v == nvec-1 {
						cnt = lastLanes
					}
					off := fb.offset(kb.res, []value.Value{n, fb.add(m, i64(d.lo[1])), oh, fb.add(ow0, i64(int64(v*d.lanes)))})
					kb.storeLanes(d, val, off, cnt)
				}
			}
			return nil
		}
		return kb.outputRowTiles(d, func(oh, ow0 value.Value, nvec, lastLanes int) error {
			return kb.forTiles(d.chans, int64(d.mr), "mt", func(mt value.Value, cnt int64) error {
				return tile(oh, ow0, fb.mul(mt, i64(int64(d.mr))), int(cnt), nvec, lastLanes)
			})
		})
	}
}

// emitConvChannels runs the convolution of image n from the interleaved copy at bp with lanes
// over output channels: tiles of mr output pixels (row-major over oh, ow) by nv vectors of
// channels; each pixel's 4 channel bytes of a tap are broadcast, the weights of the channel
// tile are whole vectors, and the results are stored lane by lane (channel-strided).
func (kb *kernelBuilder) emitConvChannels(d *intDot, n, bp, wp value.Value, tab channelTables, hBytes, phaseBytes, cBytes int64) error {
	fb := kb.fb
	zero := constant.NewZeroInitializer(d.accType())
	nr := int64(d.nv * d.lanes)
	chStride := kb.res.strides[1]
	s1 := d.s[1]
	tile := func(p0, mt value.Value, npix, nvec int, lastLanes int) {
		// the byte offset of each pixel's window origin in the copy
		base := make([]value.Value, npix)
		oh, ow := kb.pixelCoords(d, p0, npix, func(r int, oh, ow value.Value) {
			base[r] = fb.add(fb.mul(fb.mul(oh, i64(d.s[0])), i64(hBytes)), fb.mul(ow, i64(4)))
		})
		accs := d.newAccs(zero, npix*nvec, npix)
		panel := kb.gep8(wp, fb.mul(mt, i64(d.KH*d.KW*d.C4*nr*4)))
		for kh := int64(0); kh < d.KH; kh++ {
			for kw := int64(0); kw < d.KW; kw++ {
				tap := kh*d.d[0]*hBytes + (kw*d.d[1])%s1*phaseBytes + (kw*d.d[1])/s1*4
				wtap := kb.gep8(panel, i64((kh*d.KW+kw)*d.C4*nr*4))
				src := make([]value.Value, npix)
				for r := range src {
					src[r] = kb.gep8(bp, fb.add(base[r], i64(tap)))
				}
				accs = kb.tileLoop(d.C4, "c4", accs, func(c4 value.Value, accs []value.Value) []value.Value {
					wv := kb.weightVecs(d, wtap, c4, nvec)
					co := fb.mul(c4, i64(cBytes))
					// the copy holds u8 bytes, and its 4-channel groups are 4-byte aligned in the
					// workspace
					return kb.dotRows(d, accs, wv, npix, false, func(r int) value.Value {
						return kb.load32(kb.gep8(src[r], co), 4)
					})
				})
			}
		}
		m0 := fb.mul(mt, i64(nr))
		kb.channelEpilogue(d, accs, npix, nvec, lastLanes, m0, tab, func(r int, ch, val value.Value, lanes int) {
			off := fb.offset(kb.res, []value.Value{n, fb.add(ch, i64(d.lo[1])), oh[r], ow[r]})
			for l := 0; l < lanes; l++ {
				e := fb.cur.NewExtractElement(val, i32c(int64(l)))
				st := fb.cur.NewStore(e, fb.elemPtr(kb.res, fb.add(off, fb.mul(i64(int64(l)), chStride))))
				st.Align = 4
			}
		})
	}
	return kb.pixelChannelTiles(d, tile)
}
