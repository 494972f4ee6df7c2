// This file declares the elementwise ops: unary math and binary arithmetic with numpy
// broadcasting. Each is one generic op whose iteration domain is the result's index box.

package ir

import (
	"slices"

	"github.com/graphc/graphc/volume"
)

// broadcastShape returns the numpy broadcast of the operand shapes.
func broadcastShape(b *Builder) ([]volume.Aff, error) {
	rank := 0
	for k := 0; k < b.NumIn(); k++ {
		rank = max(rank, b.In(k).Rank())
	}
	out := make([]volume.Aff, rank)
	for r := range out {
		out[r] = volume.AffConst(1)
	}
	for k := 0; k < b.NumIn(); k++ {
		t := b.In(k)
		off := rank - t.Rank()
		for i, d := range t.Shape {
			cur := out[off+i]
			c, cok := cur.IsConst()
			v, vok := d.IsConst()
			switch {
			case vok && v == 1:
			case cok && c == 1:
				out[off+i] = d
			case cur.Equal(d):
			default:
				return nil, b.Errorf("operand #%d shape %s does not broadcast with %v at dimension %d (%s vs %s)", k, t, shapeString(out), off+i, d.String(), cur.String())
			}
		}
	}
	// an operand of the result's shape lends it its extents (values never write into a shape)
	for k := 0; k < b.NumIn(); k++ {
		if t := b.In(k); t.Rank() == rank && slices.EqualFunc(t.Shape, out, volume.Aff.Equal) {
			return t.Shape[:rank:rank], nil
		}
	}
	return out, nil
}

func shapeString(s []volume.Aff) string { return TensorType{Elem: F32, Shape: s}.String()[3:] }

// broadcastAccess returns the access of an operand of type t in a rank-r broadcast iteration
// space with result extents out.
func broadcastAccess(t TensorType, out []volume.Aff) Access {
	off := len(out) - t.Rank()
	idx := make([]volume.Aff, t.Rank())
	for i, d := range t.Shape {
		v, ok := d.IsConst()
		o, ook := out[off+i].IsConst()
		if ok && v == 1 && !(ook && o == 1) {
			idx[i] = volume.AffConst(0)
		} else {
			idx[i] = volume.AffDim(off + i)
		}
	}
	if off == 0 && isIdentityIndex(idx) {
		return identityAccess(len(idx))
	}
	return AffAccess(idx...)
}

// elementwise builds a broadcast elementwise op with the given body and result element type
// (Invalid: the type of operand 0).
func elementwise(b *Builder, elem DType, body func(in []*Scalar) *Scalar) error {
	shape, err := broadcastShape(b)
	if err != nil {
		return err
	}
	for k := 1; k < b.NumIn(); k++ {
		if b.In(k).Elem != b.In(0).Elem {
			return b.Errorf("operand #%d has element type %s, operand #0 has %s", k, b.In(k).Elem, b.In(0).Elem)
		}
	}
	b.parallelBox(shape)
	ins := make([]*Scalar, b.NumIn())
	b.Op.Access = make([]Access, b.NumIn())
	for k := range ins {
		ins[k] = Read(k, b.In(k).Elem)
		b.Op.Access[k] = broadcastAccess(b.In(k), shape)
	}
	b.Op.Out = identityAccess(len(shape))
	b.Op.Body = body(ins)
	if elem == Invalid {
		elem = b.In(0).Elem
	}
	b.Result = TensorType{Elem: elem, Shape: shape}
	return nil
}

func binaryDef(name, summary string, op ScalarOp) *OpDef {
	return &OpDef{Name: name, Summary: summary, MinOperands: 2, MaxOperands: 2,
		Example: "%z = " + name + "(%x, %y) : f32[4, 3]",
		Build: func(b *Builder) error {
			elem := Invalid
			if op.IsCompare() {
				elem = Bool
			}
			return elementwise(b, elem, func(in []*Scalar) *Scalar { return Bin(op, in[0], in[1]) })
		}}
}

func unaryDef(name, summary string, body func(x *Scalar) *Scalar) *OpDef {
	return &OpDef{Name: name, Summary: summary, MinOperands: 1, MaxOperands: 1,
		Example: "%y = " + name + "(%x) : f32[4, 3]",
		Build: func(b *Builder) error {
			return elementwise(b, Invalid, func(in []*Scalar) *Scalar { return body(in[0]) })
		}}
}

func init() {
	register(
		binaryDef("add", "elementwise sum with numpy broadcasting", SAdd),
		binaryDef("sub", "elementwise difference with numpy broadcasting", SSub),
		binaryDef("mul", "elementwise product with numpy broadcasting", SMul),
		binaryDef("div", "elementwise quotient with numpy broadcasting (integer division truncates)", SDiv),
		binaryDef("max", "elementwise maximum with numpy broadcasting", SMax),
		binaryDef("min", "elementwise minimum with numpy broadcasting", SMin),
		binaryDef("pow", "elementwise power with numpy broadcasting", SPow),
		unaryDef("relu", "max(x, 0)", func(x *Scalar) *Scalar { return Bin(SMax, x, Const(x.Type, 0)) }),
		unaryDef("neg", "-x", func(x *Scalar) *Scalar { return Un(SNeg, x) }),
		unaryDef("abs", "|x|", func(x *Scalar) *Scalar { return Un(SAbs, x) }),
		unaryDef("exp", "e^x", func(x *Scalar) *Scalar { return Un(SExp, x) }),
		unaryDef("log", "natural logarithm", func(x *Scalar) *Scalar { return Un(SLog, x) }),
		unaryDef("sqrt", "square root", func(x *Scalar) *Scalar { return Un(SSqrt, x) }),
		unaryDef("tanh", "hyperbolic tangent", func(x *Scalar) *Scalar { return Un(STanh, x) }),
		unaryDef("sigmoid", "1 / (1 + e^-x)", func(x *Scalar) *Scalar { return Un(SSigmoid, x) }),
		unaryDef("identity", "x (a copy)", func(x *Scalar) *Scalar { return x }),
	)
}
