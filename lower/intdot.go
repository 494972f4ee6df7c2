// This file plans and emits the integer dot-product kernels of quantized contractions: ops that
// sum (i32(x) - xz)·(i32(w) - wz) (+ an i32 bias) over their reduction dims, where x is an 8-bit
// activation and w 8-bit constant weights (matmul_integer, conv_integer and QDQ groups after
// import; recognised by the shape of the body and accesses, not by op names). They run on the
// CPU's 4-way byte dot-product instruction into i32 accumulators: AVX-512 VNNI vpdpbusd (512-bit,
// or 256-bit with AVX-VNNI), HVX vrmpy (Vu.ub × Vv.b, 128-byte vectors); without them, bytes
// widened to i16 and pmaddwd (AVX2, SSE2: exact, where vpmaddubsw's pair sums would saturate),
// or a portable expansion for other vector units. The accumulators of an mr×(nv vectors) tile
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

package lower

import (
	"fmt"
	"strings"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// dotKind is the instruction family of an integer dot-product kernel.
type dotKind int

const (
	dotNone    dotKind = iota
	dotVNNI512         // vpdpbusd zmm (AVX-512 VNNI)
	dotVNNI256         // vpdpbusd ymm (AVX-VNNI, or AVX-512 VNNI with VL)
	dotHVX             // vrmpy Vu.ub × Vv.b accumulating (HVX 128-byte)
	dotAVX2            // bytes widened to i16, vpmaddwd, vphaddd (exact; AVX2 without VNNI)
	dotSSE2            // the same with 128-bit pmaddwd (every x86-64)
	dotGeneric         // the same arithmetic in portable vector IR
)

func (k dotKind) String() string {
	return [...]string{"none", "vnni512", "vnni256", "hvx-vrmpy", "avx2-pmaddwd", "sse2-pmaddwd", "generic"}[k]
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
	return fmt.Sprintf("int-dot %s %s %dx%d", d.kind, form, d.mr, d.nv*d.lanes)
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
	err := volume.Try(func() {
		lo, hi, err := constBounds(op.Domain)
		if err != nil {
			why = err.Error()
			return
		}
		if !boxSet(nil, op.Domain.TupleName(), lo, hi).IsSubset(op.Domain) {
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
		case nOut == 4 && n == 7 && len(op.Access[p.x].Pieces[0].Index) == 4 && dependsOnly(op, p.w, 3, 4, 5, 6):
			// channels-last (the channels-last pass): Y[n, oh, ow, m], X[n, h, w, c] (or a
			// graph input's X[n, c, h, w])
			why = d.planConvNHWC(op, lo, hi)
		case nOut == 4 && n == 7:
			why = d.planConv(op, lo, hi)
		default:
			why = "not a matrix product or a 2-D convolution"
		}
	})
	if err != nil {
		return nil, err.Error()
	}
	if why != "" {
		return nil, why
	}
	return d, ""
}

// intDotOf returns op's integer dot-product plan (nil: none), planned once per op: the
// workspace plan needs its scratch before the kernels are emitted.
func (ec *entryCtx) intDotOf(op *ir.Op) *intDot {
	if d, ok := ec.dots[op]; ok {
		return d
	}
	d, _ := planIntDot(op, ec.mc, ec.g.Params)
	ec.dots[op] = d
	return d
}

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

// channelConsts fills corr, wzs and sumX from the per-channel weight sums.
func (d *intDot) channelConsts(op *ir.Op, xz int64, wsum, wz, bias []int64) {
	d.corr = make([]int64, len(wsum))
	d.wzs = wz
	for c := range wsum {
		d.corr[c] = -xz*wsum[c] + d.R*xz*wz[c]
		if bias != nil {
			d.corr[c] += bias[c]
		}
		if wz[c] != 0 {
			d.sumX = true
		}
	}
}

// planGEMM: C[o..., i, j] = Σ_k X[.., i, k]·W[k, j] with X unit-stride along k.
func (d *intDot) planGEMM(op *ir.Op, lo, hi []int64) string {
	p := d.p
	nOut := d.nOut
	i, j, k := nOut-2, nOut-1, nOut
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
	_ = i
	d.conv = false
	d.xSigned = op.Operands[p.x].Type.Elem == ir.I8
	wUnsigned := op.Operands[p.w].Type.Elem == ir.U8
	K := hi[k] - lo[k] + 1
	d.R, d.R4 = K, (K+3)/4
	d.chans = hi[j] - lo[j] + 1
	d.mr, d.nv = 6, 4
	switch d.kind {
	case dotVNNI256:
		d.mr, d.nv = 6, 2
	case dotAVX2, dotSSE2:
		// two registers per accumulator, 16 registers
		d.mr, d.nv = 4, 1
	case dotHVX, dotGeneric:
		d.mr, d.nv = 4, 2
	}
	d.nv = int(min(int64(d.nv), (d.chans+int64(d.lanes)-1)/int64(d.lanes)))
	nr := int64(d.nv * d.lanes)
	tiles := (d.chans + nr - 1) / nr
	d.wPacked = make([]byte, tiles*d.R4*nr*4)
	x := make([]int64, op.NDim())
	copy(x, lo)
	xz := int64(0)
	if !d.xzRuntime {
		xz = constData(op, p.xz, x)
		if d.xSigned {
			xz += 128
		}
	}
	wsum := make([]int64, d.chans)
	wz := make([]int64, d.chans)
	var bias []int64
	if p.bias >= 0 {
		bias = make([]int64, d.chans)
	}
	for c := int64(0); c < d.chans; c++ {
		x[j] = lo[j] + c
		x[k] = lo[k]
		wz[c] = constData(op, p.wz, x)
		if wUnsigned {
			wz[c] -= 128
		}
		if bias != nil {
			bias[c] = constData(op, p.bias, x)
		}
		t, l := c/nr, c%nr
		for r := int64(0); r < K; r++ {
			x[k] = lo[k] + r
			w := constData(op, p.w, x)
			if wUnsigned {
				w -= 128
			}
			wsum[c] += w
			d.wPacked[((t*d.R4+r/4)*nr+l)*4+r%4] = byte(int8(w))
		}
	}
	d.channelConsts(op, xz, wsum, wz, bias)
	if d.xzRuntime {
		d.adj = make([]int64, d.chans)
		for c := range d.adj {
			d.adj[c] = wsum[c] - d.R*wz[c]
		}
	}
	return ""
}

// planConv: Y[n, m, oh, ow] = Σ_{c, kh, kw} X[n, c, s·oh + d·kh - p, s·ow + d·kw - p]·W[m, c, kh, kw]
// (+ B[m]), one group, X read only inside the image (padding contributes nothing).
func (d *intDot) planConv(op *ir.Op, lo, hi []int64) string {
	p := d.p
	if op.Operands[p.xz].Data == nil {
		return "a zero point computed at run time"
	}
	xi := op.Access[p.x].Pieces[0].Index
	xt := op.Operands[p.x].Type
	shape, ok := xt.StaticShape()
	if !ok || len(xi) != 4 {
		return "the input is not a static 4-D tensor"
	}
	// X index: [n, c, s0·oh + d0·kh - p0, s1·ow + d1·kw - p1], or [n, m + c, ...] with one
	// input channel per group (depthwise)
	if !isDim(xi[0], 0) {
		return "the input is not read at [n, ...]"
	}
	if !isDim(xi[1], 4) {
		a := xi[1]
		dw := len(a.Floors) == 0 && len(a.Params) == 0 && a.Const == 0 && coefOf(a, 1) == 1 && coefOf(a, 4) == 1
		for dim := 0; dim < 7; dim++ {
			if dim != 1 && dim != 4 && coefOf(a, dim) != 0 {
				dw = false
			}
		}
		if !dw {
			return "the input is not read at [n, c, ...] (groups)"
		}
		d.depthwise = true
	}
	for sd := 0; sd < 2; sd++ {
		a := xi[2+sd]
		if len(a.Floors) > 0 || len(a.Params) > 0 {
			return "quasi-affine input index"
		}
		for dim := 0; dim < 7; dim++ {
			c := coefOf(a, dim)
			if c != 0 && dim != 2+sd && dim != 5+sd {
				return "the input index mixes dims"
			}
		}
		d.s[sd], d.d[sd], d.pb[sd] = coefOf(a, 2+sd), coefOf(a, 5+sd), -a.Const
		if d.s[sd] <= 0 || d.d[sd] <= 0 || d.pb[sd] < 0 {
			return "unsupported stride, dilation or padding"
		}
	}
	// the guard may only keep the spatial reads inside the image
	for _, g := range op.Access[p.x].Pieces[0].Guard {
		if g.Eq {
			return "an equality guard"
		}
		okG := false
		for sd := 0; sd < 2; sd++ {
			pos := xi[2+sd]
			if g.Aff.Equal(pos) || g.Aff.Equal(pos.Neg().AddConst(shape[2+sd]-1)) {
				okG = true
			}
		}
		if !okG {
			return "a guard other than the image bounds"
		}
	}
	if !dependsOnly(op, p.w, 1, 4, 5, 6) || !dependsOnly(op, p.wz, 1) || !dependsOnly(op, p.xz) || p.bias >= 0 && !dependsOnly(op, p.bias, 1) {
		return "the weights depend on more than the channel and the reduction"
	}
	if accessStride(xi, 1) != strideInvariant && !d.depthwise {
		return "the input depends on the output channel (groups)"
	}
	// the result box must cover the whole spatial extent (stores are contiguous per row)
	os := op.Result.Type.Shape
	for sd := 0; sd < 2; sd++ {
		e, ok := os[2+sd].IsConst()
		if !ok || lo[2+sd] != 0 || hi[2+sd] != e-1 {
			return "the spatial result is restricted"
		}
	}
	flo, fhi, _ := constBounds(op.Full)
	d.conv = true
	d.xSigned = xt.Elem == ir.I8
	wUnsigned := op.Operands[p.w].Type.Elem == ir.U8
	d.C, d.H, d.W = fhi[4]+1, shape[2], shape[3]
	d.KH, d.KW = fhi[5]+1, fhi[6]+1
	if d.depthwise {
		if flo[4] != 0 || fhi[4] != 0 {
			return "more than one input channel per group"
		}
		return d.planDepthwise(op, lo, hi, shape)
	}
	if flo[4] != 0 || d.C != shape[1] {
		return "the reduction does not cover the channels"
	}
	d.OH, d.OW = hi[2]+1, hi[3]+1
	d.C4 = (d.C + 3) / 4
	d.R = d.C * d.KH * d.KW
	d.R4 = d.C4 * d.KH * d.KW
	// padded extents: every read s·o + d·k - p lies in [-pb, H + pe) with pe what the last
	// output needs
	hp := (d.OH-1)*d.s[0] + (d.KH-1)*d.d[0] + 1
	wp := (d.OW-1)*d.s[1] + (d.KW-1)*d.d[1] + 1
	d.HP = max(hp, d.H+d.pb[0])
	d.WQ = (max(wp, d.W+d.pb[1]) + d.s[1] - 1) / d.s[1]
	if d.C4*d.HP*d.s[1]*(d.WQ+int64(d.lanes)*4)*4 > convScratchLimit {
		return "the input copy is too large"
	}
	d.chans = hi[1] - lo[1] + 1
	d.mr, d.nv = 6, 4
	switch d.kind {
	case dotVNNI256:
		d.mr, d.nv = 6, 2
	case dotAVX2, dotSSE2:
		// two registers per accumulator, 16 registers
		d.mr, d.nv = 4, 1
	case dotHVX, dotGeneric:
		d.mr, d.nv = 4, 2
	}
	L := int64(d.lanes)
	// lanes over output channels when output rows are narrower than a vector and there are
	// channels enough (the late layers of CNNs: 7×7 or 14×14 with 256-512 channels)
	d.chanLanes = d.OW < L && d.chans >= L
	if d.chanLanes {
		if d.kind == dotHVX {
			d.nv = 4
		}
		d.nv = int(min(int64(d.nv), (d.chans+L-1)/L))
	} else {
		d.nv = int(min(int64(d.nv), (d.OW+L-1)/L))
	}
	nr := int64(d.nv) * L
	x := make([]int64, 7)
	copy(x, lo)
	xz := constData(op, p.xz, x)
	if d.xSigned {
		xz += 128
	}
	d.xzByte = xz
	wsum := make([]int64, d.chans)
	wz := make([]int64, d.chans)
	var bias []int64
	if p.bias >= 0 {
		bias = make([]int64, d.chans)
	}
	if d.chanLanes {
		d.wPacked = make([]byte, (d.chans+nr-1)/nr*nr*d.R4*4)
	} else {
		d.wPacked = make([]byte, d.chans*d.R4*4)
	}
	for m := int64(0); m < d.chans; m++ {
		x[1] = lo[1] + m
		x[4], x[5], x[6] = 0, 0, 0
		wz[m] = constData(op, p.wz, x)
		if wUnsigned {
			wz[m] -= 128
		}
		if bias != nil {
			bias[m] = constData(op, p.bias, x)
		}
		for c := int64(0); c < d.C; c++ {
			for kh := int64(0); kh < d.KH; kh++ {
				for kw := int64(0); kw < d.KW; kw++ {
					x[4], x[5], x[6] = c, kh, kw
					w := constData(op, p.w, x)
					if wUnsigned {
						w -= 128
					}
					wsum[m] += w
					if d.chanLanes {
						// [channel tile][kh][kw][C4][nr][4]
						d.wPacked[(((((m/nr)*d.KH+kh)*d.KW+kw)*d.C4+c/4)*nr+m%nr)*4+c%4] = byte(int8(w))
					} else {
						d.wPacked[(((m*d.KH+kh)*d.KW+kw)*d.C4+c/4)*4+c%4] = byte(int8(w))
					}
				}
			}
		}
	}
	d.channelConsts(op, xz, wsum, wz, bias)
	// the input copy [C4][HP][s1][WQ + nr][4] (emitIntConv)
	d.scratch = d.C4 * d.HP * d.s[1] * (d.WQ + int64(d.nv*d.lanes)) * 4
	return ""
}

// --- emission ------------------------------------------------------------------------------

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
	case dotAVX2:
		// pair sums of the low and high 16 bytes (vpmaddwd) accumulate apart; finish() adds
		// adjacent pairs (vphaddd) once after the reduction
		bt := types.NewVector(32, types.I8)
		ht := types.NewVector(16, types.I16)
		ub, sb := fb.cur.NewBitCast(u, bt), fb.cur.NewBitCast(s, bt)
		half := func(b value.Value, hi bool, signed bool) value.Value {
			idx := make([]constant.Constant, 16)
			for l := range idx {
				idx[l] = i32c(int64(l))
				if hi {
					idx[l] = i32c(int64(16 + l))
				}
			}
			h := fb.cur.NewShuffleVector(b, constant.NewUndef(bt), constant.NewVector(types.NewVector(16, types.I32), idx...))
			if signed {
				return fb.cur.NewSExt(h, ht)
			}
			return fb.cur.NewZExt(h, ht)
		}
		pmadd := fb.mc.intrinsic("llvm.x86.avx2.pmadd.wd", vt, ht, ht)
		lo := fb.cur.NewCall(pmadd, half(ub, false, false), half(sb, false, true))
		hi := fb.cur.NewCall(pmadd, half(ub, true, false), half(sb, true, true))
		idx := make([]constant.Constant, 16)
		for l := range idx {
			idx[l] = i32c(int64(l))
		}
		both := fb.cur.NewShuffleVector(lo, hi, constant.NewVector(types.NewVector(16, types.I32), idx...))
		return fb.cur.NewAdd(acc, both)
	case dotSSE2:
		// pmaddwd on the low and high 8 bytes: pair sums of groups 0-1 and 2-3, kept apart
		bt := types.NewVector(16, types.I8)
		ht := types.NewVector(8, types.I16)
		ub, sb := fb.cur.NewBitCast(u, bt), fb.cur.NewBitCast(s, bt)
		half := func(b value.Value, from int64, signed bool) value.Value {
			idx := make([]constant.Constant, 8)
			for l := range idx {
				idx[l] = i32c(from + int64(l))
			}
			h := fb.cur.NewShuffleVector(b, constant.NewUndef(bt), constant.NewVector(types.NewVector(8, types.I32), idx...))
			if signed {
				return fb.cur.NewSExt(h, ht)
			}
			return fb.cur.NewZExt(h, ht)
		}
		pmadd := fb.mc.intrinsic("llvm.x86.sse2.pmadd.wd", vt, ht, ht)
		lo := fb.cur.NewCall(pmadd, half(ub, 0, false), half(sb, 0, true))
		hi := fb.cur.NewCall(pmadd, half(ub, 8, false), half(sb, 8, true))
		idx := make([]constant.Constant, 8)
		for l := range idx {
			idx[l] = i32c(int64(l))
		}
		both := fb.cur.NewShuffleVector(lo, hi, constant.NewVector(types.NewVector(8, types.I32), idx...))
		return fb.cur.NewAdd(acc, both)
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

// outerLoops runs body over the result dims before the first nKeep... : dims 0..n-1 in the
// result box, passing their values.
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
	corr := kb.i32Global("corr", d.corr, int(tiles*nr)-len(d.corr))
	var wzp, adjp value.Value
	if d.sumX {
		wzp = kb.i32Global("wz", d.wzs, int(tiles*nr)-len(d.wzs))
	}
	var xzv value.Value
	if d.xzRuntime {
		adjp = kb.i32Global("adj", d.adj, int(tiles*nr)-len(d.adj))
		zw := kb.ops[p.xz]
		zidx := op.Access[p.xz].Pieces[0].Index
		z := fb.loadElem(zw, fb.offset(zw, fb.indexAt(zidx, make([]value.Value, op.NDim()))))
		var z32 value.Value
		if d.xSigned {
			z32 = fb.cur.NewAdd(fb.cur.NewSExt(z, types.I32), constant.NewInt(types.I32, 128))
		} else {
			z32 = fb.cur.NewZExt(z, types.I32)
		}
		xzv = kb.splat32(d, z32)
	}
	xw := kb.ops[p.x]
	xidx := op.Access[p.x].Pieces[0].Index
	K := d.R
	rows := d.hi[i] - d.lo[i] + 1
	vt := d.vecType()
	zero := constant.NewZeroInitializer(d.accType())
	ones := splat(constant.NewInt(types.I32, 0x01010101), d.lanes)
	return kb.outerLoops(d, nOut-2, func(outer []value.Value) error {
		// the byte address of X[.., row, k = lo] for a row
		// rowPtr returns the byte address of a row's first group and the alignment its 4-byte
		// loads may claim (4 when the buffer is aligned and the row offset a multiple of 4)
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
			accs := make([]value.Value, nrows*nvec)
			for k := range accs {
				accs[k] = zero
			}
			if d.sumX {
				for r := 0; r < nrows; r++ {
					accs = append(accs, zero)
				}
			}
			broadcast := func(r int, word value.Value) value.Value {
				if d.xSigned {
					word = fb.cur.NewXor(word, constant.NewInt(types.I32, int64(int32(-0x7f7f7f80))))
				}
				return kb.splat32(d, word)
			}
			step := func(k4 value.Value, accs []value.Value, word func(r int) value.Value) []value.Value {
				out := make([]value.Value, len(accs))
				bv := make([]value.Value, nvec)
				for v := range bv {
					off := fb.mul(fb.add(fb.mul(k4, i64(nr)), i64(int64(v*d.lanes))), i64(4))
					bv[v] = kb.loadVec(d, kb.gep8(panel, off), int64(4*d.lanes))
				}
				for r := 0; r < nrows; r++ {
					a := broadcast(r, word(r))
					for v := 0; v < nvec; v++ {
						out[r*nvec+v] = kb.dot(d, accs[r*nvec+v], a, bv[v])
					}
					if d.sumX {
						out[nrows*nvec+r] = kb.dot(d, accs[nrows*nvec+r], a, ones)
					}
				}
				return out
			}
			full := K / 4
			accs = kb.tileLoop(full, "k4", accs, func(k4 value.Value, accs []value.Value) []value.Value {
				return step(k4, accs, func(r int) value.Value { return kb.load32(kb.gep8(xp[r], fb.mul(k4, i64(4))), xal[r]) })
			})
			if rem := K % 4; rem > 0 {
				// the last group: the remaining bytes, zero above (the packed weights are 0 there)
				accs = step(i64(full), accs, func(r int) value.Value {
					var w value.Value = constant.NewInt(types.I32, 0)
					if d.xSigned {
						// broadcast() flips every byte: the padding bytes start at 0x80 to end at 0
						w = constant.NewInt(types.I32, int64(int32(uint32(0x80808080)>>(8*rem)<<(8*rem))))
					}
					for q := int64(0); q < rem; q++ {
						b := fb.cur.NewLoad(types.I8, kb.gep8(xp[r], i64(4*full+q)))
						w = fb.cur.NewOr(w, fb.cur.NewShl(fb.cur.NewZExt(b, types.I32), constant.NewInt(types.I32, 8*q)))
					}
					return w
				})
			}
			// epilogue
			for v := 0; v < nvec; v++ {
				ch := fb.add(c0, i64(int64(v*d.lanes)))
				cl := fb.cur.NewLoad(vt, fb.cur.NewBitCast(fb.cur.NewGetElementPtr(types.I32, corr, ch), types.NewPointer(vt)))
				cl.Align = 4
				var cv value.Value = cl
				var wzv value.Value
				if d.sumX {
					l := fb.cur.NewLoad(vt, fb.cur.NewBitCast(fb.cur.NewGetElementPtr(types.I32, wzp, ch), types.NewPointer(vt)))
					l.Align = 4
					wzv = l
				}
				if d.xzRuntime {
					l := fb.cur.NewLoad(vt, fb.cur.NewBitCast(fb.cur.NewGetElementPtr(types.I32, adjp, ch), types.NewPointer(vt)))
					l.Align = 4
					cv = fb.cur.NewSub(cv, fb.cur.NewMul(xzv, l))
				}
				n := d.lanes
				if v == nvec-1 {
					n = lastLanes
				}
				for r := 0; r < nrows; r++ {
					var val value.Value = fb.cur.NewAdd(kb.finish(d, accs[r*nvec+v]), cv)
					if d.sumX {
						val = fb.cur.NewSub(val, fb.cur.NewMul(wzv, kb.finish(d, accs[nrows*nvec+r])))
					}
					dims := make([]value.Value, nOut)
					copy(dims, outer)
					dims[i] = fb.add(row0, i64(int64(r)))
					dims[j] = fb.add(ch, i64(d.lo[j]))
					kb.storeLanes(d, val, fb.offset(kb.res, dims), n)
				}
			}
		}
		fullCols := d.chans / nr
		colTail := d.chans % nr
		fullRows := rows / int64(d.mr)
		rowTail := rows % int64(d.mr)
		panelBytes := d.R4 * nr * 4
		cols := func(ct value.Value, nvec, lastLanes int) error {
			panel := kb.gep8(wp, fb.mul(ct, i64(panelBytes)))
			c0 := fb.mul(ct, i64(nr))
			if err := fb.loop(i64(0), i64(fullRows-1), 1, "rt", func(rt value.Value) error {
				tile(fb.add(fb.mul(rt, i64(int64(d.mr))), i64(d.lo[i])), c0, panel, d.mr, nvec, lastLanes)
				return nil
			}); err != nil {
				return err
			}
			if rowTail > 0 {
				tile(i64(d.lo[i]+fullRows*int64(d.mr)), c0, panel, int(rowTail), nvec, lastLanes)
			}
			return nil
		}
		if err := fb.loop(i64(0), i64(fullCols-1), 1, "ct", func(ct value.Value) error {
			return cols(ct, d.nv, d.lanes)
		}); err != nil {
			return err
		}
		if colTail > 0 {
			nvec := int((colTail + int64(d.lanes) - 1) / int64(d.lanes))
			last := int(colTail - int64(nvec-1)*int64(d.lanes))
			return cols(i64(fullCols), nvec, last)
		}
		return nil
	})
}

// emitIntConv: per image, the input is copied into the interleaved padded layout; then for
// each output row and tile of nr output columns, for each tile of mr output channels, the
// registers accumulate over kh, kw and the channel groups.
func (kb *kernelBuilder) emitIntConv(d *intDot) error {
	if d.depthwise {
		return kb.emitIntDepthwise(d)
	}
	fb := kb.fb
	p := d.p
	zero := constant.NewZeroInitializer(d.accType())
	ones := splat(constant.NewInt(types.I32, 0x01010101), d.lanes)
	wp := kb.byteGlobal("wpack", d.wPacked)
	pad := 0
	if nrc := int64(d.nv * d.lanes); d.chanLanes {
		// whole vectors of channels are loaded
		pad = int((d.chans+nrc-1)/nrc*nrc - d.chans)
	}
	corr := kb.i32Global("corr", d.corr, pad)
	var wzp value.Value
	if d.sumX {
		wzp = kb.i32Global("wz", d.wzs, pad)
	}
	s1 := d.s[1]
	// the copy: [C4][HP][s1][WQ + slack][4]; the slack lets the last column tile read whole
	// vectors past the row (their lanes are not stored)
	rowBytes := (d.WQ + int64(d.nv*d.lanes)) * 4
	phaseBytes := rowBytes
	hBytes := s1 * phaseBytes
	cBytes := d.HP * hBytes
	total := d.C4 * cBytes
	if total != d.scratch {
		return fmt.Errorf("internal error: integer convolution scratch %d, planned %d", total, d.scratch)
	}
	bp := kb.scratch
	xw := kb.ops[p.x]
	nr := int64(d.nv * d.lanes)
	return kb.outerLoops(d, 1, func(outer []value.Value) error {
		n := outer[0]
		// fill: every byte the zero point (spatial padding), but 0 for the channels past C in
		// the last group (their weights are 0, and Σx must not count them); then the image
		full := int64(int32(uint32(d.xzByte) * 0x01010101))
		last := full
		if r := d.C % 4; r > 0 {
			last = int64(int32(uint32(d.xzByte) * 0x01010101 & (1<<(8*r) - 1)))
		}
		if err := fb.loop(i64(0), i64(d.C4-1), 1, "fillc", func(c4 value.Value) error {
			pat := fb.cur.NewSelect(fb.cur.NewICmp(enum.IPredEQ, c4, i64(d.C4-1)), constant.NewInt(types.I32, last), constant.NewInt(types.I32, full))
			base := fb.mul(c4, i64(cBytes))
			return fb.loop(i64(0), i64(cBytes/4-1), 1, "fill", func(iv value.Value) error {
				st := fb.cur.NewStore(pat, fb.cur.NewBitCast(kb.gep8(bp, fb.add(base, fb.mul(iv, i64(4)))), types.NewPointer(types.I32)))
				st.Align = 4
				return nil
			})
		}); err != nil {
			return err
		}
		if err := fb.loop(i64(0), i64(d.C-1), 1, "c", func(c value.Value) error {
			return fb.loop(i64(0), i64(d.H-1), 1, "h", func(h value.Value) error {
				base := fb.offset(xw, []value.Value{n, c, h, i64(0)})
				// destination of (c, h, w): c4 = c/4, q = c%4, hp = h + pb0, column w + pb1 in
				// phase (w + pb1) % s1 at (w + pb1) / s1
				c4 := fb.cur.NewSDiv(c, i64(4))
				q := fb.cur.NewSRem(c, i64(4))
				rowOff := fb.add(fb.mul(c4, i64(cBytes)), fb.mul(fb.add(h, i64(d.pb[0])), i64(hBytes)))
				rowOff = fb.add(rowOff, q)
				return fb.loop(i64(0), i64(d.W-1), 1, "w", func(w value.Value) error {
					x := fb.cur.NewLoad(types.I8, fb.elemPtr(xw, fb.add(base, w)))
					var xb value.Value = x
					if d.xSigned {
						xb = fb.cur.NewXor(x, constant.NewInt(types.I8, -128))
					}
					cw := fb.add(w, i64(d.pb[1]))
					ph := fb.cur.NewSRem(cw, i64(s1))
					col := fb.cur.NewSDiv(cw, i64(s1))
					off := fb.add(rowOff, fb.add(fb.mul(ph, i64(phaseBytes)), fb.mul(col, i64(4))))
					fb.cur.NewStore(xb, kb.gep8(bp, off))
					return nil
				})
			})
		}); err != nil {
			return err
		}
		if d.chanLanes {
			return kb.emitConvChannels(d, n, bp, wp, corr, wzp, hBytes, phaseBytes, cBytes)
		}
		// tiles
		tile := func(oh, ow0, m0 value.Value, nrows, nvec, lastLanes int) error {
			accs := make([]value.Value, nrows*nvec)
			for k := range accs {
				accs[k] = zero
			}
			if d.sumX {
				for v := 0; v < nvec; v++ {
					accs = append(accs, zero)
				}
			}
			for kh := int64(0); kh < d.KH; kh++ {
				for kw := int64(0); kw < d.KW; kw++ {
					// input row s0·oh + d0·kh (padded), column s1·(ow0 + l) + d1·kw: phase
					// (d1·kw) % s1, index ow0 + l + (d1·kw) / s1
					hrow := fb.add(fb.mul(oh, i64(d.s[0])), i64(kh*d.d[0]))
					ph := (kw * d.d[1]) % s1
					colBase := fb.add(ow0, i64((kw*d.d[1])/s1))
					src := fb.add(fb.add(fb.mul(hrow, i64(hBytes)), i64(ph*phaseBytes)), fb.mul(colBase, i64(4)))
					wbase := func(m value.Value) value.Value {
						return fb.mul(fb.add(fb.mul(fb.add(fb.mul(m, i64(d.KH)), i64(kh)), i64(d.KW)), i64(kw)), i64(d.C4*4))
					}
					wrow := make([]value.Value, nrows)
					for r := range wrow {
						wrow[r] = kb.gep8(wp, wbase(fb.add(m0, i64(int64(r)))))
					}
					accs = kb.tileLoop(d.C4, "c4", accs, func(c4 value.Value, accs []value.Value) []value.Value {
						out := make([]value.Value, len(accs))
						xv := make([]value.Value, nvec)
						at := fb.add(src, fb.mul(c4, i64(cBytes)))
						for v := range xv {
							xv[v] = kb.loadVec(d, kb.gep8(bp, fb.add(at, i64(int64(4*v*d.lanes)))), 4)
						}
						for r := 0; r < nrows; r++ {
							// packed weights: 4-byte groups of a 128-byte aligned global
							wv := kb.splat32(d, kb.load32(kb.gep8(wrow[r], fb.mul(c4, i64(4))), 4))
							for v := 0; v < nvec; v++ {
								out[r*nvec+v] = kb.dot(d, accs[r*nvec+v], xv[v], wv)
							}
						}
						if d.sumX {
							for v := 0; v < nvec; v++ {
								out[nrows*nvec+v] = kb.dot(d, accs[nrows*nvec+v], xv[v], ones)
							}
						}
						return out
					})
				}
			}
			for r := 0; r < nrows; r++ {
				m := fb.add(m0, i64(int64(r)))
				cv := kb.splat32(d, fb.cur.NewLoad(types.I32, fb.cur.NewGetElementPtr(types.I32, corr, m)))
				var wzv value.Value
				if d.sumX {
					wzv = kb.splat32(d, fb.cur.NewLoad(types.I32, fb.cur.NewGetElementPtr(types.I32, wzp, m)))
				}
				for v := 0; v < nvec; v++ {
					var val value.Value = fb.cur.NewAdd(kb.finish(d, accs[r*nvec+v]), cv)
					if d.sumX {
						val = fb.cur.NewSub(val, fb.cur.NewMul(wzv, kb.finish(d, accs[nrows*nvec+v])))
					}
					cnt := d.lanes
					if v == nvec-1 {
						cnt = lastLanes
					}
					off := fb.offset(kb.res, []value.Value{n, fb.add(m, i64(d.lo[1])), oh, fb.add(ow0, i64(int64(v*d.lanes)))})
					kb.storeLanes(d, val, off, cnt)
				}
			}
			return nil
		}
		fullCols, colTail := d.OW/nr, d.OW%nr
		fullRows, rowTail := d.chans/int64(d.mr), d.chans%int64(d.mr)
		rowsOf := func(oh, ow0 value.Value, nvec, last int) error {
			if err := fb.loop(i64(0), i64(fullRows-1), 1, "mt", func(mt value.Value) error {
				return tile(oh, ow0, fb.mul(mt, i64(int64(d.mr))), d.mr, nvec, last)
			}); err != nil {
				return err
			}
			if rowTail > 0 {
				return tile(oh, ow0, i64(fullRows*int64(d.mr)), int(rowTail), nvec, last)
			}
			return nil
		}
		return fb.loop(i64(0), i64(d.OH-1), 1, "oh", func(oh value.Value) error {
			if err := fb.loop(i64(0), i64(fullCols-1), 1, "owt", func(owt value.Value) error {
				return rowsOf(oh, fb.mul(owt, i64(nr)), d.nv, d.lanes)
			}); err != nil {
				return err
			}
			if colTail > 0 {
				nvec := int((colTail + int64(d.lanes) - 1) / int64(d.lanes))
				last := int(colTail - int64(nvec-1)*int64(d.lanes))
				return rowsOf(oh, i64(fullCols*nr), nvec, last)
			}
			return nil
		})
	})
}

// emitConvChannels runs the convolution of image n from the interleaved copy at bp with lanes
// over output channels: tiles of mr output pixels (row-major over oh, ow) by nv vectors of
// channels; each pixel's 4 channel bytes of a tap are broadcast, the weights of the channel
// tile are whole vectors, and the results are stored lane by lane (channel-strided).
func (kb *kernelBuilder) emitConvChannels(d *intDot, n, bp, wp, corr, wzp value.Value, hBytes, phaseBytes, cBytes int64) error {
	fb := kb.fb
	vt := d.vecType()
	zero := constant.NewZeroInitializer(d.accType())
	ones := splat(constant.NewInt(types.I32, 0x01010101), d.lanes)
	L := int64(d.lanes)
	nr := int64(d.nv) * L
	P := d.OH * d.OW
	chStride := kb.res.strides[1]
	s1 := d.s[1]
	tile := func(p0, mt value.Value, npix, nvec int, lastLanes int) {
		// the byte offset of each pixel's window origin in the copy
		base := make([]value.Value, npix)
		oh := make([]value.Value, npix)
		ow := make([]value.Value, npix)
		for r := range base {
			p := fb.add(p0, i64(int64(r)))
			oh[r] = fb.cur.NewSDiv(p, i64(d.OW))
			ow[r] = fb.cur.NewSRem(p, i64(d.OW))
			base[r] = fb.add(fb.mul(fb.mul(oh[r], i64(d.s[0])), i64(hBytes)), fb.mul(ow[r], i64(4)))
		}
		accs := make([]value.Value, npix*nvec)
		for k := range accs {
			accs[k] = zero
		}
		if d.sumX {
			for r := 0; r < npix; r++ {
				accs = append(accs, zero)
			}
		}
		panel := kb.gep8(wp, fb.mul(mt, i64(d.KH*d.KW*d.C4*nr*4)))
		for kh := int64(0); kh < d.KH; kh++ {
			for kw := int64(0); kw < d.KW; kw++ {
				tap := kh*d.d[0]*hBytes + (kw*d.d[1])%s1*phaseBytes + (kw*d.d[1])/s1*4
				wtap := kb.gep8(panel, i64((kh*d.KW+kw)*d.C4*nr*4))
				src := make([]value.Value, npix)
				for r := range src {
					src[r] = kb.gep8(bp, fb.add(base[r], i64(tap)))
				}
				accs = kb.tileLoop(d.C4, "c4", accs, func(c4 value.Value, accs []value.Value) []value.Value {
					out := make([]value.Value, len(accs))
					wv := make([]value.Value, nvec)
					for v := range wv {
						wv[v] = kb.loadVec(d, kb.gep8(wtap, fb.add(fb.mul(c4, i64(nr*4)), i64(int64(v)*L*4))), 4*L)
					}
					co := fb.mul(c4, i64(cBytes))
					for r := 0; r < npix; r++ {
						// the copy's 4-channel groups are 4-byte aligned in the workspace
						xb := kb.splat32(d, kb.load32(kb.gep8(src[r], co), 4))
						for v := 0; v < nvec; v++ {
							out[r*nvec+v] = kb.dot(d, accs[r*nvec+v], xb, wv[v])
						}
						if d.sumX {
							out[npix*nvec+r] = kb.dot(d, accs[npix*nvec+r], xb, ones)
						}
					}
					return out
				})
			}
		}
		m0 := fb.mul(mt, i64(nr))
		for v := 0; v < nvec; v++ {
			ch := fb.add(m0, i64(int64(v)*L))
			cl := fb.cur.NewLoad(vt, fb.cur.NewBitCast(fb.cur.NewGetElementPtr(types.I32, corr, ch), types.NewPointer(vt)))
			cl.Align = 4
			var wzv value.Value
			if d.sumX {
				l := fb.cur.NewLoad(vt, fb.cur.NewBitCast(fb.cur.NewGetElementPtr(types.I32, wzp, ch), types.NewPointer(vt)))
				l.Align = 4
				wzv = l
			}
			cnt := d.lanes
			if v == nvec-1 {
				cnt = lastLanes
			}
			for r := 0; r < npix; r++ {
				var val value.Value = fb.cur.NewAdd(kb.finish(d, accs[r*nvec+v]), cl)
				if d.sumX {
					val = fb.cur.NewSub(val, fb.cur.NewMul(wzv, kb.finish(d, accs[npix*nvec+r])))
				}
				off := fb.offset(kb.res, []value.Value{n, fb.add(ch, i64(d.lo[1])), oh[r], ow[r]})
				for l := 0; l < cnt; l++ {
					e := fb.cur.NewExtractElement(val, i32c(int64(l)))
					st := fb.cur.NewStore(e, fb.elemPtr(kb.res, fb.add(off, fb.mul(i64(int64(l)), chStride))))
					st.Align = 4
				}
			}
		}
	}
	fullM, tailM := d.chans/nr, d.chans%nr
	fullP, tailP := P/int64(d.mr), P%int64(d.mr)
	chans := func(p0 value.Value, npix int) error {
		if err := fb.loop(i64(0), i64(fullM-1), 1, "mt", func(mt value.Value) error {
			tile(p0, mt, npix, d.nv, d.lanes)
			return nil
		}); err != nil {
			return err
		}
		if tailM > 0 {
			nvec := int((tailM + L - 1) / L)
			tile(p0, i64(fullM), npix, nvec, int(tailM-int64(nvec-1)*L))
		}
		return nil
	}
	if err := fb.loop(i64(0), i64(fullP-1), 1, "pt", func(pt value.Value) error {
		return chans(fb.mul(pt, i64(int64(d.mr))), d.mr)
	}); err != nil {
		return err
	}
	if tailP > 0 {
		return chans(i64(fullP*int64(d.mr)), int(tailP))
	}
	return nil
}

// planDepthwise plans a depthwise convolution (one input channel per output channel): the
// padded input plane of each channel is copied (phase-split by the column stride), and the
// kernel runs lanes over output columns with one broadcast weight per tap. The weights' zero
// point is subtracted at compile time; Σ (x - xz)·w' = Σ x·w' - xz·Σ w'.
func (d *intDot) planDepthwise(op *ir.Op, lo, hi []int64, shape []int64) string {
	p := d.p
	d.conv = true
	d.xSigned = false // x is widened as it is (sign- or zero-extended)
	d.H, d.W = shape[2], shape[3]
	d.OH, d.OW = hi[2]+1, hi[3]+1
	hp := (d.OH-1)*d.s[0] + (d.KH-1)*d.d[0] + 1
	wp := (d.OW-1)*d.s[1] + (d.KW-1)*d.d[1] + 1
	d.HP = max(hp, d.H+d.pb[0])
	d.WQ = (max(wp, d.W+d.pb[1]) + d.s[1] - 1) / d.s[1]
	L := int64(d.lanes)
	d.nv = int(min(4, (d.OW+L-1)/L))
	if d.HP*d.s[1]*(d.WQ+int64(d.nv)*L+4) > convScratchLimit {
		return "the input plane is too large"
	}
	d.chans = hi[1] - lo[1] + 1
	d.R = d.KH * d.KW
	// one padded plane [HP][s1][row] (emitIntDepthwise)
	d.scratch = d.HP * d.s[1] * ((d.WQ + int64(d.nv)*L + 3) / 4 * 4)
	x := make([]int64, 7)
	copy(x, lo)
	d.xzByte = constData(op, p.xz, x)
	d.dwW = make([]int64, d.chans*d.R)
	d.corr = make([]int64, d.chans)
	for m := int64(0); m < d.chans; m++ {
		x[1] = lo[1] + m
		x[4], x[5], x[6] = 0, 0, 0
		wz := constData(op, p.wz, x)
		sum := int64(0)
		for kh := int64(0); kh < d.KH; kh++ {
			for kw := int64(0); kw < d.KW; kw++ {
				x[5], x[6] = kh, kw
				w := constData(op, p.w, x) - wz
				d.dwW[m*d.R+kh*d.KW+kw] = w
				sum += w
			}
		}
		d.corr[m] = -d.xzByte * sum
		if p.bias >= 0 {
			x[5], x[6] = 0, 0
			d.corr[m] += constData(op, p.bias, x)
		}
	}
	return ""
}

// emitIntDepthwise emits the depthwise kernel planned by planDepthwise.
func (kb *kernelBuilder) emitIntDepthwise(d *intDot) error {
	fb := kb.fb
	op := kb.op
	p := d.p
	L := int64(d.lanes)
	vt := d.vecType()
	bt := types.NewVector(uint64(L), types.I8)
	zero := constant.NewZeroInitializer(vt)
	s1 := d.s[1]
	rowBytes := (d.WQ + int64(d.nv)*L + 3) / 4 * 4
	phaseBytes := rowBytes
	hBytes := s1 * phaseBytes
	total := d.HP * hBytes
	if total != d.scratch {
		return fmt.Errorf("internal error: integer convolution scratch %d, planned %d", total, d.scratch)
	}
	bp := kb.scratch
	wtab := kb.i32Global("dw", d.dwW, 0)
	corr := kb.i32Global("corr", d.corr, 0)
	xw := kb.ops[p.x]
	signed := op.Operands[p.x].Type.Elem == ir.I8
	widen := func(v value.Value) value.Value {
		if signed {
			return fb.cur.NewSExt(v, vt)
		}
		return fb.cur.NewZExt(v, vt)
	}
	nr := int64(d.nv) * L
	pat := int64(int32(uint32(uint8(d.xzByte)) * 0x01010101))
	return kb.outerLoops(d, 2, func(outer []value.Value) error {
		n, mAbs := outer[0], outer[1]
		m := fb.sub(mAbs, i64(d.lo[1]))
		if err := fb.loop(i64(0), i64(total/4-1), 1, "fill", func(iv value.Value) error {
			st := fb.cur.NewStore(constant.NewInt(types.I32, pat), fb.cur.NewBitCast(kb.gep8(bp, fb.mul(iv, i64(4))), types.NewPointer(types.I32)))
			st.Align = 4
			return nil
		}); err != nil {
			return err
		}
		if err := fb.loop(i64(0), i64(d.H-1), 1, "h", func(h value.Value) error {
			base := fb.offset(xw, []value.Value{n, mAbs, h, i64(0)})
			rowOff := fb.mul(fb.add(h, i64(d.pb[0])), i64(hBytes))
			return fb.loop(i64(0), i64(d.W-1), 1, "w", func(w value.Value) error {
				x := fb.cur.NewLoad(types.I8, fb.elemPtr(xw, fb.add(base, w)))
				cw := fb.add(w, i64(d.pb[1]))
				off := fb.add(rowOff, fb.add(fb.mul(fb.cur.NewSRem(cw, i64(s1)), i64(phaseBytes)), fb.cur.NewSDiv(cw, i64(s1))))
				fb.cur.NewStore(x, kb.gep8(bp, off))
				return nil
			})
		}); err != nil {
			return err
		}
		// the taps' weights, broadcast once per channel
		taps := make([]value.Value, d.R)
		for t := range taps {
			w := fb.cur.NewLoad(types.I32, fb.cur.NewGetElementPtr(types.I32, wtab, fb.add(fb.mul(m, i64(d.R)), i64(int64(t)))))
			taps[t] = kb.splat32(d, w)
		}
		cv := kb.splat32(d, fb.cur.NewLoad(types.I32, fb.cur.NewGetElementPtr(types.I32, corr, m)))
		tile := func(oh, ow0 value.Value, nvec, lastLanes int) {
			accs := make([]value.Value, nvec)
			for v := range accs {
				accs[v] = zero
			}
			for kh := int64(0); kh < d.KH; kh++ {
				hrow := fb.add(fb.mul(oh, i64(d.s[0])), i64(kh*d.d[0]))
				for kw := int64(0); kw < d.KW; kw++ {
					src := fb.add(fb.add(fb.mul(hrow, i64(hBytes)), i64((kw*d.d[1])%s1*phaseBytes)), fb.add(ow0, i64((kw*d.d[1])/s1)))
					for v := range accs {
						ld := fb.cur.NewLoad(bt, fb.cur.NewBitCast(kb.gep8(bp, fb.add(src, i64(int64(v)*L))), types.NewPointer(bt)))
						ld.Align = 1
						accs[v] = fb.cur.NewAdd(accs[v], fb.cur.NewMul(widen(ld), taps[kh*d.KW+kw]))
					}
				}
			}
			for v := range accs {
				cnt := d.lanes
				if v == nvec-1 {
					cnt = lastLanes
				}
				off := fb.offset(kb.res, []value.Value{n, mAbs, oh, fb.add(ow0, i64(int64(v)*L))})
				kb.storeLanes(d, fb.cur.NewAdd(accs[v], cv), off, cnt)
			}
		}
		fullCols, colTail := d.OW/nr, d.OW%nr
		return fb.loop(i64(0), i64(d.OH-1), 1, "oh", func(oh value.Value) error {
			if err := fb.loop(i64(0), i64(fullCols-1), 1, "owt", func(owt value.Value) error {
				tile(oh, fb.mul(owt, i64(nr)), d.nv, d.lanes)
				return nil
			}); err != nil {
				return err
			}
			if colTail > 0 {
				nvec := int((colTail + L - 1) / L)
				tile(oh, i64(fullCols*nr), nvec, int(colTail-int64(nvec-1)*L))
			}
			return nil
		})
	})
}

// planConvNHWC plans a channels-last convolution: Y[n, oh, ow, m] = Σ_{c, kh, kw}
// X[n, s0·oh + d0·kh - p0, s1·ow + d1·kw - p1, c]·W[c, kh, kw, m] (+ B[m]), the reads of X
// guarded by the image bounds only. One group (depthwise convolutions keep the per-point nest
// in this layout).
func (d *intDot) planConvNHWC(op *ir.Op, lo, hi []int64) string {
	p := d.p
	if op.Operands[p.xz].Data == nil {
		return "a zero point computed at run time"
	}
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
	for sd := 0; sd < 2; sd++ {
		a := xi[hAx+sd]
		if len(a.Floors) > 0 || len(a.Params) > 0 {
			return "quasi-affine input index"
		}
		for dim := 0; dim < 7; dim++ {
			if c := coefOf(a, dim); c != 0 && dim != 1+sd && dim != 5+sd {
				return "the input index mixes dims"
			}
		}
		d.s[sd], d.d[sd], d.pb[sd] = coefOf(a, 1+sd), coefOf(a, 5+sd), -a.Const
		if d.s[sd] <= 0 || d.d[sd] <= 0 || d.pb[sd] < 0 {
			return "unsupported stride, dilation or padding"
		}
	}
	for _, g := range op.Access[p.x].Pieces[0].Guard {
		okG := !g.Eq
		if okG {
			okG = false
			for sd := 0; sd < 2; sd++ {
				pos := xi[hAx+sd]
				if g.Aff.Equal(pos) || g.Aff.Equal(pos.Neg().AddConst(shape[hAx+sd]-1)) {
					okG = true
				}
			}
		}
		if !okG {
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
	os := op.Result.Type.Shape
	for sd := 0; sd < 2; sd++ {
		e, ok := os[1+sd].IsConst()
		if !ok || lo[1+sd] != 0 || hi[1+sd] != e-1 {
			return "the spatial result is restricted"
		}
	}
	d.OH, d.OW = hi[1]+1, hi[2]+1
	d.C4 = (d.C + 3) / 4
	d.R = d.C * d.KH * d.KW
	d.R4 = d.C4 * d.KH * d.KW
	d.chans = hi[3] - lo[3] + 1
	L := int64(d.lanes)
	d.mr, d.nv = 6, 4
	switch d.kind {
	case dotVNNI256:
		d.mr, d.nv = 6, 2
	case dotAVX2, dotSSE2:
		d.mr, d.nv = 4, 1
	case dotHVX:
		d.mr, d.nv = 4, 4
	case dotGeneric:
		d.mr, d.nv = 4, 2
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
	wsum := make([]int64, d.chans)
	wz := make([]int64, d.chans)
	var bias []int64
	if p.bias >= 0 {
		bias = make([]int64, d.chans)
	}
	tiles := (d.chans + nr - 1) / nr
	d.wPacked = make([]byte, tiles*d.R4*nr*4)
	for m := int64(0); m < d.chans; m++ {
		x[3] = lo[3] + m
		x[4], x[5], x[6] = 0, 0, 0
		wz[m] = constData(op, p.wz, x)
		if wUnsigned {
			wz[m] -= 128
		}
		if bias != nil {
			bias[m] = constData(op, p.bias, x)
		}
		for c := int64(0); c < d.C; c++ {
			for kh := int64(0); kh < d.KH; kh++ {
				for kw := int64(0); kw < d.KW; kw++ {
					x[4], x[5], x[6] = c, kh, kw
					w := constData(op, p.w, x)
					if wUnsigned {
						w -= 128
					}
					wsum[m] += w
					// [channel tile][kh][kw][C4][nr][4]
					d.wPacked[(((((m/nr)*d.KH+kh)*d.KW+kw)*d.C4+c/4)*nr+m%nr)*4+c%4] = byte(int8(w))
				}
			}
		}
	}
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
	vt := d.vecType()
	zero := constant.NewZeroInitializer(d.accType())
	ones := splat(constant.NewInt(types.I32, 0x01010101), d.lanes)
	L := int64(d.lanes)
	nr := int64(d.nv) * L
	tiles := (d.chans + nr - 1) / nr
	pad := int(tiles*nr - d.chans)
	wp := kb.byteGlobal("wpack", d.wPacked)
	corr := kb.i32Global("corr", d.corr, pad)
	var wzp value.Value
	if d.sumX {
		wzp = kb.i32Global("wz", d.wzs, pad)
	}
	xzp := kb.byteGlobal("xz", d.xzBytes)
	xw := kb.ops[p.x]
	var chanStride value.Value
	if d.xNCHW {
		chanStride = xw.strides[1]
	}
	full4, rem := d.C/4, d.C%4
	P := d.OH * d.OW
	return kb.outerLoops(d, 1, func(outer []value.Value) error {
		n := outer[0]
		tile := func(p0, mt value.Value, npix, nvec, lastLanes int) {
			oh := make([]value.Value, npix)
			ow := make([]value.Value, npix)
			for r := range oh {
				pix := fb.add(p0, i64(int64(r)))
				oh[r] = fb.cur.NewSDiv(pix, i64(d.OW))
				ow[r] = fb.cur.NewSRem(pix, i64(d.OW))
			}
			accs := make([]value.Value, npix*nvec)
			for k := range accs {
				accs[k] = zero
			}
			if d.sumX {
				for r := 0; r < npix; r++ {
					accs = append(accs, zero)
				}
			}
			panel := kb.gep8(wp, fb.mul(mt, i64(d.KH*d.KW*d.C4*nr*4)))
			for kh := int64(0); kh < d.KH; kh++ {
				for kw := int64(0); kw < d.KW; kw++ {
					wtap := kb.gep8(panel, i64((kh*d.KW+kw)*d.C4*nr*4))
					src := make([]value.Value, npix)
					al := make([]int64, npix)
					stride := make([]value.Value, npix)
					for r := range src {
						ih := fb.add(fb.mul(oh[r], i64(d.s[0])), i64(kh*d.d[0]-d.pb[0]))
						iw := fb.add(fb.mul(ow[r], i64(d.s[1])), i64(kw*d.d[1]-d.pb[1]))
						in := fb.and1(fb.and1(fb.cur.NewICmp(enum.IPredSGE, ih, i64(0)), fb.cur.NewICmp(enum.IPredSLT, ih, i64(d.H))),
							fb.and1(fb.cur.NewICmp(enum.IPredSGE, iw, i64(0)), fb.cur.NewICmp(enum.IPredSLT, iw, i64(d.W))))
						// clamp the indices so that the address computed for a tap outside the
						// image stays inside the buffer (the select below does not read it)
						ihc := fb.smin(fb.smax(ih, i64(0)), i64(d.H-1))
						iwc := fb.smin(fb.smax(iw, i64(0)), i64(d.W-1))
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
					// byteWord assembles the channel bytes c0 .. c0+cnt-1 of pixel r (0 above)
					byteWord := func(r int, c0 value.Value, cnt int64) value.Value {
						var w value.Value = constant.NewInt(types.I32, 0)
						if d.xSigned && cnt < 4 {
							// broadcast flips every byte: the missing ones start at 0x80
							w = constant.NewInt(types.I32, int64(int32(uint32(0x80808080)>>(8*cnt)<<(8*cnt))))
						}
						for q := int64(0); q < cnt; q++ {
							at := fb.add(c0, i64(q))
							if d.xNCHW {
								at = fb.mul(at, stride[r])
							}
							b := fb.cur.NewLoad(types.I8, kb.gep8(src[r], at))
							w = fb.cur.NewOr(w, fb.cur.NewShl(fb.cur.NewZExt(b, types.I32), constant.NewInt(types.I32, 8*q)))
						}
						return w
					}
					step := func(c4 value.Value, accs []value.Value, word func(r int) value.Value) []value.Value {
						out := make([]value.Value, len(accs))
						wv := make([]value.Value, nvec)
						for v := range wv {
							wv[v] = kb.loadVec(d, kb.gep8(wtap, fb.add(fb.mul(c4, i64(nr*4)), i64(int64(v)*L*4))), 4*L)
						}
						for r := 0; r < npix; r++ {
							w := word(r)
							if d.xSigned {
								w = fb.cur.NewXor(w, constant.NewInt(types.I32, int64(int32(-0x7f7f7f80))))
							}
							xb := kb.splat32(d, w)
							for v := 0; v < nvec; v++ {
								out[r*nvec+v] = kb.dot(d, accs[r*nvec+v], xb, wv[v])
							}
							if d.sumX {
								out[npix*nvec+r] = kb.dot(d, accs[npix*nvec+r], xb, ones)
							}
						}
						return out
					}
					accs = kb.tileLoop(full4, "c4", accs, func(c4 value.Value, accs []value.Value) []value.Value {
						return step(c4, accs, func(r int) value.Value {
							if d.xNCHW {
								return byteWord(r, fb.mul(c4, i64(4)), 4)
							}
							// the xz bytes are 4-byte aligned; X words when al says so
							return kb.load32(kb.gep8(src[r], fb.mul(c4, i64(4))), min(al[r], 4))
						})
					})
					if rem > 0 {
						accs = step(i64(full4), accs, func(r int) value.Value {
							return byteWord(r, i64(4*full4), rem)
						})
					}
				}
			}
			m0 := fb.mul(mt, i64(nr))
			for v := 0; v < nvec; v++ {
				ch := fb.add(m0, i64(int64(v)*L))
				cl := fb.cur.NewLoad(vt, fb.cur.NewBitCast(fb.cur.NewGetElementPtr(types.I32, corr, ch), types.NewPointer(vt)))
				cl.Align = 4
				var wzv value.Value
				if d.sumX {
					l := fb.cur.NewLoad(vt, fb.cur.NewBitCast(fb.cur.NewGetElementPtr(types.I32, wzp, ch), types.NewPointer(vt)))
					l.Align = 4
					wzv = l
				}
				cnt := d.lanes
				if v == nvec-1 {
					cnt = lastLanes
				}
				for r := 0; r < npix; r++ {
					var val value.Value = fb.cur.NewAdd(kb.finish(d, accs[r*nvec+v]), cl)
					if d.sumX {
						val = fb.cur.NewSub(val, fb.cur.NewMul(wzv, kb.finish(d, accs[npix*nvec+r])))
					}
					off := fb.offset(kb.res, []value.Value{n, oh[r], ow[r], fb.add(ch, i64(d.lo[3]))})
					kb.storeLanes(d, val, off, cnt)
				}
			}
		}
		fullM, tailM := d.chans/nr, d.chans%nr
		fullP, tailP := P/int64(d.mr), P%int64(d.mr)
		chans := func(p0 value.Value, npix int) error {
			if err := fb.loop(i64(0), i64(fullM-1), 1, "mt", func(mt value.Value) error {
				tile(p0, mt, npix, d.nv, d.lanes)
				return nil
			}); err != nil {
				return err
			}
			if tailM > 0 {
				nvec := int((tailM + L - 1) / L)
				tile(p0, i64(fullM), npix, nvec, int(tailM-int64(nvec-1)*L))
			}
			return nil
		}
		if err := fb.loop(i64(0), i64(fullP-1), 1, "pt", func(pt value.Value) error {
			return chans(fb.mul(pt, i64(int64(d.mr))), d.mr)
		}); err != nil {
			return err
		}
		if tailP > 0 {
			return chans(i64(fullP*int64(d.mr)), int(tailP))
		}
		return nil
	})
}

// planDepthwiseNHWC plans a channels-last depthwise convolution: Y[n, oh, ow, m] = Σ_{kh, kw}
// X[n, s0·oh + d0·kh - p0, s1·ow + d1·kw - p1, m]·W[kh, kw, m] (+ B[m]): lanes over channels
// (contiguous in X, W and Y), rows over output pixels, i32 products of the widened bytes. The
// weights' zero point is subtracted at compile time, Σ (x - xz)·w' = Σ x·w' - xz·Σ w'.
func (d *intDot) planDepthwiseNHWC(op *ir.Op, lo, hi []int64, shape []int64) string {
	p := d.p
	flo, fhi, err := constBounds(op.Full)
	if err != nil {
		return err.Error()
	}
	if flo[4] != 0 || fhi[4] != 0 {
		return "more than one input channel per group"
	}
	os := op.Result.Type.Shape
	for sd := 0; sd < 2; sd++ {
		e, ok := os[1+sd].IsConst()
		if !ok || lo[1+sd] != 0 || hi[1+sd] != e-1 {
			return "the spatial result is restricted"
		}
	}
	d.conv, d.nhwc, d.depthwise = true, true, true
	d.H, d.W, d.C = shape[1], shape[2], shape[3]
	d.KH, d.KW = fhi[5]+1, fhi[6]+1
	d.OH, d.OW = hi[1]+1, hi[2]+1
	d.chans = hi[3] - lo[3] + 1
	if lo[3] < 0 || hi[3] >= d.C {
		return "channels outside the input"
	}
	d.R = d.KH * d.KW
	L := int64(d.lanes)
	d.mr, d.nv = 4, 2
	d.nv = int(min(int64(d.nv), (d.chans+L-1)/L))
	nr := int64(d.nv) * L
	mpad := (d.chans + nr - 1) / nr * nr
	x := make([]int64, 7)
	copy(x, lo)
	xz := constData(op, p.xz, x)
	d.xzBytes = make([]byte, mpad)
	for i := range d.xzBytes {
		d.xzBytes[i] = byte(xz)
	}
	d.dwW = make([]int64, d.R*mpad)
	d.corr = make([]int64, mpad)
	for m := int64(0); m < d.chans; m++ {
		x[3] = lo[3] + m
		x[4], x[5], x[6] = 0, 0, 0
		wz := constData(op, p.wz, x)
		sum := int64(0)
		for t := int64(0); t < d.R; t++ {
			x[5], x[6] = t/d.KW, t%d.KW
			w := constData(op, p.w, x) - wz
			d.dwW[t*mpad+m] = w
			sum += w
		}
		d.corr[m] = -xz * sum
		if p.bias >= 0 {
			x[5], x[6] = 0, 0
			d.corr[m] += constData(op, p.bias, x)
		}
	}
	return ""
}

// emitDepthwiseNHWC emits the kernel planned by planDepthwiseNHWC: per image, tiles of mr output
// pixels by nv vectors of channels; a tap outside the image reads the zero point bytes.
func (kb *kernelBuilder) emitDepthwiseNHWC(d *intDot) error {
	fb := kb.fb
	op := kb.op
	p := d.p
	L := int64(d.lanes)
	vt := d.vecType()
	bt := types.NewVector(uint64(L), types.I8)
	zero := constant.NewZeroInitializer(vt)
	nr := int64(d.nv) * L
	mpad := int64(len(d.xzBytes))
	wtab := kb.i32Global("dw", d.dwW, 0)
	corr := kb.i32Global("corr", d.corr, 0)
	xzp := kb.byteGlobal("xz", d.xzBytes)
	xw := kb.ops[p.x]
	signed := op.Operands[p.x].Type.Elem == ir.I8
	widen := func(v value.Value) value.Value {
		if signed {
			return fb.cur.NewSExt(v, vt)
		}
		return fb.cur.NewZExt(v, vt)
	}
	P := d.OH * d.OW
	return kb.outerLoops(d, 1, func(outer []value.Value) error {
		n := outer[0]
		tile := func(p0, mt value.Value, npix, nvec, lastLanes int) {
			m0 := fb.mul(mt, i64(nr))
			oh := make([]value.Value, npix)
			ow := make([]value.Value, npix)
			for r := range oh {
				pix := fb.add(p0, i64(int64(r)))
				oh[r] = fb.cur.NewSDiv(pix, i64(d.OW))
				ow[r] = fb.cur.NewSRem(pix, i64(d.OW))
			}
			accs := make([]value.Value, npix*nvec)
			for k := range accs {
				accs[k] = zero
			}
			for t := int64(0); t < d.R; t++ {
				kh, kw := t/d.KW, t%d.KW
				wv := make([]value.Value, nvec)
				for v := range wv {
					l := fb.cur.NewLoad(vt, fb.cur.NewBitCast(fb.cur.NewGetElementPtr(types.I32, wtab, fb.add(i64(t*mpad), fb.add(m0, i64(int64(v)*L)))), types.NewPointer(vt)))
					l.Align = 4
					wv[v] = l
				}
				for r := 0; r < npix; r++ {
					ih := fb.add(fb.mul(oh[r], i64(d.s[0])), i64(kh*d.d[0]-d.pb[0]))
					iw := fb.add(fb.mul(ow[r], i64(d.s[1])), i64(kw*d.d[1]-d.pb[1]))
					in := fb.and1(fb.and1(fb.cur.NewICmp(enum.IPredSGE, ih, i64(0)), fb.cur.NewICmp(enum.IPredSLT, ih, i64(d.H))),
						fb.and1(fb.cur.NewICmp(enum.IPredSGE, iw, i64(0)), fb.cur.NewICmp(enum.IPredSLT, iw, i64(d.W))))
					ihc := fb.smin(fb.smax(ih, i64(0)), i64(d.H-1))
					iwc := fb.smin(fb.smax(iw, i64(0)), i64(d.W-1))
					at := fb.cur.NewBitCast(fb.elemPtr(xw, fb.offset(xw, []value.Value{n, ihc, iwc, fb.add(m0, i64(d.lo[3]))})), types.I8Ptr)
					src := fb.cur.NewSelect(in, at, kb.gep8(xzp, m0))
					for v := 0; v < nvec; v++ {
						var xv value.Value
						if v == nvec-1 && lastLanes < d.lanes {
							// the channels end inside this vector: bytes one by one (a whole
							// vector could read past the tensor)
							var b value.Value = constant.NewZeroInitializer(bt)
							for l := 0; l < lastLanes; l++ {
								e := fb.cur.NewLoad(types.I8, kb.gep8(src, i64(int64(v)*L+int64(l))))
								b = fb.cur.NewInsertElement(b, e, i32c(int64(l)))
							}
							xv = b
						} else {
							ld := fb.cur.NewLoad(bt, fb.cur.NewBitCast(kb.gep8(src, i64(int64(v)*L)), types.NewPointer(bt)))
							ld.Align = 1
							xv = ld
						}
						accs[r*nvec+v] = fb.cur.NewAdd(accs[r*nvec+v], fb.cur.NewMul(widen(xv), wv[v]))
					}
				}
			}
			for v := 0; v < nvec; v++ {
				ch := fb.add(m0, i64(int64(v)*L))
				cl := fb.cur.NewLoad(vt, fb.cur.NewBitCast(fb.cur.NewGetElementPtr(types.I32, corr, ch), types.NewPointer(vt)))
				cl.Align = 4
				cnt := d.lanes
				if v == nvec-1 {
					cnt = lastLanes
				}
				for r := 0; r < npix; r++ {
					off := fb.offset(kb.res, []value.Value{n, oh[r], ow[r], fb.add(ch, i64(d.lo[3]))})
					kb.storeLanes(d, fb.cur.NewAdd(accs[r*nvec+v], cl), off, cnt)
				}
			}
		}
		fullM, tailM := d.chans/nr, d.chans%nr
		fullP, tailP := P/int64(d.mr), P%int64(d.mr)
		chans := func(p0 value.Value, npix int) error {
			if err := fb.loop(i64(0), i64(fullM-1), 1, "mt", func(mt value.Value) error {
				tile(p0, mt, npix, d.nv, d.lanes)
				return nil
			}); err != nil {
				return err
			}
			if tailM > 0 {
				nvec := int((tailM + L - 1) / L)
				tile(p0, i64(fullM), npix, nvec, int(tailM-int64(nvec-1)*L))
			}
			return nil
		}
		if err := fb.loop(i64(0), i64(fullP-1), 1, "pt", func(pt value.Value) error {
			return chans(fb.mul(pt, i64(int64(d.mr))), d.mr)
		}); err != nil {
			return err
		}
		if tailP > 0 {
			return chans(i64(fullP*int64(d.mr)), int(tailP))
		}
		return nil
	})
}
