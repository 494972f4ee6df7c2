// This file holds matmul_nbits, the product of a float matrix with block-quantized 4- or 8-bit
// weights stored as onnxruntime's MatMulNBits stores them: packed bytes per output column,
// scales and zero points per block of the inner dim. Its form reads the packed bytes directly
// (the weight nibble of inner index k is byte floor(k/2), shifted by 4·(k mod 2)), so the
// weights are never unpacked into a float tensor, and every access is quasi-affine: the element
// map is exact and DIE sees through it (last-token logits read one row of A).

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
		Build: buildMatmulNBits,
	})
}

func buildMatmulNBits(b *Builder) error {
	a, w, s := b.In(0), b.In(1), b.In(2)
	bits := b.Op.Attrs["bits"].Int
	block := b.Op.Attrs["block_size"].Int
	if bits != 4 && bits != 8 {
		return b.Errorf("bits must be 4 or 8, got %d", bits)
	}
	if block < 2 || block&(block-1) != 0 {
		return b.Errorf("block_size must be a power of two of at least 2, got %d", block)
	}
	if a.Rank() < 1 || a.Elem != F32 {
		return b.Errorf("A must be an f32 tensor of rank >= 1, got %s", a)
	}
	K, ok := a.Dim(a.Rank() - 1)
	if !ok {
		return b.Errorf("A's inner dim %s must be static", a.Shape[a.Rank()-1].String())
	}
	perByte := 8 / bits
	kb := (K + block - 1) / block
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
	if b.NumIn() == 4 && !flat(b.In(3), U8, zb) {
		return b.Errorf("zero points must be u8[%d, %d] or u8[%d], got %s", N, zb, N*zb, b.In(3))
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
	b.Op.Access = []Access{AffAccess(append(identity(0, lead), k)...), wAcc, perBlock(s, kb, k.FloorDiv(block))}
	if b.NumIn() == 4 {
		b.Op.Access = append(b.Op.Access, perBlock(b.In(3), zb, k.FloorDiv(block*perByte)))
	}
	b.Op.Body = MatMulNBitsBody(bits, block, kd, b.NumIn() == 4)
	b.Op.Reduce = ReduceSum
	b.Op.Out = AffAccess(identity(0, lead+1)...)
	b.Result = TensorType{Elem: F32, Shape: append(append([]volume.Aff{}, a.Shape[:lead]...), volume.AffConst(N))}
	return nil
}

// MatMulNBitsBody returns the body of matmul_nbits with inner dim kd: a · (q - zp) · scale,
// q the bits-bit field of operand 1's byte for element k = idx(kd), zp operand 3's field for
// block k / block (or 2^(bits-1) without zero points). Lowering recognises the op by it.
func MatMulNBitsBody(bits, block int64, kd int, zp bool) *Scalar {
	perByte := 8 / bits
	// unpack extracts the bits-bit field of byte x that holds element e (e's index in the
	// packed row): (x >> bits·(e mod perByte)) mod 2^bits.
	unpack := func(x, e *Scalar) *Scalar {
		if bits == 8 {
			return Cast(x, I32)
		}
		sh := Cast(Bin(SMul, Bin(SRem, e, ConstI(I64, perByte)), ConstI(I64, bits)), U8)
		return Cast(Bin(SRem, Bin(SShr, x, sh), ConstI(U8, 1<<bits)), I32)
	}
	q := unpack(Read(1, U8), Index(kd))
	z := ConstI(I32, 1<<(bits-1))
	if zp {
		z = unpack(Read(3, U8), Bin(SDiv, Index(kd), ConstI(I64, block)))
	}
	wv := Bin(SMul, Cast(Bin(SSub, q, z), F32), Read(2, F32))
	return Bin(SMul, Read(0, F32), wv)
}
