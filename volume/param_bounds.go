// This file gives the bounds of a set's dims as expressions of its parameters (the box of a
// tensor whose extents are symbolic): each dim's projection one interval between a lower and an
// upper expression that dominate the others wherever the set has points.

package volume

import "fmt"

// ParamBounds returns the smallest and largest value of every dim of a bounded set as
// expressions of its parameters: each dim's projection must be one interval whose bounds are a
// single expression each wherever the set has points (i >= T - 1 and i >= 0 give T - 1 when
// T >= 1). An error says which dim is not such an interval.
func (s Set) ParamBounds() (lo, hi []Aff, err error) {
	nd := s.NDim()
	for d := 0; d < nd; d++ {
		one := s.ProjectOnto(d)
		bs, err := one.DimBounds(0)
		if err != nil {
			return nil, nil, err
		}
		if len(bs) != 1 || len(bs[0].Other) > 0 {
			return nil, nil, fmt.Errorf("dim %d of %s is not one interval", d, s)
		}
		ctx := one.ProjectOut(0, 1) // the parameters for which the set has points
		l, okl := dominantBound(ctx, bs[0].Lower, true)
		h, okh := dominantBound(ctx, bs[0].Upper, false)
		if !okl || !okh {
			return nil, nil, fmt.Errorf("dim %d of %s is not one interval", d, s)
		}
		lo, hi = append(lo, l), append(hi, h)
	}
	return lo, hi, nil
}

// dominantBound returns the bound among bs (expressions of the parameters of ctx) that is the
// largest (lower bounds) or smallest (upper) wherever ctx holds.
func dominantBound(ctx Set, bs []Aff, lower bool) (Aff, bool) {
	for k, b := range bs {
		worse := EmptySet(ctx.Params(), ctx.TupleName(), nil)
		for m, o := range bs {
			if m == k {
				continue
			}
			// another bound is tighter somewhere: o > b for a lower bound, o < b for an upper
			gap := o.Sub(b).AddConst(-1)
			if !lower {
				gap = b.Sub(o).AddConst(-1)
			}
			worse = worse.Union(SetFromConstraints(ctx.Params(), ctx.TupleName(), nil, []Constraint{{Aff: gap}}))
		}
		if ctx.Intersect(worse).IsEmpty().Or(false) { // unknown: not dominant
			return b, true
		}
	}
	return Aff{}, false
}
