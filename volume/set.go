// This file holds Set, a finite union of integer polyhedra (with divs) over named parameters.

package volume

import (
	"fmt"
	"slices"
)

// Set is a finite union of basic sets: conjunctions of affine constraints over integer
// dimensions, parameters and floor-division locals, possibly in several named tuples (isl's
// union_set). The zero Set is the empty set in no space. Sets are immutable.
type Set struct{ u union }

// Universe returns the set of all integer points of the tuple name[dims...] (for every value
// of params, which it does not mention: params_used.go).
func Universe(params []string, name string, dims []string) Set {
	t := tuple{name, append([]string(nil), dims...)}
	b := universeBasic(0, tuple{}, t)
	u := union{pieces: []*basic{b}}
	u.addSpace(space{tuple{}, t})
	return Set{u}
}

// EmptySet returns the empty set in the space name[dims...] (for every value of params, which
// it does not mention).
func EmptySet(params []string, name string, dims []string) Set {
	t := tuple{name, append([]string(nil), dims...)}
	u := union{}
	u.addSpace(space{tuple{}, t})
	return Set{u}
}

// Params returns the parameter names of s.
func (s Set) Params() []string { return append([]string(nil), s.u.params...) }

// NDim returns the number of dimensions of s, which must live in a single space.
// A set in no space or in several has 0 (SingleSpace says so).
func (s Set) NDim() int {
	if len(s.u.spaces) != 1 {
		return 0
	}
	return s.u.spaces[0].out.n()
}

// ndim is NDim for the package's algorithms: a set not in one space panics with
// ErrSpaceMismatch (which guard turns into an error value).
func (s Set) ndim() int {
	if len(s.u.spaces) != 1 {
		spaceMismatch("NDim of a set in %d spaces", len(s.u.spaces))
	}
	return s.u.spaces[0].out.n()
}

// SingleSpace returns nil when s lives in one space (NDim, TupleName and DimNames describe it),
// else an error wrapping ErrSpaceMismatch. An error value has its result's space.
func (s Set) SingleSpace() error {
	if len(s.u.spaces) != 1 {
		return fmt.Errorf("%w: a set in %d spaces", ErrSpaceMismatch, len(s.u.spaces))
	}
	return nil
}

// TupleName returns the tuple name of s, which must live in a single space.
// A set in no space or in several has "".
func (s Set) TupleName() string {
	if len(s.u.spaces) != 1 {
		return ""
	}
	return s.u.spaces[0].out.name
}

// DimNames returns the dimension names of s (single space).
// A set in no space or in several has none.
func (s Set) DimNames() []string {
	if len(s.u.spaces) != 1 {
		return nil
	}
	return append([]string(nil), s.u.spaces[0].out.dims...)
}

// NPieces returns the number of basic sets in s (none in an error value: check Err).
func (s Set) NPieces() int { return len(s.u.pieces) }

// SetTupleName returns s with its (single) tuple renamed.
func (s Set) SetTupleName(name string) Set {
	return Set{guard(func(_ *budget, a, _ union) union { return Set{a}.setTupleName(name).u }, s.u)}
}

func (s Set) setTupleName(name string) Set {
	r := union{params: s.u.params}
	for _, sp := range s.u.spaces {
		r.addSpace(space{tuple{}, tuple{name, sp.out.dims}})
	}
	for _, p := range s.u.pieces {
		c := p.clone()
		c.out.name = name
		r.pieces = append(r.pieces, c)
	}
	return Set{r}
}

// SetDimNames returns s with its dimensions renamed (printing only).
func (s Set) SetDimNames(names []string) Set {
	return Set{guard(func(_ *budget, a, _ union) union { return Set{a}.setDimNames(names).u }, s.u)}
}

func (s Set) setDimNames(names []string) Set {
	names = slices.Clone(names)
	r := union{params: s.u.params}
	for _, sp := range s.u.spaces {
		if sp.out.n() != len(names) {
			spaceMismatch("SetDimNames: %d names for %d dims", len(names), sp.out.n())
		}
		r.addSpace(space{tuple{}, tuple{sp.out.name, names}})
	}
	for _, p := range s.u.pieces {
		c := p.clone()
		c.out.dims = names
		r.pieces = append(r.pieces, c)
	}
	return Set{r}
}

// Intersect returns s ∩ t (pieces in the same tuple are intersected; isl_union_set_intersect).
func (s Set) Intersect(t Set) Set {
	return Set{guard(intersectOp, s.u, t.u)}
}

// Union returns s ∪ t.
func (s Set) Union(t Set) Set {
	return Set{guard(uniteOp, s.u, t.u)}
}

// Subtract returns s − t. Its pieces are pairwise disjoint when s has one piece.
func (s Set) Subtract(t Set) Set {
	return Set{guard(subtractOp, s.u, t.u)}
}

// Complement returns the points of s's spaces that are not in s.
func (s Set) Complement() Set {
	return Set{guard(func(bg *budget, a, _ union) union { return Set{a}.complement(bg).u }, s.u)}
}

func (s Set) complement(bg *budget) Set {
	var univ union
	univ.params = s.u.params
	for _, sp := range s.u.spaces {
		univ.addSpace(sp)
		univ.pieces = append(univ.pieces, universeBasic(len(s.u.params), sp.in, sp.out))
	}
	return Set{univ.subtract(s.u, bg)}
}

// IsEmpty decides exactly whether s has no integer point (for some parameter values): Yes, No,
// or Unknown when the test gave up or s is an error value.
func (s Set) IsEmpty() Tri { return s.u.emptyTri() }

// PlainIsEmpty reports whether s is empty without computation: it has no piece, or each piece
// has a violated constant constraint. A false answer says nothing (an error value is not
// plainly empty).
func (s Set) PlainIsEmpty() bool { return s.u.err == nil && s.u.plainIsEmpty() }

// IsSubset decides exactly whether s ⊆ t (Unknown: see IsEmpty).
func (s Set) IsSubset(t Set) Tri { return s.u.subsetTri(t.u) }

// IsEqual decides exactly whether s and t have the same points (Unknown: see IsEmpty).
func (s Set) IsEqual(t Set) Tri { return s.u.equalTri(t.u) }

// Simplify returns s without empty pieces, redundant constraints or unused divs.
func (s Set) Simplify() Set {
	return Set{guard(simplifyOp, s.u)}
}

// Apply returns the image of s under m: { y : ∃x ∈ s, x → y ∈ m } (isl_set_apply).
func (s Set) Apply(m Map) Set {
	return Set{guard(func(bg *budget, a, b union) union { return Set{a}.image(Map{b}, false, bg).u }, s.u, m.u)}
}

// Preimage returns { x : ∃y ∈ s, x → y ∈ m }, the inverse image of s under m.
func (s Set) Preimage(m Map) Set {
	return Set{guard(func(bg *budget, a, b union) union { return Set{a}.image(Map{b}, true, bg).u }, s.u, m.u)}
}

// image is Apply, or Apply of m's reverse when rev.
func (s Set) image(m Map, rev bool, bg *budget) Set {
	su, mu := align(s.u, m.u)
	from := func(sp space) (tuple, tuple) {
		if rev {
			return sp.out, sp.in
		}
		return sp.in, sp.out
	}
	r := union{params: su.params}
	for _, sp := range mu.spaces {
		x, y := from(sp)
		for _, ss := range su.spaces {
			if x.sameSpace(ss.out) {
				r.addSpace(space{tuple{}, y})
			}
		}
	}
	for _, a := range su.pieces {
		for _, b := range mu.pieces {
			if x, _ := from(space{b.in, b.out}); x.sameSpace(a.out) {
				r.addPieces(bg, imagePieces(a, b, rev, bg)...)
			}
		}
	}
	return Set{r}
}

// imagePieces returns the pieces of { y : ∃x ∈ a, (x, y) ∈ b }, where x are the inputs of b
// and y its outputs, or the reverse when rev. It builds the conjunction directly in the layout
// the projection needs (x and the divs that depend on x last, as existentials), which is what
// embedding a, intersecting and projectCols compute with three copies of the rows.
func imagePieces(a, b *basic, rev bool, bg *budget) []*basic {
	np := a.nParam
	nx, ny, xAt, yAt, yt := b.nIn(), b.nOut(), b.inStart(), b.outStart(), b.out
	if rev {
		nx, ny, xAt, yAt, yt = b.nOut(), b.nIn(), b.outStart(), b.inStart(), b.in
	}
	// a divs that depend on x, or on such divs, become existentials; likewise for b
	taint := func(p *basic, isX func(col int) bool) ([]bool, int) {
		t, n := make([]bool, len(p.divs)), 0
		ds := p.divStart()
		for k, d := range p.divs {
			for col, v := range d.num {
				if v != 0 && (col < ds && isX(col) || col >= ds && col < ds+k && t[col-ds]) {
					t[k] = true
					n++
					break
				}
			}
		}
		return t, n
	}
	ta, nta := taint(a, func(col int) bool { return col > np })
	tb, ntb := taint(b, func(col int) bool { return col >= xAt && col < xAt+nx })
	// layout: 1 | params | y | kept divs of a, of b | x | tainted divs of a, of b
	kept := len(a.divs) - nta + len(b.divs) - ntb
	ds := 1 + np + ny
	exS := ds + kept
	w := exS + nx + nta + ntb
	colA, colB := make([]int, a.width()), make([]int, b.width())
	for i := 0; i <= np; i++ {
		colA[i], colB[i] = i, i
	}
	for i := 0; i < nx; i++ {
		colA[1+np+i], colB[xAt+i] = exS+i, exS+i
	}
	for i := 0; i < ny; i++ {
		colB[yAt+i] = 1 + np + i
	}
	nextKept, nextEx := ds, exS+nx
	place := func(col []int, at int, t []bool) {
		for k, tk := range t {
			if tk {
				col[at+k] = nextEx
				nextEx++
			} else {
				col[at+k] = nextKept
				nextKept++
			}
		}
	}
	place(colA, a.divStart(), ta)
	place(colB, b.divStart(), tb)
	nRows := len(a.eqs) + len(b.eqs) + len(a.ineqs) + len(b.ineqs) + 2*(nta+ntb)
	buf := make([]int64, (nRows+kept)*w)
	scatter := func(r []int64, col []int) []int64 {
		n := buf[:w:w]
		buf = buf[w:]
		for i, v := range r {
			if v != 0 {
				n[col[i]] = v
			}
		}
		return n
	}
	c := &basic{nParam: np, out: yt, nEx: nx + nta + ntb}
	hdr := make([][]int64, nRows)
	c.eqs, c.ineqs = hdr[:0:len(a.eqs)+len(b.eqs)], hdr[len(a.eqs)+len(b.eqs):len(a.eqs)+len(b.eqs)]
	c.divs = make([]div, 0, kept)
	for _, p := range []struct {
		b   *basic
		col []int
		t   []bool
	}{{a, colA, ta}, {b, colB, tb}} {
		for _, e := range p.b.eqs {
			c.eqs = append(c.eqs, scatter(e, p.col))
		}
		for _, r := range p.b.ineqs {
			c.ineqs = append(c.ineqs, scatter(r, p.col))
		}
		for k, d := range p.b.divs {
			num := scatter(d.num, p.col)
			if !p.t[k] {
				c.divs = append(c.divs, div{num, d.den})
				continue
			}
			// num - den*q >= 0 and -num + den*q + den - 1 >= 0
			q := p.col[p.b.divStart()+k]
			num[q] = subc(num[q], d.den)
			hi := buf[:w:w]
			buf = buf[w:]
			for i, v := range num {
				hi[i] = negc(v)
			}
			hi[0] = addc(hi[0], d.den-1)
			c.ineqs = append(c.ineqs, num, hi)
		}
	}
	c.mergeDuplicateDivs()
	ps := coalesceProjection(c.eliminateEx(bg), bg)
	for _, p := range ps {
		p.tidied = true // eliminateEx and coalescing leave their pieces tidy
	}
	return ps
}

// ProjectOut existentially quantifies n dimensions starting at first (single space).
func (s Set) ProjectOut(first, n int) Set {
	return Set{guard(func(bg *budget, a, _ union) union { return Set{a}.projectOut(first, n, bg).u }, s.u)}
}

// ProjectOnto keeps dimension d alone: every other dimension is projected out (single space;
// the range of values dimension d takes, a one-dimensional set).
func (s Set) ProjectOnto(d int) Set {
	return Set{guard(func(bg *budget, a, b union) union {
		one := Set{a}
		if nd := one.ndim(); d+1 < nd {
			one = one.projectOut(d+1, nd-d-1, bg)
		}
		if d > 0 {
			one = one.projectOut(0, d, bg)
		}
		return one.u
	}, s.u)}
}

func (s Set) projectOut(first, n int, bg *budget) Set {
	nd := s.ndim()
	if first < 0 || n < 0 || first+n > nd {
		spaceMismatch("ProjectOut(%d, %d) of a %d-dimensional set", first, n, nd)
	}
	return Set{s.u.project(func(b *basic) map[int]bool {
		d := map[int]bool{}
		for i := first; i < first+n; i++ {
			d[b.outStart()+i] = true
		}
		return d
	}, func(b *basic) (tuple, tuple) {
		dims := append(append([]string(nil), b.out.dims[:first]...), b.out.dims[first+n:]...)
		return tuple{}, tuple{b.out.name, dims}
	}, len(s.u.params), s.u.params, bg)}
}

// FixParam returns s with parameter name bound to v; the parameter disappears.
func (s Set) FixParam(name string, v int64) Set {
	return Set{guard(func(bg *budget, a, _ union) union { return a.fixParam(name, v, bg) }, s.u)}
}

// IntersectParams returns s restricted to the parameter values of p (a set with no dims).
func (s Set) IntersectParams(p Set) Set {
	return Set{guard(func(bg *budget, a, b union) union { return a.intersectParams(b, bg) }, s.u, p.u)}
}

func (u union) intersectParams(p union, bg *budget) union {
	su, pu := align(u, p)
	r := union{params: su.params, spaces: su.spaces}
	for _, a := range su.pieces {
		for _, b := range pu.pieces {
			if b.nDim() != 0 {
				spaceMismatch("IntersectParams with a set of %d dims", b.nDim())
			}
			r.addPieces(bg, a.intersect(b.embed(a.in, a.out, nil)))
		}
	}
	return r
}

func (u union) fixParam(name string, v int64, bg *budget) union {
	i := slices.Index(u.params, name)
	if i < 0 {
		return u
	}
	params := append(append([]string(nil), u.params[:i]...), u.params[i+1:]...)
	r := union{params: params, spaces: u.spaces}
	col := 1 + i
	for _, p := range u.pieces {
		c := p.clone()
		fix := func(row []int64) {
			row[0] = addc(row[0], mulc(row[col], v))
			row[col] = 0
		}
		for _, e := range c.eqs {
			fix(e)
		}
		for _, e := range c.ineqs {
			fix(e)
		}
		for k := range c.divs {
			fix(c.divs[k].num)
		}
		c.dropCol(col)
		c.nParam--
		r.addPieces(bg, c)
	}
	return r
}

// Contains reports whether the point (of the tuple name) lies in s, for the parameter values
// given by params: Unknown when a parameter of s is not bound, the evaluation overflows or s is
// an error value.
func (s Set) Contains(name string, point []int64, params map[string]int64) Tri {
	return decide(func(a, _ union) bool { return Set{a}.contains(name, point, params) }, s.u)
}

func (s Set) contains(name string, point []int64, params map[string]int64) bool {
	for _, p := range s.u.pieces {
		if p.out.name != name || p.nOut() != len(point) {
			continue
		}
		vals := make([]int64, 0, p.width())
		vals = append(vals, 1)
		for _, pn := range s.u.params {
			v, ok := params[pn]
			if !ok {
				panic(fmt.Errorf("%w: parameter %s is not bound", ErrSpaceMismatch, pn))
			}
			vals = append(vals, v)
		}
		vals = append(vals, point...)
		if p.containsVals(vals) {
			return true
		}
	}
	return false
}

// containsVals evaluates the constraints at (1, params, dims); divs are computed.
func (b *basic) containsVals(vals []int64) bool {
	for _, d := range b.divs {
		vals = append(vals, floorDiv(dot(d.num[:len(vals)], vals), d.den))
	}
	for _, e := range b.eqs {
		if dot(e, vals) != 0 {
			return false
		}
	}
	for _, e := range b.ineqs {
		if dot(e, vals) < 0 {
			return false
		}
	}
	return true
}

func dot(row, vals []int64) int64 {
	var s int64
	for i, v := range vals {
		if row[i] != 0 {
			s = addc(s, mulc(row[i], v))
		}
	}
	return s
}

// Tuples returns s split by space: one set per tuple of s (including tuples with no point), in
// the order of s's spaces. The tuples of an error value are error values.
func (s Set) Tuples() []Set {
	var out []Set
	for _, sp := range s.u.spaces {
		r := union{params: s.u.params, err: s.u.err}
		r.addSpace(sp)
		for _, p := range s.u.pieces {
			if (space{p.in, p.out}).same(sp) {
				r.pieces = append(r.pieces, p)
			}
		}
		out = append(out, Set{r})
	}
	return out
}
