// This file holds per-dimension bounds: the lower and upper bounds of one dimension of a set as
// quasi-affine expressions of the parameters and the outer dimensions.

package volume

import "fmt"

// DimBound describes dimension d of one piece of the projection of a set onto its dimensions
// 0..d. The points of that projection are exactly the union over the pieces of
//
//	{ x : Guard holds, max(Lower) <= x_d <= min(Upper), Other holds }
//
// Guard involves only the parameters and dims 0..d-1; Lower and Upper are expressions of them
// (with floor divisions); Other holds the remaining constraints on x_d (strides and mods,
// involving floor divisions of x_d), usually empty.
type DimBound struct {
	Guard []Constraint
	Lower []Aff // x_d >= each
	Upper []Aff // x_d <= each
	Other []Constraint
}

// DimBounds returns the bounds of dimension d of s (single space), one DimBound per piece of the
// coalesced projection of s onto dims 0..d. Expressions use set dimension i as Aff dimension i.
// A piece with no lower (upper) bound has an empty Lower (Upper).
func (s Set) DimBounds(d int) (out []DimBound, err error) {
	if s.u.err != nil {
		return nil, s.u.err
	}
	err = try(func() {
		nd := s.ndim()
		if d < 0 || d >= nd {
			spaceMismatch("DimBounds(%d) of a %d-dimensional set", d, nd)
		}
		bg := newBudget(nil) // one operation
		p := s
		if d+1 < nd {
			p = s.projectOut(d+1, nd-d-1, bg)
		}
		p = Set{p.u.coalesce(bg)}
		for _, b := range p.u.pieces {
			out = append(out, b.dimBound(d, p.u.params))
		}
	})
	return out, err
}

func (b *basic) dimBound(d int, params []string) DimBound {
	col := b.outStart() + d
	// divs that depend on x_d, directly or through other divs
	dep := make([]bool, len(b.divs))
	for k, dv := range b.divs {
		if dv.num[col] != 0 {
			dep[k] = true
			continue
		}
		for j := 0; j < k; j++ {
			if dep[j] && dv.num[b.divStart()+j] != 0 {
				dep[k] = true
				break
			}
		}
	}
	usesDep := func(r []int64) bool {
		for k := range b.divs {
			if dep[k] && r[b.divStart()+k] != 0 {
				return true
			}
		}
		return false
	}
	var db DimBound
	addBound := func(r []int64, lower, upper bool) {
		a := r[col]
		rest := cloneRow(r)
		rest[col] = 0
		ra := b.rowAff(rest, params)
		if a > 0 { // a*x + rest >= 0: x >= ceil(-rest/a)
			if lower {
				db.Lower = append(db.Lower, ra.neg().ceilDiv(a))
			}
			if upper { // equality: x <= floor(-rest/a)
				db.Upper = append(db.Upper, ra.neg().floorDiv(a))
			}
		} else { // -|a|*x + rest >= 0: x <= floor(rest/|a|)
			if upper {
				db.Upper = append(db.Upper, ra.floorDiv(-a))
			}
			if lower {
				db.Lower = append(db.Lower, ra.ceilDiv(-a))
			}
		}
	}
	for _, e := range b.eqs {
		switch {
		case usesDep(e):
			db.Other = append(db.Other, Constraint{Aff: b.rowAff(e, params), Eq: true})
		case e[col] == 0:
			db.Guard = append(db.Guard, Constraint{Aff: b.rowAff(e, params), Eq: true})
		default:
			addBound(e, true, true)
			if abs64(e[col]) != 1 {
				// x_d = -rest/a also needs a | rest
				db.Other = append(db.Other, Constraint{Aff: b.rowAff(e, params), Eq: true})
			}
		}
	}
	for _, r := range b.ineqs {
		switch {
		case usesDep(r):
			if bnd, upper, ok := b.unwrapDivBound(r, col, dep, params); ok {
				if upper {
					db.Upper = append(db.Upper, bnd)
				} else {
					db.Lower = append(db.Lower, bnd)
				}
				continue
			}
			db.Other = append(db.Other, Constraint{Aff: b.rowAff(r, params)})
		case r[col] == 0:
			db.Guard = append(db.Guard, Constraint{Aff: b.rowAff(r, params)})
		case r[col] > 0:
			addBound(r, true, false)
		default:
			addBound(r, false, true)
		}
	}
	return db
}

// String prints a bound as "guard : max(lower) <= x <= min(upper)" with dims named d0, d1, ….
func (db DimBound) String() string {
	list := func(fn string, as []Aff) string {
		if len(as) == 0 {
			return "inf"
		}
		s := as[0].String()
		for _, a := range as[1:] {
			s = fmt.Sprintf("%s(%s, %s)", fn, s, a.String())
		}
		return s
	}
	return fmt.Sprintf("%d guards: %s <= x <= %s (%d other)", len(db.Guard), list("max", db.Lower), list("min", db.Upper), len(db.Other))
}

// unwrapDivBound turns an inequality that reaches x (column col) only through a chain of
// floor divisions, each holding one term that depends on x (floor(floor(x/2)/2) <= T of the
// rows a strided convolution of a strided convolution needs), into a bound on x itself: it
// reports the bound and whether it is an upper one. Every step is exact over the integers:
// floor(n/d) <= B iff n <= d*B + d - 1, floor(n/d) >= B iff n >= d*B, and c*t <= K iff
// t <= floor(K/c) for c > 0. A row with two terms that depend on x stays Other (ok false).
func (b *basic) unwrapDivBound(r []int64, col int, dep []bool, params []string) (bound Aff, upper, ok bool) {
	// depTerm returns the one column of row that depends on x (col or a dependent div), its
	// coefficient, and the rest of the row as an expression; ok is false for several.
	depTerm := func(row []int64) (term int, c int64, rest Aff, ok bool) {
		term = -1
		cols := []int{col}
		for k := range b.divs {
			if dep[k] {
				cols = append(cols, b.divStart()+k)
			}
		}
		for _, j := range cols {
			if j < len(row) && row[j] != 0 {
				if term >= 0 {
					return 0, 0, Aff{}, false
				}
				term, c = j, row[j]
			}
		}
		if term < 0 {
			return 0, 0, Aff{}, false
		}
		r := cloneRow(row)
		r[term] = 0
		return term, c, b.rowAff(r, params), true
	}
	term, c, rest, ok := depTerm(r)
	if !ok {
		return Aff{}, false, false
	}
	// c*t + rest >= 0: t >= ceil(-rest/c) when c > 0, t <= floor(rest/|c|) when c < 0
	if c > 0 {
		bound, upper = rest.neg().ceilDiv(c), false
	} else {
		bound, upper = rest.floorDiv(-c), true
	}
	for guard := 0; term != col; guard++ {
		if guard > len(b.divs) {
			return Aff{}, false, false
		}
		dv := b.divs[term-b.divStart()]
		// t = floor(n/d) with n = a*t' + rest'
		nt, a, nrest, ok := depTerm(dv.num)
		if !ok {
			return Aff{}, false, false
		}
		// k stands for a*t': upper t <= B gives k <= d*B + d - 1 - rest'; lower t >= B gives
		// k >= d*B - rest'
		var k Aff
		if upper {
			k = bound.mul(dv.den).addConst(dv.den - 1).sub(nrest)
		} else {
			k = bound.mul(dv.den).sub(nrest)
		}
		switch {
		case a > 0 && upper: // a*t' <= k
			bound = k.floorDiv(a)
		case a > 0: // a*t' >= k
			bound = k.ceilDiv(a)
		case upper: // -|a|*t' <= k: t' >= ceil(-k/|a|)
			bound, upper = k.neg().ceilDiv(-a), false
		default: // -|a|*t' >= k: t' <= floor(-k/|a|)
			bound, upper = k.neg().floorDiv(-a), true
		}
		term = nt
	}
	return bound, upper, true
}
