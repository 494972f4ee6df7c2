// This file holds the AArch64 NEON instruction families of the integer dot-product kernels
// (intdot.go): with i8mm, usdot multiplies the u8 activations by the s8 weights exactly as the
// kernels' design assumes (4 bytes into each i32 lane, as vpdpbusd); with dotprod only, sdot
// multiplies s8 by s8, so the activations are shifted back by 128 (u ^ 0x80 = u - 128 as s8)
// and the kernel adds 128·Σ w per output channel, which the channel constants fold at compile
// time (channelConsts); the sums of activations (Σ x, when a weight zero point is not 0) take
// udot against ones, exact in u8. Without either feature the portable expansion widens the
// bytes exactly.
//
// With i8mm, matrix products use usmmla instead (intdot_mmla.go).

package lower

import (
	"strings"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// neonDotKind returns the NEON dot-product family of the module (dotNone when it is not
// AArch64 code with dotprod or i8mm at the tile width of 16 bytes).
func (mc *moduleCtx) neonDotKind() dotKind {
	if mc.tileBytes < 16 || mc.cfg.VectorBytes != 0 || !strings.HasPrefix(mc.tgt.Triple, "aarch64") {
		return dotNone
	}
	switch {
	case featureOn(mc.allFeatures, "i8mm"):
		return dotNEONUSDot
	case featureOn(mc.allFeatures, "dotprod"):
		return dotNEONSDot
	}
	return dotNone
}

// neonDotShift is what the dotprod kernels add to each channel's constant per unit of Σ w: sdot
// computes Σ (u - 128)·w = Σ u·w - 128·Σ w.
const neonDotShift = 128

// neonDot returns acc + the 4-way dot products of the u8 bytes of u and the s8 bytes of s.
func (kb *kernelBuilder) neonDot(d *intDot, acc, u, s value.Value) value.Value {
	fb := kb.fb
	vt := d.vecType()
	bt := types.NewVector(uint64(4*d.lanes), types.I8)
	sfx := ".v4i32.v16i8"
	call := func(name string, a, b value.Value) value.Value {
		f := fb.mc.intrinsic(name+sfx, vt, vt, bt, bt)
		return fb.cur.NewCall(f, acc, fb.cur.NewBitCast(a, bt), fb.cur.NewBitCast(b, bt))
	}
	if d.kind == dotNEONUSDot {
		return call("llvm.aarch64.neon.usdot", u, s)
	}
	if isOnesBytes(s) {
		// Σ u: both operands unsigned
		return call("llvm.aarch64.neon.udot", u, s)
	}
	flip := fb.cur.NewXor(u, splat(constant.NewInt(types.I32, int64(int32(-0x7f7f7f80))), d.lanes))
	// s8 × s8 commutes: the broadcast operand last, where sdot takes it by element
	return call("llvm.aarch64.neon.sdot", s, flip)
}

// isOnesBytes reports whether v is the constant vector whose bytes are all 1 (the operand of
// the Σ x accumulators).
func isOnesBytes(v value.Value) bool {
	c, ok := v.(*constant.Vector)
	if !ok {
		return false
	}
	for _, e := range c.Elems {
		i, ok := e.(*constant.Int)
		if !ok || i.X.Int64() != 0x01010101 {
			return false
		}
	}
	return len(c.Elems) > 0
}

// neonBlocked reports whether the GEMM kernels of d take 4 groups of each row at once (NEON:
// one 16-byte load per row, its words taken by element by sdot/usdot).
func (d *intDot) neonBlocked() bool { return d.kind == dotNEONSDot || d.kind == dotNEONUSDot }

// reduceRowBlocks runs the reduction of a GEMM tile over n bytes: blocks of 16 bytes (4 groups)
// in a loop, block(b, accs) for block b, then the remaining whole groups and the last rem bytes
// as reduceGroups does (step(g, accs, rem) for group g).
func (kb *kernelBuilder) reduceRowBlocks(n int64, accs []value.Value, block func(b value.Value, accs []value.Value) []value.Value, step func(g value.Value, accs []value.Value, rem int64) []value.Value) []value.Value {
	fb := kb.fb
	blocks := n / 16
	accs = kb.tileLoop(blocks, "k16", accs, block)
	first := 4 * blocks
	accs = kb.tileLoop(n/4-first, "k4", accs, func(g value.Value, accs []value.Value) []value.Value {
		return step(fb.add(g, i64(first)), accs, 0)
	})
	if rem := n % 4; rem > 0 {
		accs = step(i64(n/4), accs, rem)
	}
	return accs
}

// rowBlockWords loads the 16 bytes at p (alignment al) as 4 words and returns a function giving
// word q (0..3) of them: sdot and usdot then take the broadcast word by element from the loaded
// register, and a shift of the activations applies to the whole vector once.
func (kb *kernelBuilder) rowBlockWords(p value.Value, al int64) func(q int) value.Value {
	fb := kb.fb
	vt := types.NewVector(4, types.I32)
	ld := fb.cur.NewLoad(vt, fb.cur.NewBitCast(p, types.NewPointer(vt)))
	ld.Align = llvm.Align(al)
	return func(q int) value.Value { return fb.cur.NewExtractElement(ld, i32c(int64(q))) }
}
