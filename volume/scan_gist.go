// This file holds the exact simplifications scanning relies on: the gist of a loop domain with
// respect to what the enclosing loops already guarantee, the coalescing of two pieces whose union
// is convex, and the simple hull of pieces that must share one loop.

package volume

// system is a constraint system ready for a feasibility test: equalities and inequalities over
// the same columns (every div definition included as two inequalities).
type system struct{ eqs, ineqs [][]int64 }

// implies reports whether every integer point of s satisfies r (r >= 0, or r = 0 when eq).
func (s system) implies(r []int64, eq bool) bool {
	if scanFeasible(s.eqs, append(s.ineqs[:len(s.ineqs):len(s.ineqs)], negIneq(r))) {
		return false
	}
	if !eq {
		return true
	}
	n := cloneRow(r)
	n[0] = subc(n[0], 1) // r >= 1 is the other way to violate r = 0
	return !scanFeasible(s.eqs, append(s.ineqs[:len(s.ineqs):len(s.ineqs)], n))
}

// plainImplied reports whether ineq r (or eq when eq) is implied by a single row of ctx: a row with
// the same coefficients and a tighter constant, or an equality it is half of.
func plainImplied(r []int64, eq bool, ctxEqs, ctxIneqs [][]int64) bool {
	for _, c := range ctxEqs {
		if sameCoeffs(r, c, 1) && (r[0] == c[0] || !eq && r[0] >= c[0]) {
			return true
		}
		if sameCoeffs(r, c, -1) && (r[0] == -c[0] || !eq && addc(r[0], c[0]) >= 0) {
			return true
		}
	}
	if eq {
		return false
	}
	for _, c := range ctxIneqs {
		if sameCoeffs(r, c, 1) && c[0] <= r[0] {
			return true
		}
	}
	return false
}

// gistOf returns j = ctx ∧ a and the constraints of a (as rows of j) that are not implied by ctx
// and the other kept constraints of a, so that ctx ∧ kept = ctx ∧ a. Constraints with more
// terms are dropped first, so that of two equivalent bounds the simpler one stays. d is the
// dimension being scanned (-1 for none): a bound on it with no other bound on the same side
// cannot be implied, which saves most tests.
func gistOf(a, ctx *basic, d int) (j *basic, eqs, ineqs [][]int64) {
	j, beq, bin := joinBasic(ctx, a)
	ctxEqs, ctxIneqs := j.eqs[:beq], j.ineqs[:bin]
	type cand struct {
		row   []int64
		eq    bool
		alive bool
	}
	var cs []*cand
	for _, r := range j.eqs[beq:] {
		if !plainImplied(r, true, ctxEqs, ctxIneqs) {
			cs = append(cs, &cand{r, true, true})
		}
	}
	for _, r := range j.ineqs[bin:] {
		if !plainImplied(r, false, ctxEqs, ctxIneqs) {
			cs = append(cs, &cand{r, false, true})
		}
	}
	lv := divLevels(j)
	colD := -1
	if d >= 0 && d < j.nDim() {
		colD = 1 + j.nParam + d
	}
	// side returns +1 (lower bound), -1 (upper bound) or 0 (anything else) of a row on dim d.
	side := func(c *cand) int {
		if colD < 0 || c.eq || usesLevelDiv(j, lv, c.row, d) || c.row[colD] == 0 {
			return 0
		}
		if c.row[colD] > 0 {
			return 1
		}
		return -1
	}
	involvesD := func(c *cand) bool {
		return colD >= 0 && (c.row[colD] != 0 || usesLevelDiv(j, lv, c.row, d))
	}
	// order: constraints on outer dimensions first, then the most complex ones
	order := make([]*cand, 0, len(cs))
	for _, c := range cs {
		if !involvesD(c) {
			order = append(order, c)
		}
	}
	rest := len(order)
	for _, c := range cs {
		if involvesD(c) {
			order = append(order, c)
		}
	}
	tail := order[rest:]
	rank := func(c *cand) int { // div rows last, then more terms first
		if usesLevelDiv(j, lv, c.row, d) {
			return -1 << 20
		}
		return nonZeros(c.row)
	}
	for i := 1; i < len(tail); i++ {
		for k := i; k > 0 && rank(tail[k]) > rank(tail[k-1]); k-- {
			tail[k], tail[k-1] = tail[k-1], tail[k]
		}
	}
	divc := j.allDivConstraints()
	// rows that use divs of d cannot serve as loop bounds: bounds are never dropped because of them
	divRow := func(c *cand) bool { return colD >= 0 && usesLevelDiv(j, lv, c.row, d) }
	for _, c := range order {
		s := side(c)
		if s != 0 {
			other := false
			for _, o := range cs {
				if o != c && o.alive && !divRow(o) && involvesD(o) && (side(o) == s || o.eq) {
					other = true
					break
				}
			}
			if !other {
				continue // the only bound on this side: dropping it would leave d unbounded
			}
		}
		sys := system{eqs: append([][]int64(nil), ctxEqs...), ineqs: append(append([][]int64(nil), ctxIneqs...), divc...)}
		for _, o := range cs {
			if o == c || !o.alive || involvesD(c) && !divRow(c) && divRow(o) {
				continue
			}
			if o.eq {
				sys.eqs = append(sys.eqs, o.row)
			} else {
				sys.ineqs = append(sys.ineqs, o.row)
			}
		}
		if sys.implies(c.row, c.eq) {
			c.alive = false
		}
	}
	for _, c := range cs {
		if !c.alive {
			continue
		}
		if c.eq {
			eqs = append(eqs, c.row)
		} else {
			ineqs = append(ineqs, c.row)
		}
	}
	return j, eqs, ineqs
}

// withRows returns a basic with the divs of j and the given constraints.
func withRows(j *basic, eqs, ineqs [][]int64) *basic {
	b := &basic{nParam: j.nParam, in: j.in, out: j.out, divs: j.divs}
	b = b.clone()
	b.eqs = cloneRows(eqs)
	b.ineqs = cloneRows(ineqs)
	return b
}

// splitValid splits the rows of x (every equality as two inequalities) into those that hold on
// every system of others and the rest. A row with the same coefficients as a tighter row of an
// other system holds there without a test.
func splitValid(xEqs, xIneqs [][]int64, others []system) (valid, invalid [][]int64) {
	try := func(r []int64) {
		for _, s := range others {
			if !plainImplied(r, false, s.eqs, s.ineqs) && !s.implies(r, false) {
				invalid = append(invalid, r)
				return
			}
		}
		valid = append(valid, r)
	}
	for _, e := range xEqs {
		try(e)
		try(negRow(e))
	}
	for _, r := range xIneqs {
		try(r)
	}
	return valid, invalid
}

// validRows returns the rows of x that hold on all of the systems others.
func validRows(xEqs, xIneqs [][]int64, others []system) [][]int64 {
	v, _ := splitValid(xEqs, xIneqs, others)
	return v
}

// coalescePair returns a ∪ b as a single basic when that union is convex, and nil otherwise. The
// candidate C is the conjunction of the constraints of each piece that hold on the other (it
// contains both pieces). C − a is the union of C ∧ r1 ∧ … ∧ r(i-1) ∧ ¬ri over the constraints ri
// of a that fail on b (the others hold on C), and each of these lies in b unless it meets the
// negation of a constraint of b that fails on a: so C = a ∪ b takes one test per such pair.
func coalescePair(a, b *basic) *basic {
	j, beq, bin := joinBasic(a, b)
	divc := j.allDivConstraints()
	sysOf := func(eqs, ineqs [][]int64) system {
		return system{eqs: eqs, ineqs: append(append([][]int64(nil), ineqs...), divc...)}
	}
	aEqs, aIneqs := j.eqs[:beq], j.ineqs[:bin]
	bEqs, bIneqs := j.eqs[beq:], j.ineqs[bin:]
	aValid, aInvalid := splitValid(aEqs, aIneqs, []system{sysOf(bEqs, bIneqs)})
	if len(aInvalid) == 0 { // b ⊆ a
		return a
	}
	bValid, bInvalid := splitValid(bEqs, bIneqs, []system{sysOf(aEqs, aIneqs)})
	if len(bInvalid) == 0 { // a ⊆ b
		return b
	}
	cand := append(append([][]int64(nil), aValid...), bValid...)
	for i, r := range aInvalid {
		base := append(append(append(append([][]int64(nil), cand...), divc...), aInvalid[:i]...), negIneq(r))
		for _, s := range bInvalid {
			if scanFeasible(nil, append(base[:len(base):len(base)], negIneq(s))) {
				return nil
			}
		}
	}
	c := withRows(j, nil, cand)
	if !c.tidy() {
		return nil
	}
	c.dropUnusedDivs()
	return c
}

// coalesceList merges pieces of bs pairwise while their union is convex.
func coalesceList(bs []*basic) []*basic {
	out := append([]*basic(nil), bs...)
	for merged := true; merged && len(out) > 1; {
		merged = false
		for i := 0; i < len(out) && !merged; i++ {
			for k := i + 1; k < len(out) && !merged; k++ {
				if c := coalescePair(out[i], out[k]); c != nil {
					out[i] = c
					out = append(out[:k], out[k+1:]...)
					merged = true
				}
			}
		}
	}
	return out
}

// simpleHull returns a convex superset of the union of bs: the constraints of each piece that
// hold on all the others.
func simpleHull(bs []*basic) *basic {
	j := bs[0].clone()
	j.eqs, j.ineqs = nil, nil
	var eqs, ineqs []int
	var starts [][2]int
	for _, b := range bs {
		var e, i int
		j, e, i = joinBasic(j, b)
		starts = append(starts, [2]int{e, i})
		eqs, ineqs = append(eqs, len(j.eqs)), append(ineqs, len(j.ineqs))
	}
	divc := j.allDivConstraints()
	systems := make([]system, len(bs))
	for k := range bs {
		systems[k] = system{eqs: j.eqs[starts[k][0]:eqs[k]], ineqs: append(append([][]int64(nil), j.ineqs[starts[k][1]:ineqs[k]]...), divc...)}
	}
	var rows [][]int64
	for k := range bs {
		others := append(append([]system(nil), systems[:k]...), systems[k+1:]...)
		rows = append(rows, validRows(j.eqs[starts[k][0]:eqs[k]], j.ineqs[starts[k][1]:ineqs[k]], others)...)
	}
	h := withRows(j, nil, rows)
	h.tidy()
	h.dropUnusedDivs()
	return h
}
