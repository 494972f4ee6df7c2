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
