// This file holds the instructions of the integer dot-product kernels (intdot.go): the 4-way
// byte dot product of each family and the finishing of its accumulators, broadcasts, loads of
// packed bytes and of the per-channel constant tables, and the constant globals that hold them.

package lower

import (
	"fmt"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// byteGlobal emits a private constant byte array and returns it as an i8*.
func (kb *kernelBuilder) byteGlobal(name string, data []byte) value.Value {
	mc := kb.ec.mc
	mc.globals++
	if len(data) == 0 {
		data = []byte{0}
	}
	gl := mc.m.NewGlobalDef(fmt.Sprintf("%s.%s%d", kb.fb.f.Name(), name, mc.globals), newByteArray(data))
	gl.Immutable = true
	gl.Linkage = enum.LinkagePrivate
	gl.Align = wsAlign
	return kb.fb.cur.NewBitCast(gl, types.I8Ptr)
}

// i32Global emits a private constant i32 array (little-endian) and returns it as an i32*.
func (kb *kernelBuilder) i32Global(name string, vals []int64, pad int) value.Value {
	data := make([]byte, 4*(len(vals)+pad))
	for i, v := range vals {
		u := uint32(int32(v))
		data[4*i], data[4*i+1], data[4*i+2], data[4*i+3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
	}
	return kb.fb.cur.NewBitCast(kb.byteGlobal(name, data), types.NewPointer(types.I32))
}

// vecType is the type of an operand vector and of a finished accumulator.
func (d *intDot) vecType() *types.VectorType { return types.NewVector(uint64(d.lanes), types.I32) }

// accType is the type of an accumulator during the reduction: AVX2 keeps the pair sums of the
// low and high 16 bytes apart (two registers) and adds them once, in finish.
func (d *intDot) accType() *types.VectorType {
	if d.kind == dotAVX2 || d.kind == dotSSE2 {
		return types.NewVector(uint64(2*d.lanes), types.I32)
	}
	return d.vecType()
}

// dot returns acc + the 4-way dot products of the u8 bytes of u and the s8 bytes of s.
func (kb *kernelBuilder) dot(d *intDot, acc, u, s value.Value) value.Value {
	fb := kb.fb
	vt := d.vecType()
	switch d.kind {
	case dotVNNI512:
		f := fb.mc.intrinsic("llvm.x86.avx512.vpdpbusd.512", vt, vt, vt, vt)
		return fb.cur.NewCall(f, acc, u, s)
	case dotVNNI256:
		f := fb.mc.intrinsic("llvm.x86.avx512.vpdpbusd.256", vt, vt, vt, vt)
		return fb.cur.NewCall(f, acc, u, s)
	case dotHVX:
		f := fb.mc.intrinsic("llvm.hexagon.V6.vrmpybusv.acc.128B", vt, vt, vt, vt)
		return fb.cur.NewCall(f, acc, u, s)
	case dotAVX2, dotSSE2:
		return kb.pmaddwdDot(d, acc, u, s)
	case dotNEONSDot, dotNEONUSDot:
		return kb.neonDot(d, acc, u, s)
	}
	// portable: widen the bytes to i32, multiply, add the four products of each lane
	n := uint64(4 * d.lanes)
	bt := types.NewVector(n, types.I8)
	wt := types.NewVector(n, types.I32)
	prod := fb.cur.NewMul(fb.cur.NewZExt(fb.cur.NewBitCast(u, bt), wt), fb.cur.NewSExt(fb.cur.NewBitCast(s, bt), wt))
	sum := acc
	for q := 0; q < 4; q++ {
		idx := make([]constant.Constant, d.lanes)
		for l := range idx {
			idx[l] = i32c(int64(4*l + q))
		}
		part := fb.cur.NewShuffleVector(prod, constant.NewUndef(wt), constant.NewVector(types.NewVector(uint64(d.lanes), types.I32), idx...))
		sum = fb.cur.NewAdd(sum, part)
	}
	return sum
}

// pmaddwdDot returns acc + the pair sums of the bytes of u (zero-extended) and s (sign-extended)
// widened to i16: pmaddwd on the low and the high half of the bytes, whose pair sums accumulate
// apart (the accumulator holds both halves, accType); finish adds adjacent pairs once after the
// reduction. AVX2 uses vpmaddwd on 32 bytes, SSE2 pmaddwd on 16.
func (kb *kernelBuilder) pmaddwdDot(d *intDot, acc, u, s value.Value) value.Value {
	fb := kb.fb
	vt := d.vecType()
	n := 4 * d.lanes // bytes per operand vector
	h := n / 2
	bt := types.NewVector(uint64(n), types.I8)
	ht := types.NewVector(uint64(h), types.I16)
	ub, sb := fb.cur.NewBitCast(u, bt), fb.cur.NewBitCast(s, bt)
	half := func(b value.Value, from int64, signed bool) value.Value {
		idx := make([]constant.Constant, h)
		for l := range idx {
			idx[l] = i32c(from + int64(l))
		}
		x := fb.cur.NewShuffleVector(b, constant.NewUndef(bt), constant.NewVector(types.NewVector(uint64(h), types.I32), idx...))
		if signed {
			return fb.cur.NewSExt(x, ht)
		}
		return fb.cur.NewZExt(x, ht)
	}
	name := "llvm.x86.sse2.pmadd.wd"
	if d.kind == dotAVX2 {
		name = "llvm.x86.avx2.pmadd.wd"
	}
	pmadd := fb.mc.intrinsic(name, vt, ht, ht)
	lo := fb.cur.NewCall(pmadd, half(ub, 0, false), half(sb, 0, true))
	hi := fb.cur.NewCall(pmadd, half(ub, int64(h), false), half(sb, int64(h), true))
	idx := make([]constant.Constant, h)
	for l := range idx {
		idx[l] = i32c(int64(l))
	}
	both := fb.cur.NewShuffleVector(lo, hi, constant.NewVector(types.NewVector(uint64(h), types.I32), idx...))
	return fb.cur.NewAdd(acc, both)
}

// finish returns an accumulator in lane order (dotAVX2 accumulates its lanes permuted).
func (kb *kernelBuilder) finish(d *intDot, acc value.Value) value.Value {
	if d.kind == dotSSE2 {
		// the pair sums of group g are lanes 2g and 2g+1 (SSE2 has no phaddd)
		fb := kb.fb
		part := func(from int64) value.Value {
			idx := make([]constant.Constant, 4)
			for l := range idx {
				idx[l] = i32c(from + 2*int64(l))
			}
			return fb.cur.NewShuffleVector(acc, constant.NewUndef(d.accType()), constant.NewVector(types.NewVector(4, types.I32), idx...))
		}
		return fb.cur.NewAdd(part(0), part(1))
	}
	if d.kind != dotAVX2 {
		return acc
	}
	// vphaddd of the two halves sums adjacent pairs within 128-bit lanes: the 8 group sums
	// come out in the order 0 1 4 5 2 3 6 7, put back in order
	fb := kb.fb
	vt := d.vecType()
	at := d.accType()
	part := func(from int64) value.Value {
		idx := make([]constant.Constant, 8)
		for l := range idx {
			idx[l] = i32c(from + int64(l))
		}
		return fb.cur.NewShuffleVector(acc, constant.NewUndef(at), constant.NewVector(types.NewVector(8, types.I32), idx...))
	}
	h := fb.cur.NewCall(fb.mc.intrinsic("llvm.x86.avx2.phadd.d", vt, vt, vt), part(0), part(8))
	perm := []int64{0, 1, 4, 5, 2, 3, 6, 7}
	idx := make([]constant.Constant, 8)
	for l, p := range perm {
		idx[l] = i32c(p)
	}
	return fb.cur.NewShuffleVector(h, constant.NewUndef(vt), constant.NewVector(types.NewVector(8, types.I32), idx...))
}

// splat32 broadcasts an i32 to every lane.
func (kb *kernelBuilder) splat32(d *intDot, x value.Value) value.Value {
	fb := kb.fb
	vt := d.vecType()
	ins := fb.cur.NewInsertElement(constant.NewUndef(vt), x, i32c(0))
	return fb.cur.NewShuffleVector(ins, constant.NewUndef(vt), splat(i32c(0), d.lanes).(constant.Constant))
}

// loadVec loads a vector of lanes i32 (4·lanes bytes) at byte pointer p, with alignment al.
func (kb *kernelBuilder) loadVec(d *intDot, p value.Value, al int64) value.Value {
	fb := kb.fb
	vt := d.vecType()
	ld := fb.cur.NewLoad(vt, fb.cur.NewBitCast(p, types.NewPointer(vt)))
	ld.Align = llvm.Align(al)
	return ld
}

// load32 loads an i32 at byte pointer p, aligned to al bytes (1 or 4: Hexagon has no unaligned
// word loads, so packed data that is 4-byte aligned says so).
func (kb *kernelBuilder) load32(p value.Value, al int64) value.Value {
	fb := kb.fb
	ld := fb.cur.NewLoad(types.I32, fb.cur.NewBitCast(p, types.NewPointer(types.I32)))
	ld.Align = llvm.Align(al)
	return ld
}

// gep8 returns p + off bytes.
func (kb *kernelBuilder) gep8(p, off value.Value) value.Value {
	return kb.fb.cur.NewGetElementPtr(types.I8, p, off)
}

// loadI32Vec loads a vector of lanes i32 from the i32 table base at element idx (the tables of
// per-channel constants are 4-byte aligned).
func (kb *kernelBuilder) loadI32Vec(d *intDot, base, idx value.Value) value.Value {
	return kb.loadVec(d, kb.fb.cur.NewGetElementPtr(types.I32, base, idx), 4)
}

// splatI32At broadcasts element idx of the i32 table base to every lane.
func (kb *kernelBuilder) splatI32At(d *intDot, base, idx value.Value) value.Value {
	fb := kb.fb
	return kb.splat32(d, fb.cur.NewLoad(types.I32, fb.cur.NewGetElementPtr(types.I32, base, idx)))
}

// byteWord assembles the little-endian word of cnt (at most 4) activation bytes at
// p + (c0 + q)·stride for q < cnt (stride nil: 1): the tail of a reduction that is not a
// multiple of 4, or channel bytes an image plane apart. The bytes above cnt are those that end
// as 0 in the u8 domain: 0, or 0x80 for i8 activations, which the broadcast flips.
func (kb *kernelBuilder) byteWord(d *intDot, p, c0 value.Value, cnt int64, stride value.Value) value.Value {
	fb := kb.fb
	var w value.Value = constant.NewInt(types.I32, 0)
	if d.xSigned && cnt < 4 {
		w = constant.NewInt(types.I32, int64(int32(uint32(0x80808080)>>(8*cnt)<<(8*cnt))))
	}
	for q := int64(0); q < cnt; q++ {
		at := fb.add(c0, i64(q))
		if stride != nil {
			at = fb.mul(at, stride)
		}
		b := fb.cur.NewLoad(types.I8, kb.gep8(p, at))
		w = fb.cur.NewOr(w, fb.cur.NewShl(fb.cur.NewZExt(b, types.I32), constant.NewInt(types.I32, 8*q)))
	}
	return w
}

// zeroPointTerms returns a finished accumulator plus the channel constants cv, less wz·Σx when
// some weight zero point is not 0 (wzv the zero points, sum the accumulator of Σx).
func (kb *kernelBuilder) zeroPointTerms(d *intDot, acc, cv, wzv, sum value.Value) value.Value {
	fb := kb.fb
	var val value.Value = fb.cur.NewAdd(kb.finish(d, acc), cv)
	if d.sumX {
		val = fb.cur.NewSub(val, fb.cur.NewMul(wzv, kb.finish(d, sum)))
	}
	return val
}
