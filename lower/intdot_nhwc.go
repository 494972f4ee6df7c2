// This file holds the channels-last convolution form of the integer dot-product kernels
// (intdot.go): X[n, h, w, c] read in place (no copy), lanes over output channels, the 4
// channel bytes of a pixel broadcast per tap, and the zero point's bytes read where a tap lies
// outside the image. A graph input that is still NCHW is read the same way, its channel bytes
// an image plane apart.

package lower

import (
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/ir"
)

// planConvNHWC plans a channels-last convolution: Y[n, oh, ow, m] = Σ_{c, kh, kw}
// X[n, s0·oh + d0·kh - p0, s1·ow + d1·kw - p1, c]·W[c, kh, kw, m] (+ B[m]), the reads of X
// guarded by the image bounds only. One group, or one input channel per output channel
// (planDepthwiseNHWC).
func (d *intDot) planConvNHWC(op *ir.Op, lo, hi []int64) string {
	p := d.p
	xi := op.Access[p.x].Pieces[0].Index
	xt := op.Operands[p.x].Type
	shape, ok := xt.StaticShape()
	if !ok || !isDim(xi[0], 0) {
		return "not a channels-last convolution"
	}
	// the input's channel and spatial axes: NHWC, or NCHW for a graph input
	cAx, hAx := 3, 1
	dw := false
	switch {
	case isDim(xi[3], 4):
	case isDim(xi[1], 4):
		cAx, hAx = 1, 2
		d.xNCHW = true
	case len(xi[3].Floors) == 0 && len(xi[3].Params) == 0 && xi[3].Const == 0 && coefOf(xi[3], 3) == 1 && coefOf(xi[3], 4) == 1 &&
		accessStride(xi[:3], 3) == strideInvariant:
		dw = true // depthwise: channel m reads input channel m (+ c, of extent 1)
	default:
		return "not a channels-last convolution of one group"
	}
	if why := d.windowAxes(xi[hAx:hAx+2], 1); why != "" {
		return why
	}
	for _, g := range op.Access[p.x].Pieces[0].Guard {
		if g.Eq || !boundsImage(g, xi[hAx:hAx+2], shape[hAx:hAx+2]) {
			return "a guard other than the image bounds"
		}
	}
	if !dependsOnly(op, p.w, 3, 4, 5, 6) || !dependsOnly(op, p.wz, 3) || !dependsOnly(op, p.xz) || p.bias >= 0 && !dependsOnly(op, p.bias, 3) {
		return "the weights depend on more than the channel and the reduction"
	}
	if dw {
		return d.planDepthwiseNHWC(op, lo, hi, shape)
	}
	if accessStride(xi, 3) != strideInvariant {
		return "the input depends on the output channel"
	}
	flo, fhi, err := constBounds(op.Full)
	if err != nil {
		return err.Error()
	}
	d.conv, d.nhwc = true, true
	d.xSigned = xt.Elem == ir.I8
	wUnsigned := op.Operands[p.w].Type.Elem == ir.U8
	d.H, d.W, d.C = shape[hAx], shape[hAx+1], fhi[4]+1
	d.KH, d.KW = fhi[5]+1, fhi[6]+1
	if flo[4] != 0 || d.C != shape[cAx] {
		return "the reduction does not cover the channels"
	}
	if !spatialWhole(op, lo, hi, 1) {
		return "the spatial result is restricted"
	}
	d.OH, d.OW = hi[1]+1, hi[2]+1
	d.C4 = (d.C + 3) / 4
	d.R = d.C * d.KH * d.KW
	d.R4 = d.C4 * d.KH * d.KW
	d.chans = hi[3] - lo[3] + 1
	L := int64(d.lanes)
	d.mr, d.nv = tileShape(d.kind)
	if d.kind == dotHVX {
		d.nv = 4
	}
	d.nv = int(min(int64(d.nv), (d.chans+L-1)/L))
	nr := int64(d.nv) * L
	x := make([]int64, 7)
	copy(x, lo)
	rawXZ := constData(op, p.xz, x)
	xz := rawXZ
	if d.xSigned {
		xz += 128
	}
	// what padding positions read: the raw zero point for real channels; past them bytes that
	// become 0 in the u8 domain
	d.xzBytes = make([]byte, d.C4*4)
	for c := range d.xzBytes {
		switch {
		case int64(c) < d.C:
			d.xzBytes[c] = byte(rawXZ)
		case d.xSigned:
			d.xzBytes[c] = 0x80
		}
	}
	tiles := (d.chans + nr - 1) / nr
	d.wPacked = make([]byte, tiles*d.R4*nr*4)
	wsum, wz, bias := d.readWeights(op, x, 3, lo[3], []int{4, 5, 6}, []int64{0, 0, 0}, []int64{d.C, d.KH, d.KW}, wUnsigned, func(m int64, r []int64, w int64) {
		c, kh, kw := r[0], r[1], r[2]
		// [channel tile][kh][kw][C4][nr][4]
		d.wPacked[(((((m/nr)*d.KH+kh)*d.KW+kw)*d.C4+c/4)*nr+m%nr)*4+c%4] = byte(int8(w))
	})
	d.channelConsts(op, xz, wsum, wz, bias)
	return ""
}

// emitConvNHWC emits the channels-last convolution planned by planConvNHWC: per image, tiles of
// mr output pixels (row-major) by nv vectors of output channels; per pixel and tap the 4-byte
// channel groups are read in place where the tap lies inside the image, else from the zero
// point bytes.
func (kb *kernelBuilder) emitConvNHWC(d *intDot) error {
	fb := kb.fb
	p := d.p
	zero := constant.NewZeroInitializer(d.accType())
	nr := int64(d.nv * d.lanes)
	tiles := (d.chans + nr - 1) / nr
	wp := kb.byteGlobal("wpack", d.wPacked)
	tab := kb.channelTables(d, int(tiles*nr-d.chans))
	xzp := kb.byteGlobal("xz", d.xzBytes)
	xw := kb.ops[p.x]
	var chanStride value.Value
	if d.xNCHW {
		chanStride = xw.strides[1]
	}
	kb.intDotSplit(d, 1, nil, "pt", ceilDiv(d.OH*d.OW, int64(d.mr)), "mt", tiles)
	defer kb.endTileRegion()
	return kb.outerLoops(d, 1, func(outer []value.Value) error {
		kb.setOuter(d, outer)
		n := outer[0]
		tile := func(p0, mt value.Value, npix, nvec, lastLanes int) {
			oh, ow := kb.pixelCoords(d, p0, npix, nil)
			accs := d.newAccs(zero, npix*nvec, npix)
			panel := kb.gep8(wp, fb.mul(mt, i64(d.KH*d.KW*d.C4*nr*4)))
			for kh := int64(0); kh < d.KH; kh++ {
				for kw := int64(0); kw < d.KW; kw++ {
					wtap := kb.gep8(panel, i64((kh*d.KW+kw)*d.C4*nr*4))
					src := make([]value.Value, npix)
					al := make([]int64, npix)
					stride := make([]value.Value, npix)
					for r := range src {
						in, ihc, iwc := kb.tapInImage(d, oh[r], ow[r], kh, kw)
						idx := []value.Value{n, ihc, iwc, i64(0)}
						if d.xNCHW {
							idx = []value.Value{n, i64(0), ihc, iwc}
							// an image plane between channels in X, one byte in the zero point bytes
							stride[r] = fb.cur.NewSelect(in, chanStride, i64(1))
						}
						off := fb.offset(xw, idx)
						at := fb.cur.NewBitCast(fb.elemPtr(xw, off), types.I8Ptr)
						src[r] = fb.cur.NewSelect(in, at, xzp)
						al[r] = fb.vectorAlign(xw, off, 1, 4)
					}
					step := func(c4 value.Value, accs []value.Value, rem int64) []value.Value {
						wv := kb.weightVecs(d, wtap, c4, nvec)
						return kb.dotRows(d, accs, wv, npix, d.xSigned, func(r int) value.Value {
							switch {
							case rem > 0:
								return kb.byteWord(d, src[r], fb.mul(c4, i64(4)), rem, stride[r])
							case d.xNCHW:
								return kb.byteWord(d, src[r], fb.mul(c4, i64(4)), 4, stride[r])
							}
							// the xz bytes are 4-byte aligned; X words when al says so
							return kb.load32(kb.gep8(src[r], fb.mul(c4, i64(4))), min(al[r], 4))
						})
					}
					if !d.neonBlocked() || d.xNCHW {
						accs = kb.reduceGroups(d.C, "c4", accs, step)
						continue
					}
					// NEON: 16 channel bytes of each pixel at once, taken by element
					accs = kb.reduceRowBlocks(d.C, accs, func(b value.Value, accs []value.Value) []value.Value {
						words := make([]func(int) value.Value, npix)
						for r := range words {
							words[r] = kb.rowBlockWords(kb.gep8(src[r], fb.mul(b, i64(16))), min(al[r], 4))
						}
						for q := 0; q < 4; q++ {
							c4 := fb.add(fb.mul(b, i64(4)), i64(int64(q)))
							accs = kb.dotRows(d, accs, kb.weightVecs(d, wtap, c4, nvec), npix, d.xSigned, func(r int) value.Value { return words[r](q) })
						}
						return accs
					}, step)
				}
			}
			m0 := fb.mul(mt, i64(nr))
			kb.channelEpilogue(d, accs, npix, nvec, lastLanes, m0, tab, func(r int, ch, val value.Value, lanes int) {
				off := fb.offset(kb.res, []value.Value{n, oh[r], ow[r], fb.add(ch, i64(d.lo[3]))})
				kb.storeLanes(d, val, off, lanes)
			})
		}
		return kb.pixelChannelTiles(d, tile)
	})
}
