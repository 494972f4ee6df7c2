// This file emits the 4-bit nbits-gemv kernel in nibble lanes, the form for x86 and Arm
// vectors of any width (SSE/NEON, AVX2, AVX-512): a vector of L i32 lanes is loaded straight
// from the packed weights (4L bytes, 8L weights, no widening shuffle), and each of its eight
// nibble positions p is isolated in place by one and (q·16^p, exact in a float) and converted;
// A's copy holds a·16^-p in the matching lanes, so the products are a·q exactly. The zero
// point leaves the inner loop: Σ a·(q - z) = Σ a·q - z·Σ a, with Σ a per lane kept in the
// copy beside the eight vectors (times -8 when there are no zero points: no work per column).
// A vector spans L/(block/8) blocks when blocks are short; its scales (and zero points) are
// then loaded together and spread to their lanes by one shuffle. Per 8L weights and column:
// one load, seven ands and a shift, eight conversions and eight fused multiply-adds, and one
// to scale: a quarter of the per-vector work of the widened form (nbits.go), whose 32-lane
// shuffles and integer subtractions lower badly on AVX2 and whose accumulators spill there.

package lower

import (
	"strings"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// nbitsNibbleLanes returns the i32 lanes of the nibble-lane form of p's kernel, or 0 when it
// does not apply (not 4-bit, Hexagon, no float vectors, or K not a whole number of vectors).
func nbitsNibbleLanes(mc *moduleCtx, p *nbitsGEMV) int64 {
	if p.bits != 4 || !mc.vecFloat || mc.vecBytes < 16 || strings.HasPrefix(mc.tgt.Triple, "hexagon") {
		return 0
	}
	L := int64(mc.vecBytes / 4)
	if p.K%(8*L) != 0 {
		return 0
	}
	if L >= 16 && !p.singleRow() {
		// rows grouped four at a time: with 512-bit vectors the widened form's shared
		// unpack is faster there (measured at 64×4096·4096 on Zen 4: 20 ms against 27-31)
		return 0
	}
	return L
}

// singleRow reports whether the kernel's domain has exactly one row (every lead dim a
// constant): a decode step, whose rows are never grouped.
func (p *nbitsGEMV) singleRow() bool {
	for d := 0; d < p.lead; d++ {
		bounds, err := p.rows.DimBounds(d)
		if err != nil || len(bounds) == 0 {
			return false
		}
		for _, b := range bounds {
			fixed := false
			for _, lo := range b.Lower {
				for _, up := range b.Upper {
					l, ok1 := lo.IsConst()
					u, ok2 := up.IsConst()
					fixed = fixed || ok1 && ok2 && l == u
				}
			}
			if !fixed {
				return false
			}
		}
	}
	return true
}

// nbitsNibbleColumns is the number of accumulators (rows × columns) of a step in nibble
// lanes: one row's eight columns share each load of A's copy (at 1×4096·4096×11008 with AVX2
// on Zen 4, 1.85 ms with four, 1.64 with eight, 1.69 with six, 2.0 with sixteen; neutral with
// AVX-512), and a group of four rows takes two columns per unpack (64×4096·4096: 28.7 ms with
// one, 26.0 with two).
const nbitsNibbleColumns = 8

// nbitsNibbleStep is the number of columns a step of nrows rows computes in nibble lanes:
// nbitsNibbleColumns / nrows, except one column for a single row on x86 without AVX-512. There
// the sixteen vector registers do not hold eight accumulators beside the nine vectors of A's
// copy that the columns share, and the spills (with the accumulators' stores every step) cost
// more than the shared loads save: one column keeps its two block sums and its accumulator in
// registers and reads A's copy as memory operands of its fused multiply-adds (the loads are
// not the bottleneck: the FP pipes are). 1×4096·4096×11008, block 32, on Zen 3 at znver3, one
// thread, process CPU time (medians of 40 calls): 3.5 ms with eight columns, 3.8 with four,
// 4.2 with two, 2.5 with one.
func nbitsNibbleStep(mc *moduleCtx, nrows int) int {
	if nrows == 1 && strings.HasPrefix(mc.tgt.Triple, "x86") && !featureOn(mc.allFeatures, "avx512f") {
		return 1
	}
	return nbitsNibbleColumns / nrows
}

// nbitsNibbleSlots is the number of L-lane vectors per group of 8L weights in A's copy: the
// eight nibble positions and the lanes' sums.
const nbitsNibbleSlots = 9

// nbitsCopyNibbles copies A's row at dims into buf in nibble lanes: per group g of 8L weights,
// slot p (0..7) lane l holds a[8L·g + 8l + p]·16^-p (slot 7 unscaled: its nibble is shifted
// down), and slot 8 lane l holds -z·Σ_p a[8L·g + 8l + p] with z = 1, or 8 when there are no
// zero points.
func (kb *kernelBuilder) nbitsCopyNibbles(p *nbitsGEMV, L int64, wA, buf *view, dims []value.Value) error {
	fb := kb.fb
	op := kb.op
	kd := p.lead + 1
	negZ := -1.0
	if !p.zp {
		negZ = -8
	}
	return fb.loop(i64(0), i64(p.K/8-1), 1, "nbits.copya", func(j value.Value) error {
		g := fb.sdivConst(j, L)
		l := fb.sub(j, fb.mul(g, i64(L)))
		base := fb.add(fb.mul(g, i64(nbitsNibbleSlots*L)), l)
		var sum value.Value
		for q := int64(0); q < 8; q++ {
			at := append([]value.Value(nil), dims...)
			at[kd] = fb.add(fb.mul(j, i64(8)), i64(q))
			v := fb.loadElem(wA, fb.offset(wA, fb.indexAt(op.Access[0].Pieces[0].Index, at)))
			if sum == nil {
				sum = v
			} else {
				sum = fb.cur.NewFAdd(sum, v)
			}
			scaled := v
			if q < 7 {
				scaled = fb.cur.NewFMul(v, constant.NewFloat(types.Float, float64(1)/float64(int64(1)<<(4*q))))
			}
			st := fb.cur.NewStore(scaled, fb.elemPtr(buf, fb.add(base, i64(q*L))))
			st.Align = llvm.Align(4)
		}
		st := fb.cur.NewStore(fb.cur.NewFMul(sum, constant.NewFloat(types.Float, negZ)), fb.elemPtr(buf, fb.add(base, i64(8*L))))
		st.Align = llvm.Align(4)
		if p.zp {
			// the block's sum of a (its first eight start it), for the zero points' term
			k := fb.mul(j, i64(8))
			at := fb.elemPtr(buf, fb.add(i64(nbitsBlockSums(p)), fb.sdivConst(k, p.block)))
			first := fb.cur.NewICmp(enum.IPredEQ, fb.cur.NewAnd(k, i64(p.block-1)), i64(0))
			prev := fb.cur.NewSelect(first, constant.NewFloat(types.Float, 0), fb.cur.NewLoad(types.Float, at))
			st := fb.cur.NewStore(fb.cur.NewFAdd(prev, sum), at)
			st.Align = llvm.Align(4)
		}
		return nil
	})
}

// nbitsNibbleColumns emits columns n .. n+nr-1 of rows (A copied by nbitsCopyNibbles) in
// nibble lanes: per group of 8L weights and column, the block sums of the L lanes, scaled by
// their blocks' scales into the column's L-lane sum, folded once per column.
func (kb *kernelBuilder) nbitsNibbleColumns(p *nbitsGEMV, L int64, rows []nbitsRow, nr int, n value.Value, accs []value.Value) error {
	fb := kb.fb
	op := kb.op
	lanes := int(L)
	G := 8 * L
	vt := types.NewVector(uint64(L), types.Float)
	it := types.NewVector(uint64(L), types.I32)
	kb0 := (p.K + p.block - 1) / p.block
	rowBytes := kb0 * p.block / 2
	wB, wS := kb.ops[1], kb.ops[2]
	fmuladd := fb.mc.intrinsic("llvm.fmuladd."+intrinsicSuffix(vt), vt, vt, vt, vt)
	// blocks per vector (M) and lanes per block (D)
	D := max(p.block/8, 1)
	M := max(L/D, 1)
	nc := len(rows) * nr
	zero := constant.NewZeroInitializer(vt)
	for c := 0; c < nc; c++ {
		fb.cur.NewStore(zero, accs[c])
	}
	cols := make([]value.Value, nr)
	for c := range cols {
		cols[c] = fb.add(n, i64(int64(c)))
	}
	// the zero points' term first, into the zeroed accumulators: its chain of fused
	// multiply-adds then runs beside the block loop's first steps rather than between the
	// block loop and the column's fold, which waited for it
	var corr []value.Value
	if p.zp {
		var err error
		if corr, err = kb.nbitsZeroPoints(p, L, rows, cols, accs[:nc]); err != nil {
			return err
		}
	}
	// lane l belongs to the vector's block l/D
	spread := func(m int64) constant.Constant {
		idx := make([]constant.Constant, L)
		for l := range idx {
			idx[l] = i32c(int64(l) / D / m)
		}
		return constant.NewVector(types.NewVector(uint64(L), types.I32), idx...)
	}
	dims := append([]value.Value(nil), rows[0].dims...)
	err := fb.loop(i64(0), i64(p.K/G-1), 1, "nbits.group", func(g value.Value) error {
		k0 := fb.mul(g, i64(G))
		av := make([][]value.Value, len(rows))
		for r, row := range rows {
			av[r] = make([]value.Value, nbitsNibbleSlots)
			for s := range av[r] {
				av[r][s] = fb.vecLoad(row.wA, fb.add(row.aRow, fb.add(fb.mul(g, i64(nbitsNibbleSlots*L)), i64(int64(s)*L))), vt, 4)
			}
		}
		for c, col := range cols {
			dims[p.lead], dims[p.lead+1] = col, k0
			// the lanes' scales: the vector's M blocks' scales, consecutive in memory
			soff := fb.offset(wS, fb.indexAt(op.Access[2].Pieces[0].Index, dims))
			var scale value.Value
			if M == 1 {
				scale = splatValue(fb, fb.loadElem(wS, soff), lanes)
			} else {
				sv := fb.vecLoad(wS, soff, types.NewVector(uint64(M), types.Float), 4)
				scale = fb.cur.NewShuffleVector(sv, constant.NewUndef(sv.Type()), spread(1))
			}
			off := fb.add(fb.mul(col, i64(rowBytes)), fb.sdivConst(k0, 2))
			x := fb.vecLoad(wB, off, it, 1)
			ws := make([]value.Value, 8)
			for q := 0; q < 8; q++ {
				var w value.Value
				if q < 7 {
					w = fb.cur.NewAnd(x, splat(constant.NewInt(types.I32, int64(15)<<(4*q)), lanes))
				} else {
					w = fb.cur.NewLShr(x, splat(constant.NewInt(types.I32, 28), lanes))
				}
				ws[q] = fb.cur.NewSIToFP(w, vt)
			}
			for r := range rows {
				// two chains of four fused multiply-adds (nibbles 0-3 and 4-7), then added: half
				// the latency of one chain of eight, which held the loop back on Zen 3 (llvm-mca
				// for znver3: 75 -> 68 cycles per group of eight columns; 1×4096·4096×256 with
				// its weights in cache 71 -> 66 µs)
				var lo value.Value
				if p.zp {
					lo = fb.cur.NewFMul(ws[0], av[r][0]) // the zero points' term follows the loop
				} else {
					lo = fb.cur.NewCall(fmuladd, ws[0], av[r][0], av[r][8])
				}
				hi := value.Value(fb.cur.NewFMul(ws[4], av[r][4]))
				for q := 1; q < 4; q++ {
					lo = fb.cur.NewCall(fmuladd, ws[q], av[r][q], lo)
					hi = fb.cur.NewCall(fmuladd, ws[4+q], av[r][4+q], hi)
				}
				bs := fb.cur.NewFAdd(lo, hi)
				slot := accs[r*nr+c]
				fb.cur.NewStore(fb.cur.NewCall(fmuladd, bs, scale, fb.cur.NewLoad(vt, slot)), slot)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i := 0; i < nc; i++ {
		row, col := rows[i/nr], cols[i%nr]
		acc := value.Value(fb.cur.NewLoad(vt, accs[i]))
		total := hsumFloat(fb, acc)
		if corr != nil {
			total = fb.cur.NewFSub(total, fb.cur.NewLoad(types.Float, corr[i]))
		}
		st := fb.cur.NewStore(total, fb.elemPtr(kb.res, fb.add(row.yRow, col)))
		st.Align = llvm.Align(4)
	}
	return nil
}

// nbitsBlockSums is the offset in A's nibble-lane copy of its blocks' sums (with zero points).
func nbitsBlockSums(p *nbitsGEMV) int64 { return p.K / 8 * nbitsNibbleSlots }

// nbitsCopyFloats is the size of A's nibble-lane copy of one row, in floats.
func nbitsCopyFloats(p *nbitsGEMV) int64 {
	if p.zp {
		return nbitsBlockSums(p) + (p.K+p.block-1)/p.block
	}
	return nbitsBlockSums(p)
}

// nbitsZeroPoints subtracts the zero points' term Σ_b scale_b·z_b·Σ_{k in b} a_k of each row
// and column from its lanes (L blocks per vector step), and returns the scalars (allocas)
// holding the term of the blocks beyond the last whole vector.
func (kb *kernelBuilder) nbitsZeroPoints(p *nbitsGEMV, L int64, rows []nbitsRow, cols []value.Value, accs []value.Value) ([]value.Value, error) {
	fb := kb.fb
	op := kb.op
	lanes := int(L)
	vt := types.NewVector(uint64(L), types.Float)
	it := types.NewVector(uint64(L), types.I32)
	nb := (p.K + p.block - 1) / p.block
	main := nb - nb%L
	wS, wZ := kb.ops[2], kb.ops[3]
	fmuladd := fb.mc.intrinsic("llvm.fmuladd."+intrinsicSuffix(vt), vt, vt, vt, vt)
	nr := len(cols)
	dims := append([]value.Value(nil), rows[0].dims...)
	// the operands' offsets at column col and block b
	at := func(col, b value.Value) (value.Value, value.Value) {
		dims[p.lead], dims[p.lead+1] = col, fb.mul(b, i64(p.block))
		return fb.offset(wS, fb.indexAt(op.Access[2].Pieces[0].Index, dims)), fb.offset(wZ, fb.indexAt(op.Access[3].Pieces[0].Index, dims))
	}
	// lane l: byte l/2, nibble l%2 (b even)
	idx, shifts, nibShifts := make([]constant.Constant, L), make([]constant.Constant, L), make([]constant.Constant, L)
	for l := range idx {
		idx[l], shifts[l], nibShifts[l] = i32c(int64(l)/2), i32c(int64(l)%2*4), i32c(int64(l)*4)
	}
	corr := make([]value.Value, len(accs))
	for i := range corr {
		corr[i] = kb.entryAlloca(types.Float)
		fb.cur.NewStore(constant.NewFloat(types.Float, 0), corr[i])
	}
	for i := range accs {
		row, col := rows[i/nr], cols[i%nr]
		if main > 0 {
			err := fb.loop(i64(0), i64(main-1), L, "nbits.zp", func(b value.Value) error {
				soff, zoff := at(col, b)
				sv := fb.vecLoad(wS, soff, vt, 4)
				zv := fb.vecLoad(wZ, zoff, types.NewVector(uint64(L/2), types.I8), 1)
				var z value.Value
				if L <= 8 {
					// the L nibbles as one integer of 4L bits, splat and shifted by 4l in lane l:
					// a broadcast, a shift and an and (three vector operations where the
					// byte widening and spreading took five)
					w := value.Value(fb.cur.NewBitCast(zv, types.NewInt(uint64(4*L))))
					if L < 8 {
						w = fb.cur.NewZExt(w, types.I32)
					}
					z = fb.cur.NewAnd(fb.cur.NewLShr(splatValue(fb, w, lanes), constant.NewVector(it, nibShifts...)), splat(constant.NewInt(types.I32, 15), lanes))
				} else {
					zb := fb.cur.NewZExt(zv, types.NewVector(uint64(L/2), types.I32))
					zs := fb.cur.NewShuffleVector(zb, constant.NewUndef(zb.Type()), constant.NewVector(it, idx...))
					z = fb.cur.NewAnd(fb.cur.NewLShr(zs, constant.NewVector(it, shifts...)), splat(constant.NewInt(types.I32, 15), lanes))
				}
				sz := fb.cur.NewFNeg(fb.cur.NewFMul(sv, fb.cur.NewSIToFP(z, vt)))
				bsum := fb.vecLoad(row.wA, fb.add(row.aRow, fb.add(i64(nbitsBlockSums(p)), b)), vt, 4)
				fb.cur.NewStore(fb.cur.NewCall(fmuladd, sz, bsum, fb.cur.NewLoad(vt, accs[i])), accs[i])
				return nil
			})
			if err != nil {
				return nil, err
			}
		}
		if main < nb {
			err := fb.loop(i64(main), i64(nb-1), 1, "nbits.zprem", func(b value.Value) error {
				soff, zoff := at(col, b)
				zbyte := fb.cur.NewZExt(fb.loadElem(wZ, zoff), types.I32)
				sh := fb.cur.NewTrunc(fb.mul(fb.cur.NewAnd(b, i64(1)), i64(4)), types.I32)
				z := fb.cur.NewSIToFP(fb.cur.NewAnd(fb.cur.NewLShr(zbyte, sh), constant.NewInt(types.I32, 15)), types.Float)
				bsum := fb.loadElem(row.wA, fb.add(row.aRow, fb.add(i64(nbitsBlockSums(p)), b)))
				t := fb.cur.NewFMul(fb.cur.NewFMul(fb.loadElem(wS, soff), z), bsum)
				fb.cur.NewStore(fb.cur.NewFAdd(fb.cur.NewLoad(types.Float, corr[i]), t), corr[i])
				return nil
			})
			if err != nil {
				return nil, err
			}
		}
	}
	return corr, nil
}
