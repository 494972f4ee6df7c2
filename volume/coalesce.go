// This file holds coalescing: pieces contained in another piece are dropped, and pairs of pieces
// whose union is convex are replaced by one piece. Every step is checked exactly, so coalescing
// never changes the points of a value.

package volume

import "slices"

// Coalesce returns s with fewer pieces: each piece is simplified, pieces contained in another are
// dropped, and two pieces whose union is one convex piece are merged (isl_union_set_coalesce).
func (s Set) Coalesce() Set { return Set{s.u.coalesce()} }

// Coalesce returns m with fewer pieces (see Set.Coalesce).
func (m Map) Coalesce() Map { return Map{m.u.coalesce()} }

func (u union) coalesce() union {
	in := u.pieces
	u = u.simplifyCheap()
	pieces := coalescePieces(u.pieces)
	// redundant constraints go last, when few pieces remain
	for i, p := range pieces {
		c := p
		if slices.Contains(in, p) {
			c = p.clone() // pieces of u are never modified; the others were made here
		}
		c.removeRedundantIneqs(len(c.divs) > 0) // implicit equalities hide in mods
		c.dropUnusedDivs()
		c.nonEmpty, c.tidied = true, true
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
				m := coalesceTwo(a, b)
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
	s.addConnected(b, -1, r)
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

// maxMergeChecks bounds the pairs (cut constraint of a, cut constraint of b) whose tests decide
// whether two pieces merge; pairs with more cut constraints are not merged.
const maxMergeChecks = 64

// coalesceTwo returns a when b ⊆ a, b when a ⊆ b, one basic equal to a ∪ b when the constraints
// of a that b satisfies, together with those of b that a satisfies, describe exactly a ∪ b, and
// nil otherwise. a and b are not empty (same space); neither is modified.
func coalesceTwo(a, b *basic) *basic {
	// common columns: a's, then b's divs; bb is b over them
	base, bb := a, b
	if len(a.divs) > 0 || len(b.divs) > 0 {
		var beqs, bineqs [][]int64
		base, beqs, bineqs = a.join(b, false)
		bb = &basic{nParam: b.nParam, in: b.in, out: b.out, divs: base.divs, eqs: beqs, ineqs: bineqs}
	}
	// every constraint of a is valid for b (b ⊆ a), or is cut (some point of b violates it)
	var kept, aCut [][]int64
	for _, k := range asIneqs(base) {
		if bb.implies(k) {
			kept = append(kept, k)
		} else {
			aCut = append(aCut, k)
		}
	}
	if len(aCut) == 0 {
		return a
	}
	var bCut [][]int64
	for _, k := range asIneqs(bb) {
		if base.implies(k) {
			kept = append(kept, k)
		} else if bCut = append(bCut, k); len(aCut)*len(bCut) > maxMergeChecks {
			return nil
		}
	}
	if len(bCut) == 0 {
		return b
	}
	// cand ⊇ a ∪ b by construction. A point of cand outside a violates a cut constraint of a (it
	// satisfies the others), and likewise for b: cand = a ∪ b iff no point of cand violates a
	// cut constraint of each.
	cand := &basic{nParam: a.nParam, in: a.in, out: a.out, divs: base.divs, ineqs: kept}
	for _, k := range aCut {
		for _, l := range bCut {
			s := newOmegaSys(cand.width(), nil)
			s.addConnected(cand, -1, k, l) // cand contains a
			s.addNegIneq(k)
			s.addNegIneq(l)
			ok := s.feasible()
			s.release()
			if ok {
				return nil
			}
		}
	}
	cand = cand.clone()
	cand.mergeDuplicateDivs()
	if !cand.tidy() {
		return nil
	}
	cand.dropUnusedDivs()
	cand.nonEmpty = true // it contains a
	return cand
}

// asIneqs returns the constraints of b as inequalities (an equality as a pair).
func asIneqs(b *basic) [][]int64 {
	out := make([][]int64, 0, 2*len(b.eqs)+len(b.ineqs))
	for _, e := range b.eqs {
		out = append(out, e, negRow(e))
	}
	return append(out, b.ineqs...)
}
