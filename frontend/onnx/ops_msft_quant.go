// This file imports onnxruntime's block-quantized weight ops of com.microsoft: MatMulNBits
// (4- and 8-bit weights with per-block scales and packed zero points) as the catalogue's
// matmul_nbits, which reads the packed bytes in place, and GatherBlockQuantized (quantized
// embeddings) as a gather of the packed rows, their scales and zero points followed by the
// unpacking and dequantization of the gathered rows only.

package onnx

import (
	"fmt"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

func init() {
	registerDomainOp(MsftDomain, "MatMulNBits", importMatMulNBits,
		"bits 4 and 8, any block_size ≥ 16 that is a power of two, scales [N·blocks] or [N, blocks], optional packed u8 zero points (default 2^(bits-1)), "+
			"optional bias; matmul_nbits reads the packed weights in place (never a float copy). Computed in float32 (accuracy_level 0-3); "+
			"4-bit weights at accuracy_level 4 take onnxruntime's int8 form: A quantized per block (scale max|a|/127, round half to even), "+
			"integer products scaled per block (matmul_nbits_q8); 8-bit weights at level 4 stay float32 (onnxruntime quantizes A there too); "+
			"float zero points and g_idx are not supported")
	registerDomainOp(MsftDomain, "GatherBlockQuantized", importGatherBlockQuantized,
		"4-bit data (int4, uint4, or uint8 with bits = 4) or 8-bit uint8 data, blocks along quantize_axis, scales and optional zero points; "+
			"gathers the packed rows first and dequantizes only them (gather_axis ≠ quantize_axis)")
}

// constDim returns dim d of v as a static extent (ok=false when it is symbolic).
func constDim(v *ir.Value, d int) (int64, bool) { return v.Type.Dim(d) }

func importMatMulNBits(c *nodeCtx) error {
	e := c.emitter()
	a0, b, scales := e.In(0), e.In(1), e.In(2)
	if e.err != nil {
		return e.err
	}
	K, N := c.AttrInt("K", 0), c.AttrInt("N", 0)
	bits, block := c.AttrInt("bits", 4), c.AttrInt("block_size", 0)
	if bits != 4 && bits != 8 {
		return fmt.Errorf("%w: bits = %d (4 and 8 are supported)", ErrUnsupported, bits)
	}
	if K <= 0 || N <= 0 || block < 16 || block&(block-1) != 0 {
		return fmt.Errorf("%w: K = %d and N = %d must be positive and block_size = %d a power of two of at least 16", ErrInvalid, K, N, block)
	}
	if c.HasInput(4) {
		return fmt.Errorf("%w: g_idx (act-order group indices)", ErrUnsupported)
	}
	t := a0.Type.Elem
	if t != ir.F32 && t != ir.F16 && t != ir.BF16 {
		return fmt.Errorf("%w: A must be a float tensor, got %s", ErrInvalid, a0.Type)
	}
	if a0.Type.Rank() < 1 || !a0.Type.Shape[a0.Type.Rank()-1].Equal(volume.AffConst(K)) {
		return fmt.Errorf("%w: A %s must have K = %d as its last dim", ErrInvalid, a0.Type, K)
	}
	kb := (K + block - 1) / block
	blob := block * bits / 8
	if b.Type.Elem != ir.U8 || staticElems(b) != N*kb*blob {
		return fmt.Errorf("%w: B must be u8 [%d, %d, %d], got %s", ErrInvalid, N, kb, blob, b.Type)
	}
	if !scales.Type.Elem.IsFloat() || staticElems(scales) != N*kb {
		return fmt.Errorf("%w: scales must hold %d·%d floats, got %s", ErrInvalid, N, kb, scales.Type)
	}
	// B [N, blocks, blob], scales [N·blocks] or [N, blocks] and zero points as they are: the
	// op reads them in place (a reshape would copy large ones on every call)
	sc := scales
	if sc.Type.Elem != ir.F32 {
		sc = e.Cast(sc, ir.F32, "")
	}
	ops := []*ir.Value{e.Cast(a0, ir.F32, ""), b, sc}
	kind := "matmul_nbits"
	if c.AttrInt("accuracy_level", 0) == 4 && bits == 4 {
		// onnxruntime's CompInt8: A quantized to int8 per block of K
		qa, sa := e.quantizeBlocks(ops[0], K, block)
		ops = []*ir.Value{qa, sa, b, sc}
		kind = "matmul_nbits_q8"
	}
	w0 := len(ops) - 2 // the packed weights' operand
	if c.HasInput(3) {
		zp := e.In(3)
		if e.err != nil {
			return e.err
		}
		perByte := 8 / bits
		zb := (kb + perByte - 1) / perByte
		if zp.Type.Elem != ir.U8 {
			return fmt.Errorf("%w: zero points of type %s (packed u8 zero points are supported)", ErrUnsupported, zp.Type.Elem)
		}
		if staticElems(zp) != N*zb {
			return fmt.Errorf("%w: zero points must hold %d·%d bytes, got %s", ErrInvalid, N, zb, zp.Type)
		}
		if zp.Type.Rank() != 1 && zp.Type.Rank() != 2 {
			zp = e.reshape(zp, volume.AffConst(N*zb))
		}
		ops = append(ops, zp)
	}
	if b.Type.Rank() != 3 && b.Type.Rank() != 2 {
		ops[w0] = e.reshape(b, volume.AffConst(N), volume.AffConst(kb), volume.AffConst(blob))
	}
	if scales.Type.Rank() != 1 && scales.Type.Rank() != 2 {
		ops[w0+1] = e.reshape(ops[w0+1], volume.AffConst(N*kb))
	}
	y := e.Op(kind, "", ir.Attrs{"bits": ir.IntAttr(bits), "block_size": ir.IntAttr(block)}, ops...)
	if c.HasInput(5) {
		y = e.Op("add", "", nil, y, e.Cast(e.In(5), ir.F32, ""))
	}
	e.Out(0, e.Cast(y, t, c.Output(0)))
	return e.Done()
}

// quantizeBlocks quantizes the f32 tensor a [.., K] to int8 per block of K as onnxruntime's
// MLAS does for accuracy_level 4 (QuantizeARow_CompInt8): per block, m = max |a| (a tail
// block over its elements only), scale m / 127, q = round_half_even(a · (127 / m)) (0 when
// m = 0). It returns q [.., K rounded up to blocks] (the tail zero-padded) and the scales
// [.., blocks].
func (e *emitter) quantizeBlocks(a *ir.Value, K, block int64) (q, scale *ir.Value) {
	if a == nil || e.err != nil {
		return nil, nil
	}
	r := a.Type.Rank()
	kb := (K + block - 1) / block
	lead := a.Type.Shape[:r-1]
	if pad := kb*block - K; pad > 0 {
		pads := make([]int64, 2*r)
		pads[2*r-1] = pad
		a = e.Op("pad", "", ir.Attrs{"pads": ir.IntsAttr(pads...)}, a)
	}
	shape := func(last ...int64) []volume.Aff {
		s := append([]volume.Aff{}, lead...)
		for _, x := range last {
			s = append(s, volume.AffConst(x))
		}
		return s
	}
	blocks := e.reshape(a, shape(kb, block)...)
	m := e.Op("reduce_max", "", ir.Attrs{"axes": ints([]int{r}), "keepdims": ir.IntAttr(1)}, e.Op("abs", "", nil, blocks))
	inv := e.Op("where", "", nil, e.Op("equal", "", nil, m, e.Scalar(ir.F32, 0)), e.Scalar(ir.F32, 0),
		e.Op("div", "", nil, e.Scalar(ir.F32, 127), m))
	qb := e.Cast(e.Op("round", "", nil, e.Op("mul", "", nil, blocks, inv)), ir.I8, "")
	return e.reshape(qb, shape(kb*block)...), e.reshape(e.Op("div", "", nil, m, e.Scalar(ir.F32, 127)), shape(kb)...)
}

// unpackNibbles returns the 4-bit fields of the u8 tensor x as u8 values, twice as many along
// the last axis: element 2j is byte j's low nibble, 2j + 1 its high nibble.
func (e *emitter) unpackNibbles(x *ir.Value) *ir.Value {
	if x == nil || e.err != nil {
		return nil
	}
	s := x.Type.Shape
	r := len(s)
	lo := e.Op("bitwise_and", "", nil, x, e.Scalar(ir.U8, 15))
	hi := e.Op("shift_right", "", nil, x, e.Scalar(ir.U8, 4))
	col := append(append([]volume.Aff{}, s...), volume.AffConst(1))
	pair := e.Op("concat", "", ir.Attrs{"axis": ir.IntAttr(int64(r))}, e.reshape(lo, col...), e.reshape(hi, col...))
	out := append(append([]volume.Aff{}, s[:r-1]...), s[r-1].Mul(2))
	return e.reshape(pair, out...)
}

func importGatherBlockQuantized(c *nodeCtx) error {
	e := c.emitter()
	data, idx, scales := e.In(0), e.In(1), e.In(2)
	if e.err != nil {
		return e.err
	}
	r := data.Type.Rank()
	gax, err := resolveAxes([]int64{c.AttrInt("gather_axis", 0)}, r)
	if err != nil {
		return err
	}
	qax, err := resolveAxes([]int64{c.AttrInt("quantize_axis", int64(r-1))}, r)
	if err != nil {
		return err
	}
	if gax[0] == qax[0] {
		return fmt.Errorf("%w: gather_axis = quantize_axis", ErrUnsupported)
	}
	block := c.AttrInt("block_size", 128)
	if block < 16 || block&(block-1) != 0 {
		return fmt.Errorf("%w: block_size = %d must be a power of two of at least 16", ErrInvalid, block)
	}
	if !scales.Type.Elem.IsFloat() || scales.Type.Rank() != r {
		return fmt.Errorf("%w: scales must be a float tensor of data's rank, got %s", ErrInvalid, scales.Type)
	}
	packed := data.Type.Elem == ir.U8 && c.AttrInt("bits", 4) == 4
	switch {
	case data.Type.Elem == ir.I4 || data.Type.Elem == ir.U4 || packed:
	case data.Type.Elem == ir.U8 && c.AttrInt("bits", 4) == 8:
	default:
		return fmt.Errorf("%w: data must be int4, uint4 or uint8 (bits 4 or 8), got %s", ErrInvalid, data.Type.Elem)
	}
	if packed && qax[0] != r-1 {
		return fmt.Errorf("%w: uint8-packed data quantized along axis %d (the last axis is supported)", ErrUnsupported, qax[0])
	}
	var zp *ir.Value
	if c.HasInput(3) {
		zp = e.In(3)
		if e.err != nil {
			return e.err
		}
		if zp.Type.Elem != data.Type.Elem || zp.Type.Rank() != r {
			return fmt.Errorf("%w: zero points must have data's type and rank, got %s", ErrInvalid, zp.Type)
		}
	}
	if !idx.Type.Elem.IsInt() {
		return fmt.Errorf("%w: indices must be integers, got %s", ErrInvalid, idx.Type)
	}
	gather := func(v *ir.Value) *ir.Value {
		return e.Op("gather", "", ir.Attrs{"axis": ir.IntAttr(int64(gax[0]))}, v, idx)
	}
	q, s := gather(data), gather(scales)
	if zp != nil {
		zp = gather(zp)
	}
	if packed {
		q = e.unpackNibbles(q)
		if zp != nil {
			zp = e.unpackNibbles(zp)
			if zp != nil && s != nil && !zp.Type.Shape[zp.Type.Rank()-1].Equal(s.Type.Shape[s.Type.Rank()-1]) {
				// an odd number of blocks: the last byte's high nibble is padding
				zp = e.Op("slice", "", ir.Attrs{"starts": ir.IntsAttr(0), "ends": ir.IntsAttr(scalesLast(s)),
					"axes": ir.IntsAttr(int64(zp.Type.Rank() - 1)), "steps": ir.IntsAttr(1)}, zp)
			}
		}
	}
	if zp == nil {
		def := 0.0
		if data.Type.Elem == ir.U8 {
			def = 8
			if !packed {
				def = 128
			}
		}
		if e.err != nil {
			return e.err
		}
		zt := ir.TensorType{Elem: q.Type.Elem, Shape: s.Type.Shape}
		zp = e.Op("fill", "", ir.Attrs{"type": ir.StringAttr(zt.String()), "value": ir.FloatAttr(def)})
	}
	if e.err != nil {
		return e.err
	}
	qa := qax[0]
	if gax[0] < qa {
		qa += idx.Type.Rank() - 1 // the gathered axis became the indices' axes
	}
	y := e.Op("dequantize_linear", "", ir.Attrs{"axis": ir.IntAttr(int64(qa)), "block_size": ir.IntAttr(block)}, q, s, zp)
	e.Out(0, e.Op("identity", c.Output(0), nil, y))
	return e.Done()
}

// staticElems returns the number of elements of v (-1 when its shape is symbolic).
func staticElems(v *ir.Value) int64 {
	s, ok := v.Type.StaticShape()
	if !ok {
		return -1
	}
	return ir.NumElements(s)
}

// scalesLast returns the static extent of the last axis of s (0 when it is symbolic).
func scalesLast(s *ir.Value) int64 {
	n, _ := constDim(s, s.Type.Rank()-1)
	return n
}
