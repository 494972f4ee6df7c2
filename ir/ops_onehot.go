// This file declares one_hot: a tensor with a new axis of extent depth that holds on where its
// coordinate equals the index read from the operand, off elsewhere (ONNX OneHot, and Hardmax
// after an argmax).

package ir

import "github.com/graphc/graphc/volume"

func init() {
	register(&OpDef{
		Name:        "one_hot",
		Summary:     "y[…, j, …] = indices[…] == j (negative indices count from depth) ? on : off, the new axis at axis",
		Example:     `%y = one_hot(%i) {axis = -1, depth = 10, type = "f32"} : f32[4, 10]`,
		MinOperands: 1, MaxOperands: 1,
		Attrs: []AttrDef{
			{Name: "axis", Kind: AttrInt, Default: dflt(IntAttr(-1)), Doc: "position of the new axis in the result (negative counts from the end)"},
			{Name: "depth", Kind: AttrInt, Doc: "extent of the new axis"},
			{Name: "type", Kind: AttrString, Doc: "the result element type"},
			floatAttr("on", 1, "value where the index matches"),
			floatAttr("off", 0, "value elsewhere"),
		},
		Build: buildOneHot,
	})
}

func buildOneHot(b *Builder) error {
	idx := b.In(0)
	elem, err := ParseDType(b.Op.Attrs.Str("type", ""))
	if err != nil {
		return b.Errorf("type: %v", err)
	}
	depth := b.Op.Attrs.Int("depth", 0)
	if depth < 0 {
		return b.Errorf("depth must be >= 0, got %d", depth)
	}
	r := idx.Rank() + 1
	ax, err := resolveAxis(b.Op.Attrs.Int("axis", -1), r)
	if err != nil {
		return b.Errorf("%v", err)
	}
	shape := make([]volume.Aff, 0, r)
	read := make([]volume.Aff, 0, r-1)
	for d := 0; d < r; d++ {
		switch {
		case d == ax:
			shape = append(shape, volume.AffConst(depth))
		case d < ax:
			shape = append(shape, idx.Shape[d])
			read = append(read, volume.AffDim(d))
		default:
			shape = append(shape, idx.Shape[d-1])
			read = append(read, volume.AffDim(d))
		}
	}
	b.SetBox(dimNames(r), shape, nil)
	b.Op.Access = []Access{AffAccess(read...)}
	b.Op.Out = AffAccess(identity(0, r)...)
	// compared in the indices' own type: a fractional index matches nothing
	t := idx.Elem
	k := Read(0, t)
	k = Select(Bin(SLt, k, Const(t, 0)), Bin(SAdd, k, Const(t, float64(depth))), k)
	match := Bin(SEq, k, Cast(Index(ax), t))
	b.Op.Body = Select(match, Const(elem, b.Op.Attrs.Float("on", 1)), Const(elem, b.Op.Attrs.Float("off", 0)))
	b.Result = TensorType{Elem: elem, Shape: shape}
	return nil
}
