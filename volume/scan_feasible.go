// This file holds the feasibility test scanning uses: the Omega test of omega.go with a work
// budget. Scanning only needs a conservative answer (a system it cannot decide is treated as
// feasible: a guard is kept, two pieces are not merged, two atoms share a loop), so a test that
// would blow up, as Fourier–Motzkin can on systems with many divs, stops early instead.

package volume

// scanBudget bounds the rows one feasibility test may create (each real or dark shadow counts
// its rows). Tensor domains need a few hundred; the blow-ups it stops reach millions.
const scanBudget = 4000

type budget struct{ left int }

// errBudget is the panic value of an exhausted budget.
type errBudget struct{}

func (b *budget) spend(n int) {
	b.left -= n
	if b.left < 0 {
		panic(errBudget{})
	}
}

// scanFeasible reports whether eqs (= 0) and ineqs (>= 0) may have an integer solution: false is
// exact (no solution), true means a solution exists or the budget ran out. Rows are not modified.
func scanFeasible(eqs, ineqs [][]int64) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, isBudget := r.(errBudget); !isBudget {
				panic(r)
			}
			ok = true
		}
	}()
	e := cloneRows(eqs)
	in := cloneRows(ineqs)
	b := &budget{scanBudget}
	return b.feasibleOwned(e, in)
}

// scanEmpty reports whether b certainly has no integer point.
func scanEmpty(b *basic) bool {
	return !scanFeasible(b.eqs, append(cloneRows(b.ineqs), b.allDivConstraints()...))
}

// feasibleOwned is feasibleOwned of omega.go with a budget.
func (bg *budget) feasibleOwned(eqs, ineqs [][]int64) bool {
	for len(eqs) > 0 {
		bg.spend(1)
		r := eqs[len(eqs)-1]
		eqs = eqs[:len(eqs)-1]
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
			for _, o := range eqs {
				substitute(o, r, c)
			}
			for _, o := range ineqs {
				substitute(o, r, c)
			}
			continue
		}
		// Pugh's mod-hat step: a new variable sigma with m*sigma = sum modhat(a_i, m) x_i.
		m := abs64(r[k]) + 1
		w := len(r) + 1
		r = append(r, 0)
		for i := range eqs {
			eqs[i] = append(eqs[i], 0)
		}
		for i := range ineqs {
			ineqs[i] = append(ineqs[i], 0)
		}
		t := make([]int64, w)
		for i := 0; i < w-1; i++ {
			t[i] = modHat(r[i], m)
		}
		t[w-1] = -m
		substitute(r, t, k)
		for _, o := range eqs {
			substitute(o, t, k)
		}
		for _, o := range ineqs {
			substitute(o, t, k)
		}
		eqs = append(eqs, r)
	}
	return bg.omegaIneqs(ineqs)
}

// omegaIneqs is omegaIneqs of omega.go with a budget; it also prefers eliminating variables with
// few lower or upper bounds among the inexact ones, which keeps the shadows small.
func (bg *budget) omegaIneqs(rows [][]int64) bool {
	for {
		kept, neweqs, ok := tidyIneqs(rows)
		if !ok {
			return false
		}
		if len(neweqs) > 0 {
			return bg.feasibleOwned(neweqs, kept)
		}
		rows = kept
		if len(rows) == 0 {
			return true
		}
		bg.spend(len(rows))
		w := len(rows[0])
		best, bestCost, bestExact := -1, int64(-1), false
		unbounded := false
		for c := 1; c < w; c++ {
			var nl, nu int64
			unitL, unitU := true, true
			for _, r := range rows {
				switch {
				case r[c] > 0:
					nl++
					unitL = unitL && r[c] == 1
				case r[c] < 0:
					nu++
					unitU = unitU && r[c] == -1
				}
			}
			if nl == 0 && nu == 0 {
				continue
			}
			if nl == 0 || nu == 0 {
				rows = dropWithCol(rows, c)
				unbounded = true
				break
			}
			exact := unitL || unitU
			cost := nl*nu - nl - nu
			if best < 0 || (exact && !bestExact) || (exact == bestExact && cost < bestCost) {
				best, bestCost, bestExact = c, cost, exact
			}
		}
		if unbounded {
			continue
		}
		if best < 0 {
			return true
		}
		c := best
		var nl, nu int
		for _, r := range rows {
			if r[c] > 0 {
				nl++
			} else if r[c] < 0 {
				nu++
			}
		}
		bg.spend(nl * nu) // the rows the elimination creates, before tidying them costs more
		if bestExact {
			rows = fourierMotzkin(rows, c, 0)
			continue
		}
		if !bg.omegaIneqs(cloneRows(fourierMotzkin(rows, c, 0))) {
			return false
		}
		if bg.omegaIneqs(fourierMotzkin(rows, c, 1)) {
			return true
		}
		for _, sp := range splinters(rows, c) {
			if bg.feasibleOwned([][]int64{sp}, cloneRows(rows)) {
				return true
			}
		}
		return false
	}
}
