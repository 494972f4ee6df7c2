// This file holds the i8mm matrix-multiply form of the integer matrix products on AArch64:
// usmmla multiplies a 2×8 block of u8 activations (two rows, 8 reduction bytes each) by an 8×2
// block of s8 weights (two columns) into a 2×2 block of i32 accumulators, 32 products per
// instruction where usdot makes 16. The weights are packed at compile time per column tile as
// [ceil(R/8)][nr/2][2][8] bytes (zero past the reduction); each step loads 8 bytes of each row
// of a pair into one vector. A tile of mr rows by nr columns holds mr/2 · nr/2 accumulators; at
// the end they are shuffled into rows of 4 channels, the layout of the other kernels, and
// finished by the same epilogue (channel constants, zero points, stores).

package lower

import (
	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// mmlaPackIndex is the byte of weight (column c, reduction index k) in the mmla packing of
// column tiles nr wide over r8 groups of 8.
func mmlaPackIndex(c, k, nr, r8 int64) int64 {
	tile, cc := c/nr, c%nr
	return ((tile*r8+k/8)*(nr/2)+cc/2)*16 + (cc%2)*8 + k%8
}

// mmlaTile runs the reduction of one GEMM tile of nrows rows (xp their row pointers, xal their
// load alignments) by nvec vectors of channels of the packed panel, and returns the
// accumulators in the other kernels' layout: row r's vector v at r·nvec + v, then with d.sumX
// each row's Σx (every lane) at nrows·nvec + r.
func (kb *kernelBuilder) mmlaTile(d *intDot, panel value.Value, xp []value.Value, xal []int64, nrows, nvec int) []value.Value {
	fb := kb.fb
	vt := d.vecType()
	bt := types.NewVector(16, types.I8)
	pairs := (nrows + 1) / 2
	cpairs := 2 * nvec
	nr := int64(d.nv * d.lanes)
	f := fb.mc.intrinsic("llvm.aarch64.neon.usmmla.v4i32.v16i8", vt, vt, bt, bt)
	zero := constant.NewZeroInitializer(vt)
	accs := make([]value.Value, pairs*cpairs)
	for i := range accs {
		accs[i] = zero
	}
	if d.sumX {
		for p := 0; p < pairs; p++ {
			accs = append(accs, zero)
		}
	}
	ones := splat(constant.NewInt(types.I8, 1), 16)
	flip := splat(constant.NewInt(types.I8, -128), 16)
	// row returns row r of the tile, the last one again for the missing half of an odd pair
	row := func(r int) int { return min(r, nrows-1) }
	// aVec packs the 8-byte words lo and hi (i64) of a row pair into the u8 operand
	aVec := func(lo, hi value.Value) value.Value {
		v2 := types.NewVector(2, types.I64)
		a := fb.cur.NewInsertElement(fb.cur.NewInsertElement(constant.NewUndef(v2), lo, i32c(0)), hi, i32c(1))
		var b value.Value = fb.cur.NewBitCast(a, bt)
		if d.xSigned {
			b = fb.cur.NewXor(b, flip)
		}
		return b
	}
	step := func(g value.Value, accs []value.Value, rem int64) []value.Value {
		words := make([]value.Value, nrows)
		for r := range words {
			at := fb.mul(g, i64(8))
			if rem == 0 {
				ld := fb.cur.NewLoad(types.I64, fb.cur.NewBitCast(kb.gep8(xp[r], at), types.NewPointer(types.I64)))
				ld.Align = llvm.Align(min(xal[r], 8))
				words[r] = ld
				continue
			}
			// the last group: the remaining bytes (the packed weights are 0 above)
			lo := kb.byteWord(d, xp[r], at, min(rem, 4), nil)
			hi := kb.byteWord(d, xp[r], fb.add(at, i64(4)), max(rem-4, 0), nil)
			words[r] = fb.cur.NewOr(fb.cur.NewZExt(lo, types.I64), fb.cur.NewShl(fb.cur.NewZExt(hi, types.I64), constant.NewInt(types.I64, 32)))
		}
		bv := make([]value.Value, cpairs)
		for cp := range bv {
			off := fb.mul(fb.add(fb.mul(g, i64(nr/2)), i64(int64(cp))), i64(16))
			ld := fb.cur.NewLoad(bt, fb.cur.NewBitCast(kb.gep8(panel, off), types.NewPointer(bt)))
			ld.Align = 16
			bv[cp] = ld
		}
		out := make([]value.Value, len(accs))
		for p := 0; p < pairs; p++ {
			a := aVec(words[row(2*p)], words[row(2*p+1)])
			for cp := 0; cp < cpairs; cp++ {
				out[p*cpairs+cp] = fb.cur.NewCall(f, accs[p*cpairs+cp], a, bv[cp])
			}
			if d.sumX {
				out[pairs*cpairs+p] = fb.cur.NewCall(f, accs[pairs*cpairs+p], a, ones)
			}
		}
		return out
	}
	accs = kb.tileLoop(d.R/8, "k8", accs, func(g value.Value, accs []value.Value) []value.Value { return step(g, accs, 0) })
	if rem := d.R % 8; rem > 0 {
		accs = step(i64(d.R/8), accs, rem)
	}
	// 2×2 blocks [r0c0 r0c1 r1c0 r1c1] of column pairs 2v, 2v+1 -> rows of 4 channels
	shuf := func(a, b value.Value, idx ...int64) value.Value {
		cs := make([]constant.Constant, len(idx))
		for i, x := range idx {
			cs[i] = i32c(x)
		}
		return fb.cur.NewShuffleVector(a, b, constant.NewVector(types.NewVector(uint64(len(idx)), types.I32), cs...))
	}
	rows := make([]value.Value, nrows*nvec)
	for r := 0; r < nrows; r++ {
		p, h := r/2, int64(2*(r%2))
		for v := 0; v < nvec; v++ {
			rows[r*nvec+v] = shuf(accs[p*cpairs+2*v], accs[p*cpairs+2*v+1], h, h+1, h+4, h+5)
		}
	}
	if d.sumX {
		for r := 0; r < nrows; r++ {
			s := accs[pairs*cpairs+r/2]
			h := int64(2 * (r % 2))
			rows = append(rows, shuf(s, constant.NewUndef(vt), h, h, h, h))
		}
	}
	return rows
}
