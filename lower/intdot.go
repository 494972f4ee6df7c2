// This file plans and emits the integer dot-product kernels of quantized contractions: ops that
// sum (i32(x) - xz)·(i32(w) - wz) (+ an i32 bias) over their reduction dims, where x is an 8-bit
// activation and w 8-bit constant weights (matmul_integer, conv_integer and QDQ groups after
// import; recognised by the shape of the body and accesses, not by op names). They run on the
// CPU's 4-way byte dot-product instruction into i32 accumulators: AVX-512 VNNI vpdpbusd (512-bit,
// or 256-bit with AVX-VNNI), HVX vrmpy (Vu.ub × Vv.b, 128-byte vectors); without them, bytes
// widened to i16 and pmaddwd (AVX2, SSE2: exact, where vpmaddubsw's pair sums would saturate),
// NEON usdot (i8mm) or sdot (dotprod, intdot_neon.go), or a portable expansion for other vector
// units. The accumulators of an mr×(nv vectors) tile
// live in registers for the whole reduction, as in the float register tiles (contract.go).
//
// The instructions multiply unsigned by signed bytes. Signed activations are shifted into u8
// (x ^ 0x80, zero point + 128) and unsigned weights into s8 (w - 128, zero point - 128); the
// zero points come out of the sum algebraically,
//
//	Σ (x - xz)(w - wz) = Σ x·w - xz·Σ w - wz·Σ x + R·xz·wz,
//
// with Σ w per output channel and the constant terms (and the bias) folded in Go into one i32
// per channel, and Σ x (needed only when some wz ≠ 0) accumulated by the same instruction
// against a vector of ones. The reduction is padded to a multiple of 4 with zero weights.
//
// Two layouts, chosen by which operand varies with the output's unit-stride dim:
//   - GEMM (lanes over the weights' columns j): the weights are packed at compile time per
//     column tile as [R/4][nr][4] bytes; each row's 4 activation bytes are broadcast.
//   - convolution (NCHW, lanes over output columns): the input is copied once per image into a
//     zero-point-padded, 4-channel-interleaved layout [C/4][H+pads][phase][W/stride][4], in
//     which the 4 channels of nr consecutive output columns are one contiguous vector; the
//     weights are packed at compile time as [M][kh][kw][C/4][4] and broadcast per row.
//
// Only dense box domains use these kernels (DIE restricted to a box, e.g. the last row, keeps
// them); other domains keep the per-point nest.
//
// This file holds the instruction families, the matching of the product and the plan's entry
// points. The forms live in intdot_gemm.go, intdot_conv.go (NCHW), intdot_nhwc.go
// (channels-last) and intdot_depthwise.go; what they share in intdot_weights.go (reading and
// packing the constants at compile time), intdot_instr.go (the dot-product instructions and
// loads) and intdot_tiles.go (register tiles: accumulators, reduction steps, epilogues, tile
// loops).

package lower

import (
	"fmt"
	"strings"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// dotKind is the instruction family of an integer dot-product kernel.
type dotKind int

const (
	dotNone      dotKind = iota
	dotVNNI512           // vpdpbusd zmm (AVX-512 VNNI)
	dotVNNI256           // vpdpbusd ymm (AVX-VNNI, or AVX-512 VNNI with VL)
	dotHVX               // vrmpy Vu.ub × Vv.b accumulating (HVX 128-byte)
	dotAVX2              // bytes widened to i16, vpmaddwd, vphaddd (exact; AVX2 without VNNI)
	dotSSE2              // the same with 128-bit pmaddwd (every x86-64)
	dotGeneric           // the same arithmetic in portable vector IR
	dotNEONSDot          // sdot on activations shifted to s8 (AArch64 dotprod; intdot_neon.go)
	dotNEONUSDot         // usdot u8 × s8 (AArch64 i8mm)
)

// String names the instruction family as the plan prints it.
func (k dotKind) String() string {
	return [...]string{"none", "vnni512", "vnni256", "hvx-vrmpy", "avx2-pmaddwd", "sse2-pmaddwd", "generic", "neon-sdot", "neon-usdot"}[k]
}

// convScratchLimit bounds the interleaved copy of a convolution's input (workspace scratch).
const convScratchLimit = 1 << 30

// intDotKind returns the dot-product instruction of the module and its vector width in bytes.
func (mc *moduleCtx) intDotKind() (dotKind, int) {
	switch {
	case mc.vecBytes == 128 && mc.spec.VectorFeature == "hvx-length128b" && featureOn(mc.features, "hvx-length128b"):
		return dotHVX, 128
	case mc.tileBytes >= 64 && featureOn(mc.allFeatures, "avx512f") && featureOn(mc.allFeatures, "avx512vnni"):
		return dotVNNI512, 64
	case mc.tileBytes >= 32 && (featureOn(mc.allFeatures, "avxvnni") ||
		featureOn(mc.allFeatures, "avx512f") && featureOn(mc.allFeatures, "avx512vnni") && featureOn(mc.allFeatures, "avx512vl")):
		return dotVNNI256, 32
	case mc.tileBytes >= 32 && mc.cfg.VectorBytes == 0 && featureOn(mc.allFeatures, "avx2"):
		// not vpmaddubsw: its i16 pair sums saturate for full-range u8 × s8
		return dotAVX2, 32
	case mc.tileBytes >= 16 && mc.cfg.VectorBytes == 0 && strings.HasPrefix(mc.tgt.Triple, "x86_64"):
		return dotSSE2, 16
	case mc.neonDotKind() != dotNone:
		return mc.neonDotKind(), 16
	case mc.vecBytes >= 16:
		return dotGeneric, mc.vecBytes
	case mc.tileBytes >= 16:
		return dotGeneric, mc.tileBytes
	}
	return dotNone, 0
}

// intProduct is the matched body: operands x (activation), w (constant weights), their zero
// points, the operand whose availability guards the product (-1: none) and the bias (-1).
type intProduct struct {
	x, w, xz, wz int
	guard, bias  int
}

// castRead returns the operand read by cast<i32>(in_k) of an 8-bit operand.
func castRead(s *ir.Scalar, op *ir.Op) (int, bool) {
	if s.Op != ir.SCast || s.Type != ir.I32 || s.Args[0].Op != ir.SRead {
		return 0, false
	}
	k := s.Args[0].Arg
	t := op.Operands[k].Type.Elem
	return k, t == ir.U8 || t == ir.I8
}

// matchIntProduct matches [add(] [select(avail(x), ] (i32(a) - i32(az))·(i32(b) - i32(bz))
// [, 0)] [, select(avail(c), c, 0))] with one of a, b constant.
func matchIntProduct(op *ir.Op) (intProduct, bool) {
	p := intProduct{guard: -1, bias: -1}
	s := op.Body
	isZero := func(s *ir.Scalar) bool { return s.Op == ir.SConst && s.Type == ir.I32 && s.I == 0 }
	if s.Op == ir.SAdd {
		b := s.Args[1]
		if b.Op == ir.SSelect && b.Args[0].Op == ir.SAvail && b.Args[1].Op == ir.SRead && b.Args[1].Arg == b.Args[0].Arg && isZero(b.Args[2]) {
			b = b.Args[1]
		}
		if b.Op != ir.SRead || b.Type != ir.I32 {
			return p, false
		}
		p.bias = b.Arg
		s = s.Args[0]
	}
	if s.Op == ir.SSelect && s.Args[0].Op == ir.SAvail && isZero(s.Args[2]) {
		p.guard = s.Args[0].Arg
		s = s.Args[1]
	}
	if s.Op != ir.SMul || s.Args[0].Op != ir.SSub || s.Args[1].Op != ir.SSub {
		return p, false
	}
	var ks [4]int
	for i, sub := range []*ir.Scalar{s.Args[0], s.Args[1]} {
		a, ok1 := castRead(sub.Args[0], op)
		z, ok2 := castRead(sub.Args[1], op)
		if !ok1 || !ok2 || op.Operands[a].Type.Elem != op.Operands[z].Type.Elem {
			return p, false
		}
		ks[2*i], ks[2*i+1] = a, z
	}
	p.x, p.xz, p.w, p.wz = ks[0], ks[1], ks[2], ks[3]
	if op.Operands[p.w].Data == nil {
		p.x, p.xz, p.w, p.wz = ks[2], ks[3], ks[0], ks[1]
	}
	if op.Operands[p.w].Data == nil || op.Operands[p.wz].Data == nil ||
		p.bias >= 0 && op.Operands[p.bias].Data == nil || p.guard >= 0 && p.guard != p.x {
		return p, false
	}
	return p, true
}

// intDot is the plan of an integer dot-product kernel.
type intDot struct {
	kind   dotKind
	lanes  int // i32 lanes per vector
	mr, nv int
	conv   bool
	p      intProduct
	nOut   int
	lo, hi []int64 // the result box (the domain's, per result dim)
	R      int64   // reduction length (GEMM: K; conv: C·kh·kw)
	R4     int64   // groups of 4 (GEMM: ceil(K/4); conv: kh·kw·ceil(C/4))
	// chans is the number of output channels (GEMM: columns j; conv: M)
	chans int64
	// packed weights: GEMM [ceil(chans/nr)][R4][nr][4]; conv [M][kh][kw][C4][4]
	wPacked []byte
	corr    []int64 // per channel: -xz·Σw + R·xz·wz (+ bias)
	wzs     []int64 // per channel weight zero point (s8 domain)
	sumX    bool    // some wz ≠ 0: Σ x is needed
	xSigned bool    // x is i8: shifted to u8 by xor 0x80
	// mmla: a GEMM on i8mm's usmmla, weights packed [ceil(chans/nr)][ceil(R/8)][nr/2][2][8]
	// (intdot_mmla.go)
	mmla bool
	// xzRuntime: the activation's zero point is computed at run time (dynamic quantization):
	// corr leaves out its terms and adj[c] = Σw - R·wz is subtracted times xz in the epilogue
	xzRuntime bool
	adj       []int64
	// conv geometry
	C, H, W, KH, KW int64
	OH, OW          int64
	s, d, pb        [2]int64 // strides, dilations, begin pads (h, w)
	C4, HP, WQ      int64    // channel groups, padded height, columns per phase
	xzByte          int64    // the padding value (x's zero point in the u8 domain)
	// chanLanes: the lanes run over output channels and the tile rows over output pixels
	// (narrow images); else lanes over output columns and rows over channels
	chanLanes bool
	// whole: the domain covers every element of the result, which the kernel stores (no
	// initialisation)
	whole bool
	// scratch is the size of the workspace scratch of a convolution's input copy (bytes)
	scratch int64
	// depthwise: one input channel per output channel; dwW holds w - wz per (m, kh, kw) and the
	// products are i32 multiplies of the widened bytes (a 9-tap reduction has no use for 4-way
	// dot products)
	depthwise bool
	dwW       []int64
	// nhwc: a channels-last convolution (X[n, h, w, c], W[c, kh, kw, m], Y[n, oh, ow, m]): lanes
	// over output channels, the 4 channel bytes of a pixel broadcast, read in place (no copy);
	// xzBytes are what padding positions read (the zero point; 0 past the channels)
	nhwc    bool
	xzBytes []byte
	// xNCHW: the input of a channels-last convolution is still NCHW (a graph input): the four
	// channel bytes of a group are an image plane apart and are loaded one by one
	xNCHW bool
}

// String is the plan's line in --emit=plan: the instruction family, the form and the register
// tile (rows × lanes).
func (d *intDot) String() string {
	form := "gemm"
	switch {
	case d.nhwc && d.depthwise:
		form = "depthwise-nhwc"
	case d.nhwc && d.xNCHW:
		form = "conv-nhwc-from-nchw"
	case d.nhwc:
		form = "conv-nhwc"
	case d.conv && d.depthwise:
		form = "depthwise"
	case d.conv && d.chanLanes:
		form = "conv-channels"
	case d.conv:
		form = "conv"
	}
	kind := d.kind.String()
	if d.mmla {
		kind = "neon-usmmla"
	}
	return fmt.Sprintf("int-dot %s %s %dx%d", kind, form, d.mr, d.nv*d.lanes)
}

// planIntDot returns the dot-product plan of op, or nil and why not.
func planIntDot(op *ir.Op, mc *moduleCtx, graphParams []string) (*intDot, string) {
	if op.Reduce != ir.ReduceSum || op.Result.Type.Elem != ir.I32 {
		return nil, "not an i32 sum"
	}
	kind, vb := mc.intDotKind()
	if kind == dotNone {
		return nil, "no vector unit"
	}
	if len(graphParams) > 0 || len(op.Domain.Params()) > 0 {
		return nil, "symbolic dims"
	}
	p, ok := matchIntProduct(op)
	if !ok {
		return nil, "not an 8-bit product with constant weights"
	}
	if len(op.Out.Pieces) != 1 || len(op.Out.Pieces[0].Guard) > 0 {
		return nil, "guarded result"
	}
	nOut := len(op.Out.Pieces[0].Index)
	n := op.NDim()
	for d, a := range op.Out.Pieces[0].Index {
		if !isDim(a, d) {
			return nil, "result index is not the leading dims"
		}
	}
	if nOut < 2 || nOut >= n {
		return nil, "no row dim or no reduction"
	}
	for _, k := range []int{p.w, p.xz, p.wz, p.bias} {
		// (the bias is read once per result element: guarded by the reduction's origin)
		if k >= 0 && (len(op.Access[k].Pieces) != 1 || k != p.bias && len(op.Access[k].Pieces[0].Guard) > 0) {
			return nil, "a constant read has pieces"
		}
	}
	if len(op.Access[p.x].Pieces) != 1 {
		return nil, "the activation read has pieces"
	}
	d := &intDot{kind: kind, lanes: vb / 4, p: p, nOut: nOut}
	var why string
	func() {
		lo, hi, err := constBounds(op.Domain)
		if err != nil {
			why = err.Error()
			return
		}
		switch boxSet(nil, op.Domain.TupleName(), lo, hi).IsSubset(op.Domain) {
		case volume.Unknown:
			why = "volume gave up comparing the domain with its box"
			return
		case volume.No:
			why = "the domain is not a box"
			return
		}
		flo, fhi, err := constBounds(op.Full)
		if err != nil {
			why = err.Error()
			return
		}
		for r := nOut; r < n; r++ {
			if lo[r] != flo[r] || hi[r] != fhi[r] {
				why = "the reduction is restricted"
				return
			}
		}
		d.lo, d.hi = lo[:nOut], hi[:nOut]
		if shape, ok := op.Result.Type.StaticShape(); ok {
			d.whole = true
			for k, e := range shape {
				d.whole = d.whole && d.lo[k] == 0 && d.hi[k] == e-1
			}
		}
		switch {
		case n == nOut+1 && p.guard < 0:
			why = d.planGEMM(op, lo, hi)
		case nOut == 4 && n == 7 && op.Operands[p.xz].Data == nil:
			// the convolutions pad their input with the zero point at compile time
			why = "a zero point computed at run time"
		case nOut == 4 && n == 7 && len(op.Access[p.x].Pieces[0].Index) == 4 && dependsOnly(op, p.w, 3, 4, 5, 6):
			// channels-last (the channels-last pass): Y[n, oh, ow, m], X[n, h, w, c] (or a
			// graph input's X[n, c, h, w])
			why = d.planConvNHWC(op, lo, hi)
		case nOut == 4 && n == 7:
			why = d.planConv(op, lo, hi)
		default:
			why = "not a matrix product or a 2-D convolution"
		}
	}()
	if why != "" {
		return nil, why
	}
	return d, ""
}

// dotPlan is an op's integer dot-product plan, or nil and why it has none.
type dotPlan struct {
	d   *intDot
	why string
}

// intDotOf returns op's integer dot-product plan (nil: none), planned once per op: the
// workspace plan needs its scratch before the kernels are emitted.
func (ec *entryCtx) intDotOf(op *ir.Op) *intDot { return ec.intDotPlan(op).d }

// intDotPlan returns op's integer dot-product plan, or nil and why it has none (planned once
// per op).
func (ec *entryCtx) intDotPlan(op *ir.Op) dotPlan {
	if p, ok := ec.dots[op]; ok {
		return p
	}
	d, why := planIntDot(op, ec.mc, ec.g.Params)
	ec.dots[op] = dotPlan{d, why}
	return ec.dots[op]
}

// emitIntDot emits the kernel body of plan d.
func (kb *kernelBuilder) emitIntDot(d *intDot) error {
	if d.nhwc && d.depthwise {
		return kb.emitDepthwiseNHWC(d)
	}
	if d.nhwc {
		return kb.emitConvNHWC(d)
	}
	if d.conv {
		return kb.emitIntConv(d)
	}
	return kb.emitIntGEMM(d)
}
