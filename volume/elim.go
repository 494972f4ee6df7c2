// This file holds exact projection: existential variables are eliminated with the Omega test
// (unit substitution, Pugh's mod-hat reduction, Fourier–Motzkin, dark shadow and splinters) so
// that every remaining local variable is a div, a floor division of the remaining variables.

package volume

import "fmt"

// tidy normalises the constraints of b (gcd, integer tightening, duplicates, opposite pairs that
// form equalities). It returns false when b is found to be empty along the way.
func (b *basic) tidy() bool {
	eqs := b.eqs[:0]
	for _, r := range b.eqs {
		ok, drop := normEq(r)
		if !ok {
			return false
		}
		if drop {
			continue
		}
		dup := false
		for _, e := range eqs {
			if equalRows(e, r) {
				dup = true
				break
			}
		}
		if !dup {
			eqs = append(eqs, r)
		}
	}
	b.eqs = eqs
	kept, neweqs, ok := tidyRowsInto(b.ineqs[:0], b.ineqs)
	if !ok {
		return false
	}
	b.ineqs = kept
	if len(neweqs) > 0 {
		b.eqs = append(b.eqs, neweqs...)
		return b.tidy()
	}
	return true
}

// tidyFrom is tidy for a b whose equalities and first from inequalities are as tidy leaves
// them: only the later inequalities are normalised and compared with the others.
func (b *basic) tidyFrom(from int) bool {
	if from == 0 {
		return b.tidy()
	}
	var hbuf [64]uint64
	hs := hbuf[:0]
	for _, r := range b.ineqs[:from] {
		hs = append(hs, coeffHash(r))
	}
	for i := from; i < len(b.ineqs); i++ {
		r := b.ineqs[i]
		ok, drop := normIneq(r)
		if !ok {
			return false
		}
		if drop {
			b.ineqs = append(b.ineqs[:i], b.ineqs[i+1:]...)
			i--
			continue
		}
		// the earlier rows are distinct and without tight opposite pairs: r has at most one
		// duplicate and one opposite among them
		h, dup, opp := coeffHash(r), -1, -1
		for j := 0; j < i; j++ {
			if hs[j] == h && sameCoeffs(r, b.ineqs[j], 1) {
				dup = j
			} else if hs[j] == -h && sameCoeffs(r, b.ineqs[j], -1) {
				opp = j
			}
		}
		if dup >= 0 && b.ineqs[dup][0] <= r[0] {
			r = b.ineqs[dup] // r adds nothing
		}
		if opp >= 0 {
			if s := addc(r[0], b.ineqs[opp][0]); s < 0 {
				return false
			} else if s == 0 {
				return b.tidy() // an equality: the general case
			}
		}
		if dup >= 0 {
			b.ineqs[dup] = r
			b.ineqs = append(b.ineqs[:i], b.ineqs[i+1:]...)
			i--
		} else {
			hs = append(hs, h)
		}
	}
	return true
}

// isEmpty decides exactly whether b has no integer point.
func (b *basic) isEmpty(bg *budget) bool {
	s := newOmegaSys(b.width(), bg)
	defer s.release()
	s.addBasic(b)
	return !s.feasible()
}

// plainIsEmpty reports whether b is obviously empty (a violated constant constraint), without
// any computation.
func (b *basic) plainIsEmpty() bool {
	for _, r := range b.eqs {
		if isZeroFrom(r, 1) && r[0] != 0 {
			return true
		}
	}
	for _, r := range b.ineqs {
		if isZeroFrom(r, 1) && r[0] < 0 {
			return true
		}
	}
	return false
}

// eliminateEx removes all existential columns of b exactly. The result is a union of basics with
// nEx == 0; b is consumed.
func (b *basic) eliminateEx(bg *budget) []*basic {
	bg = bg.orNew()
	steps := 0
	tidied := 0 // the first tidied inequalities are known tidy (and the equalities)
	for {
		steps++
		if steps > maxOmegaSteps {
			panic(internalError{"projection does not terminate"})
		}
		bg.spend(len(b.eqs) + len(b.ineqs))
		if !b.tidyFrom(tidied) {
			return nil
		}
		tidied = 0
		if b.nEx == 0 {
			b.dropUnusedDivs()
			return []*basic{b}
		}
		if b.elimExEquality() {
			continue
		}
		if b.emptyMarked() {
			return nil
		}
		exS, w := b.exStart(), b.width()
		best, bestCost, bestExact, oneSided := -1, int64(0), false, false
		for c := exS; c < w; c++ {
			var nl, nu int64
			unitL, unitU := true, true
			for _, r := range b.ineqs {
				switch {
				case r[c] > 0:
					nl++
					unitL = unitL && r[c] == 1
				case r[c] < 0:
					nu++
					unitU = unitU && r[c] == -1
				}
			}
			if nl == 0 || nu == 0 {
				best, oneSided = c, true
				break
			}
			exact := unitL || unitU
			cost := nl*nu - nl - nu
			if !exact {
				// an inexact elimination costs its splinters, each a recursive projection
				cost = min(splinterCount(b.ineqs, c), 1<<42) << 20
			}
			if best < 0 || (exact && !bestExact) || (exact == bestExact && cost < bestCost) {
				best, bestCost, bestExact = c, cost, exact
			}
		}
		c := best
		var split []*basic
		switch {
		case oneSided:
			b.ineqs = dropWithCol(b.ineqs, c)
			b.dropCol(c)
			b.nEx--
			tidied = len(b.ineqs) // rows were only dropped
		case bestExact:
			n0 := 0 // the rows without c, kept first by fourierMotzkinOwned
			for _, r := range b.ineqs {
				if r[c] == 0 {
					n0++
				}
			}
			b.ineqs = fourierMotzkinOwned(b.ineqs, c)
			b.dropCol(c)
			b.nEx--
			tidied = n0
		case b.fixExByBounds():
			// constant bounds pinned an existential (now an equality), or showed b empty
			if b.emptyMarked() {
				return nil
			}
			tidied = 0
		case b.exToDiv(c) || b.someExToDiv():
			// an existential that two bounds determine as a floor division became a div
			tidied = 0
		case b.splitExByBounds(c, &split):
			// an existential with few values: the projection is the union over them
			var out []*basic
			for _, p := range split {
				out = append(out, p.eliminateEx(bg)...)
				if len(out) > maxProjectionPieces {
					panic(tooComplex{what: fmt.Sprintf("a projection splits into more than %d pieces", maxProjectionPieces)})
				}
			}
			return out
		default:
			// Pugh's exact projection: dark shadow ∪ splinters.
			// Splinters come from the lower bounds of x, its upper bounds or a pair of parallel
			// bounds, whichever gives fewer; empty splinters are skipped.
			dark := b.clone()
			dark.ineqs = fourierMotzkin(b.ineqs, c, 1)
			dark.dropCol(c)
			dark.nEx--
			out := dark.eliminateEx(bg)
			sps := splinters(b.ineqs, c)
			for _, sp := range sps {
				s := b.clone()
				s.eqs = append(s.eqs, cloneRow(sp))
				if s.tidy() && !s.isEmpty(bg) {
					out = append(out, s.eliminateEx(bg)...)
				}
				if len(out) > maxProjectionPieces {
					panic(tooComplex{what: fmt.Sprintf("a projection splits into more than %d pieces", maxProjectionPieces)})
				}
			}
			return out
		}
	}
}

// fixExByBounds propagates constant bounds through the rows of b (and its div definitions) and
// adds the equality e = v for every existential e whose bounds meet at v; when some bounds
// cross it marks b empty. Both are exact, and spare an inexact elimination of e. It reports
// whether it changed b.
func (b *basic) fixExByBounds() bool {
	w, exS := b.width(), b.exStart()
	rows := make([][]int64, 0, 2*len(b.eqs)+len(b.ineqs)+2*len(b.divs))
	for _, e := range b.eqs {
		rows = append(rows, e, negRow(e))
	}
	rows = append(rows, b.ineqs...)
	rows = append(rows, b.allDivConstraints()...)
	bd := newConstBounds(w)
	bd.propagate(rows, 8)
	changed := false
	for c := exS; c < w; c++ {
		if !bd.hasLo[c] || !bd.hasHi[c] {
			continue
		}
		if bd.lo[c] > bd.hi[c] {
			b.markEmpty()
			return true
		}
		if bd.lo[c] == bd.hi[c] {
			r := b.newRow()
			r[c], r[0] = 1, negc(bd.lo[c])
			b.eqs = append(b.eqs, r)
			changed = true
		}
	}
	return changed
}

// maxSplitEx bounds the values of an existential that projection splits on instead of an
// inexact elimination (whose dark shadow and splinters also split it, into pieces that are
// harder to coalesce).
const maxSplitEx = 8

// splitExByBounds looks for the existential with the fewest values between constant bounds
// propagated through the rows of b; when it has at most maxSplitEx of them, or no more than the
// splinters eliminating column c would create, it sets *out to b with that existential fixed to
// each value (one basic per value; they are consumed by the caller) and reports true.
func (b *basic) splitExByBounds(c int, out *[]*basic) bool {
	w, exS := b.width(), b.exStart()
	rows := make([][]int64, 0, 2*len(b.eqs)+len(b.ineqs)+2*len(b.divs))
	for _, e := range b.eqs {
		rows = append(rows, e, negRow(e))
	}
	rows = append(rows, b.ineqs...)
	rows = append(rows, b.allDivConstraints()...)
	bd := newConstBounds(w)
	bd.propagate(rows, 8)
	limit := min(splinterCount(b.ineqs, c), 64)
	best, bestN := -1, int64(0)
	for e := exS; e < w; e++ {
		if !bd.hasLo[e] || !bd.hasHi[e] {
			continue
		}
		n := bd.hi[e] - bd.lo[e] + 1
		if n <= 0 || n > limit {
			continue
		}
		if best < 0 || n < bestN {
			best, bestN = e, n
		}
	}
	if best < 0 {
		return false
	}
	for v := bd.lo[best]; v <= bd.hi[best]; v++ {
		p := b.clone()
		r := p.newRow()
		r[best], r[0] = 1, negc(v)
		p.eqs = append(p.eqs, r)
		*out = append(*out, p)
	}
	return true
}

// constBounds holds constant bounds of the variables of a system (column 0, the constant, has
// none).
type constBounds struct {
	lo, hi       []int64
	hasLo, hasHi []bool
}

func newConstBounds(w int) *constBounds {
	return &constBounds{lo: make([]int64, w), hi: make([]int64, w), hasLo: make([]bool, w), hasHi: make([]bool, w)}
}

// propagate tightens the bounds with the rows (each >= 0) until nothing changes, at most rounds
// times: a row bounds each of its variables by the extreme values of its other terms. Rows whose
// bounds would overflow are skipped (bounds are only ever valid, never required).
func (bd *constBounds) propagate(rows [][]int64, rounds int) {
	for ; rounds > 0; rounds-- {
		changed := false
		for _, r := range rows {
			// max of r over the box: sum of the finite maxima of its terms, and the one term
			// without a finite maximum (at most one, else nothing follows)
			mx, ok := r[0], true
			unb := -1
			for j := 1; j < len(r) && ok; j++ {
				a := r[j]
				switch {
				case a == 0:
				case a > 0 && bd.hasHi[j]:
					mx, ok = addMulSafe(mx, a, bd.hi[j])
				case a < 0 && bd.hasLo[j]:
					mx, ok = addMulSafe(mx, a, bd.lo[j])
				case unb < 0:
					unb = j
				default:
					ok = false
				}
			}
			if !ok {
				continue
			}
			for j := 1; j < len(r); j++ {
				a := r[j]
				if a == 0 || unb >= 0 && j != unb {
					continue
				}
				rest := mx // max of r without the term a*x_j
				if j != unb {
					var t int64
					if a > 0 {
						t, ok = addMulSafe(0, a, bd.hi[j])
					} else {
						t, ok = addMulSafe(0, a, bd.lo[j])
					}
					if !ok || (t < 0 && rest > 1<<63-1+t) || (t > 0 && rest < -1<<63+t) {
						continue
					}
					rest -= t
				}
				// a*x_j + rest >= 0 must be reachable: a*x_j >= -rest
				if rest == -1<<63 {
					continue
				}
				if a > 0 {
					if v := ceilDiv(-rest, a); !bd.hasLo[j] || v > bd.lo[j] {
						bd.lo[j], bd.hasLo[j], changed = v, true, true
					}
				} else if a != -1<<63 {
					if v := floorDiv(rest, -a); !bd.hasHi[j] || v < bd.hi[j] {
						bd.hi[j], bd.hasHi[j], changed = v, true, true
					}
				}
			}
		}
		if !changed {
			return
		}
	}
}

// someExToDiv turns the first existential that exToDiv can turn into a div.
func (b *basic) someExToDiv() bool {
	for c := b.exStart(); c < b.width(); c++ {
		if b.exToDiv(c) {
			return true
		}
	}
	return false
}

// exToDiv turns existential column c into a div when two of its bounds determine it:
// f - m*e >= 0 and -f + m*e + k >= 0 with 0 <= k < m, f free of existentials. Then
// (f - k)/m <= e <= f/m, an interval shorter than 1 that holds floor(f/m) whenever it holds an
// integer, so e = floor(f/m) at every point and replacing e by that div (keeping every row,
// those two included) projects it out exactly, without the dark shadow and splinters an
// inexact elimination of e would need. It reports whether it did.
func (b *basic) exToDiv(c int) bool {
	exS, w := b.exStart(), b.width()
	for _, lo := range b.ineqs {
		m := -lo[c]
		if m <= 1 || !isZeroFromExcept(lo, exS, c) {
			continue
		}
		for _, hi := range b.ineqs {
			if hi[c] != m || !isZeroFromExcept(hi, exS, c) || !sameCoeffs(lo[:exS], hi[:exS], -1) {
				continue
			}
			if k := addc(lo[0], hi[0]); k < 0 || k >= m {
				continue
			}
			num := make([]int64, w)
			copy(num, lo[:exS])
			col := b.addDiv(num, m) // a new div's column goes before the existentials
			c += b.width() - w
			b.replaceCol(c, col)
			b.dropCol(c)
			b.nEx--
			return true
		}
	}
	return false
}

// isZeroFromExcept reports whether r is zero at the columns from on, column c excepted.
func isZeroFromExcept(r []int64, from, c int) bool {
	for i := from; i < len(r); i++ {
		if i != c && r[i] != 0 {
			return false
		}
	}
	return true
}

// maxProjectionPieces bounds the pieces (dark shadow and splinters, recursively) of one exact
// projection; past it the operation stops with ErrTooComplex rather than coalesce thousands of
// pieces.
const maxProjectionPieces = 512

// maxCoalescedProjection is the largest split projection coalesceProjection coalesces.
const maxCoalescedProjection = 48

// splinterCounts returns how many splinters eliminating column c creates from its lower bounds
// and from its upper bounds.
func splinterCounts(rows [][]int64, c int) (lo, up int64) {
	var amaxU, amaxL int64
	for _, r := range rows {
		amaxU = max(amaxU, -r[c])
		amaxL = max(amaxL, r[c])
	}
	// floor((amax*a - a - amax)/amax) + 1 <= a: bounded by the coefficient, never overflowing
	for _, r := range rows {
		if a := r[c]; a > 0 && amaxU > 0 {
			lo = addSat(lo, max(0, a-a/amaxU-1+boolInt(a%amaxU == 0)))
		} else if a < 0 && amaxL > 0 {
			a = -a
			up = addSat(up, max(0, a-a/amaxL-1+boolInt(a%amaxL == 0)))
		}
	}
	return lo, up
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// addSat adds non-negative counts, saturating at the int64 maximum.
func addSat(a, b int64) int64 {
	if a > 1<<63-1-b {
		return 1<<63 - 1
	}
	return a + b
}

func (b *basic) emptyMarked() bool { return b.plainIsEmpty() }

// elimExEquality handles the equalities involving existentials: every one with a unit
// coefficient on an existential in turn, or else the first one. It returns false when no
// equality involves an existential.
func (b *basic) elimExEquality() bool {
	progress := false
next:
	exS, w := b.exStart(), b.width()
	for ei, r := range b.eqs {
		if isZeroFrom(r, exS) {
			continue
		}
		if progress {
			// the previous substitution may have left a common factor (what tidy removes)
			ok, drop := normEq(r)
			if !ok {
				b.markEmpty()
				return true
			}
			if drop {
				b.eqs = append(b.eqs[:ei], b.eqs[ei+1:]...)
				goto next
			}
		}
		c, k := -1, -1
		for i := exS; i < w; i++ {
			if r[i] == 1 || r[i] == -1 {
				c = i
				break
			}
			if r[i] != 0 && (k < 0 || abs64(r[i]) < abs64(r[k])) {
				k = i
			}
		}
		if c >= 0 {
			b.eqs = append(b.eqs[:ei], b.eqs[ei+1:]...)
			for _, o := range b.eqs {
				substitute(o, r, c)
			}
			for _, o := range b.ineqs {
				substitute(o, r, c)
			}
			b.dropCol(c)
			b.nEx--
			progress = true
			goto next
		}
		if progress {
			return true // tidy first
		}
		g := rowGCD(r, exS)
		if g > 1 {
			f := cloneRow(r)
			for i := exS; i < w; i++ {
				f[i] = 0
			}
			if isZeroFrom(f, 1) {
				if f[0]%g != 0 {
					b.markEmpty()
					return true
				}
				for i := range r {
					r[i] /= g
				}
				return true
			}
			// g*(E·e) = -f: f must be a multiple of g; d = floor(f/g) = f/g and E·e + d = 0.
			b.eqs = append(b.eqs[:ei], b.eqs[ei+1:]...)
			oldEx := exS
			col := b.addDiv(f, g)
			shift := b.exStart() - oldEx
			div := b.newRow()
			copy(div, f[:oldEx])
			div[col] = subc(div[col], g)
			nr := b.newRow()
			nr[col] = 1
			for i := oldEx; i < w; i++ {
				nr[i+shift] = r[i] / g
			}
			b.eqs = append(b.eqs, div, nr)
			return true
		}
		// Pugh's mod-hat: new existential sigma, m*sigma = sum modhat(r_i, m) x_i; it gives x_k
		// a unit coefficient, and substituting x_k shrinks the equality's coefficients.
		m := abs64(r[k]) + 1
		b.insertCols(w, 1)
		b.nEx++
		r = b.eqs[ei]
		t := b.newRow()
		for i := 0; i < w; i++ {
			t[i] = modHat(r[i], m)
		}
		t[w] = -m
		for _, o := range b.eqs {
			substitute(o, t, k)
		}
		for _, o := range b.ineqs {
			substitute(o, t, k)
		}
		b.dropCol(k)
		b.nEx--
		return true
	}
	return progress
}

// projectCols existentially quantifies the variable columns in drop (parameters or dimensions,
// never the constant or divs) and eliminates them. Divs that depend on a dropped column become
// existentials too. The result's tuples and parameter count are given by the caller.
func (b *basic) projectCols(drop map[int]bool, nParam int, in, out tuple, bg *budget) []*basic {
	ds := b.divStart()
	tainted := make([]bool, len(b.divs))
	for k, d := range b.divs {
		for col, v := range d.num {
			if v == 0 {
				continue
			}
			if col < ds && drop[col] || col >= ds && col < ds+k && tainted[col-ds] {
				tainted[k] = true
				break
			}
		}
	}
	nt := 0
	for _, t := range tainted {
		if t {
			nt++
		}
	}
	c := b.shallow(2 * nt)
	for k := range b.divs {
		if tainted[k] {
			lo, hi := c.divConstraints(k)
			c.ineqs = append(c.ineqs, lo, hi)
		}
	}
	newCol := make([]int, c.width())
	next := 1
	for col := 1; col < ds; col++ {
		if !drop[col] {
			newCol[col] = next
			next++
		}
	}
	var kept []div
	for k := range c.divs {
		if !tainted[k] {
			newCol[ds+k] = next
			next++
			kept = append(kept, c.divs[k])
		}
	}
	nEx := 0
	for col := 1; col < ds; col++ {
		if drop[col] {
			newCol[col] = next
			next++
			nEx++
		}
	}
	for k := range c.divs {
		if tainted[k] {
			newCol[ds+k] = next
			next++
			nEx++
		}
	}
	for col := ds + len(c.divs); col < c.width(); col++ { // existing existentials
		newCol[col] = next
		next++
		nEx++
	}
	c.divs = kept
	// remap rows (the kept divs' numerators never refer to dropped or tainted columns)
	c.remapRows(newCol, next)
	c.nParam, c.in, c.out, c.nEx = nParam, in, out, nEx
	ps := coalesceProjection(c.eliminateEx(bg), bg)
	for _, p := range ps {
		p.tidied = true // eliminateEx and coalescing leave their pieces tidy
	}
	return ps
}

// coalesceProjection removes the empty pieces of an exact projection and, when the projection
// split (dark shadow and splinters), coalesces them: splinters mostly overlap the dark shadow.
func coalesceProjection(ps []*basic, bg *budget) []*basic {
	if len(ps) <= 1 {
		return ps
	}
	if len(ps) > maxCoalescedProjection {
		return ps // coalescing costs pairs of exact tests: not for hundreds of splinters
	}
	var ne []*basic
	for _, p := range ps {
		if p.tidy() && !p.isEmpty(bg) {
			ne = append(ne, p)
		}
	}
	return coalescePieces(ne, bg)
}
