// This file holds BlockDen: how an index reads along aligned blocks of one dim (a grouped
// convolution's input, read at floor(m/Mg) in its output channel m). Lowering sizes its
// vectors by it (register tiles no wider than a block) and the layout cost check of the passes
// estimates a grouped convolution's lanes by it; both call this one definition.

package volume

// BlockDen returns, when index reads the same element for every value of dim d in aligned
// blocks (d appears only as floor(d/den), with no other term in the numerator), the gcd of
// those den, else 0: 0 too when index does not read along d at all.
func BlockDen(index []Aff, d int) int64 {
	var g int64
	for _, a := range index {
		if a.dimCoef(d) != 0 {
			return 0
		}
		for _, f := range a.Floors {
			if f.Num.dimCoef(d) == 0 && !f.Num.floorsUse(d) {
				continue
			}
			if f.Num.ShiftedDim() != d || f.Num.Const != 0 {
				return 0
			}
			g = gcd(g, f.Den)
		}
	}
	return g
}

// dimCoef returns the coefficient of dim d in a.
func (a Aff) dimCoef(d int) int64 {
	if d < len(a.Dims) {
		return a.Dims[d]
	}
	return 0
}

// floorsUse reports whether a floor division of a (at any depth) uses dim d.
func (a Aff) floorsUse(d int) bool {
	for _, f := range a.Floors {
		if f.Num.dimCoef(d) != 0 || f.Num.floorsUse(d) {
			return true
		}
	}
	return false
}
