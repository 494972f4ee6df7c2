// This file holds a cheap redundancy filter for the Omega test: constant bounds of single
// variables, read off one-variable rows, prove many rows that Fourier–Motzkin creates redundant
// (or the system infeasible) without any search.

package volume

import "math/bits"

// pruneByBounds drops the rows (over at least two variables) that the constant bounds of the
// single-variable rows imply, and reports ok=false when some row cannot hold within them. Rows
// of one variable are kept, so no bound is used to drop the row it comes from.
func pruneByBounds(rows [][]int64) (out [][]int64, ok bool) {
	if len(rows) == 0 {
		return rows, true
	}
	var p boundsPruner
	p.init(len(rows[0]))
	for _, r := range rows {
		p.learn(r)
	}
	out = rows[:0:0]
	for _, r := range rows {
		drop, infeasible := p.check(r)
		if infeasible {
			return nil, false
		}
		if !drop {
			out = append(out, r)
		}
	}
	return out, true
}

// boundsPruner holds the constant bounds of single variables read off one-variable rows.
type boundsPruner struct {
	lo, hi       []int64
	hasLo, hasHi []bool
}

func (p *boundsPruner) init(w int) {
	p.lo, p.hi = make([]int64, w), make([]int64, w)
	p.hasLo, p.hasHi = make([]bool, w), make([]bool, w)
}

// nvar returns the number of variables of r and the last one.
func nvar(r []int64) (n, c int) {
	for i := 1; i < len(r); i++ {
		if r[i] != 0 {
			n++
			c = i
		}
	}
	return n, c
}

// learn records the bound r gives when it has one variable.
func (p *boundsPruner) learn(r []int64) {
	n, c := nvar(r)
	if n != 1 {
		return
	}
	if a := r[c]; a > 0 { // a*x + k >= 0
		v := ceilDiv(-r[0], a)
		if !p.hasLo[c] || v > p.lo[c] {
			p.lo[c], p.hasLo[c] = v, true
		}
	} else {
		v := floorDiv(r[0], -a)
		if !p.hasHi[c] || v < p.hi[c] {
			p.hi[c], p.hasHi[c] = v, true
		}
	}
}

// check reports whether r (over at least two variables) holds everywhere within the bounds
// (drop) or nowhere (infeasible). Rows of one variable are never dropped.
func (p *boundsPruner) check(r []int64) (drop, infeasible bool) {
	if n, _ := nvar(r); n < 2 {
		return false, false
	}
	minV, minOK := r[0], true
	maxV, maxOK := r[0], true
	for i := 1; i < len(r) && (minOK || maxOK); i++ {
		a := r[i]
		if a == 0 {
			continue
		}
		// the minimum of a*x uses lo when a > 0, hi when a < 0
		if minOK {
			if a > 0 && p.hasLo[i] {
				minV, minOK = addMulSafe(minV, a, p.lo[i])
			} else if a < 0 && p.hasHi[i] {
				minV, minOK = addMulSafe(minV, a, p.hi[i])
			} else {
				minOK = false
			}
		}
		if maxOK {
			if a > 0 && p.hasHi[i] {
				maxV, maxOK = addMulSafe(maxV, a, p.hi[i])
			} else if a < 0 && p.hasLo[i] {
				maxV, maxOK = addMulSafe(maxV, a, p.lo[i])
			} else {
				maxOK = false
			}
		}
	}
	if maxOK && maxV < 0 {
		return false, true
	}
	return minOK && minV >= 0, false
}

// addMulSafe returns s + a*x, ok=false on int64 overflow.
func addMulSafe(s, a, x int64) (int64, bool) {
	if a == 0 || x == 0 {
		return s, true
	}
	neg := (a < 0) != (x < 0)
	ua, ux := uint64(a), uint64(x)
	if a < 0 {
		ua = -ua
	}
	if x < 0 {
		ux = -ux
	}
	hi, p := bits.Mul64(ua, ux)
	if hi != 0 || p > 1<<63-1 {
		return 0, false
	}
	v := int64(p)
	if neg {
		v = -v
	}
	r := s + v
	if (r > s) != (v > 0) {
		return 0, false
	}
	return r, true
}
