// This file holds coalescing: pieces contained in another piece are dropped, and pairs of pieces
// whose union is convex are replaced by one piece. Every step is checked exactly, so coalescing
// never changes the points of a value.

package volume

import "slices"

// Coalesce returns s with fewer pieces: each piece is simplified, pieces contained in another are
// dropped, and two pieces whose union is one convex piece are merged (isl_union_set_coalesce).
func (s Set) Coalesce() Set {
	return Set{guard(coalesceOp, s.u)}
}

// Coalesce returns m with fewer pieces (see Set.Coalesce).
func (m Map) Coalesce() Map {
	return Map{guard(coalesceOp, m.u)}
}

func (u union) coalesce(bg *budget) union {
	in := u.pieces
	u = u.simplifyCheap(bg)
	pieces := coalescePieces(u.pieces, bg)
	// redundant constraints go last, when few pieces remain
	for i, p := range pieces {
		c := p
		if slices.Contains(in, p) {
			c = p.clone() // pieces of u are never modified; the others were made here
		}
		c.removeRedundantIneqs(len(c.divs) > 0, bg) // implicit equalities hide in mods
		c.dropUnusedDivs()
		c.nonEmpty, c.tidied = true, true
		pieces[i] = c
	}
	return union{params: u.params, spaces: u.spaces, pieces: pieces}
}

// coalescePieces drops pieces contained in another and merges pairs whose union is convex. The
// pieces must be non-empty; the result is a new slice (pieces are not modified).
//
// Piece i absorbs every later piece it contains or merges with, in order, and is compared again
// with the remaining ones after a merge, until no pair changes. A pair is decided by
// coalesceTwo, a function of the two pieces only, so a pair found apart is never tested again:
// only pairs involving a new (merged) piece are. In unions of minPointPieces or more, each piece
// carries a sample point, which settles most pairs that neither contain each other nor merge
// without any exact test (see coalesceTwo). Past maxCoalesceTests exact tests the remaining
// pairs are left as they are: the result is still exact, only less compact.
func coalescePieces(in []*basic, bg *budget) []*basic {
	cs := coalescer{budget: maxCoalesceTests, points: len(in) >= minPointPieces, bg: bg, local: bg.optional()}
	items := make([]*coalItem, len(in))
	for i, p := range in {
		items[i] = &coalItem{b: p}
	}
	apart := map[[2]*coalItem]bool{}
	for changed := true; changed; {
		changed = false
		for i := 0; i < len(items); i++ {
			for j := i + 1; j < len(items); {
				a, b := items[i], items[j]
				if !a.b.sameSpace(b.b) || apart[[2]*coalItem{a, b}] || cs.budget <= 0 || cs.bg.lowOnWork() {
					j++
					continue
				}
				m := cs.two(a, b)
				if m == nil {
					apart[[2]*coalItem{a, b}] = true
					j++
					continue
				}
				items[i] = m
				items = append(items[:j:j], items[j+1:]...)
				changed = true
				if m != a {
					j = i + 1
				}
			}
		}
	}
	out := make([]*basic, len(items))
	for i, it := range items {
		out[i] = it.b
	}
	return out
}

// maxCoalesceTests is the work budget of one coalescing: the exact (Omega test) implication and
// merge tests it may run. Past it, the pairs not yet decided are kept apart. Real unions need a
// few hundred; the budget stops unions of dozens of unbounded splinters from costing seconds
// (FuzzParse: { [i] : exists (h : 51h < i < 48h) } took 2 s with 4000 tests, 0.3 s with 1000).
const maxCoalesceTests = 1000

// coalItem is a piece being coalesced with, once needed, one of its points.
type coalItem struct {
	b      *basic
	pt     []int64 // parameters then dims; nil until sampled or when b has none at hand
	tried  bool    // pt was computed (or could not be)
	sample []int64 // pt followed by b's divs at pt (column values from 1 on), when pt is set
}

// minPointPieces is the size from which a union's pieces get sample points. A sample costs a
// feasibility test per dimension (about 80 µs for a 6-d piece with parameters), which only pays
// off when the pairs to decide are many: a 3-piece conv domain coalesces in 15 µs without them,
// 270 µs with them, while unions of 60+ pieces took seconds without them.
const minPointPieces = 8

// coalescer holds the state of one coalescing: the exact tests it may still run, and whether
// pieces get sample points.
type coalescer struct {
	budget int
	points bool
	bg     *budget // the operation's budget
	local  *budget // the allowance of the current pair or sample, refilled for each
}

// point returns a sample point of it (parameters then dims), nil when none could be found.
func (cs *coalescer) point(it *coalItem) []int64 {
	if !it.tried && cs.points {
		it.tried = true
		cs.budget--
		func() {
			defer func() {
				if r := recover(); r != nil {
					if _, ok := r.(overflow); !ok && !undecided(r) {
						panic(r)
					}
					it.pt = nil // points beyond int64, or too hard to find: only exact tests
				}
			}()
			if v, ok := it.b.sampleBasic(cs.local.refill()); ok {
				it.pt = v
			}
		}()
	}
	return it.pt
}

// two is coalesceTwo of two items, with their sample points as quick witnesses. A pair whose
// exact tests are too complex (an elimination past its bounds) stays apart: coalescing only
// merges what it proves, so not deciding keeps the union exact.
func (cs *coalescer) two(a, b *coalItem) *coalItem {
	pa, pb := cs.point(a), cs.point(b)
	var m *basic
	func() {
		defer func() {
			if r := recover(); r != nil {
				if !undecided(r) {
					panic(r)
				}
				m = nil
			}
		}()
		m = coalesceTwo(a.b, b.b, pa, pb, &cs.budget, cs.local.refill())
	}()
	switch m {
	case nil:
		return nil
	case a.b:
		return a
	case b.b:
		return b
	}
	// the merged piece contains a: a's point is one of its points
	return &coalItem{b: m, pt: pa, tried: true}
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
func (b *basic) implies(r []int64, bg *budget) bool {
	if b.plainImplies(r) {
		return true
	}
	s := newOmegaSys(b.width(), bg)
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
//
// pa and pb, when not nil, are points of a and b (parameters then dims). They make the answer
// cheaper, never different: a constraint of one piece that the other's point violates is not
// implied by that piece (no exact test needed), and an integer point that satisfies every
// constraint not so refuted but lies in neither piece proves that the pair cannot merge. Every
// exact test decrements *budget.
func coalesceTwo(a, b *basic, pa, pb []int64, budget *int, bg *budget) *basic {
	// common columns: a's, then b's divs; bb is b over them
	base, bb := a, b
	if len(a.divs) > 0 || len(b.divs) > 0 {
		var beqs, bineqs [][]int64
		base, beqs, bineqs = a.join(b, false)
		bb = &basic{nParam: b.nParam, in: b.in, out: b.out, divs: base.divs, eqs: beqs, ineqs: bineqs}
	}
	aRows, bRows := asIneqs(base), asIneqs(bb)
	// refuted[i]: row i of aRows (then of bRows) is violated by the other piece's point
	refuted := make([]bool, len(aRows)+len(bRows))
	va, vb := base.valuesAt(pa), base.valuesAt(pb)
	nA, nB := 0, 0
	if vb != nil {
		for i, k := range aRows {
			if v, ok := dotAt(k, vb); ok && v < 0 {
				refuted[i] = true
				nA++
			}
		}
	}
	if va != nil {
		for i, k := range bRows {
			if v, ok := dotAt(k, va); ok && v < 0 {
				refuted[len(aRows)+i] = true
				nB++
			}
		}
	}
	if nA*nB > maxMergeChecks {
		return nil // neither contains the other and the merge test would have too many pairs
	}
	if nA > 0 && nB > 0 && va != nil && vb != nil && witnessApart(base, aRows, bRows, refuted, pa, pb) {
		return nil
	}
	implies := func(p *basic, r []int64) bool {
		if p.plainImplies(r) {
			return true
		}
		*budget--
		return p.implies(r, bg)
	}
	// every constraint of a is valid for b (b ⊆ a), or is cut (some point of b violates it)
	var kept, aCut [][]int64
	for i, k := range aRows {
		if !refuted[i] && implies(bb, k) {
			kept = append(kept, k)
		} else {
			aCut = append(aCut, k)
		}
	}
	if len(aCut) == 0 {
		return a
	}
	var bCut [][]int64
	for i, k := range bRows {
		if !refuted[len(aRows)+i] && implies(base, k) {
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
			*budget--
			s := newOmegaSys(cand.width(), bg)
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

// witnessApart looks for an integer point between pa ∈ a and pb ∈ b (their midpoints and the
// corners of their bounding box) that lies in neither piece but satisfies every row of aRows and
// bRows not refuted: such a point lies in any candidate coalesceTwo could build, which is then
// not a ∪ b. base holds the divs of both pieces (those of aRows and bRows).
func witnessApart(base *basic, aRows, bRows [][]int64, refuted []bool, pa, pb []int64) bool {
	n := len(pa)
	try := func(z []int64) bool {
		v := base.valuesAt(z)
		if v == nil {
			return false
		}
		inA, inB := true, true
		for i, k := range aRows {
			x, ok := dotAt(k, v)
			if !ok {
				return false
			}
			if x < 0 {
				if !refuted[i] {
					return false
				}
				inA = false
			}
		}
		for i, k := range bRows {
			x, ok := dotAt(k, v)
			if !ok {
				return false
			}
			if x < 0 {
				if !refuted[len(aRows)+i] {
					return false
				}
				inB = false
			}
		}
		return !inA && !inB
	}
	z := make([]int64, n)
	for _, f := range [][2]int64{{1, 2}, {1, 3}, {2, 3}} { // z = pa + f·(pb - pa), rounded down
		ok := true
		for d := range z {
			diff := pb[d] - pa[d]
			if (diff > 0) != (pb[d] > pa[d]) || diff > 1<<61 || diff < -(1<<61) {
				ok = false
				break
			}
			z[d] = pa[d] + floorDiv(diff*f[0], f[1])
		}
		if ok && try(z) {
			return true
		}
	}
	if n > 6 {
		return false
	}
	for mask := 1; mask < 1<<n-1; mask++ { // corners other than pa and pb
		for d := range z {
			if mask>>d&1 != 0 {
				z[d] = pb[d]
			} else {
				z[d] = pa[d]
			}
		}
		if try(z) {
			return true
		}
	}
	return false
}

// valuesAt returns the values of the columns of b (constant 1, parameters, dims, divs) at the
// point p (parameters then dims), or nil when p is nil or a div leaves the int64 range.
func (b *basic) valuesAt(p []int64) []int64 {
	if p == nil {
		return nil
	}
	v := make([]int64, b.divStart(), b.divStart()+len(b.divs))
	v[0] = 1
	copy(v[1:], p)
	for _, d := range b.divs {
		x, ok := dotAt(d.num[:len(v)], v)
		if !ok {
			return nil
		}
		v = append(v, floorDiv(x, d.den))
	}
	return v
}

// dotAt returns r · v over the columns of v (r has at least as many), ok=false on overflow.
func dotAt(r, v []int64) (int64, bool) {
	s, ok := int64(0), true
	for i, x := range v {
		if r[i] != 0 {
			if s, ok = addMulSafe(s, r[i], x); !ok {
				return 0, false
			}
		}
	}
	return s, true
}

// asIneqs returns the constraints of b as inequalities (an equality as a pair).
func asIneqs(b *basic) [][]int64 {
	out := make([][]int64, 0, 2*len(b.eqs)+len(b.ineqs))
	for _, e := range b.eqs {
		out = append(out, e, negRow(e))
	}
	return append(out, b.ineqs...)
}
