// This file builds sets from Aff constraints: boxes of tensor extents and conjunctions written in
// code rather than in isl notation.

package volume

import "slices"

// Constraint is Aff = 0 (Eq) or Aff >= 0, over the dimensions of a set and parameters.
type Constraint struct {
	Aff Aff
	Eq  bool
}

// GE returns the constraint a >= b.
func GE(a, b Aff) Constraint { return Constraint{Aff: a.Sub(b)} }

// LT returns the constraint a < b.
func LT(a, b Aff) Constraint { return Constraint{Aff: b.Sub(a).AddConst(-1)} }

// EQ returns the constraint a = b.
func EQ(a, b Aff) Constraint { return Constraint{Aff: a.Sub(b), Eq: true} }

// SetFromConstraints returns { name[dims] : cons } over the parameters cons mention, in the
// order of params first (params_used.go).
func SetFromConstraints(params []string, name string, dims []string, cons []Constraint) Set {
	r := Set{guard(func(bg *budget, _, _ union) union { return setFromConstraints(params, name, dims, cons, bg).u }, union{})}
	if r.u.err != nil && len(r.u.spaces) == 0 {
		r.u.params = slices.Clone(params) // the error value keeps the set's space
		r.u.addSpace(space{tuple{}, tuple{name, slices.Clone(dims)}})
	}
	return r
}

func setFromConstraints(params []string, name string, dims []string, cons []Constraint, bg *budget) Set {
	affs := make([]Aff, len(cons))
	for i, c := range cons {
		affs[i] = c.Aff
	}
	params = paramsUsed(params, affParams(affs...)) // params_used.go
	t := tuple{name, slices.Clone(dims)}
	b := newBasic(len(params), tuple{}, t)
	for _, c := range cons {
		if c.Aff.NDimUsed() > len(dims) {
			spaceMismatch("constraint %s uses %d dims of a %d-dimensional set", c.Aff.String(dims...), c.Aff.NDimUsed(), len(dims))
		}
		r := b.affRow(c.Aff, params, b.outStart())
		if len(r) < b.width() {
			r = append(r, make([]int64, b.width()-len(r))...)
		}
		if c.Eq {
			b.eqs = append(b.eqs, r)
		} else {
			b.ineqs = append(b.ineqs, r)
		}
	}
	u := union{params: params}
	u.addSpace(space{tuple{}, t})
	u.addPieces(bg, b)
	return Set{u}
}

// Box returns { name[dims] : 0 <= dims[k] < extents[k] }.
func Box(params []string, name string, dims []string, extents []Aff) Set {
	if dims == nil {
		dims = make([]string, len(extents))
	}
	var cons []Constraint
	for k, e := range extents {
		cons = append(cons, GE(AffDim(k), AffConst(0)), LT(AffDim(k), e))
	}
	return SetFromConstraints(params, name, dims, cons)
}
