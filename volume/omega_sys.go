// This file holds the integer feasibility test (the Omega test) on a flat row store: the rows of
// a problem lie back to back in one pooled array and are addressed by offset, so that the exact
// eliminations that decide tensor-sized problems (unit substitutions, one-sided variables,
// exact Fourier–Motzkin) run without allocating. Inexact eliminations (dark shadow, real
// shadow, splinters) and case splits on a variable with few values recurse into fresh systems.
// Every system spends from the budget of its operation (budget.go); scanning runs the same
// test on a small allowance of its own (scan_feasible.go).

package volume

import (
	"fmt"
	"sync"
)

// omegaSys is one feasibility problem: eqs (= 0) and ineqs (>= 0) over w columns, the first the
// constant and every other one a free integer variable. Rows are data[off:off+w] for the offsets
// in eqs and ineqs; rows that are eliminated stay in data until the system is released.
type omegaSys struct {
	w      int
	data   []int64
	eqs    []int32
	ineqs  []int32
	hs     []uint64  // coefficient hashes of ineqs, filled by tidy
	counts []int32   // per column: lower bounds, upper bounds, non-unit lower, non-unit upper
	views  [][]int64 // row views for narrowVar, kept for reuse
	bg     *budget   // the work budget, shared with the systems this one recurses into
	own    budget    // the budget of a system that has none from its caller
}

var omegaPool = sync.Pool{New: func() any { return new(omegaSys) }}

// maxPooledRows is the largest row store kept for reuse.
const maxPooledRows = 1 << 16

// newOmegaSys returns an empty system of width w that spends from bg (nil: an operation's
// budget of its own, held in the pooled system: the test is the whole operation, as IsEmpty of
// one piece). Release it when done.
func newOmegaSys(w int, bg *budget) *omegaSys {
	s := omegaPool.Get().(*omegaSys)
	s.w = w
	s.data, s.eqs, s.ineqs = s.data[:0], s.eqs[:0], s.ineqs[:0]
	s.bg = bg
	if bg == nil {
		s.own = budget{left: maxOpWork}
		s.bg = &s.own
	}
	return s
}

func (s *omegaSys) release() {
	if cap(s.data) <= maxPooledRows {
		s.bg = nil
		omegaPool.Put(s)
	}
}

func (s *omegaSys) row(off int32) []int64 {
	o := int(off)
	return s.data[o : o+s.w : o+s.w]
}

// alloc appends n zero rows to data and returns the offset of the first.
func (s *omegaSys) alloc(n int) int32 {
	off := len(s.data)
	need := off + n*s.w
	if need > 1<<31-1 {
		panic(tooComplex{what: "an emptiness test needs more than 2³¹ coefficients"})
	}
	if need > cap(s.data) {
		nd := make([]int64, need, max(need, 2*cap(s.data), 256))
		copy(nd, s.data)
		s.data = nd
	} else {
		s.data = s.data[:need]
		clear(s.data[off:])
	}
	return int32(off)
}

func (s *omegaSys) checkWidth(r []int64) {
	if len(r) != s.w {
		panic(internalError{fmt.Sprintf("a row of %d columns in a system of %d", len(r), s.w)})
	}
}

func (s *omegaSys) addEq(r []int64) {
	s.checkWidth(r)
	off := s.alloc(1)
	copy(s.row(off), r)
	s.eqs = append(s.eqs, off)
}

func (s *omegaSys) addIneq(r []int64) {
	s.checkWidth(r)
	off := s.alloc(1)
	copy(s.row(off), r)
	s.ineqs = append(s.ineqs, off)
}

func (s *omegaSys) addEqs(rows [][]int64) {
	for _, r := range rows {
		s.addEq(r)
	}
}

func (s *omegaSys) addIneqs(rows [][]int64) {
	for _, r := range rows {
		s.addIneq(r)
	}
}

// addNegIneq adds -r - 1 >= 0: the integer points violating r >= 0.
func (s *omegaSys) addNegIneq(r []int64) {
	s.checkWidth(r)
	off := s.alloc(1)
	n := s.row(off)
	for i, v := range r {
		n[i] = negc(v)
	}
	n[0] = subc(n[0], 1)
	s.ineqs = append(s.ineqs, off)
}

// addBasic adds the constraints of b and the two inequalities defining each of its divs
// (s.w = b.width()).
func (s *omegaSys) addBasic(b *basic) {
	s.addEqs(b.eqs)
	s.addIneqs(b.ineqs)
	s.addDivs(b)
}

// addDivs adds the inequalities defining the divs of b: num - den*q >= 0 and
// -num + den*q + den - 1 >= 0.
func (s *omegaSys) addDivs(b *basic) {
	for k := range b.divs {
		s.addDiv(b, k)
	}
}

// addDiv adds the two inequalities defining div k of b.
func (s *omegaSys) addDiv(b *basic, k int) {
	ds, d := b.divStart(), b.divs[k]
	off := s.alloc(2)
	lo, hi := s.row(off), s.row(off+int32(s.w))
	copy(lo, d.num)
	lo[ds+k] = subc(lo[ds+k], d.den)
	for i, v := range lo {
		hi[i] = negc(v)
	}
	hi[0] = addc(hi[0], d.den-1)
	s.ineqs = append(s.ineqs, off, off+int32(s.w))
}

// addConnected adds the constraints of b, and the definitions of its divs, that are connected
// through shared variables to the variables of the rows news, which the caller adds next; it
// leaves out inequality skip of b (-1 for none). b without that inequality must have an integer
// point (it is a non-empty basic, or contains one): the rows left out share no variable with the
// rows added, so they have a solution whatever values these take, and the system is feasible iff
// the rows added are.
func (s *omegaSys) addConnected(b *basic, skip int, news ...[]int64) {
	w := b.width()
	// union-find over the variables: the variables of a row (or of a div and its numerator)
	// form one component
	var buf [2 * 64]int32
	var parent, hit []int32
	if 2*w <= len(buf) {
		parent, hit = buf[:w], buf[w:2*w]
	} else {
		parent, hit = make([]int32, w), make([]int32, w)
	}
	for i := range parent {
		parent[i] = int32(i)
		hit[i] = 0
	}
	find := func(x int32) int32 {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	// join joins the variables of r with column f (or with r's first variable when f < 0) and
	// returns their root, -1 for a constant row.
	join := func(r []int64, f int32) int32 {
		if f >= 0 {
			f = find(f)
		}
		for c := 1; c < len(r); c++ {
			if r[c] == 0 {
				continue
			}
			if g := find(int32(c)); f < 0 {
				f = g
			} else if g != f {
				parent[g] = f
			}
		}
		return f
	}
	root := func(r []int64) int32 {
		for c := 1; c < len(r); c++ {
			if r[c] != 0 {
				return find(int32(c))
			}
		}
		return -1
	}
	ds := b.divStart()
	for _, r := range b.eqs {
		join(r, -1)
	}
	for i, r := range b.ineqs {
		if i != skip {
			join(r, -1)
		}
	}
	for k, d := range b.divs {
		join(d.num, int32(ds+k))
	}
	for _, r := range news {
		for c := 1; c < len(r); c++ {
			if r[c] != 0 {
				hit[find(int32(c))] = 1
			}
		}
	}
	connected := func(r []int64) bool {
		f := root(r)
		return f >= 0 && hit[f] != 0
	}
	for _, r := range b.eqs {
		if connected(r) {
			s.addEq(r)
		}
	}
	for i, r := range b.ineqs {
		if i != skip && connected(r) {
			s.addIneq(r)
		}
	}
	for k := range b.divs {
		if hit[find(int32(ds+k))] != 0 {
			s.addDiv(b, k)
		}
	}
}

// rows returns copies of the inequalities.
func (s *omegaSys) rows() [][]int64 {
	out := make([][]int64, len(s.ineqs))
	buf := make([]int64, len(s.ineqs)*s.w)
	for i, off := range s.ineqs {
		out[i] = buf[i*s.w : (i+1)*s.w : (i+1)*s.w]
		copy(out[i], s.row(off))
	}
	return out
}

// feasible decides whether eqs (= 0) and ineqs (>= 0) have an integer solution, spending from bg
// (nil: a budget of its own). All columns but the constant are variables. The rows are not
// modified.
func feasible(eqs, ineqs [][]int64, bg *budget) bool {
	w := 0
	if len(eqs) > 0 {
		w = len(eqs[0])
	} else if len(ineqs) > 0 {
		w = len(ineqs[0])
	} else {
		return true
	}
	s := newOmegaSys(w, bg)
	defer s.release()
	s.addEqs(eqs)
	s.addIneqs(ineqs)
	return s.feasible()
}

// omegaIneqs decides integer feasibility of a system of inequalities.
func omegaIneqs(rows [][]int64, bg *budget) bool { return feasible(nil, rows, bg) }

// feasible decides the system; it consumes it.
func (s *omegaSys) feasible() bool {
	for {
		if !s.elimEqs() {
			return false
		}
		if ok, done := s.elimIneqs(); done {
			return ok
		}
	}
}

// elimEqs eliminates every equality: one with a unit coefficient is substituted into the other
// rows; otherwise Pugh's mod-hat step adds a variable that gives one a unit coefficient and
// shrinks the others. It returns false when an equality has no integer solution.
func (s *omegaSys) elimEqs() bool {
	steps := 0
	for len(s.eqs) > 0 {
		steps++
		if steps > maxOmegaSteps {
			panic(internalError{"equality elimination does not terminate"})
		}
		// every step rewrites every row (and a mod-hat step copies them one column wider)
		s.bg.spend(len(s.eqs) + len(s.ineqs))
		off := s.eqs[len(s.eqs)-1]
		s.eqs = s.eqs[:len(s.eqs)-1]
		r := s.row(off)
		ok, drop := normEq(r)
		if !ok {
			return false
		}
		if drop {
			continue
		}
		c, k := -1, -1
		for i := 1; i < len(r); i++ {
			if r[i] == 1 || r[i] == -1 {
				c = i
				break
			}
			if r[i] != 0 && (k < 0 || abs64(r[i]) < abs64(r[k])) {
				k = i
			}
		}
		if c >= 0 {
			for _, o := range s.eqs {
				substitute(s.row(o), r, c)
			}
			for _, o := range s.ineqs {
				substitute(s.row(o), r, c)
			}
			continue
		}
		// Pugh's mod-hat step: a new variable sigma with m*sigma = sum modhat(a_i, m) x_i.
		s.eqs = append(s.eqs, off)
		s.widen()
		off = s.eqs[len(s.eqs)-1]
		t := s.row(s.alloc(1))
		r = s.row(off)
		m := abs64(r[k]) + 1
		w := s.w
		for i := 0; i < w-1; i++ {
			t[i] = modHat(r[i], m)
		}
		t[w-1] = -m
		// t[k] = -sign(r[k]): a unit pivot for x_k.
		for _, o := range s.eqs {
			substitute(s.row(o), t, k)
		}
		for _, o := range s.ineqs {
			substitute(s.row(o), t, k)
		}
	}
	return true
}

// widen appends a zero column to every live row.
func (s *omegaSys) widen() {
	w := s.w
	n := len(s.eqs) + len(s.ineqs)
	nd := make([]int64, n*(w+1), max(n*(w+1), cap(s.data)))
	move := func(offs []int32, at int) {
		for i, off := range offs {
			o := int(off)
			copy(nd[(at+i)*(w+1):], s.data[o:o+w])
			offs[i] = int32((at + i) * (w + 1))
		}
	}
	move(s.eqs, 0)
	move(s.ineqs, len(s.eqs))
	s.data = nd
	s.w = w + 1
}

// elimIneqs eliminates the variables of the inequalities (there are no equalities). done=false
// means that implicit equalities were found and moved to s.eqs; otherwise ok is the answer.
func (s *omegaSys) elimIneqs() (ok, done bool) {
	tidied := 0 // s.ineqs[:tidied] are tidy: after an exact elimination only the new rows are not
	for {
		s.bg.spend(len(s.ineqs))
		ok, neweqs := s.tidy(tidied)
		if !ok {
			return false, true
		}
		if neweqs {
			return false, false
		}
		if len(s.ineqs) == 0 {
			return true, true
		}
		if len(s.ineqs) > 2*s.w && !s.prune() {
			return false, true
		}
		// Variables bounded on one side only can satisfy every row they appear in: drop those
		// rows, which may leave further variables one-sided.
		s.dropOneSided()
		if len(s.ineqs) == 0 {
			return true, true
		}
		w := s.w
		nl, nu, xl, xu := s.counts[:w], s.counts[w:2*w], s.counts[2*w:3*w], s.counts[3*w:]
		best, bestCost, bestExact := -1, int64(-1), false
		for c := 1; c < w; c++ {
			if nl[c] == 0 {
				continue // and nu[c] == 0: no one-sided column is left
			}
			exact := xl[c] == 0 || xu[c] == 0
			cost := int64(nl[c])*int64(nu[c]) - int64(nl[c]) - int64(nu[c])
			if best < 0 || (exact && !bestExact) || (exact == bestExact && cost < bestCost) {
				best, bestCost, bestExact = c, cost, exact
			}
		}
		if best < 0 {
			return true, true
		}
		c := best
		// A step that is inexact, or exact but multiplies the rows (beyond a few: small systems,
		// the tensor-sized ones, are cheaper to eliminate than to bound), is replaced by a case
		// split on a variable with few values when there is one: each case substitutes the
		// variable away, and none needs a shadow or splinters (bounded problems, such as boxes).
		if !bestExact || bestCost > int64(max(len(s.ineqs), minSplitGrowth)) {
			limit := int64(maxSplitValues)
			if bestExact {
				limit = maxSplitValuesExact
			}
			sc, lo, hi, infeasible := s.narrowVar(limit)
			if infeasible {
				return false, true
			}
			if sc > 0 {
				return s.splitVar(sc, lo, hi), true
			}
		}
		if bestExact {
			tidied = s.fourierMotzkin(c)
			continue
		}
		// Inexact: a point of the dark shadow proves feasibility; an empty real shadow (decided
		// rationally, which is cheap and never branches) disproves it; the splinters decide.
		rows := s.rows()
		if omegaIneqs(fourierMotzkin(rows, c, 1), s.bg) {
			return true, true
		}
		if !rationalFeasible(fourierMotzkin(rows, c, 0)) {
			return false, true
		}
		for _, sp := range splinters(rows, c) {
			if feasible([][]int64{sp}, rows, s.bg) {
				return true, true
			}
		}
		return false, true
	}
}

// tidy normalises the inequalities from index from on (gcd, integer tightening), removes
// duplicates (keeping the tighter) and examines opposite pairs: ok=false when a pair is
// contradictory; neweqs when pairs form equalities, which are moved to s.eqs.
func (s *omegaSys) tidy(from int) (ok, neweqs bool) {
	kept := s.ineqs[:0]
	hs := s.hs[:0]
	for i, off := range s.ineqs {
		r := s.row(off)
		if i < from {
			kept = append(kept, off)
			hs = append(hs, coeffHash(r))
			continue
		}
		ok, drop := normIneq(r)
		if !ok {
			return false, false
		}
		if drop {
			continue
		}
		h := coeffHash(r)
		dup := false
		for j, ko := range kept {
			if hs[j] == h {
				if k := s.row(ko); sameCoeffs(r, k, 1) {
					if r[0] < k[0] {
						kept[j] = off
					}
					dup = true
					break
				}
			}
		}
		if !dup {
			kept = append(kept, off)
			hs = append(hs, h)
		}
	}
	s.ineqs, s.hs = kept, hs
	n := len(kept)
	for i := 0; i < n; i++ {
		if kept[i] < 0 {
			continue
		}
		for j := i + 1; j < n; j++ {
			if kept[j] < 0 || hs[j] != -hs[i] {
				continue
			}
			a, b := s.row(kept[i]), s.row(kept[j])
			if !sameCoeffs(a, b, -1) {
				continue
			}
			sum := addc(a[0], b[0])
			if sum < 0 {
				return false, false
			}
			if sum == 0 {
				s.eqs = append(s.eqs, kept[i])
				kept[i], kept[j] = -1, -1
				neweqs = true
			}
			break
		}
	}
	if neweqs {
		out := kept[:0]
		for _, k := range kept {
			if k >= 0 {
				out = append(out, k)
			}
		}
		s.ineqs = out
	}
	return true, neweqs
}

// prune drops the inequalities that constant bounds of single variables imply (see
// pruneByBounds); false means that some row cannot hold within them.
func (s *omegaSys) prune() bool {
	var p boundsPruner
	p.init(s.w)
	for _, off := range s.ineqs {
		p.learn(s.row(off))
	}
	kept := s.ineqs[:0]
	for _, off := range s.ineqs {
		drop, infeasible := p.check(s.row(off))
		if infeasible {
			return false
		}
		if !drop {
			kept = append(kept, off)
		}
	}
	s.ineqs = kept
	return true
}

// dropOneSided removes the inequalities of every variable that has lower bounds but no upper
// bound or the reverse, until no such variable is left, and leaves in s.counts the bound
// counts of the remaining rows.
func (s *omegaSys) dropOneSided() {
	w := s.w
	if cap(s.counts) < 4*w {
		s.counts = make([]int32, 4*w)
	}
	s.counts = s.counts[:4*w]
	clear(s.counts)
	nl, nu, xl, xu := s.counts[:w], s.counts[w:2*w], s.counts[2*w:3*w], s.counts[3*w:]
	count := func(r []int64, d int32) {
		for i := 1; i < len(r); i++ {
			switch v := r[i]; {
			case v > 0:
				nl[i] += d
				if v != 1 {
					xl[i] += d
				}
			case v < 0:
				nu[i] += d
				if v != -1 {
					xu[i] += d
				}
			}
		}
	}
	for _, off := range s.ineqs {
		count(s.row(off), 1)
	}
	for dropped := true; dropped; {
		dropped = false
		for c := 1; c < w; c++ {
			if (nl[c] == 0) == (nu[c] == 0) {
				continue
			}
			kept := s.ineqs[:0]
			for _, off := range s.ineqs {
				if r := s.row(off); r[c] != 0 {
					count(r, -1)
					continue
				}
				kept = append(kept, off)
			}
			s.ineqs = kept
			dropped = true
		}
	}
}

// fourierMotzkin eliminates column c exactly (the real shadow, exact because one side has unit
// coefficients). The rows without c come first; their number is returned.
func (s *omegaSys) fourierMotzkin(c int) int {
	w := s.w
	nl, nu := int(s.counts[c]), int(s.counts[w+c])
	if nl*nu > maxFMRows {
		panic(tooComplex{what: fmt.Sprintf("a Fourier–Motzkin step would create %d constraints", nl*nu)})
	}
	// partition: rows without c, then lower bounds, then upper bounds
	kept := s.ineqs[:0]
	var bbuf [32]int32
	bounds := bbuf[:0]
	for _, off := range s.ineqs {
		if s.row(off)[c] == 0 {
			kept = append(kept, off)
		} else {
			bounds = append(bounds, off)
		}
	}
	n0 := len(kept)
	first := s.alloc(nl * nu)
	next := first
	for _, lo := range bounds {
		l := s.row(lo)
		a := l[c]
		if a < 0 {
			continue
		}
		for _, uo := range bounds {
			u := s.row(uo)
			if u[c] > 0 {
				continue
			}
			b := -u[c]
			g := gcd(a, b)
			n := s.row(next)
			combineInto(n, b/g, l, a/g, u)
			n[c] = 0
			kept = append(kept, next)
			next += int32(w)
		}
	}
	s.ineqs = kept
	return n0
}

// maxSplitValues bounds the values of a variable the feasibility test splits on instead of an
// inexact elimination (dark shadow, real shadow and splinters), and maxSplitValuesExact those it
// splits on instead of an exact Fourier–Motzkin step that would add more rows than it removes.
const (
	maxSplitValues      = 16
	maxSplitValuesExact = 4
)

// minSplitGrowth is the growth in rows below which an exact Fourier–Motzkin step is never
// replaced by a case split.
const minSplitGrowth = 24

// narrowVar propagates constant bounds through the inequalities and returns the variable with
// the fewest values, when it has at most limit of them (c = 0 when none has), and whether some
// variable has none (the system is infeasible).
func (s *omegaSys) narrowVar(limit int64) (c int, lo, hi int64, infeasible bool) {
	rows := s.views[:0]
	for _, off := range s.ineqs {
		rows = append(rows, s.row(off))
	}
	defer func() {
		clear(rows) // no pointers into the row store stay in a pooled system
		s.views = rows[:0]
	}()
	s.bg.spend(len(rows))
	bd := newConstBounds(s.w)
	bd.propagate(rows, 4)
	best := int64(-1)
	for v := 1; v < s.w; v++ {
		if !bd.hasLo[v] || !bd.hasHi[v] {
			continue
		}
		if bd.lo[v] > bd.hi[v] {
			return 0, 0, 0, true
		}
		n := bd.hi[v] - bd.lo[v] + 1
		if n <= 0 || n > limit { // n <= 0: the range overflowed
			continue
		}
		if best < 0 || n < best {
			c, lo, hi, best = v, bd.lo[v], bd.hi[v], n
		}
	}
	return c, lo, hi, false
}

// splitVar decides the system by cases: it is feasible iff it is for one value of column c in
// lo..hi (the bounds of c).
func (s *omegaSys) splitVar(c int, lo, hi int64) bool {
	for v := lo; v <= hi; v++ {
		sub := newOmegaSys(s.w, s.bg)
		for _, off := range s.ineqs {
			r := s.row(off)
			n := sub.row(sub.alloc(1))
			copy(n, r)
			if n[c] != 0 {
				n[0] = addc(n[0], mulc(n[c], v))
				n[c] = 0
			}
			sub.ineqs = append(sub.ineqs, int32(len(sub.data)-sub.w))
		}
		ok := sub.feasible()
		sub.release()
		if ok {
			return true
		}
	}
	return false
}
