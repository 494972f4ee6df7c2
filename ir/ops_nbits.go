// This file holds matmul_nbits, the product of a float matrix with block-quantized 4- or 8-bit
// weights stored as onnxruntime's MatMulNBits stores them: packed bytes per output column,
// scales and zero points per block of the inner dim. Its form reads the packed bytes directly
// (the weight nibble of inner index k is byte floor(k/2), shifted by 4·(k mod 2)), so the
// weights are never unpacked into a float tensor, and every access is quasi-affine: the element
// map is exact and DIE sees through it (last-token logits read one row of A). matmul_nbits_q8
// is the same product with A quantized to int8 per block (onnxruntime's accuracy_level 4: the
// frontend quantizes A with elementwise ops and a block max): integer products, scaled by
// the weights' and A's block scales.

package ir

import (
	"github.com/graphc/graphc/volume"
)

func init() {
	register(&OpDef{
		Name: "matmul_nbits",
		Summary: "y[.., n] = Σ_k a[.., k] · (q[n, k] - zp[n, k / block]) · scale[n, k / block]: A[.., K] times the transpose of " +
			"packed bits-bit weights B[N, blocks, block · bits / 8] or [N, blocks · block · bits / 8] (u8, element k of row n in byte k·bits/8, low bits first), " +
			"scales [N, blocks] or [N · blocks] and optional packed zero points [N, ceil(blocks · bits / 8)] or flat (default 2^(bits-1)); blocks = ceil(K / block)",
		Example:     "%y = matmul_nbits(%a, %b, %s) {bits = 4, block_size = 32} : f32[1, 64]",
		MinOperands: 3, MaxOperands: 4,
		Attrs: []AttrDef{
			{Name: "bits", Kind: AttrInt, Default: dflt(IntAttr(4)), Doc: "bits per weight: 4 or 8"},
			{Name: "block_size", Kind: AttrInt, Default: nil, Doc: "weights per scale along K (a power of two, at least 16)"},
		},
		Build: func(b *Builder) error { return buildMatmulNBits(b, false) },
	})
	register(&OpDef{
		Name: "matmul_nbits_q8",
		Summary: "y[.., n] = Σ_k qa[.., k] · (q[n, k] - zp[n, k / block]) · scale[n, k / block] · sa[.., k / block]: matmul_nbits with A " +
			"quantized to int8 per block of K (qa i8[.., K], its scales sa f32[.., blocks]; onnxruntime's accuracy_level 4); " +
			"K is a whole number of blocks (A zero-padded), the products integers",
		Example:     "%y = matmul_nbits_q8(%qa, %sa, %b, %s) {bits = 4, block_size = 32} : f32[1, 64]",
		MinOperands: 4, MaxOperands: 5,
		Attrs: []AttrDef{
			{Name: "bits", Kind: AttrInt, Default: dflt(IntAttr(4)), Doc: "bits per weight: 4 or 8"},
			{Name: "block_size", Kind: AttrInt, Default: nil, Doc: "weights (and values of A) per scale along K (a power of two, at least 16)"},
		},
		Build: func(b *Builder) error { return buildMatmulNBits(b, true) },
	})
}

// buildMatmulNBits builds matmul_nbits, or matmul_nbits_q8 (q8: A quantized, its block
// scales operand 1, the weights' operands one further).
func buildMatmulNBits(b *Builder, q8 bool) error {
	w0 := 1
	if q8 {
		w0 = 2
	}
	a, w, s := b.In(0), b.In(w0), b.In(w0+1)
	bits := b.Op.Attrs["bits"].Int
	block := b.Op.Attrs["block_size"].Int
	if bits != 4 && bits != 8 {
		return b.Errorf("bits must be 4 or 8, got %d", bits)
	}
	if block < 2 || block&(block-1) != 0 {
		return b.Errorf("block_size must be a power of two of at least 2, got %d", block)
	}
	aElem := F32
	if q8 {
		aElem = I8
	}
	if a.Rank() < 1 || a.Elem != aElem {
		return b.Errorf("A must be an %s tensor of rank >= 1, got %s", aElem, a)
	}
	K, ok := a.Dim(a.Rank() - 1)
	if !ok {
		return b.Errorf("A's inner dim %s must be static", a.Shape[a.Rank()-1].String())
	}
	perByte := 8 / bits
	kb := (K + block - 1) / block
	if q8 {
		if K%block != 0 {
			return b.Errorf("A's inner dim %d must be a whole number of blocks of %d", K, block)
		}
		sa := b.In(1)
		want := TensorType{Elem: F32, Shape: append(append([]volume.Aff{}, a.Shape[:a.Rank()-1]...), volume.AffConst(kb))}
		if !sa.Equal(want) {
			return b.Errorf("A's block scales must be %s, got %s", want, sa)
		}
	}
	blob := block / perByte
	wShape, ok := w.StaticShape()
	if w.Elem != U8 || !ok || len(wShape) < 2 || len(wShape) > 3 || len(wShape) == 3 && (wShape[1] != kb || wShape[2] != blob) ||
		len(wShape) == 2 && wShape[1] != kb*blob {
		return b.Errorf("B must be u8 [N, %d, %d] or [N, %d] (%d blocks of %d %d-bit weights), got %s", kb, blob, kb*blob, kb, block, bits, w)
	}
	N := wShape[0]
	// flat checks that a per-block parameter holds N rows of per elements, as [N·per] or [N, per]
	flat := func(t TensorType, elem DType, per int64) bool {
		sh, ok := t.StaticShape()
		return ok && t.Elem == elem && (len(sh) == 1 && sh[0] == N*per || len(sh) == 2 && sh[0] == N && sh[1] == per)
	}
	if !flat(s, F32, kb) {
		return b.Errorf("scales must be f32[%d, %d] or f32[%d], got %s", N, kb, N*kb, s)
	}
	zb := (kb + perByte - 1) / perByte
	hasZP := b.NumIn() == w0+3
	if hasZP && !flat(b.In(w0+2), U8, zb) {
		return b.Errorf("zero points must be u8[%d, %d] or u8[%d], got %s", N, zb, N*zb, b.In(w0+2))
	}
	lead := a.Rank() - 1
	dims := dimNames(lead + 2)
	ext := append(append([]volume.Aff{}, a.Shape[:lead]...), volume.AffConst(N), volume.AffConst(K))
	iters := make([]IterKind, len(dims))
	iters[len(iters)-1] = Reduction
	b.SetBox(dims, ext, iters)
	nd, kd := lead, lead+1
	k := volume.AffDim(kd)
	n := volume.AffDim(nd)
	// perBlock reads a [N, per] or [N·per] parameter at (n, i)
	perBlock := func(t TensorType, per int64, i volume.Aff) Access {
		if t.Rank() == 1 {
			return AffAccess(n.Mul(per).Add(i))
		}
		return AffAccess(n, i)
	}
	wAcc := AffAccess(n, k.FloorDiv(perByte))
	if w.Rank() == 3 {
		wAcc = AffAccess(n, k.FloorDiv(block), k.FloorDiv(perByte).Sub(k.FloorDiv(block).Mul(blob)))
	}
	b.Op.Access = []Access{AffAccess(append(identity(0, lead), k)...)}
	if q8 {
		b.Op.Access = append(b.Op.Access, AffAccess(append(identity(0, lead), k.FloorDiv(block))...))
	}
	b.Op.Access = append(b.Op.Access, wAcc, perBlock(s, kb, k.FloorDiv(block)))
	if hasZP {
		b.Op.Access = append(b.Op.Access, perBlock(b.In(w0+2), zb, k.FloorDiv(block*perByte)))
	}
	if q8 {
		b.Op.Body = MatMulNBitsQ8Body(bits, block, kd, hasZP)
	} else {
		b.Op.Body = MatMulNBitsBody(bits, block, kd, hasZP)
	}
	b.Op.Reduce = ReduceSum
	b.Op.Out = AffAccess(identity(0, lead+1)...)
	b.Result = TensorType{Elem: F32, Shape: append(append([]volume.Aff{}, a.Shape[:lead]...), volume.AffConst(N))}
	return nil
}

// MatMulNBitsBody returns the body of matmul_nbits with inner dim kd: a · (q - zp) · scale,
// q the bits-bit field of operand 1's byte for element k = idx(kd), zp operand 3's field for
// block k / block (or 2^(bits-1) without zero points). Lowering recognises the op by it.
func MatMulNBitsBody(bits, block int64, kd int, zp bool) *Scalar {
	unpack := func(x, e *Scalar) *Scalar { return nbitsField(bits, x, e) }
	q := unpack(Read(1, U8), Index(kd))
	z := ConstI(I32, 1<<(bits-1))
	if zp {
		z = unpack(Read(3, U8), Bin(SDiv, Index(kd), ConstI(I64, block)))
	}
	wv := Bin(SMul, Cast(Bin(SSub, q, z), F32), Read(2, F32))
	return Bin(SMul, Read(0, F32), wv)
}

// MatMulNBitsQ8Body returns the body of matmul_nbits_q8 with inner dim kd: the integer
// product qa · (q - zp) (exact in f32: at most 127 · 255) times the block's scales, weights'
// and A's: f32(qa · (q - zp)) · (scale · sa). Lowering recognises the op by it.
func MatMulNBitsQ8Body(bits, block int64, kd int, zp bool) *Scalar {
	unpack := func(x, e *Scalar) *Scalar { return nbitsField(bits, x, e) }
	q := unpack(Read(2, U8), Index(kd))
	z := ConstI(I32, 1<<(bits-1))
	if zp {
		z = unpack(Read(4, U8), Bin(SDiv, Index(kd), ConstI(I64, block)))
	}
	prod := Cast(Bin(SMul, Cast(Read(0, I8), I32), Bin(SSub, q, z)), F32)
	return Bin(SMul, prod, Bin(SMul, Read(3, F32), Read(1, F32)))
}

// nbitsField extracts, as an i32, the bits-bit field of byte x that holds element e (e's index
// in the packed row): (x >> bits·(e mod perByte)) mod 2^bits.
func nbitsField(bits int64, x, e *Scalar) *Scalar {
	if bits == 8 {
		return Cast(x, I32)
	}
	sh := Cast(Bin(SMul, Bin(SRem, e, ConstI(I64, 8/bits)), ConstI(I64, bits)), U8)
	return Cast(Bin(SRem, Bin(SShr, x, sh), ConstI(U8, 1<<bits)), I32)
}
