// This file holds the projection scanning uses for loop bounds: the shadow of a basic on its
// outer dimensions, computed by exact equality elimination (which keeps strides as congruences)
// and Fourier–Motzkin on the inequalities.

package volume

import (
	"math/bits"
	"slices"
)

// shadow returns a basic over the same space as b whose constraints do not involve the dims for
// which drop returns true: those dims, and the divs that depend on them, are eliminated.
//
// Equalities are eliminated exactly: a unit coefficient is substituted, and c·x + e = 0 with x the
// only eliminated variable gives the congruence e ≡ 0 (mod c) as a new div (this is how
// { [i, j] : i = 2j } projects onto { [i] : i mod 2 = 0 }). Inequalities go through
// Fourier–Motzkin, which is exact when every pair has a unit coefficient on one side (the tensor
// domains) and otherwise returns the real shadow, a superset of the integer projection. Scanning
// only needs a superset for correctness (the inner levels re-check the exact constraints); the
// exact case gives loops without empty iterations.
func shadow(b *basic, drop func(dim int) bool) *basic {
	r, _ := shadowExact(b, drop)
	return r
}

// shadowExact is shadow that also reports whether every step was exact (unit substitutions,
// congruences, and Fourier–Motzkin steps with unit coefficients on one side), in which case the
// result is the integer projection.
func shadowExact(b *basic, drop func(dim int) bool) (*basic, bool) {
	return shadowCols(b, drop, nil)
}

// shadowCols eliminates the dims for which drop holds, the divs that depend on them, and the divs
// for which dropDiv holds (nil: none).
func shadowCols(b *basic, drop func(dim int) bool, dropDiv func(k int) bool) (*basic, bool) {
	exact := true
	np, n := b.nParam, b.nDim()
	ds := b.divStart()
	// a div is eliminated when its definition uses a dropped dim (transitively)
	taint := make([]bool, len(b.divs))
	any := false
	for k, d := range b.divs {
		for i := 0; i < n && !taint[k]; i++ {
			taint[k] = d.num[1+np+i] != 0 && drop(i)
		}
		for k2 := 0; k2 < k && !taint[k]; k2++ {
			taint[k] = d.num[ds+k2] != 0 && taint[k2]
		}
		taint[k] = taint[k] || dropDiv != nil && dropDiv(k)
		any = any || taint[k]
	}
	elim := make([]bool, b.width())
	for i := 0; i < n; i++ {
		if drop(i) {
			elim[1+np+i] = true
			any = true
		}
	}
	if !any {
		return b.clone(), true
	}
	for k := range b.divs {
		elim[ds+k] = taint[k]
	}
	eqs := cloneRows(b.eqs)
	ineqs := cloneRows(b.ineqs)
	for k := range b.divs {
		if taint[k] {
			lo, hi := b.divConstraints(k)
			ineqs = append(ineqs, lo, hi)
		}
	}
	var newDivs []div // divs created for congruences, columns appended after b's
	width := b.width()
	grow := func() {
		width++
		elim = append(elim, false)
		for i := range eqs {
			eqs[i] = append(eqs[i], 0)
		}
		for i := range ineqs {
			ineqs[i] = append(ineqs[i], 0)
		}
	}
	// substituteScaled eliminates column v from row using pivot p (p[v] != 0): row·|p[v]| − row[v]·sign(p[v])·p.
	substituteScaled := func(row, p []int64, v int) []int64 {
		a := row[v]
		if a == 0 {
			return row
		}
		c := p[v]
		if c == 1 || c == -1 {
			substitute(row, p, v)
			return row
		}
		sc := abs64(c)
		f := a
		if c < 0 {
			f = -a
		}
		r := combine(sc, row, -f, p)
		r[v] = 0
		return r
	}
	empty := false
	for steps := 0; !empty; steps++ {
		if steps > maxOmegaSteps {
			panic(internalError{"scan: projection does not terminate"})
		}
		// equalities first
		done := false
		for ei := 0; ei < len(eqs) && !done; ei++ {
			e := eqs[ei]
			ok, dropRow := normEq(e)
			if !ok {
				empty = true
				break
			}
			if dropRow {
				eqs = append(eqs[:ei:ei], eqs[ei+1:]...)
				ei--
				continue
			}
			v, nElim := -1, 0
			for c := 1; c < len(e); c++ {
				if elim[c] && e[c] != 0 {
					nElim++
					if v < 0 || abs64(e[c]) < abs64(e[v]) {
						v = c
					}
				}
			}
			if v < 0 {
				continue
			}
			done = true
			eqs = append(eqs[:ei:ei], eqs[ei+1:]...)
			exact = exact && (abs64(e[v]) == 1 || nElim == 1)
			if abs64(e[v]) != 1 && nElim == 1 {
				// c·x + rest = 0 has an integer solution x iff rest ≡ 0 (mod |c|): keep that as
				// rest = |c|·floor(rest/|c|), a div of the remaining variables. Coefficients
				// count modulo |c| only: reducing them keeps the congruence and its div small
				// (10001i = 2j projects onto i ≡ 0 (mod 2), not onto a div of 10001i, whose
				// coefficient later feasibility tests could only eliminate inexactly).
				den := abs64(e[v])
				rest := make([]int64, len(e))
				for c, a := range e {
					if c != v {
						rest[c] = modFloor(a, den)
					}
				}
				if g := gcd(rowGCD(rest, 0), den); g > 1 {
					// rest ≡ 0 (mod den) iff rest/g ≡ 0 (mod den/g)
					for c := range rest {
						rest[c] /= g
					}
					den /= g
				}
				unitCongruence(rest, den)
				if isZeroFrom(rest, 1) {
					// a constant congruence: always true (rest[0] = 0 after the reduction) or
					// never
					if rest[0]%den != 0 {
						empty = true
						break
					}
				} else {
					grow()
					rest = append(rest, 0)
					newDivs = append(newDivs, div{num: cloneRow(rest), den: den})
					cong := cloneRow(rest)
					cong[width-1] = -den
					e = append(e, 0)
					eqs = append(eqs, cong)
				}
			}
			for i := range eqs {
				eqs[i] = substituteScaled(eqs[i], e, v)
			}
			for i := range ineqs {
				ineqs[i] = substituteScaled(ineqs[i], e, v)
			}
		}
		if empty || done {
			continue
		}
		// integer tightening first (3q + 1 >= 0 is q >= 0), which makes the shadow of
		// congruences exact: { [i, j] : 0 <= j <= 2i and j mod 3 = 1 } projects onto i >= 1
		kept, neweqs, ok := tidyIneqs(ineqs)
		if !ok {
			empty = true
			break
		}
		ineqs = kept
		if len(neweqs) > 0 {
			eqs = append(eqs, neweqs...)
			continue
		}
		// then one Fourier–Motzkin step on the cheapest eliminated column
		best, bestCost, bestExact, oneSided := -1, int64(0), false, false
		for c := 1; c < width; c++ {
			if !elim[c] {
				continue
			}
			var nl, nu int64
			unitL, unitU := true, true
			for _, r := range ineqs {
				switch {
				case r[c] > 0:
					nl++
					unitL = unitL && r[c] == 1
				case r[c] < 0:
					nu++
					unitU = unitU && r[c] == -1
				}
			}
			if nl+nu == 0 {
				continue
			}
			if nl == 0 || nu == 0 {
				best, oneSided = c, true
				break
			}
			exact := unitL || unitU
			cost := nl*nu - nl - nu
			if best < 0 || (exact && !bestExact) || (exact == bestExact && cost < bestCost) {
				best, bestCost, bestExact = c, cost, exact
			}
		}
		if best < 0 {
			break
		}
		switch {
		case oneSided:
			ineqs = dropWithCol(ineqs, best)
		case bestExact:
			ineqs = fourierMotzkin(ineqs, best, 0)
		default:
			if m := congruenceStep(ineqs, best, elim); m > 0 {
				// L_i <= m·x <= U_j has an integer x iff m·floor(U_j/m) >= L_i for all i, j
				var out, lows [][]int64
				var ups []int
				for _, r := range ineqs {
					switch {
					case r[best] > 0:
						lows = append(lows, r)
					case r[best] < 0:
						u := cloneRow(r)
						u[best] = 0
						grow()
						u = append(u, 0)
						newDivs = append(newDivs, div{num: u, den: m})
						ups = append(ups, width-1)
					default:
						out = append(out, r)
					}
				}
				for i := range out {
					out[i] = append(out[i], make([]int64, width-len(out[i]))...)
				}
				for _, l := range lows {
					for _, col := range ups {
						r := append(cloneRow(l), make([]int64, width-len(l))...)
						r[best] = 0
						r[col] = m // m·t + (l without x) >= 0
						out = append(out, r)
					}
				}
				ineqs = out
				break
			}
			exact = false
			ineqs = fourierMotzkin(ineqs, best, 0)
		}
	}
	if empty {
		return emptyBasic(np, n), true
	}
	// rebuild over the kept columns: constant, parameters, dims, surviving divs, new divs
	nb := newBasic(np, b.in, b.out)
	colmap := make([]int, width)
	for c := range colmap {
		colmap[c] = -1
	}
	next := 0
	for c := 0; c < ds; c++ {
		colmap[c] = next
		next++
	}
	for k := range b.divs {
		if !taint[k] {
			colmap[ds+k] = next
			next++
		}
	}
	for k := range newDivs {
		colmap[b.width()+k] = next
		next++
	}
	pad := func(r []int64) []int64 {
		if len(r) < width {
			r = append(cloneRow(r), make([]int64, width-len(r))...)
		}
		return r
	}
	for k, d := range b.divs {
		if !taint[k] {
			nb.divs = append(nb.divs, div{num: remapRow(pad(d.num), colmap, next), den: d.den})
		}
	}
	for _, d := range newDivs {
		nb.divs = append(nb.divs, div{num: remapRow(pad(d.num), colmap, next), den: d.den})
	}
	for _, r := range eqs {
		nb.eqs = append(nb.eqs, remapRow(r, colmap, next))
	}
	for _, r := range ineqs {
		nb.ineqs = append(nb.ineqs, remapRow(r, colmap, next))
	}
	if !nb.tidy() {
		return emptyBasic(np, n), true
	}
	nb.mergeDuplicateDivs()
	nb.dropUnusedDivs()
	return nb, exact
}

// shadowOuter returns the projection of b on its parameters and dims 0..d: the shadow, or the
// exact integer projection (Omega test) when the shadow may be larger and the exact projection
// is one convex piece. Loops over an exact projection never run an iteration for nothing.
func shadowOuter(b *basic, d int) *basic {
	r, exact := shadowExact(b, func(i int) bool { return i > d })
	// the exact projection (dark shadows and splinters) is only tried on small systems: its cost
	// grows exponentially with the constraints it combines
	if exact || r.plainIsEmpty() || len(b.ineqs)+2*len(b.eqs)+2*len(b.divs) > 24 || len(b.divs) > 3 {
		return r
	}
	n := b.nDim()
	drop := map[int]bool{}
	for i := d + 1; i < n; i++ {
		drop[1+b.nParam+i] = true
	}
	out := tuple{"", make([]string, d+1)}
	var ps []*basic
	if err := try(func() { ps = b.projectCols(drop, b.nParam, tuple{}, out, nil) }); err != nil {
		return r
	}
	var pieces []*basic
	for _, p := range ps {
		if p.tidy() && !scanEmpty(p) {
			p.dropUnusedDivs()
			// back to the scanning space: dims d+1.. are unconstrained
			p.insertCols(1+p.nParam+d+1, n-d-1)
			p.out = tuple{"", make([]string, n)}
			pieces = append(pieces, p)
		}
	}
	if pieces = coalesceList(pieces); len(pieces) == 1 {
		return pieces[0]
	}
	return r
}

// withPlainBounds returns b, with bounds on dim d added when b bounds d only through divs of d
// (floor((i - 1)/2) = 0 bounds i): the shadow of b without those divs, which b implies.
func withPlainBounds(b *basic, d int) *basic {
	if boundedIn(b, d) {
		return b
	}
	lv := divLevels(b)
	p, _ := shadowCols(b, func(int) bool { return false }, func(k int) bool { return lv[k] == d })
	j, _, _ := joinBasic(b, p)
	j.tidy()
	if boundedIn(j, d) {
		return j
	}
	// The integer shadow can bring the divs back: eliminating q = floor((i + k - 1)/2) from
	// i <= 2q + 1 is a congruence step that keeps a div of k. Its rational shadow (k >= 0 there)
	// is plain, and b implies it.
	rows := rationalShadowRows(b, lv, d)
	if rows == nil {
		return j
	}
	nb := b.clone()
	nb.ineqs = append(nb.ineqs, rows...)
	nb.tidy()
	return nb
}

// rationalShadowRows returns the rows of the rational shadow of b without its divs of level d
// (Fourier–Motzkin on their columns, with their definitions) that bound dim d, or nil when
// there are none or the elimination grows past a few hundred rows.
func rationalShadowRows(b *basic, lv []int, d int) [][]int64 {
	ds := b.divStart()
	rows := cloneRows(b.ineqs)
	for _, e := range b.eqs {
		rows = append(rows, cloneRow(e), negRow(e))
	}
	var cols []int
	for k := range b.divs {
		if lv[k] == d {
			lo, hi := b.divConstraints(k)
			rows = append(rows, lo, hi)
			cols = append(cols, ds+k)
		}
	}
	for _, c := range cols {
		if rows = fourierMotzkin(rows, c, 0); len(rows) > 400 {
			return nil
		}
	}
	col := 1 + b.nParam + d
	var out [][]int64
	for _, r := range rows {
		if r[col] != 0 && !usesLevelDiv(b, lv, r, d) {
			out = append(out, r)
		}
	}
	return out
}

// congruenceStep returns m when every lower bound of column c in rows has coefficient m and
// every upper bound -m, m > 1, and no upper bound involves another eliminated column: the
// elimination is then exact with one div per upper bound. It returns 0 otherwise.
func congruenceStep(rows [][]int64, c int, elim []bool) int64 {
	var m int64
	for _, r := range rows {
		if r[c] == 0 {
			continue
		}
		if m == 0 {
			m = abs64(r[c])
		}
		if abs64(r[c]) != m {
			return 0
		}
		if r[c] < 0 {
			for k, v := range r {
				if k != c && v != 0 && elim[k] {
					return 0
				}
			}
		}
	}
	if m < 2 {
		return 0
	}
	return m
}

// unitCongruence rewrites the congruence row ≡ 0 (mod m), its coefficients in [0, m), into an
// equivalent one where the last variable whose coefficient is invertible modulo m has
// coefficient 1 (multiplying by that inverse): 3i + 10000 ≡ 0 (mod 10001) becomes
// i + 6667 ≡ 0, a stride of i rather than a div whose coefficient later feasibility tests could
// only eliminate inexactly. Rows with no invertible coefficient are left as they are.
func unitCongruence(row []int64, m int64) {
	if m <= 1 || slices.Contains(row[1:], 1) {
		return
	}
	for c := len(row) - 1; c >= 1; c-- {
		if row[c] == 0 || gcd(row[c], m) != 1 {
			continue
		}
		inv := modInverse(row[c], m)
		for k := range row {
			row[k] = mulMod(row[k], inv, m)
		}
		return
	}
}

// mulMod returns a·b mod m for a, b in [0, m) without overflow.
func mulMod(a, b, m int64) int64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	return int64(bits.Rem64(hi, lo, uint64(m)))
}
