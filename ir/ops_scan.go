// This file declares the cumulative reductions along an axis (cumsum, cumprod). Their domain is
// not a box: iteration (x, t) combines element t of the axis into result element x when t lies
// on the chosen side of x's coordinate, a triangle the volume operations handle exactly.

package ir

import "github.com/graphc/graphc/volume"

func cumulativeDef(name, summary string, kind ReduceKind) *OpDef {
	return &OpDef{Name: name, Summary: summary, MinOperands: 1, MaxOperands: 1,
		Example: "%c = " + name + "(%x) {axis = 1, exclusive = 1} : f32[4, 3]",
		Attrs: []AttrDef{
			{Name: "axis", Kind: AttrInt, Default: dflt(IntAttr(0)), Doc: "the axis accumulated along (negative counts from the end)"},
			{Name: "exclusive", Kind: AttrInt, Default: dflt(IntAttr(0)), Doc: "1 leaves the element itself out"},
			{Name: "reverse", Kind: AttrInt, Default: dflt(IntAttr(0)), Doc: "1 accumulates from the end"},
		},
		Build: func(b *Builder) error { return buildCumulative(b, kind) }}
}

func init() {
	register(
		cumulativeDef("cumsum", "running sum along an axis", ReduceSum),
		cumulativeDef("cumprod", "running product along an axis", ReduceProd),
	)
}

func buildCumulative(b *Builder, kind ReduceKind) error {
	x := b.In(0)
	r := x.Rank()
	if r == 0 {
		return b.Errorf("operand must have rank >= 1, got %s", x)
	}
	ax, err := resolveAxis(b.Op.Attrs.Int("axis", 0), r)
	if err != nil {
		return b.Errorf("%v", err)
	}
	dims := append(dimNames(r), "t")
	ext := append(append([]volume.Aff{}, x.Shape...), x.Shape[ax])
	iters := make([]IterKind, r+1)
	iters[r] = Reduction
	b.SetBox(dims, ext, iters)
	i, t := volume.AffDim(ax), volume.AffDim(r)
	excl := int64(0)
	if b.Op.Attrs.Int("exclusive", 0) != 0 {
		excl = 1
	}
	var side volume.Constraint
	if b.Op.Attrs.Int("reverse", 0) != 0 {
		side = volume.GE(t, i.AddConst(excl)) // t >= i (+1)
	} else {
		side = volume.GE(i.AddConst(-excl), t) // t <= i (-1)
	}
	b.Op.Full = b.Op.Full.Intersect(volume.SetFromConstraints(b.Params, "", dims, []volume.Constraint{side}))
	idx := identity(0, r)
	idx[ax] = t
	b.Op.Access = []Access{AffAccess(idx...)}
	b.Op.Out = AffAccess(identity(0, r)...)
	b.Op.Body = Read(0, x.Elem)
	b.Op.Reduce = kind
	if kind == ReduceProd {
		b.Op.Init = 1
	}
	b.Result = x
	return nil
}
