// This file holds the register tiles of the integer dot-product kernels (intdot.go): their
// accumulators, the reduction loop and its steps, the epilogue that adds the channel constants
// and stores, and the loops that cover the output with full tiles and a tail.

package lower

import (
	"fmt"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// channelTables are the per-channel constant tables of a kernel whose epilogue adds them: corr
// (the folded zero point terms and bias), wz (the weight zero points, when d.sumX), and with a
// zero point computed at run time adj, which the epilogue subtracts times the zero point
// vector xz.
type channelTables struct {
	corr, wz, adj, xz value.Value
}

// channelTables emits the tables corr and (when d.sumX) wz, each padded with pad zeros so that
// whole vectors can be loaded past the last channel.
func (kb *kernelBuilder) channelTables(d *intDot, pad int) channelTables {
	t := channelTables{corr: kb.i32Global("corr", d.corr, pad)}
	if d.sumX {
		t.wz = kb.i32Global("wz", d.wzs, pad)
	}
	return t
}

// newAccs returns n accumulators set to zero, and with d.sumX sums more for the sums of x.
func (d *intDot) newAccs(zero value.Value, n, sums int) []value.Value {
	accs := make([]value.Value, n)
	for k := range accs {
		accs[k] = zero
	}
	if d.sumX {
		for r := 0; r < sums; r++ {
			accs = append(accs, zero)
		}
	}
	return accs
}

// tileLoop emits for (iv = 0; iv < n; iv++) with the vectors accs carried through it, and
// returns their values after the loop.
func (kb *kernelBuilder) tileLoop(n int64, hint string, accs []value.Value, body func(iv value.Value, accs []value.Value) []value.Value) []value.Value {
	fb := kb.fb
	if n <= 0 {
		return accs
	}
	if n == 1 {
		// no loop (LLVM 19's Hexagon pipeliner crashes on single-trip loops)
		return body(i64(0), accs)
	}
	pre := fb.cur
	bodyB := fb.newBlock(hint + ".body")
	exit := fb.newBlock(hint + ".exit")
	pre.NewBr(bodyB)
	fb.cur = bodyB
	iv := bodyB.NewPhi(llvm.NewIncoming(i64(0), pre))
	phis := make([]*llvm.InstPhi, len(accs))
	cur := make([]value.Value, len(accs))
	for k, a := range accs {
		phis[k] = bodyB.NewPhi(llvm.NewIncoming(a, pre))
		cur[k] = phis[k]
	}
	out := body(iv, cur)
	next := fb.cur.NewAdd(iv, i64(1))
	for k := range phis {
		phis[k].Incs = append(phis[k].Incs, llvm.NewIncoming(out[k], fb.cur))
	}
	iv.Incs = append(iv.Incs, llvm.NewIncoming(next, fb.cur))
	fb.cur.NewCondBr(fb.cur.NewICmp(enum.IPredSLT, next, i64(n)), bodyB, exit)
	fb.cur = exit
	return out
}

// storeLanes stores the first n lanes of v to the i32 result at element offset off (a vector
// store when n is every lane).
func (kb *kernelBuilder) storeLanes(d *intDot, v value.Value, off value.Value, n int) {
	fb := kb.fb
	if n == d.lanes {
		fb.vectorStore(kb.res, off, v)
		return
	}
	for l := 0; l < n; l++ {
		e := fb.cur.NewExtractElement(v, i32c(int64(l)))
		st := fb.cur.NewStore(e, fb.elemPtr(kb.res, fb.add(off, i64(int64(l)))))
		st.Align = 4
	}
}

// outerLoops runs body over the leading result dims 0..n-1 of the result box (the batch
// dims the kernel does not tile), passing their values.
func (kb *kernelBuilder) outerLoops(d *intDot, n int, body func(dims []value.Value) error) error {
	fb := kb.fb
	dims := make([]value.Value, n)
	var rec func(k int) error
	rec = func(k int) error {
		if k == n {
			return body(dims)
		}
		return fb.loop(i64(d.lo[k]), i64(d.hi[k]), 1, fmt.Sprintf("o%d", k), func(iv value.Value) error {
			dims[k] = iv
			return rec(k + 1)
		})
	}
	return rec(0)
}

// reduceGroups runs the reduction over n bytes in groups of 4: step over the n/4 whole groups
// in a loop (g the group, rem 0), then once over the last rem = n mod 4 bytes (g = n/4).
func (kb *kernelBuilder) reduceGroups(n int64, hint string, accs []value.Value, step func(g value.Value, accs []value.Value, rem int64) []value.Value) []value.Value {
	full := n / 4
	accs = kb.tileLoop(full, hint, accs, func(g value.Value, accs []value.Value) []value.Value {
		return step(g, accs, 0)
	})
	if rem := n % 4; rem > 0 {
		accs = step(i64(full), accs, rem)
	}
	return accs
}

// dotRows is one reduction step of a tile whose rows broadcast activations: row r's word
// word(r) (flipped into u8 when flip) is broadcast and multiplied with every vector of vecs
// into accumulator r·len(vecs) + v, and with d.sumX with ones into the row's Σx accumulator
// nrows·len(vecs) + r. It returns the new accumulators.
func (kb *kernelBuilder) dotRows(d *intDot, accs, vecs []value.Value, nrows int, flip bool, word func(r int) value.Value) []value.Value {
	fb := kb.fb
	ones := splat(constant.NewInt(types.I32, 0x01010101), d.lanes)
	nvec := len(vecs)
	out := make([]value.Value, len(accs))
	for r := 0; r < nrows; r++ {
		w := word(r)
		if flip {
			w = fb.cur.NewXor(w, constant.NewInt(types.I32, int64(int32(-0x7f7f7f80))))
		}
		a := kb.splat32(d, w)
		for v := 0; v < nvec; v++ {
			out[r*nvec+v] = kb.dot(d, accs[r*nvec+v], a, vecs[v])
		}
		if d.sumX {
			out[nrows*nvec+r] = kb.dot(d, accs[nrows*nvec+r], a, ones)
		}
	}
	return out
}

// weightVecs loads the nvec weight vectors of channel group c4 from a tap's panel of packed
// weights ([C4][nr][4] bytes, aligned to whole vectors).
func (kb *kernelBuilder) weightVecs(d *intDot, panel, c4 value.Value, nvec int) []value.Value {
	fb := kb.fb
	L := int64(d.lanes)
	nr := int64(d.nv) * L
	wv := make([]value.Value, nvec)
	for v := range wv {
		wv[v] = kb.loadVec(d, kb.gep8(panel, fb.add(fb.mul(c4, i64(nr*4)), i64(int64(v)*L*4))), 4*L)
	}
	return wv
}

// channelEpilogue finishes a tile whose lanes run over output channels: for each vector v of
// channels from c0 and each row r, the accumulator gets the channel constants (less wz·Σx, and
// with a run-time zero point less xz·adj), and store(r, ch, val, lanes) stores the first lanes
// lanes of val, ch being the vector's first channel.
func (kb *kernelBuilder) channelEpilogue(d *intDot, accs []value.Value, nrows, nvec, lastLanes int, c0 value.Value, tab channelTables, store func(r int, ch, val value.Value, lanes int)) {
	fb := kb.fb
	for v := 0; v < nvec; v++ {
		ch := fb.add(c0, i64(int64(v*d.lanes)))
		cv := kb.loadI32Vec(d, tab.corr, ch)
		var wzv value.Value
		if d.sumX {
			wzv = kb.loadI32Vec(d, tab.wz, ch)
		}
		if d.xzRuntime {
			cv = fb.cur.NewSub(cv, fb.cur.NewMul(tab.xz, kb.loadI32Vec(d, tab.adj, ch)))
		}
		n := d.lanes
		if v == nvec-1 {
			n = lastLanes
		}
		for r := 0; r < nrows; r++ {
			var sum value.Value
			if d.sumX {
				sum = accs[nrows*nvec+r]
			}
			store(r, ch, kb.zeroPointTerms(d, accs[r*nvec+v], cv, wzv, sum), n)
		}
	}
}

// forTiles covers n items with tiles of size items: a loop over the full tiles (t the tile's
// index), then the tail tile of the last n mod size items (t = n/size). tile gets the number of
// items of its tile.
func (kb *kernelBuilder) forTiles(n, size int64, hint string, tile func(t value.Value, cnt int64) error) error {
	if lo, hi, split := kb.splitBounds(hint, ceilDiv(n, size)); split {
		// the loop split over threads (parallel_tiles.go): the task's tiles
		return kb.forTileRange(n, size, lo, hi, hint, tile)
	}
	full, tail := n/size, n%size
	if err := kb.fb.loop(i64(0), i64(full-1), 1, hint, func(t value.Value) error {
		return tile(t, size)
	}); err != nil {
		return err
	}
	if tail > 0 {
		return tile(i64(full), tail)
	}
	return nil
}

// vecSplit returns how many vectors cover cnt lanes, and the lanes of the last one.
func (d *intDot) vecSplit(cnt int64) (nvec, lastLanes int) {
	L := int64(d.lanes)
	nvec = int((cnt + L - 1) / L)
	return nvec, int(cnt - int64(nvec-1)*L)
}

// outputRowTiles runs tile over every output row oh of a convolution whose lanes run over
// output columns, and each tile of nv vectors of columns from ow0 (the last tile: nvec vectors,
// the last of lastLanes lanes).
func (kb *kernelBuilder) outputRowTiles(d *intDot, tile func(oh, ow0 value.Value, nvec, lastLanes int) error) error {
	fb := kb.fb
	nr := int64(d.nv * d.lanes)
	lo, hi, _ := kb.splitBounds("oh", d.OH)
	return fb.loop(lo, hi, 1, "oh", func(oh value.Value) error {
		return kb.forTiles(d.OW, nr, "owt", func(owt value.Value, cnt int64) error {
			nvec, lastLanes := d.vecSplit(cnt)
			return tile(oh, fb.mul(owt, i64(nr)), nvec, lastLanes)
		})
	})
}

// pixelChannelTiles runs tile over the tiles of a convolution whose lanes run over output
// channels: mr output pixels (row-major over oh, ow) from pixel p0 by nv vectors of channels
// of channel tile mt (the last tiles: npix pixels, nvec vectors, the last of lastLanes lanes).
func (kb *kernelBuilder) pixelChannelTiles(d *intDot, tile func(p0, mt value.Value, npix, nvec, lastLanes int)) error {
	fb := kb.fb
	nr := int64(d.nv * d.lanes)
	return kb.forTiles(d.OH*d.OW, int64(d.mr), "pt", func(pt value.Value, npix int64) error {
		p0 := fb.mul(pt, i64(int64(d.mr)))
		return kb.forTiles(d.chans, nr, "mt", func(mt value.Value, cnt int64) error {
			nvec, lastLanes := d.vecSplit(cnt)
			tile(p0, mt, int(npix), nvec, lastLanes)
			return nil
		})
	})
}

// pixelCoords returns the output row and column of the npix pixels from p0 (row-major), and
// calls each (when not nil) on each pixel as soon as its coordinates are emitted.
func (kb *kernelBuilder) pixelCoords(d *intDot, p0 value.Value, npix int, each func(r int, oh, ow value.Value)) (oh, ow []value.Value) {
	fb := kb.fb
	oh = make([]value.Value, npix)
	ow = make([]value.Value, npix)
	for r := range oh {
		pix := fb.add(p0, i64(int64(r)))
		oh[r] = fb.cur.NewSDiv(pix, i64(d.OW))
		ow[r] = fb.cur.NewSRem(pix, i64(d.OW))
		if each != nil {
			each(r, oh[r], ow[r])
		}
	}
	return oh, ow
}

// tapInImage returns whether tap (kh, kw) of output pixel (oh, ow) of a channels-last
// convolution reads inside the image, and the input row and column it reads, clamped to the
// image so that the address computed for a tap outside the image stays inside the buffer (the
// caller selects the zero point bytes instead).
func (kb *kernelBuilder) tapInImage(d *intDot, oh, ow value.Value, kh, kw int64) (in, ih, iw value.Value) {
	fb := kb.fb
	ihr := fb.add(fb.mul(oh, i64(d.s[0])), i64(kh*d.d[0]-d.pb[0]))
	iwr := fb.add(fb.mul(ow, i64(d.s[1])), i64(kw*d.d[1]-d.pb[1]))
	in = fb.and1(fb.and1(fb.cur.NewICmp(enum.IPredSGE, ihr, i64(0)), fb.cur.NewICmp(enum.IPredSLT, ihr, i64(d.H))),
		fb.and1(fb.cur.NewICmp(enum.IPredSGE, iwr, i64(0)), fb.cur.NewICmp(enum.IPredSLT, iwr, i64(d.W))))
	ih = fb.smin(fb.smax(ihr, i64(0)), i64(d.H-1))
	iw = fb.smin(fb.smax(iwr, i64(0)), i64(d.W-1))
	return in, ih, iw
}
