// This file declares pad: a boundary around the operand (the volume-model paper's A.2.6). In
// constant mode the operand is read only inside the interior (a guarded access) and the
// constant elsewhere; edge and reflect read it through a piecewise map over the whole domain
// (3 regions per padded dim: before, inside, after); wrap is one quasi-affine map (index mod
// extent), the paper's periodic boundary.

package ir

import (
	"github.com/graphc/graphc/volume"
)

func init() {
	register(&OpDef{
		Name:        "pad",
		Summary:     "pads (or, with negative pads, crops) each dim: constant, edge, reflect or wrap",
		Example:     `%p = pad(%x) {mode = "constant", pads = [1, 0, 1, 2], value = 0.0} : f32[5, 6]`,
		MinOperands: 1, MaxOperands: 1,
		Attrs: []AttrDef{
			{Name: "pads", Kind: AttrInts, Doc: "begin pads of every dim, then end pads (ONNX order)"},
			{Name: "mode", Kind: AttrString, Default: dflt(StringAttr("constant")), Doc: "constant, edge, reflect or wrap"},
			{Name: "value", Kind: AttrFloat, Default: dflt(FloatAttr(0)), Doc: "the constant of constant mode"},
		},
		Build: buildPad,
	})
}

// padRegion is one region of one dim: where guard holds, the operand index is index.
type padRegion struct {
	guard []volume.Constraint
	index volume.Aff
}

func buildPad(b *Builder) error {
	x := b.In(0)
	r := x.Rank()
	pads := b.Op.Attrs.Ints("pads", nil)
	if len(pads) != 2*r {
		return b.Errorf("%d pads for an operand of rank %d (want %d)", len(pads), r, 2*r)
	}
	mode := b.Op.Attrs.Str("mode", "constant")
	shape := make([]volume.Aff, r)
	regions := make([][]padRegion, r)
	for d := 0; d < r; d++ {
		lo, hi := pads[d], pads[r+d]
		n := x.Shape[d]
		shape[d] = n.AddConst(lo + hi)
		if c, ok := shape[d].IsConst(); ok && c < 0 {
			return b.Errorf("pads %d and %d crop dimension %d of extent %s below zero", lo, hi, d, n.String())
		}
		i := volume.AffDim(d)
		in := i.AddConst(-lo) // the operand index inside the interior
		var inner []volume.Constraint
		if lo > 0 {
			inner = append(inner, volume.GE(i, volume.AffConst(lo)))
		}
		if hi > 0 {
			inner = append(inner, volume.LT(i, n.AddConst(lo)))
		}
		switch mode {
		case "constant":
			regions[d] = []padRegion{{inner, in}}
		case "edge", "reflect":
			if c, ok := n.IsConst(); ok && c == 0 && (lo > 0 || hi > 0) {
				return b.Errorf("%s padding of the empty dimension %d", mode, d)
			}
			if c, ok := n.IsConst(); ok && mode == "reflect" && (lo >= c || hi >= c) {
				return b.Errorf("reflect pads %d and %d of dimension %d must be smaller than its extent %d", lo, hi, d, c)
			}
			var rs []padRegion
			if lo > 0 {
				before := volume.AffConst(0)
				if mode == "reflect" {
					before = volume.AffConst(lo).Sub(i) // lo - i
				}
				rs = append(rs, padRegion{[]volume.Constraint{volume.LT(i, volume.AffConst(lo))}, before})
			}
			rs = append(rs, padRegion{inner, in})
			if hi > 0 {
				after := n.AddConst(-1)
				if mode == "reflect" {
					after = n.Mul(2).AddConst(-2 + lo).Sub(i) // 2(n-1) - (i - lo)
				}
				rs = append(rs, padRegion{[]volume.Constraint{volume.GE(i, n.AddConst(lo))}, after})
			}
			regions[d] = rs
		case "wrap":
			if lo == 0 && hi == 0 {
				regions[d] = []padRegion{{nil, i}}
				break
			}
			c, ok := n.IsConst()
			if !ok {
				return b.Errorf("wrap padding of the symbolic extent %s needs a modulo by a parameter, which is not quasi-affine", n.String())
			}
			if c == 0 {
				return b.Errorf("wrap padding of the empty dimension %d", d)
			}
			regions[d] = []padRegion{{nil, in.Mod(c)}}
		default:
			return b.Errorf("mode %q is not one of constant, edge, reflect, wrap", mode)
		}
	}
	// the access: one piece per combination of regions (disjoint by construction)
	pieces := []AccessPiece{{}}
	for d := 0; d < r; d++ {
		var next []AccessPiece
		for _, p := range pieces {
			for _, reg := range regions[d] {
				q := AccessPiece{
					Guard: append(append([]volume.Constraint(nil), p.Guard...), reg.guard...),
					Index: append(append([]volume.Aff(nil), p.Index...), reg.index),
				}
				next = append(next, q)
			}
		}
		pieces = next
	}
	for i := range pieces {
		if pieces[i].Index == nil {
			pieces[i].Index = []volume.Aff{} // rank 0
		}
	}
	b.SetBox(dimNames(r), shape, nil)
	b.Op.Access = []Access{{Pieces: pieces}}
	b.Op.Out = AffAccess(identity(0, r)...)
	body := Read(0, x.Elem)
	if mode == "constant" && len(pieces[0].Guard) > 0 {
		body = Select(Avail(0), body, Const(x.Elem, b.Op.Attrs.Float("value", 0)))
	}
	b.Op.Body = body
	b.Result = TensorType{Elem: x.Elem, Shape: shape}
	return nil
}
