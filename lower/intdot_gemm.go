// This file holds the matrix-product form of the integer dot-product kernels (intdot.go): lanes
// over the weights' columns j, the weights packed at compile time per column tile as
// [R/4][nr][4] bytes, and each row's 4 activation bytes broadcast.

package lower

import (
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/ir"
)

// planGEMM: C[o..., i, j] = Σ_k X[.., i, k]·W[k, j] with X unit-stride along k.
func (d *intDot) planGEMM(op *ir.Op, lo, hi []int64) string {
	p := d.p
	nOut := d.nOut
	j, k := nOut-1, nOut
	xi := op.Access[p.x].Pieces[0].Index
	if accessStride(xi, k) != strideUnit || accessStride(xi, j) != strideInvariant {
		return "the activation is not unit-stride along the reduction"
	}
	if !dependsOnly(op, p.w, j, k) || !dependsOnly(op, p.wz, j) || !dependsOnly(op, p.xz) || p.bias >= 0 && !dependsOnly(op, p.bias, j) {
		return "the weights depend on more than the column and the reduction"
	}
	if len(op.Access[p.xz].Pieces) != 1 || len(op.Access[p.xz].Pieces[0].Guard) > 0 {
		return "the zero point read has pieces"
	}
	d.xzRuntime = op.Operands[p.xz].Data == nil
	d.conv = false
	d.xSigned = op.Operands[p.x].Type.Elem == ir.I8
	wUnsigned := op.Operands[p.w].Type.Elem == ir.U8
	K := hi[k] - lo[k] + 1
	d.R, d.R4 = K, (K+3)/4
	d.chans = hi[j] - lo[j] + 1
	d.mr, d.nv = tileShape(d.kind)
	d.nv = int(min(int64(d.nv), (d.chans+int64(d.lanes)-1)/int64(d.lanes)))
	nr := int64(d.nv * d.lanes)
	tiles := (d.chans + nr - 1) / nr
	d.wPacked = make([]byte, tiles*d.R4*nr*4)
	// i8mm: usmmla on [R8][nr/2][2][8] panels (intdot_mmla.go)
	d.mmla = d.kind == dotNEONUSDot
	r8 := (K + 7) / 8
	if d.mmla {
		d.wPacked = make([]byte, tiles*r8*nr*8)
	}
	x := make([]int64, op.NDim())
	copy(x, lo)
	xz := int64(0)
	if !d.xzRuntime {
		xz = constData(op, p.xz, x)
		if d.xSigned {
			xz += 128
		}
	}
	wsum, wz, bias := d.readWeights(op, x, j, lo[j], []int{k}, []int64{lo[k]}, []int64{K}, wUnsigned, func(c int64, r []int64, w int64) {
		if d.mmla {
			d.wPacked[mmlaPackIndex(c, r[0], nr, r8)] = byte(int8(w))
			return
		}
		// [column tile][R4][nr][4]
		d.wPacked[((c/nr*d.R4+r[0]/4)*nr+c%nr)*4+r[0]%4] = byte(int8(w))
	})
	d.channelConsts(op, xz, wsum, wz, bias)
	if d.xzRuntime {
		d.adj = make([]int64, d.chans)
		for c := range d.adj {
			d.adj[c] = wsum[c] - d.R*wz[c]
		}
	}
	return ""
}

// emitIntGEMM: for each column tile of nr channels, for each tile of mr rows, the registers
// accumulate the dot products over the K/4 groups; the epilogue adds the channel constants and
// subtracts wz·Σx, and stores.
func (kb *kernelBuilder) emitIntGEMM(d *intDot) error {
	fb := kb.fb
	op := kb.op
	p := d.p
	nOut := d.nOut
	i, j := nOut-2, nOut-1
	nr := int64(d.nv * d.lanes)
	tiles := (d.chans + nr - 1) / nr
	wp := kb.byteGlobal("wpack", d.wPacked)
	tab := kb.channelTables(d, int(tiles*nr)-len(d.corr))
	if d.xzRuntime {
		tab.adj = kb.i32Global("adj", d.adj, int(tiles*nr)-len(d.adj))
		zw := kb.ops[p.xz]
		zidx := op.Access[p.xz].Pieces[0].Index
		z := fb.loadElem(zw, fb.offset(zw, fb.indexAt(zidx, make([]value.Value, op.NDim()))))
		var z32 value.Value
		if d.xSigned {
			z32 = fb.cur.NewAdd(fb.cur.NewSExt(z, types.I32), constant.NewInt(types.I32, 128))
		} else {
			z32 = fb.cur.NewZExt(z, types.I32)
		}
		tab.xz = kb.splat32(d, z32)
	}
	xw := kb.ops[p.x]
	xidx := op.Access[p.x].Pieces[0].Index
	rows := d.hi[i] - d.lo[i] + 1
	zero := constant.NewZeroInitializer(d.accType())
	kb.intDotSplit(d, nOut-2, nil, "ct", tiles, "rt", ceilDiv(rows, int64(d.mr)))
	defer kb.endTileRegion()
	return kb.outerLoops(d, nOut-2, func(outer []value.Value) error {
		kb.setOuter(d, outer)
		// rowPtr returns the byte address of a row's first group (X[.., row, k = lo]) and the
		// alignment its 4-byte loads may claim (4 when the buffer is aligned and the row offset
		// a multiple of 4)
		rowPtr := func(row value.Value) (value.Value, int64) {
			dims := make([]value.Value, op.NDim())
			copy(dims, outer)
			dims[i], dims[j], dims[nOut] = row, i64(d.lo[j]), i64(0)
			off := fb.offset(xw, fb.indexAt(xidx, dims))
			return fb.cur.NewBitCast(fb.elemPtr(xw, off), types.I8Ptr), fb.vectorAlign(xw, off, 1, 4)
		}
		// one tile: nrows rows from row0, nvec vectors from channel c0 (last vector: lastLanes)
		tile := func(row0, c0, panel value.Value, nrows, nvec, lastLanes int) {
			xp := make([]value.Value, nrows)
			xal := make([]int64, nrows)
			for r := range xp {
				xp[r], xal[r] = rowPtr(fb.add(row0, i64(int64(r))))
			}
			if d.mmla {
				kb.channelEpilogue(d, kb.mmlaTile(d, panel, xp, xal, nrows, nvec), nrows, nvec, lastLanes, c0, tab, func(r int, ch, val value.Value, lanes int) {
					dims := make([]value.Value, nOut)
					copy(dims, outer)
					dims[i] = fb.add(row0, i64(int64(r)))
					dims[j] = fb.add(ch, i64(d.lo[j]))
					kb.storeLanes(d, val, fb.offset(kb.res, dims), lanes)
				})
				return
			}
			accs := d.newAccs(zero, nrows*nvec, nrows)
			weights := func(k4 value.Value) []value.Value {
				bv := make([]value.Value, nvec)
				for v := range bv {
					off := fb.mul(fb.add(fb.mul(k4, i64(nr)), i64(int64(v*d.lanes))), i64(4))
					bv[v] = kb.loadVec(d, kb.gep8(panel, off), int64(4*d.lanes))
				}
				return bv
			}
			step := func(k4 value.Value, accs []value.Value, rem int64) []value.Value {
				return kb.dotRows(d, accs, weights(k4), nrows, d.xSigned, func(r int) value.Value {
					if rem > 0 {
						// the last group: the remaining bytes (the packed weights are 0 above)
						return kb.byteWord(d, xp[r], fb.mul(k4, i64(4)), rem, nil)
					}
					return kb.load32(kb.gep8(xp[r], fb.mul(k4, i64(4))), xal[r])
				})
			}
			if !d.neonBlocked() {
				accs = kb.reduceGroups(d.R, "k4", accs, step)
			} else {
				accs = kb.reduceRowBlocks(d.R, accs, func(b value.Value, accs []value.Value) []value.Value {
					words := make([]func(int) value.Value, nrows)
					for r := range words {
						words[r] = kb.rowBlockWords(kb.gep8(xp[r], fb.mul(b, i64(16))), xal[r])
					}
					for q := 0; q < 4; q++ {
						k4 := fb.add(fb.mul(b, i64(4)), i64(int64(q)))
						accs = kb.dotRows(d, accs, weights(k4), nrows, d.xSigned, func(r int) value.Value { return words[r](q) })
					}
					return accs
				}, step)
			}
			kb.channelEpilogue(d, accs, nrows, nvec, lastLanes, c0, tab, func(r int, ch, val value.Value, lanes int) {
				dims := make([]value.Value, nOut)
				copy(dims, outer)
				dims[i] = fb.add(row0, i64(int64(r)))
				dims[j] = fb.add(ch, i64(d.lo[j]))
				kb.storeLanes(d, val, fb.offset(kb.res, dims), lanes)
			})
		}
		panelBytes := d.R4 * nr * 4
		if d.mmla {
			panelBytes = (d.R + 7) / 8 * nr * 8
		}
		return kb.forTiles(d.chans, nr, "ct", func(ct value.Value, cnt int64) error {
			nvec, lastLanes := d.vecSplit(cnt)
			panel := kb.gep8(wp, fb.mul(ct, i64(panelBytes)))
			c0 := fb.mul(ct, i64(nr))
			return kb.forTiles(rows, int64(d.mr), "rt", func(rt value.Value, cnt int64) error {
				tile(fb.add(fb.mul(rt, i64(int64(d.mr))), i64(d.lo[i])), c0, panel, int(cnt), nvec, lastLanes)
				return nil
			})
		})
	})
}
