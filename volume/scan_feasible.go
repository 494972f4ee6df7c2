// This file holds the feasibility test scanning uses: the Omega test of omega_sys.go with a
// small allowance of its own. Scanning only needs a conservative answer (a system it cannot
// decide is treated as feasible: a guard is kept, two pieces are not merged, two atoms share a
// loop), so a test that would blow up, as Fourier–Motzkin can on systems with many divs, stops
// early instead.

package volume

// scanWork is the allowance of one scanning feasibility test, in rows processed (see budget).
// Tensor domains need a few hundred; the blow-ups it stops reach millions.
const scanWork = 8000

// scanFeasible reports whether eqs (= 0) and ineqs (>= 0) may have an integer solution: false is
// exact (no solution), true means a solution exists or the test was undecided (its allowance ran
// out, or an elimination passed a structural bound). Rows are not modified.
func scanFeasible(eqs, ineqs [][]int64) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if !undecided(r) {
				panic(r)
			}
			ok = true
		}
	}()
	return feasible(eqs, ineqs, (*budget)(nil).child(scanWork))
}

// scanEmpty reports whether b certainly has no integer point.
func scanEmpty(b *basic) bool {
	return !scanFeasible(b.eqs, append(cloneRows(b.ineqs), b.allDivConstraints()...))
}
