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
	w := len(rows[0])
	lo := make([]int64, w)
	hi := make([]int64, w)
	hasLo := make([]bool, w)
	hasHi := make([]bool, w)
	nvar := func(r []int64) (n, c int) {
		for i := 1; i < len(r); i++ {
			if r[i] != 0 {
				n++
				c = i
			}
		}
		return n, c
	}
	for _, r := range rows {
		n, c := nvar(r)
		if n != 1 {
			continue
		}
		if a := r[c]; a > 0 { // a*x + k >= 0
			v := ceilDiv(-r[0], a)
			if !hasLo[c] || v > lo[c] {
				lo[c], hasLo[c] = v, true
			}
		} else {
			v := floorDiv(r[0], -a)
			if !hasHi[c] || v < hi[c] {
				hi[c], hasHi[c] = v, true
			}
		}
	}
	out = rows[:0:0]
	for _, r := range rows {
		if n, _ := nvar(r); n < 2 {
			out = append(out, r)
			continue
		}
		minV, minOK := r[0], true
		maxV, maxOK := r[0], true
		for i := 1; i < w && (minOK || maxOK); i++ {
			a := r[i]
			if a == 0 {
				continue
			}
			// the minimum of a*x uses lo when a > 0, hi when a < 0
			if minOK {
				if a > 0 && hasLo[i] {
					minV, minOK = addMulSafe(minV, a, lo[i])
				} else if a < 0 && hasHi[i] {
					minV, minOK = addMulSafe(minV, a, hi[i])
				} else {
					minOK = false
				}
			}
			if maxOK {
				if a > 0 && hasHi[i] {
					maxV, maxOK = addMulSafe(maxV, a, hi[i])
				} else if a < 0 && hasLo[i] {
					maxV, maxOK = addMulSafe(maxV, a, lo[i])
				} else {
					maxOK = false
				}
			}
		}
		if maxOK && maxV < 0 {
			return nil, false
		}
		if minOK && minV >= 0 {
			continue // implied by the bounds
		}
		out = append(out, r)
	}
	return out, true
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
