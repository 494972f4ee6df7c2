// This file declares diag_part: the main diagonal of the last two dims (TensorFlow's
// MatrixDiagPart), a view whose element map is the diagonal of the volume-model paper (A.2.3).

package ir

import "github.com/graphc/graphc/volume"

func init() {
	register(&OpDef{
		Name:        "diag_part",
		Summary:     "the main diagonal of the last two dims: y[..., i] = x[..., i, i]",
		Example:     "%d = diag_part(%x) : f32[512]",
		MinOperands: 1, MaxOperands: 1,
		Build: func(b *Builder) error {
			x := b.In(0)
			r := x.Rank()
			if r < 2 {
				return b.Errorf("operand must have rank >= 2, got %s", x)
			}
			m, n := x.Shape[r-2], x.Shape[r-1]
			d := m
			mc, mok := m.IsConst()
			nc, nok := n.IsConst()
			switch {
			case mok && nok:
				d = volume.AffConst(min(mc, nc))
			case m.Equal(n):
			default:
				return b.Errorf("the last two extents of %s must be equal or static", x)
			}
			shape := append(append([]volume.Aff{}, x.Shape[:r-2]...), d)
			b.SetBox(dimNames(r-1), shape, nil)
			idx := identity(0, r-1)
			idx = append(idx, volume.AffDim(r-2))
			b.Op.Access = []Access{AffAccess(idx...)}
			b.Op.Out = AffAccess(identity(0, r-1)...)
			b.Op.Body = Read(0, x.Elem)
			b.Result = TensorType{Elem: x.Elem, Shape: shape}
			return nil
		},
	})
}

func init() {
	register(&OpDef{
		Name:        "band_part",
		Summary:     "keeps a band of the last two dims: i - j <= lower (if lower >= 0) and j - i <= upper (if upper >= 0), zeroing the rest (TensorFlow's MatrixBandPart)",
		Example:     "%b = band_part(%x) {lower = 0, upper = -1} : f32[512, 512]",
		MinOperands: 1, MaxOperands: 1,
		Attrs: []AttrDef{
			{Name: "lower", Kind: AttrInt, Default: dflt(IntAttr(-1)), Doc: "sub-diagonals kept (-1: all)"},
			{Name: "upper", Kind: AttrInt, Default: dflt(IntAttr(-1)), Doc: "super-diagonals kept (-1: all)"},
		},
		Build: func(b *Builder) error {
			x := b.In(0)
			r := x.Rank()
			if r < 2 {
				return b.Errorf("operand must have rank >= 2, got %s", x)
			}
			b.SetBox(dimNames(r), x.Shape, nil)
			i, j := volume.AffDim(r-2), volume.AffDim(r-1)
			var guard []volume.Constraint
			if lo := b.Op.Attrs.Int("lower", -1); lo >= 0 {
				guard = append(guard, volume.GE(volume.AffConst(lo), i.Sub(j)))
			}
			if up := b.Op.Attrs.Int("upper", -1); up >= 0 {
				guard = append(guard, volume.GE(volume.AffConst(up), j.Sub(i)))
			}
			b.Op.Access = []Access{{Pieces: []AccessPiece{{Guard: guard, Index: identity(0, r)}}}}
			b.Op.Out = AffAccess(identity(0, r)...)
			b.Op.Body = Select(Avail(0), Read(0, x.Elem), Const(x.Elem, 0))
			if len(guard) == 0 {
				b.Op.Body = Read(0, x.Elem)
			}
			b.Result = x
			return nil
		},
	})
}
