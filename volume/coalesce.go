// This file holds coalescing: pieces contained in another piece are dropped, and pairs of pieces
// whose union is convex are replaced by one piece. Every step is checked exactly, so coalescing
// never changes the points of a value.

package volume

// Coalesce returns s with fewer pieces: each piece is simplified, pieces contained in another are
// dropped, and two pieces whose union is one convex piece are merged (isl_union_set_coalesce).
func (s Set) Coalesce() Set { return Set{s.u.coalesce()} }

// Coalesce returns m with fewer pieces (see Set.Coalesce).
func (m Map) Coalesce() Map { return Map{m.u.coalesce()} }

func (u union) coalesce() union {
	u = u.simplifyCheap()
	pieces := coalescePieces(u.pieces)
	// redundant constraints go last, when few pieces remain
	for i, p := range pieces {
		c := p.clone()
		c.removeRedundantIneqs(len(c.divs) > 0) // implicit equalities hide in mods
		c.dropUnusedDivs()
		pieces[i] = c
	}
	return union{params: u.params, spaces: u.spaces, pieces: pieces}
}

// coalescePieces drops pieces contained in another and merges pairs whose union is convex. The
// pieces must be non-empty; the result is a new slice (pieces are not modified).
func coalescePieces(in []*basic) []*basic {
	pieces := append([]*basic(nil), in...)
	// Passes until nothing changes; within a pass, piece i absorbs every later piece it contains
	// or merges with (and is then compared again with the remaining ones).
	for changed := true; changed; {
		changed = false
		for i := 0; i < len(pieces); i++ {
			for j := i + 1; j < len(pieces); {
				a, b := pieces[i], pieces[j]
				if !a.sameSpace(b) {
					j++
					continue
				}
				var m *basic
				switch {
				case b.subsetOf(a):
					m = a
				case a.subsetOf(b):
					m = b
				default:
					m = a.merge(b)
				}
				if m == nil {
					j++
					continue
				}
				pieces[i] = m
				pieces = append(pieces[:j:j], pieces[j+1:]...)
				changed = true
				if m != a {
					j = i + 1
				}
			}
		}
	}
	return pieces
}

// alignDivs returns a copy of a extended with the divs of c, and c's constraints (equalities as
// pairs of inequalities) over the columns of that copy.
func (a *basic) alignDivs(c *basic) (base *basic, cons [][]int64) {
	base, ceqs, cineqs := a.join(c, false)
	cons = make([][]int64, 0, 2*len(ceqs)+len(cineqs))
	for _, e := range ceqs {
		cons = append(cons, e, negRow(e))
	}
	return base, append(cons, cineqs...)
}

// implies reports whether every integer point of b satisfies the inequality r (over b's columns).
// b should not be empty: the test takes that for granted (on an empty b it may answer false for
// some r, which costs coalescing a merge, never exactness).
func (b *basic) implies(r []int64) bool {
	if b.plainImplies(r) {
		return true
	}
	s := newOmegaSys(b.width(), nil)
	defer s.release()
	s.addBasic(b)
	s.markKnown()
	s.addNegIneq(r)
	return !s.feasible()
}

// plainImplies reports whether b has an inequality with r's coefficients and a constant no larger,
// or an equality whose multiple is r up to a larger constant: a syntactic proof that b implies r.
func (b *basic) plainImplies(r []int64) bool {
	for _, k := range b.ineqs {
		if k[0] <= r[0] && sameCoeffs(k, r, 1) {
			return true
		}
	}
	for _, e := range b.eqs {
		for _, s := range []int64{1, -1} {
			if s*e[0] <= r[0] && sameCoeffs(r, e, s) {
				return true
			}
		}
	}
	return false
}

// subsetOf decides exactly whether a ⊆ c (same space).
func (a *basic) subsetOf(c *basic) bool {
	base, cons := a.alignDivs(c)
	for _, k := range cons {
		if !base.implies(k) {
			return false
		}
	}
	return true
}

// merge returns one basic equal to a ∪ b when the constraints of a that b satisfies, together
// with the constraints of b that a satisfies, describe exactly a ∪ b; otherwise nil.
func (a *basic) merge(b *basic) *basic {
	// common column space: a's columns, then b's divs
	base, bCons := a.alignDivs(b)
	// b over the same columns: b's rows with a's divs appended as extra (defined) divs
	bb, _ := b.alignDivs(a)
	// bb has columns [.. | b.divs | a.divs]; base has [.. | a.divs | b.divs]: permute bb.
	ds := a.divStart()
	na, nb := len(a.divs), len(b.divs)
	perm := make([]int, bb.width())
	for i := 0; i < ds; i++ {
		perm[i] = i
	}
	for k := 0; k < nb; k++ {
		perm[ds+k] = ds + na + k
	}
	for k := 0; k < na; k++ {
		perm[ds+nb+k] = ds + k
	}
	bb.remapRows(perm, base.width())
	divs := make([]div, na+nb)
	for k := 0; k < nb; k++ {
		divs[na+k] = bb.divs[k]
	}
	for k := 0; k < na; k++ {
		divs[k] = bb.divs[nb+k]
	}
	bb.divs = divs
	// a's own constraints over base's columns
	var aOwn [][]int64
	for _, e := range base.eqs {
		aOwn = append(aOwn, e, negRow(e))
	}
	aOwn = append(aOwn, base.ineqs...)
	var kept [][]int64
	for _, k := range aOwn {
		if bb.implies(k) {
			kept = append(kept, cloneRow(k))
		}
	}
	for _, k := range bCons {
		if base.implies(k) {
			kept = append(kept, cloneRow(k))
		}
	}
	cand := base.clone()
	cand.eqs = nil
	cand.ineqs = kept
	cand.mergeDuplicateDivs()
	if !cand.tidy() {
		return nil
	}
	// cand ⊇ a ∪ b by construction; it is their union when cand − a − b is empty.
	for _, p := range cand.subtract(a) {
		if len(p.subtract(b)) > 0 {
			return nil
		}
	}
	cand.dropUnusedDivs()
	return cand
}
