// This file holds the loops of atoms that interleave along the scanned dimension (even and odd
// points of two statements, pieces whose order flips with the outer dimensions): one loop over
// their simple hull, with a case split on the outer dimensions where no single bound holds on
// all of them.

package volume

import "fmt"

// merged returns one loop of dim d over the atoms bs, which interleave along d: its bounds are
// those of their simple hull. When no lower (or upper) bound holds on every atom, the outer space
// is split on the comparison of two candidate bounds, so that one of them holds on both sides:
// isl would print max(u1, u2) there.
func (sc *scanner) merged(bs []*basic, doms []scanDom, d int, ctx *basic, depth int) Node {
	for i, b := range bs {
		bs[i] = withPlainBounds(b, d)
	}
	h := simpleHull(bs)
	if boundedIn(h, d) {
		return sc.region(h, doms, d, ctx)
	}
	if depth > 8 {
		panic(internalError{fmt.Sprintf("scan: no common bound on dimension %d for interleaved pieces", d)})
	}
	c := splitRow(h, bs, d, ctx)
	var nodes []Node
	for _, cond := range [][]int64{c, negIneq(c)} {
		cb := newBasic(ctx.nParam, ctx.in, ctx.out)
		cb.ineqs = [][]int64{append(cloneRow(cond[:cb.width()]), make([]int64, 0)...)}
		sub := intersectBasic(ctx, cb)
		if !sub.tidy() || scanEmpty(sub) {
			continue
		}
		var as []*basic
		for _, b := range bs {
			x := intersectBasic(b, cb)
			if x.tidy() && !scanEmpty(x) {
				as = append(as, x)
			}
		}
		var ds []scanDom
		for _, dm := range doms {
			x := intersectBasic(dm.b, cb)
			if x.tidy() && !scanEmpty(x) {
				ds = append(ds, scanDom{dm.stmt, x})
			}
		}
		var nd Node
		switch len(as) {
		case 0:
			continue
		case 1:
			nd = sc.region(as[0], ds, d, sub)
		default:
			nd = sc.merged(as, ds, d, sub, depth+1)
		}
		if nd != nil {
			nodes = append(nodes, &If{Conds: []Constraint{{Aff: cb.rowAff(cb.ineqs[0], sc.params)}}, Then: nd})
		}
	}
	return block(nodes)
}

// splitRow returns an inequality over the parameters and dims < d (no divs) that splits ctx in
// two non-empty parts, comparing a bound u on d of some atom with a bound v (same side) of an
// atom on which u does not hold: where u dominates v, u holds on both atoms, elsewhere v does.
// Bounds that dominate everywhere in ctx replace the current one, which terminates because the
// dominance is strict.
func splitRow(h *basic, bs []*basic, d int, ctx *basic) []int64 {
	col := 1 + h.nParam + d
	lower := true
	for _, r := range h.ineqs {
		if r[col] > 0 {
			lower = false // the lower side is fine: split on upper bounds
		}
	}
	sign := int64(-1)
	if lower {
		sign = 1
	}
	// candidate bounds: plain rows (no divs, no inner dims) of one side
	cands := func(b *basic) [][]int64 {
		var out [][]int64
		rows := append(append(cloneRows(b.ineqs), b.eqs...), negRows(b.eqs)...)
		for _, r := range rows {
			if r[col]*sign > 0 && isZeroFrom(r, col+1) {
				out = append(out, r[:b.divStart()])
			}
		}
		return out
	}
	holds := func(r []int64, b *basic) bool {
		s := system{eqs: b.eqs, ineqs: append(cloneRows(b.ineqs), b.allDivConstraints()...)}
		return s.implies(append(cloneRow(r), make([]int64, len(b.divs))...), false)
	}
	ctxSys := system{eqs: ctx.eqs, ineqs: append(cloneRows(ctx.ineqs), ctx.allDivConstraints()...)}
	// cmp returns the condition under which u dominates v (u >= v for upper bounds).
	cmp := func(u, v []int64) []int64 {
		a1, a2 := abs64(u[col]), abs64(v[col])
		// upper: x <= f/a; u dominates where a2·fu >= a1·fv, i.e. a2·u − a1·v >= 0 off x
		c := combine(a2, u, -a1, v)
		c[col] = 0
		if sign > 0 {
			c = negRow(c)
		}
		return c
	}
	for _, a := range bs {
		for _, u := range cands(a) {
			for steps := 0; steps <= 4*len(bs)*len(bs); steps++ {
				var b *basic
				for _, o := range bs {
					if !holds(u, o) {
						b = o
						break
					}
				}
				if b == nil {
					break // u holds on all: the hull should have had it
				}
				replaced := false
				for _, v := range cands(b) {
					c := cmp(u, v)
					cc := append(cloneRow(c), make([]int64, len(ctx.divs))...)
					if !ctxSys.implies(negIneq(cc), false) && !ctxSys.implies(cc, false) {
						return c
					}
					if ctxSys.implies(negIneq(cc), false) { // v dominates u everywhere
						u, replaced = v, true
						break
					}
				}
				if !replaced {
					break
				}
			}
		}
	}
	panic(internalError{fmt.Sprintf("scan: interleaved pieces without comparable bounds on dimension %d", d)})
}

// boundedIn reports whether b has a lower and an upper bound on dim d that loops can use (not
// involving divs of d).
func boundedIn(b *basic, d int) bool {
	col := 1 + b.nParam + d
	lv := divLevels(b)
	lo, up := false, false
	for _, e := range b.eqs {
		if e[col] != 0 && !usesLevelDiv(b, lv, e, d) {
			return true
		}
	}
	for _, r := range b.ineqs {
		if usesLevelDiv(b, lv, r, d) {
			continue
		}
		lo = lo || r[col] > 0
		up = up || r[col] < 0
	}
	return lo && up
}

func negRows(rows [][]int64) [][]int64 {
	out := make([][]int64, len(rows))
	for i, r := range rows {
		out[i] = negRow(r)
	}
	return out
}
