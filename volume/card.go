// This file holds Card, which counts the points of bounded sets on their scan.

package volume

import (
	"fmt"
	"slices"
)

// maxCardSteps bounds the loop iterations one Card may enumerate (loops counted in closed form
// cost none; 8M iterations take about a second); past it Card stops with ErrTooComplex instead
// of running for hours.
const maxCardSteps = 1 << 23

// Card returns the number of integer points of s for the given parameter values (nil when s
// has no parameters). It counts the iterations of the scan of s without enumerating them where
// it can: a loop whose body does not depend on the loop dimension counts as its trip count
// times one count of the body, and a loop whose body is a unit-stride loop with affine bounds
// and a body free of both dimensions sums the inner trip counts in closed form (a piecewise
// linear function of the outer dimension, summed piece by piece), so a 512×512×512 box costs
// three evaluations and a triangle of 10^12 rows a handful. Other loops (guards, strides or
// floor divisions in inner bounds, tetrahedra) are iterated, up to maxCardSteps iterations in
// all; past that Card returns ErrTooComplex.
func (s Set) Card(params map[string]int64) (n int64, err error) {
	if s.u.err != nil {
		return 0, s.u.err
	}
	for _, p := range s.u.params {
		if _, ok := params[p]; !ok {
			return 0, fmt.Errorf("%w: parameter %s is not bound", ErrSpaceMismatch, p)
		}
	}
	if len(s.u.pieces) == 0 {
		return 0, nil
	}
	total := int64(0)
	steps := int64(maxCardSteps)
	for _, sp := range s.u.spaces {
		sub := Set{union{params: s.u.params, spaces: []space{sp}}}
		for _, p := range s.u.pieces {
			if (space{p.in, p.out}).same(sp) {
				sub.u.pieces = append(sub.u.pieces, p)
			}
		}
		if len(sub.u.pieces) == 0 {
			continue
		}
		var ast Node
		if err := try(func() { ast = sub.scan() }); err != nil {
			return 0, err
		}
		nd := sp.in.n() + sp.out.n()
		c, err := compileAST(ast, nd, params)
		if err != nil {
			return 0, err
		}
		var k int64
		if err := try(func() { k = c.count(make([]int64, nd), &steps) }); err != nil {
			return 0, err
		}
		total = addc(total, k)
	}
	return total, nil
}

// count returns the number of leaf executions of c at the outer values x (checked arithmetic:
// it panics with overflow beyond int64). Every loop iteration it enumerates costs one of *steps;
// it panics with tooComplex when they run out.
func (c *cNode) count(x []int64, steps *int64) int64 {
	switch c.kind {
	case 'l':
		return 1
	case 'b':
		var t int64
		for _, k := range c.kids {
			t = addc(t, k.count(x, steps))
		}
		return t
	case 'a':
		x[c.dim] = c.offset.eval(x)
		return c.kids[0].count(x, steps)
	case 'i':
		if !c.holds(x) {
			return 0
		}
		return c.kids[0].count(x, steps)
	case 'f':
		lo, hi := c.bounds(x)
		if hi < lo {
			return 0
		}
		body := c.kids[0]
		if !body.free[c.dim] {
			x[c.dim] = lo
			return mulc((hi-lo)/c.stride+1, body.count(x, steps))
		}
		if t, ok := c.sumInner(x, lo, hi, steps); ok {
			return t
		}
		var t int64
		for v := lo; v <= hi; v += c.stride {
			if *steps--; *steps < 0 {
				panic(tooComplex{what: fmt.Sprintf("counting would enumerate more than %d loop iterations", maxCardSteps)})
			}
			x[c.dim] = v
			t = addc(t, body.count(x, steps))
		}
		return t
	}
	return 0
}

// lin1 is the affine function a·v + b of one loop dimension v.
type lin1 struct{ a, b int64 }

func (f lin1) at(v int64) int64 { return addc(mulc(f.a, v), f.b) }

// linIn returns e as an affine function of dimension d, the other dimensions at their values in
// x; ok is false when a floor division of e reads d.
func linIn(e *cAff, d int, x []int64) (lin1, bool) {
	used := make([]bool, len(x))
	for k := range e.floors {
		e.floors[k].num.uses(used)
	}
	if used[d] {
		return lin1{}, false
	}
	save := x[d]
	x[d] = 0
	b := e.c
	for i, k := range e.dims {
		if k != 0 {
			b = addc(b, mulc(k, x[i]))
		}
	}
	for k := range e.floors {
		f := &e.floors[k]
		b = addc(b, mulc(f.coef, floorDiv(f.num.eval(x), f.den)))
	}
	x[d] = save
	var a int64
	if d < len(e.dims) {
		a = e.dims[d]
	}
	return lin1{a, b}, true
}

// sumInner counts the for loop c over lo..hi (its bounds at x) in closed form when its body is a
// unit-stride loop whose bounds are affine in c's dimension and whose own body reads neither
// dimension. The inner trip count max(0, min U(v) - max L(v) + 1) is linear in v between the
// points where two bounds cross or the count reaches zero; sumInner sums it as an arithmetic
// series on each such piece. ok is false when the loop is not of that form.
func (c *cNode) sumInner(x []int64, lo, hi int64, steps *int64) (int64, bool) {
	in := c.kids[0]
	if in.kind != 'f' || in.stride != 1 || in.kids[0].free[c.dim] || in.kids[0].free[in.dim] {
		return 0, false
	}
	var ls, us []lin1
	for k := range in.lower {
		f, ok := linIn(&in.lower[k], c.dim, x)
		if !ok {
			return 0, false
		}
		ls = append(ls, f)
	}
	for k := range in.upper {
		f, ok := linIn(&in.upper[k], c.dim, x)
		if !ok {
			return 0, false
		}
		us = append(us, f)
	}
	// one count of the innermost body (it reads neither dimension)
	x[c.dim], x[in.dim] = lo, 0
	body := in.kids[0].count(x, steps)
	if body == 0 {
		return 0, true
	}
	// split points: where two lower (or two upper) bounds cross, and where an upper bound
	// meets a lower bound minus one (the trip count reaches zero)
	cuts := []int64{lo, addc(hi, 1)}
	cross := func(f, g lin1, shift int64) {
		// f(v) = g(v) + shift at v = (g.b + shift - f.b) / (f.a - g.a)
		da := subc(f.a, g.a)
		if da == 0 {
			return
		}
		num := subc(addc(g.b, shift), f.b)
		r := floorDiv(num, da)
		for _, p := range []int64{r, r + 1} {
			if p > lo && p <= hi {
				cuts = append(cuts, p)
			}
		}
	}
	for i := range ls {
		for j := i + 1; j < len(ls); j++ {
			cross(ls[i], ls[j], 0)
		}
	}
	for i := range us {
		for j := i + 1; j < len(us); j++ {
			cross(us[i], us[j], 0)
		}
	}
	for _, u := range us {
		for _, l := range ls {
			cross(u, l, -1)
		}
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	var total int64
	for k := 0; k+1 < len(cuts); k++ {
		a, b := cuts[k], cuts[k+1]-1
		// first point of c's progression (lo, lo+stride, …) in [a, b]
		first := addc(a, modFloor(subc(lo, a), c.stride))
		if first > b {
			continue
		}
		n := addc((b-first)/c.stride, 1)
		// the active bounds at first stay active on the whole piece: pick them at its middle
		// so that a bound tied at first but not beyond does not decide
		last := addc(first, mulc(n-1, c.stride))
		mid := first + (last-first)/2
		l, u := ls[0], us[0]
		for _, f := range ls[1:] {
			if f.at(mid) > l.at(mid) || f.at(mid) == l.at(mid) && f.at(first) > l.at(first) {
				l = f
			}
		}
		for _, f := range us[1:] {
			if f.at(mid) < u.at(mid) || f.at(mid) == u.at(mid) && f.at(first) < u.at(first) {
				u = f
			}
		}
		t := lin1{subc(u.a, l.a), addc(subc(u.b, l.b), 1)} // trip count on the piece
		if t.at(first) < 0 || t.at(last) < 0 {
			// the count is linear on the piece and the piece lies on one side of its zero
			continue
		}
		// Σ_{m<n} t(first + m·stride) = n·t(first) + t.a·stride·n(n-1)/2
		var tri int64
		if n%2 == 0 {
			tri = mulc(n/2, n-1)
		} else {
			tri = mulc(n, (n-1)/2)
		}
		s := addc(mulc(n, t.at(first)), mulc(mulc(t.a, c.stride), tri))
		total = addc(total, s)
	}
	return mulc(total, body), true
}
