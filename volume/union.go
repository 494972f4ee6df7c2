// This file holds union, the finite union of basics shared by Set and Map, and the operations
// both types implement the same way: parameter alignment, intersection, subtraction, emptiness.

package volume

import "slices"

// space is the pair of tuples of a piece; sets have an empty input tuple.
type space struct{ in, out tuple }

func (s space) same(t space) bool { return s.in.sameSpace(t.in) && s.out.sameSpace(t.out) }

// union is a finite union of basics over shared parameters. Its pieces are never modified once
// the union is built: every operation builds new pieces.
type union struct {
	params []string
	spaces []space // the spaces of the union, also when it has no piece there (empty sets)
	pieces []*basic
	err    error // an error value (guard.go): the operation that built it gave up
}

func (u union) spaceOf(b *basic) space { return space{b.in, b.out} }

func (u *union) addSpace(s space) {
	for _, t := range u.spaces {
		if t.same(s) {
			return
		}
	}
	u.spaces = append(u.spaces, s)
}

func (u union) hasSpace(s space) bool {
	for _, t := range u.spaces {
		if t.same(s) {
			return true
		}
	}
	return false
}

// withParams remaps b from parameter list old to parameter list new: a superset, or a list
// without parameters whose columns are zero in b (dropUnusedParams).
func (b *basic) withParams(old, new []string) *basic {
	if slices.Equal(old, new) {
		return b
	}
	delta := len(new) - len(old)
	newCol := make([]int, b.width())
	for i, p := range old {
		newCol[1+i] = -1 // remapRows panics if the column is not zero
		if k := slices.Index(new, p); k >= 0 {
			newCol[1+i] = 1 + k
		}
	}
	for c := 1 + len(old); c < b.width(); c++ {
		newCol[c] = c + delta
	}
	c := b.shallow(0)
	c.remapRows(newCol, b.width()+delta)
	c.nParam = len(new)
	c.nonEmpty = b.nonEmpty // the new parameters are free
	return c
}

func (u union) withParams(params []string) union {
	if slices.Equal(u.params, params) {
		return u
	}
	r := union{params: params, spaces: u.spaces}
	for _, p := range u.pieces {
		r.pieces = append(r.pieces, p.withParams(u.params, params))
	}
	return r
}

// align returns a and b over the same parameter list (a's parameters first).
func align(a, b union) (union, union) {
	if slices.Equal(a.params, b.params) {
		return a, b
	}
	ps := append([]string(nil), a.params...)
	for _, p := range b.params {
		if !slices.Contains(ps, p) {
			ps = append(ps, p)
		}
	}
	return a.withParams(ps), b.withParams(ps)
}

// keepNonEmpty appends the pieces of bs that are not empty to u.
func (u *union) addPieces(bg *budget, bs ...*basic) {
	for _, b := range bs {
		if b == nil || !b.tidied && !b.tidy() || !b.nonEmpty && b.isEmpty(bg) {
			continue
		}
		b.nonEmpty = true
		b.dropUnusedDivs()
		b.tidied = true
		u.addSpace(space{b.in, b.out})
		u.pieces = append(u.pieces, b)
	}
}

func (u union) intersect(v union, bg *budget) union {
	u, v = align(u, v)
	r := union{params: u.params}
	for _, s := range u.spaces {
		if v.hasSpace(s) {
			r.addSpace(s)
		}
	}
	for _, a := range u.pieces {
		for _, b := range v.pieces {
			if a.sameSpace(b) {
				r.addPieces(bg, a.intersect(b))
			}
		}
	}
	return r
}

func (u union) unite(v union) union {
	u, v = align(u, v)
	r := union{params: u.params}
	for _, s := range u.spaces {
		r.addSpace(s)
	}
	for _, s := range v.spaces {
		r.addSpace(s)
	}
	r.pieces = append(append([]*basic(nil), u.pieces...), v.pieces...)
	return r
}

func (u union) subtract(v union, bg *budget) union {
	u, v = align(u, v)
	r := union{params: u.params, spaces: u.spaces}
	for _, a := range u.pieces {
		cur := []*basic{a}
		for _, b := range v.pieces {
			if !a.sameSpace(b) {
				continue
			}
			var next []*basic
			for _, c := range cur {
				next = append(next, c.subtract(b, bg)...)
			}
			cur = next
		}
		r.pieces = append(r.pieces, cur...)
	}
	return r
}

// subtract returns the pieces of a − c, pairwise disjoint and non-empty: a ∧ ¬k1, a ∧ k1 ∧ ¬k2,
// … for the constraints k of c that a does not imply. When a and c are disjoint it returns a.
func (a *basic) subtract(c *basic, bg *budget) []*basic {
	// Express c's constraints over a's columns with c's divs appended.
	var base *basic
	var cons [][]int64
	if len(c.divs) == 0 && a.tidied {
		// c's rows are over a's columns. base shares a's rows: they are tidy, so tidying base
		// writes none of them, and only the rows appended to it are normalised.
		base = &basic{nParam: a.nParam, in: a.in, out: a.out, divs: a.divs, eqs: slices.Clone(a.eqs), ineqs: a.ineqs}
		w := a.width()
		buf := make([]int64, (2*len(c.eqs)+len(c.ineqs))*w)
		row := func(r []int64, sign int64) []int64 {
			n := buf[:w:w]
			buf = buf[w:]
			for i, v := range r {
				n[i] = mulc(sign, v)
			}
			return n
		}
		cons = make([][]int64, 0, 2*len(c.eqs)+len(c.ineqs))
		for _, e := range c.eqs {
			cons = append(cons, row(e, 1), row(e, -1))
		}
		for _, r := range c.ineqs {
			cons = append(cons, row(r, 1))
		}
	} else {
		base, cons = a.alignDivs(c)
	}
	s := newOmegaSys(base.width(), bg)
	defer s.release()
	if a.nonEmpty {
		// base is a with c's divs, which are functions of its variables
		s.addConnected(base, -1, cons...)
	} else {
		s.addBasic(base)
	}
	s.addIneqs(cons)
	if !s.feasible() {
		return []*basic{a} // pieces are never modified: the result may share them
	}
	var out []*basic
	cur := base
	cur.ineqs = append(make([][]int64, 0, len(base.ineqs)+len(cons)), base.ineqs...)
	// cur is kept tidy, so that each piece only tidies its new row
	if !a.tidied && !cur.tidy() {
		return nil // cannot happen: cur contains a ∩ c
	}
	neg := make([]int64, base.width())
	for _, k := range cons {
		if _, drop := normIneq(k); drop || cur.plainImplies(k) {
			continue
		}
		for i, v := range k {
			neg[i] = negc(v)
		}
		neg[0] = subc(neg[0], 1)
		s := newOmegaSys(cur.width(), bg)
		s.addConnected(cur, -1, neg) // cur contains a ∩ c, which is not empty
		s.addIneq(neg)
		ok := s.feasible()
		s.release()
		if !ok {
			continue // cur already implies k: adding it changes nothing
		}
		var p *basic
		if len(cur.divs) == 0 {
			// The pieces share cur's rows, which are tidy and which nothing writes any more:
			// tidying a piece normalises only its own new row and copies any equality it forms.
			p = &basic{nParam: cur.nParam, in: cur.in, out: cur.out, eqs: slices.Clone(cur.eqs)}
			p.ineqs = append(make([][]int64, 0, len(cur.ineqs)+1), cur.ineqs...)
			p.ineqs = append(p.ineqs, cloneRow(neg))
			p.tidyFrom(len(cur.ineqs))
			p.tidied = true
		} else {
			p = cur.cloneWith(neg)
			p.tidyFrom(len(cur.ineqs))
			p.mergeDuplicateDivs()
			p.dropUnusedDivs()
		}
		p.nonEmpty = true
		out = append(out, p)
		cur.ineqs = append(cur.ineqs, k) // cons rows are owned copies
		cur.tidyFrom(len(cur.ineqs) - 1)
	}
	return out
}

// isEmpty decides whether u has no point. bg may be nil: one test (one piece) then runs on a
// budget of its own, several on a new one.
func (u union) isEmpty(bg *budget) bool {
	for _, p := range u.pieces {
		if p.nonEmpty {
			return false
		}
	}
	if bg == nil && len(u.pieces) > 1 {
		bg = newBudget(nil)
	}
	for _, p := range u.pieces {
		if !p.isEmpty(bg) {
			return false
		}
	}
	return true
}

// isEqual decides u = v with one budget for both inclusions.
func (u union) isEqual(v union, bg *budget) bool { return u.isSubset(v, bg) && v.isSubset(u, bg) }

func (u union) plainIsEmpty() bool {
	for _, p := range u.pieces {
		if !p.plainIsEmpty() {
			return false
		}
	}
	return true
}

func (u union) isSubset(v union, bg *budget) bool { return u.subtract(v, bg).isEmpty(bg) }

// project quantifies the columns drop of every piece; shape gives the resulting tuples.
func (u union) project(drop func(b *basic) map[int]bool, shape func(b *basic) (in, out tuple), nParam int, params []string, bg *budget) union {
	r := union{params: params}
	for _, s := range u.spaces {
		var tmp basic
		tmp.in, tmp.out, tmp.nParam = s.in, s.out, len(u.params)
		in, out := shape(&tmp)
		r.addSpace(space{in, out})
	}
	for _, p := range u.pieces {
		in, out := shape(p)
		r.addPieces(bg, p.projectCols(drop(p), nParam, in, out, bg)...)
	}
	return r
}

// embed returns b's constraints in a space with tuples in and out, dimension i of b (inputs then
// outputs) going to dimension dimCol[i] (0-based over the new inputs then outputs).
func (b *basic) embed(in, out tuple, dimCol []int) *basic {
	nd := in.n() + out.n()
	newCol := make([]int, b.width())
	for p := 0; p < b.nParam; p++ {
		newCol[1+p] = 1 + p
	}
	for i := 0; i < b.nDim(); i++ {
		newCol[1+b.nParam+i] = 1 + b.nParam + dimCol[i]
	}
	for k := range b.divs {
		newCol[b.divStart()+k] = 1 + b.nParam + nd + k
	}
	c := b.shallow(0)
	c.remapRows(newCol, 1+b.nParam+nd+len(b.divs))
	c.in, c.out = in, out
	return c
}

func seq(from, n int) []int {
	r := make([]int, n)
	for i := range r {
		r[i] = from + i
	}
	return r
}

// simplify removes empty pieces, redundant constraints and unused divs of every piece.
func (u union) simplify(bg *budget) union {
	r := union{params: u.params, spaces: u.spaces}
	for _, p := range u.pieces {
		c := p.clone()
		if !c.tidy() || !p.nonEmpty && c.isEmpty(bg) {
			continue
		}
		c.nonEmpty = true
		c.removeRedundant(bg)
		c.dropUnusedDivs()
		c.tidied = true
		r.pieces = append(r.pieces, c)
	}
	return r
}

// simplifyCheap removes empty pieces and unused divs of every piece and tidies the rest, without
// the per-constraint redundancy tests of simplify.
func (u union) simplifyCheap(bg *budget) union {
	r := union{params: u.params, spaces: u.spaces}
	for _, p := range u.pieces {
		if p.nonEmpty && p.tidied && len(p.divs) == 0 {
			r.pieces = append(r.pieces, p) // nothing to do
			continue
		}
		c := p.clone()
		if !c.tidy() || !p.nonEmpty && c.isEmpty(bg) {
			continue
		}
		c.nonEmpty = true
		c.divsOutOfIneqs()
		if !c.tidy() {
			continue
		}
		c.dropUnusedDivs()
		c.tidied = true
		r.pieces = append(r.pieces, c)
	}
	return r
}

// removeRedundant drops every inequality implied by the others (exact integer test) and turns
// inequalities that can only hold with equality into equalities. b should not be empty (the
// tests take that for granted: on an empty b some redundant constraints may stay).
func (b *basic) removeRedundant(bg *budget) { b.removeRedundantIneqs(true, bg) }

// removeRedundantIneqs is removeRedundant; detectEqs=false skips the search for implicit
// equalities (half the feasibility tests).
func (b *basic) removeRedundantIneqs(detectEqs bool, bg *budget) {
	b.divsOutOfIneqs()
	if !b.tidy() {
		b.markEmpty()
		return
	}
	w := b.width()
	// Per column, the rows (inequalities and div definitions) with a positive and with a negative
	// coefficient there, and whether an equality uses it: a variable that no other row bounds in
	// one direction proves without a test that a row is not redundant, or not an equality.
	cnt := make([]int32, 2*w)
	pos, neg := cnt[:w], cnt[w:]
	inEq := make([]bool, w)
	count := func(r []int64, d int32) {
		for c := 1; c < w; c++ {
			if r[c] > 0 {
				pos[c] += d
			} else if r[c] < 0 {
				neg[c] += d
			}
		}
	}
	useEq := func(e []int64) {
		for c := 1; c < w; c++ {
			if e[c] != 0 {
				inEq[c] = true
			}
		}
	}
	for _, e := range b.eqs {
		useEq(e)
	}
	for _, r := range b.ineqs {
		count(r, 1)
	}
	for _, r := range b.allDivConstraints() {
		count(r, 1)
	}
	// soleBound: r is the only lower (upper) bound of a variable outside the equalities; without
	// r that variable can decrease (increase) until r fails, so r is not redundant.
	soleBound := func(r []int64) bool {
		for c := 1; c < w; c++ {
			if !inEq[c] && (r[c] > 0 && pos[c] == 1 || r[c] < 0 && neg[c] == 1) {
				return true
			}
		}
		return false
	}
	// canGrow: r has a variable outside the equalities that no row bounds in the direction that
	// increases r, so r >= 1 has points and r is no implicit equality.
	canGrow := func(r []int64) bool {
		for c := 1; c < w; c++ {
			if !inEq[c] && (r[c] > 0 && neg[c] == 0 || r[c] < 0 && pos[c] == 0) {
				return true
			}
		}
		return false
	}
	other := make([]int64, w)
	local := bg.optional()
	for i := 0; i < len(b.ineqs) && !bg.lowOnWork(); i++ {
		r := b.ineqs[i]
		if !soleBound(r) {
			for c, v := range r {
				other[c] = negc(v)
			}
			other[0] = subc(other[0], 1)
			s := newOmegaSys(w, local.refill())
			s.addConnected(b, i, other) // b without r contains b, which is not empty
			s.addIneq(other)
			ok := feasibleOrUndecided(s)
			s.release()
			if !ok {
				count(r, -1)
				b.ineqs = append(b.ineqs[:i:i], b.ineqs[i+1:]...)
				i--
				continue
			}
		}
		if !detectEqs || canGrow(r) {
			continue
		}
		// implicit equality: r >= 1 impossible
		copy(other, r)
		other[0] = subc(other[0], 1)
		s := newOmegaSys(w, local.refill())
		s.addConnected(b, -1, other)
		s.addIneq(other)
		ok := feasibleOrUndecided(s)
		s.release()
		if !ok {
			count(r, -1)
			useEq(r)
			b.eqs = append(b.eqs, r)
			b.ineqs = append(b.ineqs[:i:i], b.ineqs[i+1:]...)
			i--
		}
	}
	b.tidy()
	b.removeRedundantEqs()
}

// feasibleOrUndecided is s.feasible(), true when the test is too complex to decide: the
// redundancy and implicit-equality tests that use it then keep the constraint as it is, which
// is always exact.
func feasibleOrUndecided(s *omegaSys) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if !undecided(r) {
				panic(r)
			}
			ok = true
		}
	}()
	return s.feasible()
}

// removeRedundantEqs drops equalities that are linear combinations of the others (rank test by
// integer-preserving Gaussian elimination).
func (b *basic) removeRedundantEqs() {
	var basis [][]int64
	var kept [][]int64
	for _, e := range b.eqs {
		r := cloneRow(e)
		for _, piv := range basis {
			p := pivotCol(piv)
			if r[p] != 0 {
				g := gcd(r[p], piv[p])
				r = combine(piv[p]/g, r, -r[p]/g, piv)
			}
		}
		if !isZeroFrom(r, 0) {
			basis = append(basis, r)
			kept = append(kept, e)
		}
	}
	b.eqs = kept
}

func pivotCol(r []int64) int {
	for i := len(r) - 1; i >= 1; i-- {
		if r[i] != 0 {
			return i
		}
	}
	return 0
}
