// This file emits matmul_nbits_q8 (onnxruntime's MatMulNBits at accuracy_level 4: A quantized
// to int8 per block, ir/ops_nbits.go) as the nbits-gemv kernel's integer form. Per row, the
// int8 row of A is copied into the scratch with each 64-value chunk's even values, then its
// odd ones (the order of the 32 packed bytes' low and high nibbles), beside A's block scales
// spread to the lanes of the sums below and the blocks' scaled sums sa·Σqa. Per chunk and
// column, the 32 weight bytes are loaded once and split into their low and high nibbles (u8
// 0..15: an and, a shift); on x86 with AVX2, vpmaddubsw multiplies them with A's s8 values
// into i16 pair sums (at most 2·15·127: no saturation), the halves are added (at most
// 4·15·127) and vpmaddwd with ones sums pairs into eight i32 lanes, lane l holding the
// chunk's values 8l..8l+7 (elsewhere the same sums in portable vector IR, one chunk at a
// time). AVX2 takes chunks in pairs: the two chunks' i32 sums (at most 8·15·127) are packed
// into i16 (vpackssdw, exact) and pair-added again (vpmaddwd), so the conversion, the
// weights' scales' shuffle and the scaled FMA acc += f32(dot)·(scale·sa) run once per 128
// weights. The zero points' term Σ_b scale_b·zp_b·(sa_b·Σqa_b) (zp = 8 without zero points)
// is subtracted into the zeroed accumulators first, the step's columns side by side. Each
// column's packed row is K/2 bytes (2 KB at K = 4096); a step of one row takes one column, so
// the weights, scales and zero points are each read front to back, and the next step's column
// is prefetched as well (weights, scales and zero points: the zero points' term reads the scales
// first thing in a step; without the prefetch 1.6x the packed read, with it 1.35x on Zen 3).
// llvm-mca-19 for znver3: 2.5 cycles per 64 weights and column (the float form,
// nbits_lanes.go: about 8).

package lower

import (
	"strings"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// nbitsQ8Chunk is the values of A (and weights) one step of the integer form covers: 32 packed
// bytes, an AVX2 vector.
const nbitsQ8Chunk = 64

// nbitsQ8Of returns the plan of op's kernel when op is a matmul_nbits_q8 the integer form
// computes exactly (4-bit weights, K a whole number of chunks), or nil.
func nbitsQ8Of(op *ir.Op, params []string) *nbitsGEMV {
	n := op.NDim()
	if op.Reduce != ir.ReduceSum || n < 2 || len(op.Operands) < 4 || len(op.Operands) > 5 || op.Result.Type.Elem != ir.F32 ||
		op.Init != 0 || len(op.Out.Pieces) != 1 {
		return nil
	}
	elems := []ir.DType{ir.I8, ir.F32, ir.U8, ir.F32, ir.U8}
	for k, o := range op.Operands {
		if o.Type.Elem != elems[k] || k >= 2 && o.Data == nil {
			return nil // the weights, scales and zero points are constants
		}
	}
	for _, a := range append([]ir.Access{op.Out}, op.Access...) {
		if a.Approx || len(a.Pieces) != 1 || len(a.Pieces[0].Guard) != 0 {
			return nil
		}
	}
	kd := n - 1
	K, ok := op.Operands[0].Type.Dim(op.Operands[0].Type.Rank() - 1)
	bShape, ok2 := op.Operands[2].Type.StaticShape()
	if !ok || !ok2 || len(bShape) == 0 {
		return nil
	}
	zp := len(op.Operands) == 5
	body := op.Body.String()
	for block := int64(16); block <= 1<<16; block *= 2 {
		if body != ir.MatMulNBitsQ8Body(4, block, kd, zp).String() {
			continue
		}
		p := &nbitsGEMV{bits: 4, block: block, K: K, N: bShape[0], zp: zp, lead: n - 2, chunk: min(block, 32), q8: true}
		if p.layoutOK(op) && p.q8ScalesOK(op) && p.domainOK(op, params) {
			return p
		}
	}
	return nil
}

// q8ScalesOK checks the access of A's block scales: the row's block k / block.
func (p *nbitsGEMV) q8ScalesOK(op *ir.Op) bool {
	nd, kd := p.lead, p.lead+1
	idx := op.Access[1].Pieces[0].Index
	if len(idx) == 0 || !idx[len(idx)-1].Equal(volume.AffDim(kd).FloorDiv(p.block)) {
		return false
	}
	for _, x := range idx[:len(idx)-1] {
		if uses(x, nd) || uses(x, kd) {
			return false
		}
	}
	return true
}

// q8K is K rounded up to whole chunks: a last chunk of K mod 64 values (blocks of 16 or 32)
// is zero-padded in A's copy.
func (p *nbitsGEMV) q8K() int64 { return (p.K + nbitsQ8Chunk - 1) / nbitsQ8Chunk * nbitsQ8Chunk }

// q8CopyFloats is the size of the integer form's copy of one row of A, in floats: q8K bytes
// of reordered int8 values, q8K/8 block scales spread to a chunk's lanes, 8 per pair of
// chunks spread to a pair's lanes (q8PairLanes), and the blocks' scaled sums.
func (p *nbitsGEMV) q8CopyFloats() int64 { return p.q8Sums() + p.K/p.block }

// q8Spread, q8Pairs and q8Sums are the float offsets of the chunks' and the pairs' spread
// scales and of the scaled sums in a copy.
func (p *nbitsGEMV) q8Spread() int64 { return p.q8K() / 4 }
func (p *nbitsGEMV) q8Pairs() int64  { return p.q8K()/4 + p.q8K()/8 }
func (p *nbitsGEMV) q8Sums() int64   { return p.q8Pairs() + p.K/(2*nbitsQ8Chunk)*8 }

// q8PairLanes is the first of the 16 values of a pair of chunks (128 values) that each lane
// of the pair's sums covers: vpackssdw interleaves the two chunks' i32 lanes per 128-bit half
// (chunk 0's lanes 0-3, chunk 1's 0-3 | chunk 0's 4-7, chunk 1's 4-7), and vpmaddwd adds
// neighbours.
var q8PairLanes = [8]int64{0, 16, 64, 80, 32, 48, 96, 112}

// nbitsQ8Copy copies the int8 row of A at dims into buf (a float view of the scratch): per
// chunk its even values then its odd ones, per block its scale at every eighth value's slot
// and its scaled sum sa · Σqa.
func (kb *kernelBuilder) nbitsQ8Copy(p *nbitsGEMV, buf *view, dims []value.Value) error {
	fb := kb.fb
	op := kb.op
	kd := p.lead + 1
	base := fb.cur.NewBitCast(buf.ptr, types.NewPointer(types.I8))
	sum := kb.entryAlloca(types.I32)
	nb := p.K / p.block
	if p.K%nbitsQ8Chunk != 0 {
		// the last chunk's padding: zero values of A with zero scales (products with the
		// weights' padding, or the next column's bytes, add nothing)
		last := p.q8K() - nbitsQ8Chunk
		bt := types.NewVector(nbitsQ8Chunk, types.I8)
		st := fb.cur.NewStore(constant.NewZeroInitializer(bt), fb.cur.NewBitCast(fb.cur.NewGetElementPtr(types.I8, base, i64(last)), types.NewPointer(bt)))
		st.Align = llvm.Align(1)
		vt := types.NewVector(8, types.Float)
		st = fb.cur.NewStore(constant.NewZeroInitializer(vt), fb.cur.NewBitCast(fb.elemPtr(buf, i64(p.q8Spread()+last/8)), types.NewPointer(vt)))
		st.Align = llvm.Align(4)
	}
	err := fb.loop(i64(0), i64(nb-1), 1, "nbits.q8copy", func(b value.Value) error {
		fb.cur.NewStore(i32c(0), sum)
		k0 := fb.mul(b, i64(p.block))
		err := fb.loop(i64(0), i64(p.block-1), 1, "nbits.q8copyk", func(i value.Value) error {
			at := append([]value.Value(nil), dims...)
			k := fb.add(k0, i)
			at[kd] = k
			v := fb.loadElem(kb.ops[0], fb.offset(kb.ops[0], fb.indexAt(op.Access[0].Pieces[0].Index, at)))
			// k = 64c + 2j + odd goes to 64c + 32·odd + j
			in := fb.cur.NewAnd(k, i64(nbitsQ8Chunk-1))
			dst := fb.add(fb.sub(k, in), fb.add(fb.mul(fb.cur.NewAnd(in, i64(1)), i64(nbitsQ8Chunk/2)), fb.sdivConst(in, 2)))
			st := fb.cur.NewStore(v, fb.cur.NewGetElementPtr(types.I8, base, dst))
			st.Align = llvm.Align(1)
			fb.cur.NewStore(fb.cur.NewAdd(fb.cur.NewLoad(types.I32, sum), fb.cur.NewSExt(v, types.I32)), sum)
			return nil
		})
		if err != nil {
			return err
		}
		at := append([]value.Value(nil), dims...)
		at[kd] = k0
		sa := fb.loadElem(kb.ops[1], fb.offset(kb.ops[1], fb.indexAt(op.Access[1].Pieces[0].Index, at)))
		fb.cur.NewStore(fb.cur.NewFMul(sa, fb.cur.NewSIToFP(fb.cur.NewLoad(types.I32, sum), types.Float)),
			fb.elemPtr(buf, fb.add(i64(p.q8Sums()), b)))
		return fb.loop(i64(0), i64(p.block/8-1), 1, "nbits.q8spread", func(j value.Value) error {
			fb.cur.NewStore(sa, fb.elemPtr(buf, fb.add(i64(p.q8Spread()), fb.add(fb.sdivConst(k0, 8), j))))
			return nil
		})
	})
	if err != nil || p.K < 2*nbitsQ8Chunk {
		return err
	}
	// the pairs' lanes: lane m of pair q holds the scale of value 128q + q8PairLanes[m]
	return fb.loop(i64(0), i64(p.K/(2*nbitsQ8Chunk)-1), 1, "nbits.q8pairs", func(q value.Value) error {
		for m, off := range q8PairLanes {
			at := append([]value.Value(nil), dims...)
			at[kd] = fb.add(fb.mul(q, i64(2*nbitsQ8Chunk)), i64(off))
			sa := fb.loadElem(kb.ops[1], fb.offset(kb.ops[1], fb.indexAt(op.Access[1].Pieces[0].Index, at)))
			fb.cur.NewStore(sa, fb.elemPtr(buf, fb.add(i64(p.q8Pairs()+int64(m)), fb.mul(q, i64(8)))))
		}
		return nil
	})
}

// nbitsQ8Columns emits columns n .. n+nr-1 of rows (A copied by nbitsQ8Copy) in the integer
// form: per chunk and column, the weights' nibbles against each row's int8 values, eight i32
// lanes scaled into the column's float lanes, folded once per column, less the zero points'
// term.
func (kb *kernelBuilder) nbitsQ8Columns(p *nbitsGEMV, rows []nbitsRow, nr int, n value.Value, accs []value.Value) error {
	fb := kb.fb
	op := kb.op
	const L = 8
	vt := types.NewVector(L, types.Float)
	bt := types.NewVector(nbitsQ8Chunk/2, types.I8)
	rowBytes := p.K / 2
	wB, wS := kb.ops[2], kb.ops[3]
	fmuladd := fb.mc.intrinsic("llvm.fmuladd."+intrinsicSuffix(vt), vt, vt, vt, vt)
	nc := len(rows) * nr
	zero := constant.NewZeroInitializer(vt)
	for c := 0; c < nc; c++ {
		fb.cur.NewStore(zero, accs[c])
	}
	cols := make([]value.Value, nr)
	for c := range cols {
		cols[c] = fb.add(n, i64(int64(c)))
	}
	tails, err := kb.nbitsQ8ZeroPoints(p, rows, cols, accs[:nc])
	if err != nil {
		return err
	}
	bases := make([]value.Value, len(rows))
	for r, row := range rows {
		bases[r] = fb.cur.NewBitCast(row.wA.ptr, types.NewPointer(types.I8))
	}
	// lane l of a chunk's scales: block (64·c + 8l) / block of the chunk's M blocks
	M := max(nbitsQ8Chunk/p.block, 1)
	// spread returns the shuffle of tb block scales to the lanes (lanes beyond the last
	// chunk's blocks, whose sums are zero, take its last block's scale)
	spread := func(tb int64) constant.Constant {
		idx := make([]constant.Constant, L)
		for l := range idx {
			idx[l] = i32c(min(int64(l)*M/L, tb-1))
		}
		return constant.NewVector(types.NewVector(L, types.I32), idx...)
	}
	dims := append([]value.Value(nil), rows[0].dims...)
	low := splat(constant.NewInt(types.I8, 15), nbitsQ8Chunk/2)
	four := splat(constant.NewInt(types.I8, 4), nbitsQ8Chunk/2)
	// chunk emits the chunk at k0 of tail values (nbitsQ8Chunk, or fewer for the last)
	chunk := func(k0 value.Value, tail int64) error {
		type rowA struct{ lo, hi, sa value.Value }
		as := make([]rowA, len(rows))
		for r := range rows {
			ld := func(off value.Value, t types.Type, align int) value.Value {
				ptr := fb.cur.NewBitCast(fb.cur.NewGetElementPtr(types.I8, bases[r], off), types.NewPointer(t))
				v := fb.cur.NewLoad(t, ptr)
				v.Align = llvm.Align(align)
				return v
			}
			// the spread scales at float q8Spread + k0/8: byte K + k0/2
			as[r] = rowA{lo: ld(k0, bt, 32), hi: ld(fb.add(k0, i64(nbitsQ8Chunk/2)), bt, 32),
				sa: ld(fb.add(i64(4*p.q8Spread()), fb.sdivConst(k0, 2)), vt, 32)}
		}
		for c, col := range cols {
			dims[p.lead], dims[p.lead+1] = col, k0
			soff := fb.offset(wS, fb.indexAt(op.Access[3].Pieces[0].Index, dims))
			var sb value.Value
			tb := min(M, tail/p.block) // the chunk's blocks (the last chunk's, within K)
			switch {
			case tb <= 1:
				sb = splatValue(fb, fb.loadElem(wS, soff), L)
			case tb == 2 && M == 2:
				// two broadcasts and a blend (vbroadcastss from memory takes no shuffle:
				// a shuffle of a 64-bit load took three uops on Zen 3)
				s0 := splatValue(fb, fb.loadElem(wS, soff), L)
				s1 := splatValue(fb, fb.loadElem(wS, fb.add(soff, i64(1))), L)
				half := make([]constant.Constant, L)
				for l := range half {
					half[l] = i32c(int64(l + l/(L/2)*L))
				}
				sb = fb.cur.NewShuffleVector(s0, s1, constant.NewVector(types.NewVector(L, types.I32), half...))
			default:
				sv := fb.vecLoad(wS, soff, types.NewVector(uint64(tb), types.Float), 4)
				sb = fb.cur.NewShuffleVector(sv, constant.NewUndef(sv.Type()), spread(tb))
			}
			woff := fb.add(fb.mul(col, i64(rowBytes)), fb.sdivConst(k0, 2))
			var x value.Value
			if tail == nbitsQ8Chunk {
				x = fb.vecLoad(wB, woff, bt, 1)
				// the next step's columns at this chunk (nr rows on: a stream the prefetchers
				// lose at every page, as each column's row is a page or less)
				fb.prefetch(fb.elemPtr(wB, fb.add(woff, i64(int64(nr)*rowBytes))))
			} else {
				// the last chunk's bytes within the row, the rest zero
				part := fb.vecLoad(wB, woff, types.NewVector(uint64(tail/2), types.I8), 1)
				idx := make([]constant.Constant, nbitsQ8Chunk/2)
				for i := range idx {
					idx[i] = i32c(min(int64(i), tail/2))
				}
				wide := fb.cur.NewShuffleVector(part, constant.NewZeroInitializer(part.Type()), constant.NewVector(types.NewVector(nbitsQ8Chunk/2, types.I32), idx...))
				x = wide
			}
			lo := fb.cur.NewAnd(x, low)
			hi := fb.cur.NewLShr(x, four)
			for r := range rows {
				dot := kb.nbitsQ8Dot(lo, hi, as[r].lo, as[r].hi)
				slot := accs[r*nr+c]
				sc := fb.cur.NewFMul(sb, as[r].sa)
				fb.cur.NewStore(fb.cur.NewCall(fmuladd, fb.cur.NewSIToFP(dot, vt), sc, fb.cur.NewLoad(vt, slot)), slot)
			}
		}
		return nil
	}
	// AVX2: pairs of chunks, their eight i32 sums packed into one vector of sixteen-value sums
	// (vpackssdw, exact: at most 8·15·127; vpmaddwd), converted and scaled once per pair
	pairs := int64(0)
	if kb.q8AVX2() {
		pairs = p.K / (2 * nbitsQ8Chunk)
	}
	if pairs > 0 {
		err = fb.loop(i64(0), i64(pairs-1), 1, "nbits.q8pair", func(q value.Value) error {
			return kb.nbitsQ8Pair(p, rows, bases, cols, accs, q)
		})
		if err != nil {
			return err
		}
	}
	full := p.K / nbitsQ8Chunk
	if full > 2*pairs {
		err := fb.loop(i64(2*pairs), i64(full-1), 1, "nbits.q8chunk", func(ch value.Value) error {
			return chunk(fb.mul(ch, i64(nbitsQ8Chunk)), nbitsQ8Chunk)
		})
		if err != nil {
			return err
		}
	}
	if tail := p.K % nbitsQ8Chunk; tail > 0 {
		if err := chunk(i64(full*nbitsQ8Chunk), tail); err != nil {
			return err
		}
	}
	for i := 0; i < nc; i++ {
		row, col := rows[i/nr], cols[i%nr]
		total := hsumFloat(fb, fb.cur.NewLoad(vt, accs[i]))
		st := fb.cur.NewStore(fb.cur.NewFSub(total, fb.cur.NewLoad(types.Float, tails[i])), fb.elemPtr(kb.res, fb.add(row.yRow, col)))
		st.Align = llvm.Align(4)
	}
	return nil
}

// q8AVX2 reports whether the module's integer form uses AVX2's vpmaddubsw and vpackssdw.
func (kb *kernelBuilder) q8AVX2() bool {
	mc := kb.fb.mc
	return strings.HasPrefix(mc.tgt.Triple, "x86_64") && featureOn(mc.allFeatures, "avx2")
}

// nbitsQ8Pair emits the pair q of chunks (values 128q .. 128q+127) for every row and column:
// the chunks' i32 sums packed and pair-added (lane m: the sixteen values from 128q +
// q8PairLanes[m]), scaled by the weights' scales spread the same way times the copy's.
func (kb *kernelBuilder) nbitsQ8Pair(p *nbitsGEMV, rows []nbitsRow, bases, cols, accs []value.Value, q value.Value) error {
	fb := kb.fb
	mc := fb.mc
	op := kb.op
	const L = 8
	vt := types.NewVector(L, types.Float)
	bt := types.NewVector(nbitsQ8Chunk/2, types.I8)
	it := types.NewVector(L, types.I32)
	wt := types.NewVector(2*L, types.I16)
	pack := mc.intrinsic("llvm.x86.avx2.packssdw", wt, it, it)
	maddwd := mc.intrinsic("llvm.x86.avx2.pmadd.wd", it, wt, wt)
	ones := splat(constant.NewInt(types.I16, 1), 2*L)
	fmuladd := mc.intrinsic("llvm.fmuladd."+intrinsicSuffix(vt), vt, vt, vt, vt)
	wB, wS := kb.ops[2], kb.ops[3]
	rowBytes := p.K / 2
	nr := len(cols)
	k0 := fb.mul(q, i64(2*nbitsQ8Chunk))
	type rowA struct {
		a  [4]value.Value // chunk 0's even and odd values, chunk 1's
		sa value.Value
	}
	as := make([]rowA, len(rows))
	for r := range rows {
		ld := func(off value.Value, t types.Type, align int) value.Value {
			ptr := fb.cur.NewBitCast(fb.cur.NewGetElementPtr(types.I8, bases[r], off), types.NewPointer(t))
			v := fb.cur.NewLoad(t, ptr)
			v.Align = llvm.Align(align)
			return v
		}
		for i := range as[r].a {
			as[r].a[i] = ld(fb.add(k0, i64(int64(i)*nbitsQ8Chunk/2)), bt, 32)
		}
		as[r].sa = ld(fb.add(i64(4*p.q8Pairs()), fb.mul(q, i64(32))), vt, 32)
	}
	// lane m's block among the pair's tb blocks
	tb := max(2*nbitsQ8Chunk/p.block, 1)
	idx := make([]constant.Constant, L)
	for m, off := range q8PairLanes {
		idx[m] = i32c(off * tb / (2 * nbitsQ8Chunk))
	}
	low := splat(constant.NewInt(types.I8, 15), nbitsQ8Chunk/2)
	four := splat(constant.NewInt(types.I8, 4), nbitsQ8Chunk/2)
	// the next step's scales and zero points, a line or more per pair: the zero points' term
	// reads them first thing in the step, where each missed line stalled it
	nb := p.K / p.block
	pairs := p.K / (2 * nbitsQ8Chunk)
	next := fb.add(cols[0], i64(int64(nr)))
	for l := int64(0); l < max(ceilDiv(int64(nr)*nb, 16*pairs), 1); l++ {
		fb.prefetch(fb.elemPtr(wS, fb.add(fb.mul(next, i64(nb)), fb.add(fb.mul(q, i64(16)), i64(l*16*pairs)))))
	}
	if p.zp {
		zb := (nb + 1) / 2
		fb.prefetch(fb.elemPtr(kb.ops[4], fb.add(fb.mul(next, i64(zb)), fb.mul(q, i64(64)))))
	}
	dims := append([]value.Value(nil), rows[0].dims...)
	for c, col := range cols {
		dims[p.lead], dims[p.lead+1] = col, k0
		soff := fb.offset(wS, fb.indexAt(op.Access[3].Pieces[0].Index, dims))
		var sb value.Value
		if tb == 1 {
			sb = splatValue(fb, fb.loadElem(wS, soff), L)
		} else {
			sv := fb.vecLoad(wS, soff, types.NewVector(uint64(tb), types.Float), 4)
			sb = fb.cur.NewShuffleVector(sv, constant.NewUndef(sv.Type()), constant.NewVector(it, idx...))
		}
		woff := fb.add(fb.mul(col, i64(rowBytes)), fb.sdivConst(k0, 2))
		x0 := fb.vecLoad(wB, woff, bt, 1)
		x1 := fb.vecLoad(wB, fb.add(woff, i64(nbitsQ8Chunk/2)), bt, 1)
		// the next step's columns at this pair (one 64-byte line)
		fb.prefetch(fb.elemPtr(wB, fb.add(woff, i64(int64(nr)*rowBytes))))
		lo0, hi0 := fb.cur.NewAnd(x0, low), fb.cur.NewLShr(x0, four)
		lo1, hi1 := fb.cur.NewAnd(x1, low), fb.cur.NewLShr(x1, four)
		for r := range rows {
			d0 := kb.nbitsQ8Dot(lo0, hi0, as[r].a[0], as[r].a[1])
			d1 := kb.nbitsQ8Dot(lo1, hi1, as[r].a[2], as[r].a[3])
			d := fb.cur.NewCall(maddwd, fb.cur.NewCall(pack, d0, d1), ones)
			slot := accs[r*nr+c]
			sc := fb.cur.NewFMul(sb, as[r].sa)
			fb.cur.NewStore(fb.cur.NewCall(fmuladd, fb.cur.NewSIToFP(d, vt), sc, fb.cur.NewLoad(vt, slot)), slot)
		}
	}
	return nil
}

// hsumFloat folds the lanes of a float vector (a fixed tree: halves added).
func hsumFloat(fb *funcBuilder, acc value.Value) value.Value {
	lanes := int(acc.Type().(*types.VectorType).Len)
	for w := lanes / 2; w >= 1; w /= 2 {
		lo, hi := make([]constant.Constant, w), make([]constant.Constant, w)
		for l := 0; l < w; l++ {
			lo[l], hi[l] = i32c(int64(l)), i32c(int64(w+l))
		}
		mt := types.NewVector(uint64(w), types.I32)
		x := fb.cur.NewShuffleVector(acc, constant.NewUndef(acc.Type()), constant.NewVector(mt, lo...))
		y := fb.cur.NewShuffleVector(acc, constant.NewUndef(acc.Type()), constant.NewVector(mt, hi...))
		acc = fb.cur.NewFAdd(x, y)
	}
	return fb.cur.NewExtractElement(acc, i32c(0))
}

// nbitsQ8Dot returns the eight i32 sums of a chunk's products: lane l is Σ q·a over the
// chunk's values 8l..8l+7, q the weights' nibbles (lo: even values, hi: odd), a A's int8
// values in the same order. AVX2: vpmaddubsw (u8 × s8 pair sums in i16, exact below 2·15·127)
// and vpmaddwd with ones; elsewhere the same sums widened in portable vector IR.
func (kb *kernelBuilder) nbitsQ8Dot(lo, hi, alo, ahi value.Value) value.Value {
	fb := kb.fb
	mc := fb.mc
	bt := types.NewVector(nbitsQ8Chunk/2, types.I8)
	wt := types.NewVector(nbitsQ8Chunk/4, types.I16)
	it := types.NewVector(8, types.I32)
	if kb.q8AVX2() {
		maddubs := mc.intrinsic("llvm.x86.avx2.pmadd.ub.sw", wt, bt, bt)
		maddwd := mc.intrinsic("llvm.x86.avx2.pmadd.wd", it, wt, wt)
		s := fb.cur.NewAdd(fb.cur.NewCall(maddubs, lo, alo), fb.cur.NewCall(maddubs, hi, ahi))
		return fb.cur.NewCall(maddwd, s, splat(constant.NewInt(types.I16, 1), nbitsQ8Chunk/4))
	}
	w16 := types.NewVector(nbitsQ8Chunk/2, types.I16)
	prod := func(q, a value.Value) value.Value {
		return fb.cur.NewMul(fb.cur.NewZExt(q, w16), fb.cur.NewSExt(a, w16))
	}
	s := fb.cur.NewAdd(prod(lo, alo), prod(hi, ahi)) // lane j: values 2j and 2j+1
	var out value.Value
	for t := 0; t < 4; t++ {
		idx := make([]constant.Constant, 8)
		for l := range idx {
			idx[l] = i32c(int64(4*l + t))
		}
		part := fb.cur.NewSExt(fb.cur.NewShuffleVector(s, constant.NewUndef(w16), constant.NewVector(it, idx...)), it)
		if out == nil {
			out = part
		} else {
			out = fb.cur.NewAdd(out, part)
		}
	}
	return out
}

// nbitsQ8ZeroPoints subtracts the zero points' term Σ_b scale_b · zp_b · (sa_b · Σqa_b) of
// each row and column (zp = 8 without zero points) from its lanes, eight blocks at a time
// with the columns' chains side by side (accs[r·len(cols) + c], zeroed: the term's chains run
// beside the first chunks rather than after the last), and returns the scalars (allocas)
// holding the term of the blocks beyond the last eight.
func (kb *kernelBuilder) nbitsQ8ZeroPoints(p *nbitsGEMV, rows []nbitsRow, cols, accs []value.Value) ([]value.Value, error) {
	fb := kb.fb
	op := kb.op
	const L = 8
	vt := types.NewVector(L, types.Float)
	wS := kb.ops[3]
	nb := p.K / p.block
	nr := len(cols)
	dims := append([]value.Value(nil), rows[0].dims...)
	at := func(col, b value.Value) (value.Value, value.Value) {
		dims[p.lead], dims[p.lead+1] = col, fb.mul(b, i64(p.block))
		s := fb.offset(wS, fb.indexAt(op.Access[3].Pieces[0].Index, dims))
		if !p.zp {
			return s, nil
		}
		return s, fb.offset(kb.ops[4], fb.indexAt(op.Access[4].Pieces[0].Index, dims))
	}
	sums := func(b value.Value) value.Value { return fb.add(i64(p.q8Sums()), b) }
	tails := make([]value.Value, len(accs))
	for i := range tails {
		tails[i] = kb.entryAlloca(types.Float)
		fb.cur.NewStore(constant.NewFloat(types.Float, 0), tails[i])
	}
	main := nb - nb%L
	fmuladd := fb.mc.intrinsic("llvm.fmuladd."+intrinsicSuffix(vt), vt, vt, vt, vt)
	if main > 0 {
		shifts := make([]constant.Constant, L)
		for l := range shifts {
			shifts[l] = i32c(int64(l) * 4)
		}
		err := fb.loop(i64(0), i64(main-1), L, "nbits.q8zp", func(b value.Value) error {
			svs := make([]value.Value, len(rows))
			for r, row := range rows {
				svs[r] = fb.vecLoad(row.wA, sums(b), vt, 4)
			}
			for c, col := range cols {
				soff, zoff := at(col, b)
				sz := fb.vecLoad(wS, soff, vt, 4)
				if p.zp {
					// the eight nibbles as one i32, splat and shifted by 4l in lane l
					zv := fb.vecLoad(kb.ops[4], zoff, types.NewVector(L/2, types.I8), 1)
					w := fb.cur.NewBitCast(zv, types.I32)
					z := fb.cur.NewAnd(fb.cur.NewLShr(splatValue(fb, w, L), constant.NewVector(types.NewVector(L, types.I32), shifts...)),
						splat(constant.NewInt(types.I32, 15), L))
					sz = fb.cur.NewFMul(sz, fb.cur.NewSIToFP(z, vt))
				} else {
					sz = fb.cur.NewFMul(sz, splat(constant.NewFloat(types.Float, 8), L))
				}
				sz = fb.cur.NewFNeg(sz)
				for r := range rows {
					slot := accs[r*nr+c]
					fb.cur.NewStore(fb.cur.NewCall(fmuladd, sz, svs[r], fb.cur.NewLoad(vt, slot)), slot)
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if main < nb {
		err := fb.loop(i64(main), i64(nb-1), 1, "nbits.q8zprem", func(b value.Value) error {
			for c, col := range cols {
				soff, zoff := at(col, b)
				z := value.Value(constant.NewFloat(types.Float, 8))
				if p.zp {
					zbyte := fb.cur.NewZExt(fb.loadElem(kb.ops[4], zoff), types.I32)
					sh := fb.cur.NewTrunc(fb.mul(fb.cur.NewAnd(b, i64(1)), i64(4)), types.I32)
					z = fb.cur.NewSIToFP(fb.cur.NewAnd(fb.cur.NewLShr(zbyte, sh), constant.NewInt(types.I32, 15)), types.Float)
				}
				sz := fb.cur.NewFMul(fb.loadElem(wS, soff), z)
				for r, row := range rows {
					t := fb.cur.NewFMul(sz, fb.loadElem(row.wA, sums(b)))
					fb.cur.NewStore(fb.cur.NewFAdd(fb.cur.NewLoad(types.Float, tails[r*nr+c]), t), tails[r*nr+c])
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return tails, nil
}

// nbitsQ8Step is the number of columns a step of nrows rows computes in the integer form:
// one for one row, so that the kernel reads the weights, their scales and their zero points
// each as one stream in memory order (a step of four columns, sharing A's loads, read four
// streams 2 KB apart and took 1.6-1.7x the packed read on Zen 3, cold; two columns as much;
// one column 1.3-1.4x), two for a group of rows (A's loads then count).
func nbitsQ8Step(nrows int) int {
	if nrows == 1 {
		return 1
	}
	return 2
}

// emitNBitsQ8 emits the integer form over the rows of ast: per row (or group of nbitsRows
// consecutive rows sharing each unpacked chunk of weights), A's copy, then the columns.
func (kb *kernelBuilder) emitNBitsQ8(p *nbitsGEMV, ast volume.Node) error {
	fb := kb.fb
	op := kb.op
	vt := types.NewVector(8, types.Float)
	accs := make([]value.Value, 8)
	for i := range accs {
		accs[i] = kb.entryAlloca(vt)
	}
	var bufs []*view
	base := fb.cur.NewBitCast(kb.scratch, types.NewPointer(types.Float))
	for r := 0; r < p.copyBufs(); r++ {
		ptr := fb.cur.NewGetElementPtr(types.Float, base, i64(int64(r)*p.copyFloats()))
		bufs = append(bufs, &view{v: op.Operands[1], ptr: ptr, lo: []value.Value{i64(0)}, ext: []value.Value{i64(p.copyFloats())}, strides: []value.Value{i64(1)}})
	}
	counter := kb.nbitsCounter()
	group := func(lev []value.Value, nrows int) error {
		pos := kb.nextGroup(counter)
		var rows []nbitsRow
		for r := 0; r < nrows; r++ {
			dims := make([]value.Value, op.NDim())
			copy(dims, lev)
			if r > 0 {
				dims[p.lead-1] = fb.add(lev[p.lead-1], i64(int64(r)))
			}
			dims[p.lead], dims[p.lead+1] = i64(0), i64(0)
			if err := kb.wholeOnly("nbits.copy", func() error { return kb.nbitsQ8Copy(p, bufs[r], dims) }); err != nil {
				return err
			}
			rows = append(rows, nbitsRow{dims: dims, yRow: fb.offset(kb.res, fb.indexAt(op.Out.Pieces[0].Index, dims)), wA: bufs[r], aRow: i64(0)})
		}
		return kb.nbitsColumnLoops(p.N, int64(nbitsQ8Step(nrows)), pos, func(nr int) func(n value.Value) error {
			return func(n value.Value) error { return kb.nbitsQ8Columns(p, rows, nr, n, accs) }
		})
	}
	e := &astEmitter{fb: fb, lev: make([]value.Value, p.lead)}
	e.leaf = func(lev []value.Value) error { return group(lev, 1) }
	if p.lead > 0 && !p.singleRow() {
		e.vl = nbitsRows
		e.vecLeaf = func(lev []value.Value) error { return group(lev, nbitsRows) }
	}
	return e.emit(ast)
}
