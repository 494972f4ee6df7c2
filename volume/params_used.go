// This file holds the parameters a set or map uses. The constructors (SetFromConstraints, Box,
// MultiAff.Map, Universe, EmptySet, UniverseMap) build over the parameters their constraints
// mention, and DropUnusedParams removes the others from a result (isl's
// isl_set_drop_unused_params): every row has a column per parameter, so an operation's cost
// follows the parameters its operands mention, not how many a caller declares (a detector's
// hundreds of run-time sizes, of which each op uses a few). A set that does not mention a
// parameter is the same for each of its values, and the binary operations align parameter
// lists by name, so nothing is lost.

package volume

import "slices"

// paramsUsed returns the parameters of used in the order of declared, then those used but
// not declared, in the order of used.
func paramsUsed(declared, used []string) []string {
	var out []string
	for _, p := range declared {
		if slices.Contains(used, p) && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	for _, p := range used {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// affParams returns the parameters the expressions mention, in order of appearance.
func affParams(affs ...Aff) []string {
	var out []string
	for _, a := range affs {
		for _, p := range a.ParamNames() {
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// DropUnusedParams returns s over the parameters its constraints mention (same points for
// every value of the others).
func (s Set) DropUnusedParams() Set {
	return Set{guard(func(_ *budget, a, _ union) union { return a.dropUnusedParams() }, s.u)}
}

// DropUnusedParams returns m over the parameters its constraints mention.
func (m Map) DropUnusedParams() Map {
	return Map{guard(func(_ *budget, a, _ union) union { return a.dropUnusedParams() }, m.u)}
}

func (u union) dropUnusedParams() union {
	used := make([]bool, len(u.params))
	mark := func(r []int64) {
		for i := range used {
			if r[1+i] != 0 {
				used[i] = true
			}
		}
	}
	for _, b := range u.pieces {
		for _, r := range b.eqs {
			mark(r)
		}
		for _, r := range b.ineqs {
			mark(r)
		}
		for _, d := range b.divs {
			mark(d.num)
		}
	}
	var keep []string
	for i, p := range u.params {
		if used[i] {
			keep = append(keep, p)
		}
	}
	if len(keep) == len(u.params) {
		return u
	}
	r := union{params: keep, spaces: u.spaces}
	for _, b := range u.pieces {
		c := b.withParams(u.params, keep)
		c.tidied = b.tidied
		r.pieces = append(r.pieces, c)
	}
	return r
}
