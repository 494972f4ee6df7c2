// This file holds the searches for particular points: a sample point of a set (for some
// parameter values) and the lexicographic minimum and maximum of non-parametric sets, per tuple.

package volume

import (
	"errors"
	"fmt"
	"slices"
)

// ErrParametric is returned by operations defined only for sets without parameters (Lexmin,
// Lexmax).
var ErrParametric = errors.New("volume: operation needs a set without parameters")

// intSystem is a working copy of the constraints of a basic in which every column but the constant
// (parameters, dims, divs, existentials) is a free integer variable; divs carry their defining
// inequalities, so the integer points of the system are the points of the basic with their divs.
type intSystem struct {
	eqs, ineqs [][]int64
	w          int     // the row width, kept apart: a system may have no rows ({ [i] } has none)
	bg         *budget // the budget its tests spend from
}

func (b *basic) intSystem(bg *budget) intSystem {
	in := cloneRows(b.ineqs)
	in = append(in, b.allDivConstraints()...)
	return intSystem{eqs: cloneRows(b.eqs), ineqs: in, w: b.width(), bg: bg}
}

// feasibleWith decides the intSystem extended with extra inequalities.
func (s intSystem) feasibleWith(extra ...[]int64) bool {
	if len(extra) == 0 {
		return feasible(s.eqs, s.ineqs, s.bg)
	}
	in := make([][]int64, 0, len(s.ineqs)+len(extra))
	in = append(in, s.ineqs...)
	in = append(in, extra...)
	return feasible(s.eqs, in, s.bg)
}

func (s intSystem) width() int { return s.w }

// fix returns the intSystem with column c replaced by the value v.
func (s intSystem) fix(c int, v int64) intSystem {
	f := func(rows [][]int64) [][]int64 {
		out := make([][]int64, len(rows))
		for i, r := range rows {
			n := cloneRow(r)
			if n[c] != 0 {
				n[0] = addc(n[0], mulc(n[c], v))
				n[c] = 0
			}
			out[i] = n
		}
		return out
	}
	return intSystem{eqs: f(s.eqs), ineqs: f(s.ineqs), w: s.w, bg: s.bg}
}

// geRow returns the row x_c >= v (sign 1) or x_c <= v (sign -1) of width w.
func geRow(w, c int, sign, v int64) []int64 {
	r := make([]int64, w)
	r[c] = sign
	r[0] = mulc(-sign, v)
	return r
}

// minFrom returns the smallest v >= lo such that the intSystem with x_c = v is feasible, given that
// the intSystem with x_c >= lo is. It searches exponentially for an upper end, then bisects.
func (s intSystem) minFrom(c int, lo int64) int64 {
	w := s.width()
	step := int64(1)
	hi := lo
	for !s.feasibleWith(geRow(w, c, 1, lo), geRow(w, c, -1, hi)) {
		lo = addc(hi, 1)
		hi = addc(hi, step)
		if step < 1<<61 {
			step *= 2
		}
	}
	for lo < hi {
		mid := lo + (hi-lo)/2
		if s.feasibleWith(geRow(w, c, 1, lo), geRow(w, c, -1, mid)) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// maxFrom returns the largest v <= hi such that the intSystem with x_c = v is feasible, given that
// the intSystem with x_c <= hi is.
func (s intSystem) maxFrom(c int, hi int64) int64 {
	return negc(s.negate(c).minFrom(c, negc(hi)))
}

// negate returns the intSystem with column c replaced by its opposite.
func (s intSystem) negate(c int) intSystem {
	f := func(rows [][]int64) [][]int64 {
		out := make([][]int64, len(rows))
		for i, r := range rows {
			n := cloneRow(r)
			n[c] = negc(n[c])
			out[i] = n
		}
		return out
	}
	return intSystem{eqs: f(s.eqs), ineqs: f(s.ineqs), w: s.w, bg: s.bg}
}

// pick returns a value of column c for which the (feasible) intSystem stays feasible, choosing the
// one of smallest magnitude (non-negative values first).
func (s intSystem) pick(c int) int64 {
	w := s.width()
	if s.feasibleWith(geRow(w, c, 1, 0)) {
		return s.minFrom(c, 0)
	}
	return s.maxFrom(c, -1)
}

// rationalBounds eliminates every column but c from the intSystem by Fourier–Motzkin (the rational
// projection) and returns the integer bounds it implies on x_c. ok=false means the intSystem has no
// rational solution.
func (s intSystem) rationalBounds(c int) (lo, hi int64, hasLo, hasHi, ok bool) {
	rows := cloneRows(s.ineqs)
	for _, e := range s.eqs {
		rows = append(rows, cloneRow(e), negRow(e))
	}
	w := s.width()
	for {
		kept, eqs, good := tidyIneqs(rows)
		if !good {
			return 0, 0, false, false, false
		}
		rows = kept
		for _, e := range eqs {
			rows = append(rows, e, negRow(e))
		}
		best, bestCost := -1, int64(-1)
		for col := 1; col < w; col++ {
			if col == c {
				continue
			}
			var nl, nu int64
			for _, r := range rows {
				if r[col] > 0 {
					nl++
				} else if r[col] < 0 {
					nu++
				}
			}
			if nl == 0 && nu == 0 {
				continue
			}
			cost := nl*nu - nl - nu
			if nl == 0 || nu == 0 {
				cost = -1 << 62
			}
			if best < 0 || cost < bestCost {
				best, bestCost = col, cost
			}
		}
		if best < 0 {
			break
		}
		rows = fourierMotzkin(rows, best, 0)
	}
	for _, r := range rows {
		switch {
		case r[c] > 0: // a*x + k >= 0: x >= ceil(-k/a)
			v := ceilDiv(negc(r[0]), r[c])
			if !hasLo || v > lo {
				lo, hasLo = v, true
			}
		case r[c] < 0: // -a*x + k >= 0: x <= floor(k/a)
			v := floorDiv(r[0], negc(r[c]))
			if !hasHi || v < hi {
				hi, hasHi = v, true
			}
		}
	}
	if hasLo && hasHi && lo > hi {
		return lo, hi, hasLo, hasHi, false
	}
	return lo, hi, hasLo, hasHi, true
}

// sampleBasic returns an integer point of b over its columns 1..divStart-1 (parameters, then
// dims), or ok=false when b is empty. Values of smallest magnitude are preferred.
func (b *basic) sampleBasic(bg *budget) (vals []int64, ok bool) {
	s := b.intSystem(bg)
	if !s.feasibleWith() {
		return nil, false
	}
	for c := 1; c < b.divStart(); c++ {
		v := s.pick(c)
		vals = append(vals, v)
		s = s.fix(c, v)
	}
	return vals, true
}

// lexoptBasic returns the lexicographic minimum (max=false) or maximum of the dims of a basic
// without parameters, ok=false when it is empty; it panics with ErrUnbounded when the optimum
// does not exist.
func (b *basic) lexoptBasic(max bool, bg *budget) (vals []int64, ok bool) {
	s := b.intSystem(bg)
	if !s.feasibleWith() {
		return nil, false
	}
	for c := 1 + b.nParam; c < b.divStart(); c++ {
		lo, hi, hasLo, hasHi, _ := s.rationalBounds(c)
		var v int64
		if max {
			if !hasHi {
				panic(fmt.Errorf("%w: dimension %d has no upper bound", ErrUnbounded, c-1-b.nParam))
			}
			v = s.maxFrom(c, hi)
		} else {
			if !hasLo {
				panic(fmt.Errorf("%w: dimension %d has no lower bound", ErrUnbounded, c-1-b.nParam))
			}
			v = s.minFrom(c, lo)
		}
		vals = append(vals, v)
		s = s.fix(c, v)
	}
	return vals, true
}

// Point is one integer point of a set together with the parameter values it belongs to.
type Point struct {
	Tuple  string  // tuple name of the point's space
	Params []int64 // values of the set's parameters, in the order of Params()
	Coords []int64 // the coordinates
}

// Sample returns some point of s (with parameter values for which it is in s) and Yes, or No
// when s is empty. Coordinates of small magnitude are preferred. It is Unknown when the search
// gave up (the only points it can find lie beyond the int64 range, the budget) or s is an error
// value.
func (s Set) Sample() (p Point, found Tri) {
	found = decide(func(us []union) bool {
		bg := newBudget(nil)
		for _, b := range us[0].pieces {
			if vals, ok := b.sampleBasic(bg); ok {
				p = Point{Tuple: b.out.name, Params: vals[:b.nParam:b.nParam], Coords: vals[b.nParam:]}
				return true
			}
		}
		return false
	}, s.u)
	if found != Yes {
		p = Point{}
	}
	return p, found
}

// Lexmin returns, for each tuple of s, the set holding its lexicographically smallest point
// (isl's lexmin of a union set, as iscc computes it). Tuples with no point are dropped. s must
// have no parameters (ErrParametric); a tuple without a smallest point gives ErrUnbounded.
func (s Set) Lexmin() (Set, error) { return s.lexopt(false) }

// Lexmax is Lexmin for the lexicographically largest point of each tuple.
func (s Set) Lexmax() (Set, error) { return s.lexopt(true) }

func (s Set) lexopt(max bool) (r Set, err error) {
	if s.u.err != nil {
		return Set{}, s.u.err
	}
	if len(s.u.params) > 0 {
		return Set{}, fmt.Errorf("%w: lexmin/lexmax of a set with parameters %v", ErrParametric, s.u.params)
	}
	err = try(func() {
		bg := newBudget(nil)
		u := union{}
		for _, sp := range s.u.spaces {
			var best []int64
			for _, b := range s.u.pieces {
				if !(space{b.in, b.out}).same(sp) {
					continue
				}
				v, ok := b.lexoptBasic(max, bg)
				if !ok {
					continue
				}
				c := slices.Compare(v, best)
				if best == nil || (!max && c < 0) || (max && c > 0) {
					best = v
				}
			}
			if best == nil {
				continue
			}
			u.addSpace(sp)
			u.pieces = append(u.pieces, pointBasic(sp.out, best))
		}
		r = Set{u}
	})
	return r, err
}

// pointBasic returns the basic set { t[v] } without parameters.
func pointBasic(t tuple, v []int64) *basic {
	b := newBasic(0, tuple{}, t)
	for i, x := range v {
		r := b.newRow()
		r[b.outStart()+i] = 1
		r[0] = negc(x)
		b.eqs = append(b.eqs, r)
	}
	return b
}
