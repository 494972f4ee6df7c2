// This file enumerates points: of bounded sets, and of maps through Wrap. Enumeration walks the
// exact projections of the set onto its leading dimensions, so every prefix it visits extends to
// a point and the work is proportional to the number of points (up to strides).

package volume

import (
	"fmt"
	"slices"
)

// Wrap returns the set { [x, y] : x -> y ∈ m } whose dims are m's input dims followed by its
// output dims (isl_map_wrap, with the pair flattened into one anonymous tuple).
func (m Map) Wrap() Set {
	return Set{guard(func(_ *budget, us []union) union { return Map{us[0]}.wrap().u }, m.u)}
}

func (m Map) wrap() Set {
	r := union{params: m.u.params}
	for _, s := range m.u.spaces {
		r.addSpace(space{tuple{}, tuple{"", append(slices.Clone(s.in.dims), s.out.dims...)}})
	}
	for _, p := range m.u.pieces {
		c := p.clone()
		c.out = tuple{"", append(slices.Clone(p.in.dims), p.out.dims...)}
		c.in = tuple{}
		r.pieces = append(r.pieces, c)
	}
	return Set{r}
}

// Points returns the points of a bounded set (single space) in lexicographic order, for the
// given parameter values. It fails with ErrUnbounded for unbounded sets and when there are more
// than limit points (limit <= 0: no limit).
func (s Set) Points(params map[string]int64, limit int) (out [][]int64, err error) {
	if s.u.err != nil {
		return nil, s.u.err
	}
	if len(s.u.pieces) == 0 {
		return nil, nil
	}
	err = try(func() {
		nd := s.ndim()
		err = s.enumerate(params, func(x []int64) bool {
			if limit > 0 && len(out) >= limit {
				err = fmt.Errorf("%w: more than %d points", ErrUnbounded, limit)
				return false
			}
			out = append(out, slices.Clone(x[:nd]))
			return true
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// level is one piece of the projection of a set onto its dims 0..d: the piece itself (for exact
// membership) and its rational shadow without divs (for the range of dim d).
type level struct {
	b      *basic
	shadow [][]int64 // rows over (1, dims 0..d)
}

// enumerate calls visit with each point of s (single space) in lexicographic order, for the given
// parameter values, until visit returns false. It panics with ErrUnbounded for unbounded sets.
func (s Set) enumerate(params map[string]int64, visit func(x []int64) bool) error {
	bg := newBudget(nil) // one operation
	t := s
	for _, p := range s.u.params {
		v, ok := params[p]
		if !ok {
			return fmt.Errorf("%w: parameter %s is not bound", ErrSpaceMismatch, p)
		}
		t = Set{t.u.fixParam(p, v, bg)}
	}
	nd := s.ndim()
	levels := make([][]level, nd)
	cur := t
	for d := nd - 1; d >= 0; d-- {
		for _, b := range cur.u.pieces {
			levels[d] = append(levels[d], level{b: b, shadow: divShadow(b)})
		}
		if d > 0 {
			cur = cur.projectOut(d, 1, bg)
		}
	}
	if nd == 0 {
		if len(t.u.pieces) > 0 {
			visit(nil)
		}
		return nil
	}
	x := make([]int64, nd)
	vals := make([]int64, 1+nd)
	vals[0] = 1
	var rec func(d int) bool
	rec = func(d int) bool {
		type iv struct{ lo, hi int64 }
		var ivs []iv
		for _, l := range levels[d] {
			lo, hi, hasLo, hasHi, ok := shadowRange(l.shadow, x, d)
			if !ok {
				continue
			}
			if !hasLo || !hasHi {
				// unbounded only if the piece really has a point with this prefix
				sys := l.b.intSystem(bg)
				for i := 0; i < d; i++ {
					sys = sys.fix(1+i, x[i])
				}
				if sys.feasibleWith() {
					panic(fmt.Errorf("%w: dimension %d of %s", ErrUnbounded, d, s))
				}
				continue
			}
			ivs = append(ivs, iv{lo, hi})
		}
		slices.SortFunc(ivs, func(a, b iv) int { return cmpInt(a.lo, b.lo) })
		next := int64(-1 << 63)
		for _, in := range ivs {
			for v := max(in.lo, next); v <= in.hi; v++ {
				next = v + 1
				x[d] = v
				member := false
				for _, l := range levels[d] {
					copy(vals[1:], x[:d+1])
					if l.b.containsVals(vals[:2+d]) {
						member = true
						break
					}
				}
				if !member {
					continue
				}
				if d == nd-1 {
					if !visit(x) {
						return false
					}
				} else if !rec(d + 1) {
					return false
				}
			}
		}
		return true
	}
	rec(0)
	return nil
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// divShadow returns the rows of b (no parameters) with its divs eliminated by Fourier–Motzkin:
// a rational over-approximation over (1, dims).
func divShadow(b *basic) [][]int64 {
	s := b.intSystem(nil)
	rows := s.ineqs
	for _, e := range s.eqs {
		rows = append(rows, e, negRow(e))
	}
	for c := b.width() - 1; c >= b.divStart(); c-- {
		kept, eqs, ok := tidyIneqs(rows)
		if !ok {
			return [][]int64{constRow(b.divStart(), -1)}
		}
		for _, e := range eqs {
			kept = append(kept, e, negRow(e))
		}
		rows = fourierMotzkin(kept, c, 0)
	}
	out := make([][]int64, len(rows))
	for i, r := range rows {
		out[i] = r[:b.divStart()]
	}
	return out
}

func constRow(w int, c int64) []int64 {
	r := make([]int64, w)
	r[0] = c
	return r
}

// shadowRange evaluates the rows (over (1, dims 0..n)) with dims 0..d-1 fixed to x and returns
// the range they allow for dim d; ok=false when a row without dim d fails.
func shadowRange(rows [][]int64, x []int64, d int) (lo, hi int64, hasLo, hasHi, ok bool) {
	for _, r := range rows {
		k := r[0]
		for i := 0; i < d; i++ {
			if r[1+i] != 0 {
				k = addc(k, mulc(r[1+i], x[i]))
			}
		}
		a := int64(0)
		if 1+d < len(r) {
			a = r[1+d]
		}
		switch {
		case a > 0:
			v := ceilDiv(negc(k), a)
			if !hasLo || v > lo {
				lo, hasLo = v, true
			}
		case a < 0:
			v := floorDiv(k, negc(a))
			if !hasHi || v < hi {
				hi, hasHi = v, true
			}
		default:
			if k < 0 {
				return 0, 0, false, false, false
			}
		}
	}
	if hasLo && hasHi && lo > hi {
		return 0, 0, false, false, false
	}
	return lo, hi, hasLo, hasHi, true
}
