// This file declares ops that select elements by their index: trilu (band part).

package ir

import "github.com/graphc/graphc/volume"

func init() {
	register(&OpDef{
		Name:        "trilu",
		Summary:     "keeps the upper (j - i >= k) or lower (j - i <= k) triangle of the last two dims, zeroing the rest",
		Example:     "%u = trilu(%x) {k = 0, upper = 1} : f32[512, 512]",
		MinOperands: 1, MaxOperands: 1,
		Attrs: []AttrDef{
			{Name: "upper", Kind: AttrInt, Default: dflt(IntAttr(1)), Doc: "1 keeps the upper triangle, 0 the lower"},
			{Name: "k", Kind: AttrInt, Default: dflt(IntAttr(0)), Doc: "diagonal offset"},
		},
		Build: buildTrilu,
	})
}

// buildTrilu reads x only inside the kept triangle: the guard on the access is what lets DIE
// see that the other elements are not needed.
func buildTrilu(b *Builder) error {
	x := b.In(0)
	if x.Rank() < 2 {
		return b.Errorf("operand must have rank >= 2, got %s", x)
	}
	r := x.Rank()
	b.SetBox(dimNames(r), x.Shape, nil)
	k := b.Op.Attrs.Int("k", 0)
	diff := volume.AffDim(r - 1).Sub(volume.AffDim(r - 2)) // j - i
	var guard volume.Constraint
	if b.Op.Attrs.Int("upper", 1) != 0 {
		guard = volume.GE(diff, volume.AffConst(k))
	} else {
		guard = volume.GE(volume.AffConst(k), diff)
	}
	b.Op.Access = []Access{{Pieces: []AccessPiece{{Guard: []volume.Constraint{guard}, Index: identity(0, r)}}}}
	b.Op.Out = AffAccess(identity(0, r)...)
	b.Op.Body = Select(Avail(0), Read(0, x.Elem), Const(x.Elem, 0))
	b.Result = x
	return nil
}
