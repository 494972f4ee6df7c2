// This file holds the Omega test (Pugh 1991): exact integer feasibility of a constraint system and
// exact elimination of existential variables (dark shadow and splinters).

package volume

import "fmt"

// maxOmegaSteps bounds the equality reductions of one problem. Pugh's mod-hat reduction shrinks
// coefficients geometrically, so real problems need a handful; the bound turns a bug into an error.
const maxOmegaSteps = 10000

type internalError struct{ msg string }

func (e internalError) Error() string { return "volume: internal error: " + e.msg }

// substitute eliminates column c from row using pivot, whose coefficient at c is ±1.
func substitute(row, piv []int64, c int) {
	f := row[c]
	if f == 0 {
		return
	}
	f = mulc(f, piv[c]) // piv[c]² = 1
	for i := range row {
		if piv[i] != 0 {
			row[i] = subc(row[i], mulc(f, piv[i]))
		}
	}
}

// modHat is Pugh's symmetric remainder a - m*floor(a/m + 1/2).
func modHat(a, m int64) int64 {
	return subc(a, mulc(m, floorDiv(addc(mulc(2, a), m), mulc(2, m))))
}

// normIneq divides an inequality by the gcd of its variable coefficients, rounding the constant
// down (integer tightening). It reports ok=false for a constant row that is violated and
// drop=true for a constant row that always holds.
func normIneq(r []int64) (ok, drop bool) {
	g := rowGCD(r, 1)
	if g == 0 {
		return r[0] >= 0, true
	}
	if g != 1 {
		for i := 1; i < len(r); i++ {
			r[i] /= g
		}
		r[0] = floorDiv(r[0], g)
	}
	return true, false
}

// normEq divides an equality by the gcd of its coefficients. ok=false means it has no integer
// solution (gcd test); drop=true means it is 0 = 0.
func normEq(r []int64) (ok, drop bool) {
	g := rowGCD(r, 1)
	if g == 0 {
		return r[0] == 0, true
	}
	if r[0]%g != 0 {
		return false, false
	}
	if g != 1 {
		for i := range r {
			r[i] /= g
		}
	}
	// canonical sign: first non-zero coefficient positive
	for i := 1; i < len(r); i++ {
		if r[i] != 0 {
			if r[i] < 0 {
				for j := range r {
					r[j] = -r[j]
				}
			}
			break
		}
	}
	return true, false
}

// sameCoeffs reports whether a and b agree on columns 1.. (sign s: b = s*a).
func sameCoeffs(a, b []int64, s int64) bool {
	for i := 1; i < len(a); i++ {
		if a[i] != s*b[i] {
			return false
		}
	}
	return true
}

// tidyIneqs normalises, removes duplicates (keeping the tighter) and detects contradictory or
// equality-forming opposite pairs. It returns the kept rows, the new equalities found and ok=false
// when the system is infeasible.
// The rows are normalised in place; the returned slice is new.
func tidyIneqs(rows [][]int64) (kept, neweqs [][]int64, ok bool) {
	return tidyRowsInto(make([][]int64, 0, len(rows)), rows)
}

// tidyRowsInto is tidyIneqs appending the kept rows to kept, which may be rows[:0] (filtering in
// place).
func tidyRowsInto(kept, rows [][]int64) (_, neweqs [][]int64, ok bool) {
	// hs[i] is a linear hash of kept[i]'s coefficients, so that -hs[i] hashes the opposite row
	var hbuf [64]uint64
	hs := hbuf[:0]
	for _, r := range rows {
		ok, drop := normIneq(r)
		if !ok {
			return nil, nil, false
		}
		if drop {
			continue
		}
		h := coeffHash(r)
		dup := false
		for j, k := range kept {
			if hs[j] == h && sameCoeffs(r, k, 1) {
				if r[0] < k[0] {
					kept[j] = r
				}
				dup = true
				break
			}
		}
		if !dup {
			kept = append(kept, r)
			hs = append(hs, h)
		}
	}
	return oppositePairs(kept, hs)
}

// oppositePairs finds, among distinct normalised rows with coefficient hashes hs, the opposite
// pairs: a pair whose constants add up below zero makes the system infeasible (ok=false), one
// whose constants add up to zero is an equality, returned in neweqs and removed from the kept
// rows (in place).
func oppositePairs(kept [][]int64, hs []uint64) (_, neweqs [][]int64, ok bool) {
	n := len(kept)
	for i := 0; i < n; i++ {
		if kept[i] == nil {
			continue
		}
		for j := i + 1; j < n; j++ {
			if kept[j] == nil || hs[j] != -hs[i] || !sameCoeffs(kept[i], kept[j], -1) {
				continue
			}
			s := addc(kept[i][0], kept[j][0])
			if s < 0 {
				return nil, nil, false
			}
			if s == 0 {
				// a copy: normalising the equality may negate it, and the row may be shared
				// (subtraction shares the rows of a tidy operand)
				neweqs = append(neweqs, cloneRow(kept[i]))
				kept[i], kept[j] = nil, nil
			}
			break
		}
	}
	if len(neweqs) == 0 {
		return kept, nil, true
	}
	out := kept[:0]
	for _, k := range kept {
		if k != nil {
			out = append(out, k)
		}
	}
	return out, neweqs, true
}

// coeffHash is a linear hash of r[1:]: coeffHash(-r) = -coeffHash(r).
func coeffHash(r []int64) uint64 {
	var h uint64
	for i := 1; i < len(r); i++ {
		if r[i] != 0 {
			k := uint64(i)*0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019
			k ^= k >> 29
			h += uint64(r[i]) * (k | 1)
		}
	}
	return h
}

// maxRationalRows bounds the rows of rationalFeasible: past it, it stops and answers "feasible",
// which is always sound for its use (refuting before splintering).
const maxRationalRows = 400

// rationalFeasible is Fourier–Motzkin elimination of every variable, each treated as exact (the
// real shadow) after integer tightening of every row. false proves that the rows have no integer
// solution; true proves nothing. rows is consumed.
func rationalFeasible(rows [][]int64) bool {
	for {
		kept, neweqs, ok := tidyIneqs(rows)
		if !ok {
			return false
		}
		for _, e := range neweqs {
			kept = append(kept, e, negRow(e))
		}
		rows = kept
		if len(rows) == 0 || len(rows) > maxRationalRows {
			return true
		}
		w := len(rows[0])
		if len(rows) > w {
			if rows, ok = pruneByBounds(rows); !ok {
				return false
			}
		}
		best, bestCost := -1, int64(0)
		for c := 1; c < w; c++ {
			var nl, nu int64
			for _, r := range rows {
				if r[c] > 0 {
					nl++
				} else if r[c] < 0 {
					nu++
				}
			}
			if nl == 0 && nu == 0 {
				continue
			}
			cost := nl*nu - nl - nu
			if best < 0 || cost < bestCost {
				best, bestCost = c, cost
			}
		}
		if best < 0 || bestCost+2*int64(len(rows)) > maxFMRows {
			return true // nothing left, or too large to decide cheaply: no refutation
		}
		rows = fourierMotzkin(rows, best, 0)
	}
}

func cloneRows(rows [][]int64) [][]int64 {
	out := make([][]int64, len(rows))
	for i, r := range rows {
		out[i] = cloneRow(r)
	}
	return out
}

func dropWithCol(rows [][]int64, c int) [][]int64 {
	out := rows[:0]
	for _, r := range rows {
		if r[c] == 0 {
			out = append(out, r)
		}
	}
	return out
}

// maxFMRows bounds the rows one Fourier–Motzkin step may create. Dense systems can grow doubly
// exponentially; past the bound the operation stops with ErrTooComplex instead of exhausting
// memory (it never answers wrongly).
const maxFMRows = 20000

// tooComplex is the panic value behind ErrTooComplex; what says which bound was hit. bg is the
// budget that ran out (nil for a structural bound: rows of one step, splinters, pieces), fatal
// whether it is an operation's own budget, which no local test may absorb (see undecided).
type tooComplex struct {
	what  string
	bg    *budget
	fatal bool
}

// maxTestWork bounds the rows one emptiness test may process, over all its eliminations, dark
// shadows and splinters (a few hundred on tensor-sized problems), when it runs on its own
// rather than within an operation's budget (see budget.go).
const maxTestWork = 500_000

// maxSplinters bounds the splinters of one inexact elimination (their number grows with the
// coefficients); past it the operation stops with ErrTooComplex.
const maxSplinters = 4096

// fourierMotzkin eliminates column c. With dark=1 it builds Pugh's dark shadow instead of the
// real shadow: every pair (a*x >= L, b*x <= U) gives a*U - b*L >= (a-1)(b-1).
func fourierMotzkin(rows [][]int64, c int, dark int64) [][]int64 {
	nl, nu := 0, 0
	for _, r := range rows {
		if r[c] > 0 {
			nl++
		} else if r[c] < 0 {
			nu++
		}
	}
	lows := make([][]int64, 0, nl)
	ups := make([][]int64, 0, nu)
	out := make([][]int64, 0, len(rows)-nl-nu+nl*nu)
	w := len(rows[0])
	buf := make([]int64, w*(len(rows)-nl-nu+nl*nu))
	for _, r := range rows {
		switch {
		case r[c] > 0:
			lows = append(lows, r)
		case r[c] < 0:
			ups = append(ups, r)
		default:
			n := buf[:w:w]
			buf = buf[w:]
			copy(n, r)
			out = append(out, n)
		}
	}
	if len(lows)*len(ups) > maxFMRows {
		panic(tooComplex{what: fmt.Sprintf("a Fourier–Motzkin step would create %d constraints", len(lows)*len(ups))})
	}
	for _, l := range lows {
		a := l[c]
		for _, u := range ups {
			b := -u[c]
			n := buf[:w:w]
			buf = buf[w:]
			if dark == 0 {
				g := gcd(a, b)
				combineInto(n, b/g, l, a/g, u)
			} else {
				combineInto(n, b, l, a, u)
				n[0] = subc(n[0], mulc(a-1, b-1))
			}
			n[c] = 0
			out = append(out, n)
		}
	}
	return out
}

// fourierMotzkinOwned is the real shadow of fourierMotzkin on rows it may reuse, rows' array
// included: the rows without column c are kept, not copied.
func fourierMotzkinOwned(rows [][]int64, c int) [][]int64 {
	var bbuf [16][]int64
	bounds := bbuf[:0]
	nl, nu := 0, 0
	out := rows[:0]
	for _, r := range rows {
		switch {
		case r[c] > 0:
			nl++
			bounds = append(bounds, r)
		case r[c] < 0:
			nu++
			bounds = append(bounds, r)
		default:
			out = append(out, r)
		}
	}
	if nl*nu > maxFMRows {
		panic(tooComplex{what: fmt.Sprintf("a Fourier–Motzkin step would create %d constraints", nl*nu)})
	}
	w := len(rows[0])
	buf := make([]int64, w*nl*nu)
	for _, l := range bounds {
		a := l[c]
		if a <= 0 {
			continue
		}
		for _, u := range bounds {
			if u[c] >= 0 {
				continue
			}
			b := -u[c]
			n := buf[:w:w]
			buf = buf[w:]
			g := gcd(a, b)
			combineInto(n, b/g, l, a/g, u)
			n[c] = 0
			out = append(out, n)
		}
	}
	return out
}

// splinters returns equalities at least one of which every integer solution of rows that lies
// outside the dark shadow of column c satisfies (Pugh's splinters), in the cheapest of three
// forms:
//   - for every lower bound a*x + L >= 0, a*x + L - j = 0 for 0 <= j <= (amax*a - a - amax)/amax,
//     where amax is the largest upper-bound coefficient of x (Pugh);
//   - the same from the upper bounds (of -x);
//   - for a pair of parallel bounds a*x + L >= 0 and -a*x - L + K >= 0, which pins a*x + L to
//     [0, K] at every solution, a*x + L - j = 0 for 0 <= j <= K: every solution satisfies one.
//
// The last form makes a variable that two bounds determine (2j <= 10001i <= 2j + 1) cost K + 1
// splinters instead of a number that grows with its coefficients.
func splinters(rows [][]int64, c int) [][]int64 {
	n, side, pair := splinterPlan(rows, c)
	if n > maxSplinters {
		panic(tooComplex{what: fmt.Sprintf("an inexact elimination would create %d splinters", n)})
	}
	if side == 0 {
		out := make([][]int64, 0, n)
		for j := int64(0); j < n; j++ {
			e := cloneRow(pair)
			e[0] = subc(e[0], j)
			out = append(out, e)
		}
		return out
	}
	if side > 0 {
		return lowerSplinters(rows, c)
	}
	neg := cloneRows(rows)
	for _, r := range neg {
		r[c] = negc(r[c])
	}
	out := lowerSplinters(neg, c)
	for _, r := range out {
		r[c] = negc(r[c])
	}
	return out
}

// splinterCount returns how many splinters splinters(rows, c) returns.
func splinterCount(rows [][]int64, c int) int64 {
	n, _, _ := splinterPlan(rows, c)
	return n
}

// splinterPlan chooses the form of the splinters of column c: side 1 (lower bounds), -1 (upper
// bounds) or 0 (the parallel pair whose first row is pair); n is their number.
func splinterPlan(rows [][]int64, c int) (n int64, side int, pair []int64) {
	lo, up := splinterCounts(rows, c)
	n, side = lo, 1
	if up < lo {
		n, side = up, -1
	}
	for _, l := range rows {
		if l[c] <= 0 {
			continue
		}
		for _, u := range rows {
			if u[c] != -l[c] || !sameCoeffs(l, u, -1) {
				continue
			}
			// K = l[0] + u[0] (without overflow): l is pinned to [0, K]
			k := l[0] + u[0]
			if (u[0] > 0 && k < l[0]) || (u[0] < 0 && k > l[0]) || k < 0 {
				continue
			}
			if k < n-1 {
				n, side, pair = k+1, 0, l
			}
		}
	}
	return n, side, pair
}

// lowerSplinters returns Pugh's splinters of column c from its lower bounds.
func lowerSplinters(rows [][]int64, c int) [][]int64 {
	var amax int64
	for _, r := range rows {
		if -r[c] > amax {
			amax = -r[c]
		}
	}
	var out [][]int64
	for _, r := range rows {
		a := r[c]
		if a <= 0 {
			continue
		}
		lim := floorDiv(subc(subc(mulc(amax, a), a), amax), amax)
		for j := int64(0); j <= lim; j++ {
			e := cloneRow(r)
			e[0] = subc(e[0], j)
			out = append(out, e)
		}
	}
	return out
}
