// This file holds what the integer dot-product plans (intdot.go) share at compile time: reading
// the constant operands, packing the weights of each output channel and folding their zero
// points, the register tile shape of each instruction family, and the geometry of a
// convolution's windowed input reads.

package lower

import (
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// constData returns the value of constant operand k at iteration point x.
func constData(op *ir.Op, k int, x []int64) int64 {
	t := op.Operands[k].Data
	idx := op.Access[k].Pieces[0].Index
	off := int64(0)
	for i, a := range idx {
		v := a.EvalFast(x, nil)
		off = off*t.Shape[i] + v
	}
	return t.Int(int(off))
}

// dependsOnly reports whether access k reads an index that depends on no dim outside keep.
func dependsOnly(op *ir.Op, k int, keep ...int) bool {
	idx := op.Access[k].Pieces[0].Index
	for d := 0; d < op.NDim(); d++ {
		used := accessStride(idx, d) != strideInvariant
		if !used {
			continue
		}
		ok := false
		for _, x := range keep {
			ok = ok || x == d
		}
		if !ok {
			return false
		}
	}
	return true
}

// tileShape returns the register tile of an instruction family: mr broadcast rows by nv
// vectors of accumulators.
func tileShape(kind dotKind) (mr, nv int) {
	switch kind {
	case dotVNNI256:
		return 6, 2
	case dotAVX2, dotSSE2:
		// two registers per accumulator, 16 registers
		return 4, 1
	case dotHVX, dotGeneric:
		return 4, 2
	case dotNEONSDot, dotNEONUSDot:
		// 18 accumulators, 6 rows of 4 groups and 3 weight vectors of 32 registers
		return 6, 3
	}
	return 6, 4
}

// readWeights reads the weights of each of the d.chans output channels c (iteration dim chanDim
// at chanLo + c) over the reduction box of the dims red (from redLo, extents redN), shifted
// into s8 when wUnsigned, and hands each to pack(c, r, w), r its point in the box (row-major).
// It returns, per channel, Σ w, the weight zero point (in the s8 domain) and the bias (nil
// without one), the last two read at the box's origin. x is the iteration point it reads at:
// its other dims stay as the caller set them.
func (d *intDot) readWeights(op *ir.Op, x []int64, chanDim int, chanLo int64, red []int, redLo, redN []int64, wUnsigned bool, pack func(c int64, r []int64, w int64)) (wsum, wz, bias []int64) {
	p := d.p
	wsum = make([]int64, d.chans)
	wz = make([]int64, d.chans)
	if p.bias >= 0 {
		bias = make([]int64, d.chans)
	}
	empty := false
	for _, n := range redN {
		empty = empty || n <= 0
	}
	r := make([]int64, len(red))
	for c := int64(0); c < d.chans; c++ {
		x[chanDim] = chanLo + c
		for i, dim := range red {
			x[dim] = redLo[i]
		}
		wz[c] = constData(op, p.wz, x)
		if wUnsigned {
			wz[c] -= 128
		}
		if bias != nil {
			bias[c] = constData(op, p.bias, x)
		}
		for more := !empty; more; {
			for i, dim := range red {
				x[dim] = redLo[i] + r[i]
			}
			w := constData(op, p.w, x)
			if wUnsigned {
				w -= 128
			}
			wsum[c] += w
			pack(c, r, w)
			more = false
			for i := len(r) - 1; i >= 0 && !more; i-- {
				if r[i]++; r[i] < redN[i] {
					more = true
				} else {
					r[i] = 0
				}
			}
		}
	}
	return wsum, wz, bias
}

// channelConsts fills corr, wzs and sumX from the per-channel weight sums.
func (d *intDot) channelConsts(op *ir.Op, xz int64, wsum, wz, bias []int64) {
	d.corr = make([]int64, len(wsum))
	d.wzs = wz
	for c := range wsum {
		d.corr[c] = -xz*wsum[c] + d.R*xz*wz[c]
		if d.kind == dotNEONSDot {
			d.corr[c] += neonDotShift * wsum[c]
		}
		if bias != nil {
			d.corr[c] += bias[c]
		}
		if wz[c] != 0 {
			d.sumX = true
		}
	}
}

// depthwiseWeights reads, for each of the d.chans output channels m (iteration dim chanDim at
// chanLo + m), the weights of its d.R taps less the channel's weight zero point, hands each to
// put(m, t, w) with t = kh·KW + kw, and sets d.corr[m] to -xz·Σ w plus the bias:
// Σ (x - xz)·w' = Σ x·w' - xz·Σ w'.
func (d *intDot) depthwiseWeights(op *ir.Op, x []int64, chanDim int, chanLo, xz int64, put func(m, t, w int64)) {
	p := d.p
	for m := int64(0); m < d.chans; m++ {
		x[chanDim] = chanLo + m
		x[4], x[5], x[6] = 0, 0, 0
		wz := constData(op, p.wz, x)
		sum := int64(0)
		for t := int64(0); t < d.R; t++ {
			x[5], x[6] = t/d.KW, t%d.KW
			w := constData(op, p.w, x) - wz
			put(m, t, w)
			sum += w
		}
		d.corr[m] = -xz * sum
		if p.bias >= 0 {
			x[5], x[6] = 0, 0
			d.corr[m] += constData(op, p.bias, x)
		}
	}
}

// windowAxes reads the stride, dilation and begin padding of a convolution's two spatial input
// reads xs: xs[sd] = s·o + d·k - p with o the result dim out0 + sd and k the reduction dim 5 + sd
// (the domain's dims are [n, 3 result dims, c, kh, kw]). It returns why not ("" when they are).
func (d *intDot) windowAxes(xs []volume.Aff, out0 int) string {
	for sd := 0; sd < 2; sd++ {
		a := xs[sd]
		if len(a.Floors) > 0 || len(a.Params) > 0 {
			return "quasi-affine input index"
		}
		for dim := 0; dim < 7; dim++ {
			if c := coefOf(a, dim); c != 0 && dim != out0+sd && dim != 5+sd {
				return "the input index mixes dims"
			}
		}
		d.s[sd], d.d[sd], d.pb[sd] = coefOf(a, out0+sd), coefOf(a, 5+sd), -a.Const
		if d.s[sd] <= 0 || d.d[sd] <= 0 || d.pb[sd] < 0 {
			return "unsupported stride, dilation or padding"
		}
	}
	return ""
}

// boundsImage reports whether guard g keeps one of the spatial reads pos inside its image
// axis of extent size: pos ≥ 0 or pos ≤ size - 1.
func boundsImage(g volume.Constraint, pos []volume.Aff, size []int64) bool {
	for sd := range pos {
		if g.Aff.Equal(pos[sd]) || g.Aff.Equal(pos[sd].Neg().AddConst(size[sd]-1)) {
			return true
		}
	}
	return false
}

// spatialWhole reports whether the result box covers the whole spatial extent of the result's
// axes a0 and a0+1 (the kernels store contiguous output rows).
func spatialWhole(op *ir.Op, lo, hi []int64, a0 int) bool {
	os := op.Result.Type.Shape
	for sd := 0; sd < 2; sd++ {
		e, ok := os[a0+sd].IsConst()
		if !ok || lo[a0+sd] != 0 || hi[a0+sd] != e-1 {
			return false
		}
	}
	return true
}

// paddedExtents sets the padded height HP and the columns per phase WQ of a convolution's
// input copy: every read s·o + d·k - p lies in [-pb, H + pe) with pe what the last output
// needs.
func (d *intDot) paddedExtents() {
	hp := (d.OH-1)*d.s[0] + (d.KH-1)*d.d[0] + 1
	wp := (d.OW-1)*d.s[1] + (d.KW-1)*d.d[1] + 1
	d.HP = max(hp, d.H+d.pb[0])
	d.WQ = (max(wp, d.W+d.pb[1]) + d.s[1] - 1) / d.s[1]
}
