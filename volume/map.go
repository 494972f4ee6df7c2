// This file holds Map, a finite union of affine relations between integer tuples.

package volume

import (
	"fmt"
	"slices"
)

// Map is a finite union of basic maps: relations { A[x] -> B[y] : constraints } over named
// parameters, possibly between several pairs of tuples (isl's union_map). Maps are immutable.
type Map struct{ u union }

// UniverseMap returns the relation of all pairs of points of the two tuples (for every value
// of params, which it does not mention).
func UniverseMap(params []string, inName string, inDims []string, outName string, outDims []string) Map {
	in := tuple{inName, append([]string(nil), inDims...)}
	out := tuple{outName, append([]string(nil), outDims...)}
	u := union{pieces: []*basic{universeBasic(0, in, out)}}
	u.addSpace(space{in, out})
	return Map{u}
}

// Params returns the parameter names of m.
func (m Map) Params() []string { return append([]string(nil), m.u.params...) }

// NPieces returns the number of basic maps in m (none in an error value: check Err).
func (m Map) NPieces() int { return len(m.u.pieces) }

// Reverse returns { y -> x : x -> y ∈ m } (isl_map_reverse; MLIR's inverse).
func (m Map) Reverse() Map {
	return Map{guard(func(_ *budget, a, _ union) union { return Map{a}.reverse().u }, m.u)}
}

func (m Map) reverse() Map {
	r := union{params: m.u.params}
	for _, s := range m.u.spaces {
		r.addSpace(space{s.out, s.in})
	}
	for _, p := range m.u.pieces {
		ni, no := p.nIn(), p.nOut()
		dimCol := make([]int, ni+no)
		for i := 0; i < ni; i++ {
			dimCol[i] = no + i
		}
		for j := 0; j < no; j++ {
			dimCol[ni+j] = j
		}
		e := p.embed(p.out, p.in, dimCol)
		e.nonEmpty = p.nonEmpty // the same points, their tuples swapped
		r.pieces = append(r.pieces, e)
	}
	return Map{r}
}

// Domain returns { x : ∃y, x -> y ∈ m }.
func (m Map) Domain() Set {
	return Set{guard(func(_ *budget, a, _ union) union { return Map{a}.domain().u }, m.u)}
}

func (m Map) domain() Set {
	return Set{m.u.project(func(b *basic) map[int]bool {
		d := map[int]bool{}
		for j := 0; j < b.nOut(); j++ {
			d[b.outStart()+j] = true
		}
		return d
	}, func(b *basic) (tuple, tuple) { return tuple{}, b.in }, len(m.u.params), m.u.params, newBudget(nil))}
}

// Range returns { y : ∃x, x -> y ∈ m }.
func (m Map) Range() Set {
	return Set{guard(func(_ *budget, a, _ union) union { return Map{a}.rangeSet().u }, m.u)}
}

func (m Map) rangeSet() Set {
	return Set{m.u.project(func(b *basic) map[int]bool {
		d := map[int]bool{}
		for i := 0; i < b.nIn(); i++ {
			d[b.inStart()+i] = true
		}
		return d
	}, func(b *basic) (tuple, tuple) { return tuple{}, b.out }, len(m.u.params), m.u.params, newBudget(nil))}
}

// Intersect returns m ∩ n.
func (m Map) Intersect(n Map) Map {
	return Map{guard(intersectOp, m.u, n.u)}
}

// Union returns m ∪ n.
func (m Map) Union(n Map) Map {
	return Map{guard(uniteOp, m.u, n.u)}
}

// Subtract returns m − n.
func (m Map) Subtract(n Map) Map {
	return Map{guard(subtractOp, m.u, n.u)}
}

// IsEmpty decides exactly whether m has no pair (Unknown: see Set.IsEmpty).
func (m Map) IsEmpty() Tri { return m.u.emptyTri() }

// IsSubset decides exactly whether m ⊆ n (Unknown: see Set.IsEmpty).
func (m Map) IsSubset(n Map) Tri { return m.u.subsetTri(n.u) }

// IsEqual decides exactly whether m and n relate the same pairs (Unknown: see Set.IsEmpty).
func (m Map) IsEqual(n Map) Tri { return m.u.equalTri(n.u) }

// Simplify returns m without empty pieces, redundant constraints or unused divs.
func (m Map) Simplify() Map {
	return Map{guard(simplifyOp, m.u)}
}

// FixParam returns m with parameter name bound to v.
func (m Map) FixParam(name string, v int64) Map {
	return Map{guard(func(bg *budget, a, _ union) union { return a.fixParam(name, v, bg) }, m.u)}
}

// IntersectDomain returns { x -> y ∈ m : x ∈ s }.
func (m Map) IntersectDomain(s Set) Map {
	return Map{guard(func(_ *budget, a, b union) union { return Map{a}.intersectDomain(Set{b}).u }, m.u, s.u)}
}

func (m Map) intersectDomain(s Set) Map {
	mu, su := align(m.u, s.u)
	r := union{params: mu.params, spaces: mu.spaces}
	bg := newBudget(nil)
	for _, a := range mu.pieces {
		for _, b := range su.pieces {
			if b.out.sameSpace(a.in) {
				r.addPieces(bg, a.intersect(b.embed(a.in, a.out, seq(0, b.nOut()))))
			}
		}
	}
	return Map{r}
}

// IntersectRange returns { x -> y ∈ m : y ∈ s }.
func (m Map) IntersectRange(s Set) Map {
	return Map{guard(func(_ *budget, a, b union) union { return Map{a}.intersectRange(Set{b}).u }, m.u, s.u)}
}

func (m Map) intersectRange(s Set) Map {
	mu, su := align(m.u, s.u)
	r := union{params: mu.params, spaces: mu.spaces}
	bg := newBudget(nil)
	for _, a := range mu.pieces {
		for _, b := range su.pieces {
			if b.out.sameSpace(a.out) {
				r.addPieces(bg, a.intersect(b.embed(a.in, a.out, seq(a.nIn(), b.nOut()))))
			}
		}
	}
	return Map{r}
}

// ApplyRange returns the composition { x -> z : ∃y, x -> y ∈ m, y -> z ∈ n } (isl_map_apply_range;
// n ∘ m in mathematical notation).
func (m Map) ApplyRange(n Map) Map {
	return Map{guard(func(_ *budget, a, b union) union { return Map{a}.applyRange(Map{b}).u }, m.u, n.u)}
}

func (m Map) applyRange(n Map) Map {
	mu, nu := align(m.u, n.u)
	r := union{params: mu.params}
	bg := newBudget(nil)
	for _, a := range mu.spaces {
		for _, b := range nu.spaces {
			if a.out.sameSpace(b.in) {
				r.addSpace(space{a.in, b.out})
			}
		}
	}
	for _, a := range mu.pieces {
		for _, b := range nu.pieces {
			if !a.out.sameSpace(b.in) {
				continue
			}
			nx, ny, nz := a.nIn(), a.nOut(), b.nOut()
			mid := tuple{"", make([]string, ny+nz)}
			ea := a.embed(a.in, mid, seq(0, nx+ny))
			eb := b.embed(a.in, mid, seq(nx, ny+nz))
			j := ea.intersect(eb)
			drop := map[int]bool{}
			for i := 0; i < ny; i++ {
				drop[j.outStart()+i] = true
			}
			r.addPieces(bg, j.projectCols(drop, j.nParam, a.in, b.out, bg)...)
		}
	}
	return Map{r}
}

// ApplyDomain returns { z -> y : ∃x, x -> y ∈ m, x -> z ∈ n } (isl_map_apply_domain).
func (m Map) ApplyDomain(n Map) Map {
	return Map{guard(func(_ *budget, a, b union) union {
		return Map{a}.reverse().applyRange(Map{b}).reverse().u
	}, m.u, n.u)}
}

// Wrap-free helpers used by passes: the image of a set is Set.Apply.

// Contains reports whether the pair x -> y, of the tuples inName and outName, lies in m for the
// parameter values given by params: Unknown when a parameter of m is not bound, the evaluation
// overflows or m is an error value.
func (m Map) Contains(inName string, x []int64, outName string, y []int64, params map[string]int64) Tri {
	return decide(func(a, _ union) bool { return Map{a}.contains(inName, x, outName, y, params) }, m.u)
}

func (m Map) contains(inName string, x []int64, outName string, y []int64, params map[string]int64) bool {
	vals := make([]int64, 0, 1+len(m.u.params)+len(x)+len(y))
	vals = append(vals, 1)
	for _, pn := range m.u.params {
		v, ok := params[pn]
		if !ok {
			panic(fmt.Errorf("%w: parameter %s is not bound", ErrSpaceMismatch, pn))
		}
		vals = append(vals, v)
	}
	vals = append(append(vals, x...), y...)
	for _, p := range m.u.pieces {
		if p.in.name == inName && p.nIn() == len(x) && p.out.name == outName && p.nOut() == len(y) &&
			p.containsVals(slices.Clone(vals)) {
			return true
		}
	}
	return false
}
