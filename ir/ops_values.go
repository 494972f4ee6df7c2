// This file declares values: a small integer tensor whose elements are quasi-affine
// expressions of the symbolic dims, such as the result of ONNX Shape on a tensor of shape
// [N, 3]. It reads no operand, so it keeps no producer alive.

package ir

import (
	"github.com/graphc/graphc/volume"
)

func init() {
	register(&OpDef{
		Name:        "values",
		Summary:     "an integer tensor whose elements (row-major) are quasi-affine expressions of the symbolic dims",
		Example:     `%s = values() {type = "i64[2]", values = ["N", "3"]} : i64[2]`,
		MinOperands: 0, MaxOperands: 0,
		Attrs: []AttrDef{
			{Name: "type", Kind: AttrString, Doc: "result type (static shape, integer elements)"},
			{Name: "values", Kind: AttrStrings, Doc: "one expression per element, e.g. \"N\", \"4*N + 1\""},
		},
		Build: buildValues,
	})
}

func buildValues(b *Builder) error {
	rt, err := ParseType(b.Op.Attrs.Str("type", ""))
	if err != nil {
		return b.Errorf("type: %v", err)
	}
	if rt.Elem.IsFloat() {
		return b.Errorf("element type must be an integer type, got %s", rt.Elem)
	}
	shape, err := constExtents(rt.Shape, "values")
	if err != nil {
		return b.Errorf("%v", err)
	}
	texts := b.Op.Attrs.Strings("values", nil)
	if int64(len(texts)) != NumElements(shape) {
		return b.Errorf("%d values for type %s", len(texts), rt)
	}
	vals := make([]*Scalar, len(texts))
	for i, s := range texts {
		a, err := volume.ParseAff(s, nil)
		if err != nil {
			return b.Errorf("value #%d: %v", i, err)
		}
		vals[i] = Cast(AffScalar(a), rt.Elem)
	}
	b.SetBox(dimNames(rt.Rank()), rt.Shape, nil)
	b.Op.Access = []Access{}
	b.Op.Out = AffAccess(identity(0, rt.Rank())...)
	// the flattened index selects the element
	lin := volume.AffConst(0)
	stride := int64(1)
	for d := len(shape) - 1; d >= 0; d-- {
		lin = lin.Add(volume.AffDim(d).Mul(stride))
		stride *= shape[d]
	}
	var body *Scalar
	for i := len(vals) - 1; i >= 0; i-- {
		if body == nil {
			body = vals[i]
			continue
		}
		body = Select(Bin(SEq, AffScalar(lin), ConstI(I64, int64(i))), vals[i], body)
	}
	if body == nil {
		body = Const(rt.Elem, 0) // no elements
	}
	b.Op.Body = body
	b.Result = rt
	return nil
}
