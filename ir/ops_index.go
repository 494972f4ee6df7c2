// This file declares ops that select elements by their index: eye (a diagonal of ones) and
// trilu (band part), with a
// constant diagonal offset (a guarded access, exact) or one read from a tensor at run time (an
// index-dependent select whose unguarded access over-approximates what it reads).

package ir

import "github.com/graphc/graphc/volume"

func init() {
	register(&OpDef{
		Name:        "eye",
		Summary:     "ones on the diagonal j - i = k of a matrix, zeros elsewhere",
		Example:     `%e = eye() {k = 1, type = "f32[3, 4]"} : f32[3, 4]`,
		MinOperands: 0, MaxOperands: 0,
		Attrs: []AttrDef{
			{Name: "type", Kind: AttrString, Doc: "result type (rank 2)"},
			{Name: "k", Kind: AttrInt, Default: dflt(IntAttr(0)), Doc: "diagonal offset"},
		},
		Build: buildEye,
	})
	register(&OpDef{
		Name:        "trilu",
		Summary:     "keeps the upper (j - i >= k) or lower (j - i <= k) triangle of the last two dims, zeroing the rest",
		Example:     "%u = trilu(%x) {k = 0, upper = 1} : f32[512, 512]",
		MinOperands: 1, MaxOperands: 2,
		Attrs: []AttrDef{
			{Name: "upper", Kind: AttrInt, Default: dflt(IntAttr(1)), Doc: "1 keeps the upper triangle, 0 the lower"},
			{Name: "k", Kind: AttrInt, Default: dflt(IntAttr(0)), Doc: "diagonal offset (unused when a second operand holds it)"},
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
	if b.NumIn() == 2 {
		return buildTriluDynamic(b)
	}
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

// buildTriluDynamic: the offset k is operand #1 (one integer element), known only at run time.
// Which elements are kept depends on it, so the guard becomes a select in the body and the
// access to x is the unguarded identity, marked Approx: it over-approximates the elements
// actually read (those of the kept triangle).
func buildTriluDynamic(b *Builder) error {
	x, kt := b.In(0), b.In(1)
	r := x.Rank()
	if kt.Elem.IsFloat() || kt.Rank() > 1 {
		return b.Errorf("operand #1 (k) must be an integer scalar or 1-element vector, got %s", kt)
	}
	if kt.Rank() == 1 {
		if n, ok := kt.Shape[0].IsConst(); !ok || n != 1 {
			return b.Errorf("operand #1 (k) must have one element, got %s", kt)
		}
	}
	whole := AffAccess(identity(0, r)...)
	acc := whole
	acc.Approx = true
	acc.ApproxMap = whole.Map(b.Params, b.Op.Dims)
	kIdx := []volume.Aff{}
	if kt.Rank() == 1 {
		kIdx = []volume.Aff{volume.AffConst(0)}
	}
	b.Op.Access = []Access{acc, AffAccess(kIdx...)}
	b.Op.Out = whole
	diff := Bin(SSub, Index(r-1), Index(r-2))
	k := Cast(Read(1, kt.Elem), I64)
	var keep *Scalar
	if b.Op.Attrs.Int("upper", 1) != 0 {
		keep = Bin(SGe, diff, k)
	} else {
		keep = Bin(SLe, diff, k)
	}
	b.Op.Body = Select(keep, Read(0, x.Elem), Const(x.Elem, 0))
	b.Result = x
	return nil
}

func buildEye(b *Builder) error {
	rt, err := ParseType(b.Op.Attrs.Str("type", ""))
	if err != nil {
		return b.Errorf("type: %v", err)
	}
	if rt.Rank() != 2 {
		return b.Errorf("type %s must have rank 2", rt)
	}
	b.SetBox(dimNames(2), rt.Shape, nil)
	b.Op.Access = []Access{}
	b.Op.Out = AffAccess(identity(0, 2)...)
	diag := Bin(SEq, Bin(SSub, Index(1), Index(0)), ConstI(I64, b.Op.Attrs.Int("k", 0)))
	b.Op.Body = Select(diag, Const(rt.Elem, 1), Const(rt.Elem, 0))
	b.Result = rt
	return nil
}
