// This file declares the quantization ops at ONNX semantics: quantize_linear,
// dequantize_linear, requantize (an int32 accumulator scaled back to a quantized type),
// matmul_integer and conv_integer (int32 sums of zero-point-corrected products). Scales and
// zero points are operands read through affine accesses: per tensor (a constant index), per
// axis (the axis' iteration dim) or per block (that dim divided by the block size), so their
// element maps are exact and dead iteration elimination sees through them.

package ir

import (
	"math"

	"github.com/graphc/graphc/volume"
)

func init() {
	axisAttrs := []AttrDef{
		{Name: "axis", Kind: AttrInt, Default: dflt(IntAttr(1)), Doc: "the axis of a 1-D scale (per-axis) or of the blocks (blocked); negative counts from the end"},
		{Name: "block_size", Kind: AttrInt, Default: dflt(IntAttr(0)), Doc: "blocked quantization: elements per scale along axis (0: per tensor or per axis)"},
	}
	register(
		&OpDef{
			Name: "quantize_linear",
			Summary: "y = saturate(round(x / scale) + zero_point) in the zero point's integer type; round half to even; " +
				"float8 zero points: y = cast(x / scale + zero_point), saturated unless saturate = 0; " +
				"scale and zero point per tensor, per axis or per block",
			Example:     "%q = quantize_linear(%x, %s, %z) {axis = 1} : u8[2, 3]",
			MinOperands: 3, MaxOperands: 3,
			Attrs: append(append([]AttrDef(nil), axisAttrs...),
				AttrDef{Name: "saturate", Kind: AttrInt, Default: dflt(IntAttr(1)), Doc: "float8 results: 1 clamps to the largest finite value"}),
			Build: buildQuantize,
		},
		&OpDef{
			Name:        "dequantize_linear",
			Summary:     "y = (x - zero_point) · scale in the scale's float type; scale and zero point per tensor, per axis or per block",
			Example:     "%x = dequantize_linear(%q, %s, %z) {axis = 1} : f32[2, 3]",
			MinOperands: 3, MaxOperands: 3,
			Attrs: axisAttrs,
			Build: buildDequantize,
		},
		&OpDef{
			Name: "requantize",
			Summary: "y = saturate(round(f32(acc) · multiplier) + zero_point): an integer accumulator back to the zero point's type " +
				"(multiplier per tensor or per axis, in f32 as onnxruntime computes it)",
			Example:     "%y = requantize(%acc, %m, %z) {axis = 1} : u8[1, 8, 4, 4]",
			MinOperands: 3, MaxOperands: 3,
			Attrs: axisAttrs[:1],
			Build: buildRequantize,
		},
		&OpDef{
			Name: "matmul_integer",
			Summary: "i32 matrix product of (A - a_zero_point) and (B - b_zero_point) with numpy batch broadcasting; " +
				"zero points per tensor, per row of A, per column of B",
			Example:     "%c = matmul_integer(%a, %b, %az, %bz) : i32[4, 8]",
			MinOperands: 4, MaxOperands: 4,
			Build: buildMatmulInteger,
		},
		&OpDef{
			Name: "conv_integer",
			Summary: "i32 convolution of (X - x_zero_point) with (W - w_zero_point) (zero point per tensor or per output channel), " +
				"plus an optional i32 bias B[M]; padding contributes nothing",
			Example:     "%y = conv_integer(%x, %w, %xz, %wz) {pads = [1, 1, 1, 1]} : i32[1, 8, 16, 16]",
			MinOperands: 4, MaxOperands: 5,
			Attrs: []AttrDef{
				{Name: "strides", Kind: AttrInts, Default: dflt(IntsAttr()), Doc: "stride per spatial dim (default 1)"},
				{Name: "dilations", Kind: AttrInts, Default: dflt(IntsAttr()), Doc: "dilation per spatial dim (default 1)"},
				{Name: "pads", Kind: AttrInts, Default: dflt(IntsAttr()), Doc: "begin pads of every spatial dim, then end pads (default 0)"},
				{Name: "group", Kind: AttrInt, Default: dflt(IntAttr(1)), Doc: "number of channel groups"},
			},
			Build: buildConvInteger,
		},
	)
}

// QuantRange returns the saturation bounds of a quantized integer type (the 8-, 16- and 32-bit
// integers and the packed 4- and 2-bit ones).
func QuantRange(t DType) (lo, hi float64, ok bool) {
	switch t {
	case U8:
		return 0, math.MaxUint8, true
	case I8:
		return math.MinInt8, math.MaxInt8, true
	case U16:
		return 0, math.MaxUint16, true
	case I16:
		return math.MinInt16, math.MaxInt16, true
	case I32:
		return math.MinInt32, math.MaxInt32, true
	case I4:
		return -8, 7, true
	case U4:
		return 0, 15, true
	case I2:
		return -2, 1, true
	case U2:
		return 0, 3, true
	}
	return 0, 0, false
}

// paramAccess returns the access of a scale or zero point p of an elementwise op over a tensor
// of rank r and static-or-symbolic shape: rank 0 or one element (per tensor), rank 1 (per
// axis), or rank r with axis divided into blocks of block elements (blocked).
func paramAccess(b *Builder, which string, p TensorType, shape []volume.Aff, axis, block int64) (Access, error) {
	r := int64(len(shape))
	if p.Rank() == 0 {
		return AffAccess(), nil
	}
	if n, ok := staticCount(p); ok && n == 1 && p.Rank() == 1 && block == 0 {
		return AffAccess(volume.AffConst(0)), nil
	}
	if axis < -r || axis >= r {
		return Access{}, b.Errorf("axis %d out of range for rank %d", axis, r)
	}
	if axis < 0 {
		axis += r
	}
	if block == 0 {
		if p.Rank() != 1 || !p.Shape[0].Equal(shape[axis]) {
			return Access{}, b.Errorf("per-axis %s %s must have the extent of axis %d (%s)", which, p, axis, shape[axis].String())
		}
		return AffAccess(volume.AffDim(int(axis))), nil
	}
	if block < 0 {
		return Access{}, b.Errorf("block_size %d must be positive", block)
	}
	if int64(p.Rank()) != r {
		return Access{}, b.Errorf("blocked %s %s must have the rank of the input (%d)", which, p, r)
	}
	idx := make([]volume.Aff, r)
	for d := range idx {
		if int64(d) == axis {
			// ceil(extent / block) blocks
			if !p.Shape[d].Equal(shape[d].AddConst(block - 1).FloorDiv(block)) {
				return Access{}, b.Errorf("blocked %s %s: axis %d holds ceil(%s / %d) blocks", which, p, axis, shape[d].String(), block)
			}
			idx[d] = volume.AffDim(d).FloorDiv(block)
			continue
		}
		if !p.Shape[d].Equal(shape[d]) {
			return Access{}, b.Errorf("blocked %s %s must match the input %s at dim %d", which, p, shapeString(shape), d)
		}
		idx[d] = volume.AffDim(d)
	}
	return AffAccess(idx...), nil
}

// elementwiseParams sets the box over operand 0's shape, its identity access and the
// accesses of the scale (operand 1) and zero point (operand 2).
func elementwiseParams(b *Builder) ([]volume.Aff, error) {
	shape := b.In(0).Shape
	axis, block := b.Op.Attrs.Int("axis", 1), b.Op.Attrs.Int("block_size", 0)
	b.SetBox(dimNames(len(shape)), shape, nil)
	sa, err := paramAccess(b, "scale", b.In(1), shape, axis, block)
	if err != nil {
		return nil, err
	}
	za, err := paramAccess(b, "zero point", b.In(2), shape, axis, block)
	if err != nil {
		return nil, err
	}
	if b.In(2).Rank() != b.In(1).Rank() {
		if n, ok := staticCount(b.In(2)); !ok || n != 1 {
			return nil, b.Errorf("zero point %s and scale %s differ in shape", b.In(2), b.In(1))
		}
	}
	b.Op.Access = []Access{AffAccess(identity(0, len(shape))...), sa, za}
	b.Op.Out = AffAccess(identity(0, len(shape))...)
	return shape, nil
}

// saturate clamps the float v to the range of t and converts it.
func saturate(v *Scalar, t DType) *Scalar {
	lo, hi, _ := QuantRange(t)
	l, h := ConstF(v.Type, lo), ConstF(v.Type, hi)
	v = Select(Bin(SLt, v, l), l, v)
	return Cast(Select(Bin(SGt, v, h), h, v), t)
}

// ClampRange reports whether s is a float clamped to constant bounds, as saturate writes it:
// select(v > hi, hi, v) with v = select(x < lo, lo, x). Its value is then in [lo, hi] or NaN,
// which lets lowering convert it to an integer without a range check.
func ClampRange(s *Scalar) (lo, hi float64, ok bool) {
	isConst := func(c *Scalar) bool { return c.Op == SConst && c.Type.IsFloat() }
	if s.Op != SSelect || s.Args[0].Op != SGt || s.Args[0].Args[0] != s.Args[2] || !isConst(s.Args[1]) || s.Args[0].Args[1].Op != SConst || s.Args[0].Args[1].F != s.Args[1].F {
		return 0, 0, false
	}
	v := s.Args[2]
	if v.Op != SSelect || v.Args[0].Op != SLt || v.Args[0].Args[0] != v.Args[2] || !isConst(v.Args[1]) || v.Args[0].Args[1].Op != SConst || v.Args[0].Args[1].F != v.Args[1].F {
		return 0, 0, false
	}
	return v.Args[1].F, s.Args[1].F, true
}

// buildQuantize: y = saturate(round(x / scale) + zp), computed in the scale's type when x has
// it, else in f32.
func buildQuantize(b *Builder) error {
	x, s, z := b.In(0), b.In(1), b.In(2)
	if !x.Elem.IsFloat() && x.Elem != I32 || !s.Elem.IsFloat() {
		return b.Errorf("x must be float or i32 and the scale float, got %s and %s", x.Elem, s.Elem)
	}
	if isFloat8(z.Elem) {
		// float8: no rounding to an integer; the cast rounds to the format
		shape, err := elementwiseParams(b)
		if err != nil {
			return err
		}
		v := Bin(SAdd, Bin(SDiv, Cast(Read(0, x.Elem), F32), Cast(Read(1, s.Elem), F32)), Cast(Read(2, z.Elem), F32))
		if f, _ := MiniFloatOf(z.Elem); b.Op.Attrs.Int("saturate", 1) != 0 {
			b.Op.Body = castSaturate(v, z.Elem, f)
		} else {
			b.Op.Body = Cast(v, z.Elem)
		}
		b.Result = TensorType{Elem: z.Elem, Shape: shape}
		return nil
	}
	if _, _, ok := QuantRange(z.Elem); !ok || z.Elem == I32 {
		return b.Errorf("zero point type %s is not a quantized type (u8, i8, u16, i16, u4, i4, u2, i2, float8)", z.Elem)
	}
	shape, err := elementwiseParams(b)
	if err != nil {
		return err
	}
	ft := F32
	if x.Elem == s.Elem && x.Elem != F16 {
		ft = x.Elem
	}
	q := Un(SRound, Bin(SDiv, Cast(Read(0, x.Elem), ft), Cast(Read(1, s.Elem), ft)))
	b.Op.Body = saturate(Bin(SAdd, q, Cast(Read(2, z.Elem), ft)), z.Elem)
	b.Result = TensorType{Elem: z.Elem, Shape: shape}
	return nil
}

// buildDequantize: y = f32(i32(x) - i32(zp)) · scale, in the scale's type (through f32 for
// f16 scales).
func buildDequantize(b *Builder) error {
	x, s, z := b.In(0), b.In(1), b.In(2)
	if isFloat8(x.Elem) && z.Elem == x.Elem && s.Elem.IsFloat() {
		// float8: (x - zp) · scale in f32
		shape, err := elementwiseParams(b)
		if err != nil {
			return err
		}
		d := Bin(SSub, Cast(Read(0, x.Elem), F32), Cast(Read(2, z.Elem), F32))
		b.Op.Body = Cast(Bin(SMul, d, Cast(Read(1, s.Elem), F32)), s.Elem)
		b.Result = TensorType{Elem: s.Elem, Shape: shape}
		return nil
	}
	if _, _, ok := QuantRange(x.Elem); !ok || z.Elem != x.Elem || !s.Elem.IsFloat() {
		return b.Errorf("x and the zero point must have one integer type and the scale a float type, got %s, %s and %s", x.Elem, z.Elem, s.Elem)
	}
	shape, err := elementwiseParams(b)
	if err != nil {
		return err
	}
	ft := s.Elem
	if ft == F16 {
		ft = F32
	}
	d := Bin(SSub, Cast(Read(0, x.Elem), I32), Cast(Read(2, z.Elem), I32))
	b.Op.Body = Cast(Bin(SMul, Cast(d, ft), Cast(Read(1, s.Elem), ft)), s.Elem)
	b.Result = TensorType{Elem: s.Elem, Shape: shape}
	return nil
}

// buildRequantize: y = saturate(round(f32(acc) · m) + zp) with m per tensor or per axis.
func buildRequantize(b *Builder) error {
	acc, m, z := b.In(0), b.In(1), b.In(2)
	if acc.Elem != I32 || m.Elem != F32 {
		return b.Errorf("the accumulator must be i32 and the multiplier f32, got %s and %s", acc.Elem, m.Elem)
	}
	if _, _, ok := QuantRange(z.Elem); !ok || z.Elem == I32 {
		return b.Errorf("zero point type %s is not a quantized type (u8, i8, u16, i16)", z.Elem)
	}
	shape, err := elementwiseParams(b)
	if err != nil {
		return err
	}
	v := Un(SRound, Bin(SMul, Cast(Read(0, I32), F32), Read(1, F32)))
	b.Op.Body = saturate(Bin(SAdd, v, Cast(Read(2, z.Elem), F32)), z.Elem)
	b.Result = TensorType{Elem: z.Elem, Shape: shape}
	return nil
}

// zeroPointAccess returns the access of a zero point: rank 0 or one element (per tensor), or
// a vector of n elements read at dim d (per row, column or channel).
func zeroPointAccess(b *Builder, which string, z TensorType, n volume.Aff, d int) (Access, error) {
	if z.Rank() == 0 {
		return AffAccess(), nil
	}
	if z.Rank() == 1 {
		if c, ok := z.Shape[0].IsConst(); ok && c == 1 {
			return AffAccess(volume.AffConst(0)), nil
		}
		if z.Shape[0].Equal(n) {
			return AffAccess(volume.AffDim(d)), nil
		}
	}
	return Access{}, b.Errorf("%s %s must be a scalar or a vector of %s elements", which, z, n.String())
}

// intProduct returns (i32(in_x) - i32(in_xz)) · (i32(in_w) - i32(in_wz)).
func intProduct(b *Builder, x, w, xz, wz int) *Scalar {
	sub := func(v, z int) *Scalar {
		return Bin(SSub, Cast(Read(v, b.In(v).Elem), I32), Cast(Read(z, b.In(z).Elem), I32))
	}
	return Bin(SMul, sub(x, xz), sub(w, wz))
}

// checkQuantOperands checks that operands data and zero point share an 8- or 16-bit type.
func checkQuantOperands(b *Builder, data, zp int) error {
	t := b.In(data).Elem
	if _, _, ok := QuantRange(t); !ok || t == I32 || t.IsSubByte() || b.In(zp).Elem != t {
		return b.Errorf("operand #%d (%s) and its zero point (%s) must share a u8, i8, u16 or i16 type", data, t, b.In(zp).Elem)
	}
	return nil
}

// buildMatmulInteger: C[batch..., i, j] = Σ_k (A[.., i, k] - az) · (B[.., k, j] - bz) in i32.
func buildMatmulInteger(b *Builder) error {
	if err := checkQuantOperands(b, 0, 2); err != nil {
		return err
	}
	if err := checkQuantOperands(b, 1, 3); err != nil {
		return err
	}
	nb, err := matmulForm(b)
	if err != nil {
		return err
	}
	a, bt := b.In(0), b.In(1)
	rows, cols := volume.AffConst(1), volume.AffConst(1)
	if a.Rank() >= 2 {
		rows = a.Shape[a.Rank()-2]
	}
	if bt.Rank() >= 2 {
		cols = bt.Shape[bt.Rank()-1]
	}
	az, err := zeroPointAccess(b, "a_zero_point", b.In(2), rows, nb)
	if err != nil {
		return err
	}
	bz, err := zeroPointAccess(b, "b_zero_point", b.In(3), cols, nb+1)
	if err != nil {
		return err
	}
	b.Op.Access = append(b.Op.Access, az, bz)
	b.Op.Body = intProduct(b, 0, 1, 2, 3)
	b.Result.Elem = I32
	return nil
}

// buildConvInteger: Y[n, m, o] = Σ_{c, k} (X[..] - xz) · (W[m, c, k] - wz[m]) (+ B[m]) in i32;
// padded positions contribute 0 (as X = xz would).
func buildConvInteger(b *Builder) error {
	if err := checkQuantOperands(b, 0, 2); err != nil {
		return err
	}
	if err := checkQuantOperands(b, 1, 3); err != nil {
		return err
	}
	f, err := convForm(b)
	if err != nil {
		return err
	}
	xz, err := zeroPointAccess(b, "x_zero_point", b.In(2), volume.AffConst(1), 0)
	if err != nil {
		return err
	}
	wz, err := zeroPointAccess(b, "w_zero_point", b.In(3), volume.AffConst(f.M), 1)
	if err != nil {
		return err
	}
	b.Op.Access = append(b.Op.Access, xz, wz)
	prod := intProduct(b, 0, 1, 2, 3)
	if f.guarded {
		prod = Select(Avail(0), prod, ConstI(I32, 0))
	}
	if b.NumIn() == 5 {
		bt := b.In(4)
		if bt.Rank() != 1 || bt.Elem != I32 || !bt.Shape[0].Equal(volume.AffConst(f.M)) {
			return b.Errorf("B must be an i32 vector of %d elements, got %s", f.M, bt)
		}
		b.Op.Access = append(b.Op.Access, biasAccess(1, f.cDim, f.ndim))
		prod = Bin(SAdd, prod, Select(Avail(4), Read(4, I32), ConstI(I32, 0)))
	}
	b.Op.Body = prod
	b.Op.Reduce = ReduceSum
	b.Op.Out = AffAccess(identity(0, len(f.shape))...)
	b.Result = TensorType{Elem: I32, Shape: f.shape}
	return nil
}

// staticCount returns the number of elements of t when its shape is static.
func staticCount(t TensorType) (int64, bool) {
	s, ok := t.StaticShape()
	if !ok {
		return 0, false
	}
	return NumElements(s), true
}

// isFloat8 reports whether t is one of the float8 formats (or float4e2m1: the minifloats but
// bfloat16).
func isFloat8(t DType) bool { return t.IsMiniFloat() && t != BF16 }
