// This file holds ProjectOutParam: the existential projection of a parameter, as isl's
// isl_set_project_out on isl_dim_param.

package volume

import "slices"

// ProjectOutParam returns the set of the points x of s for which some value of parameter name
// puts x in s, over the other parameters: { x : ∃ name, x ∈ s }. The parameter leaves the space
// (s unchanged when it has no parameter of that name).
func (s Set) ProjectOutParam(name string) Set {
	return Set{guard(func(bg *budget, us []union) union {
		u := us[0]
		i := slices.Index(u.params, name)
		if i < 0 {
			return u
		}
		params := slices.Delete(slices.Clone(u.params), i, i+1)
		return u.project(func(*basic) map[int]bool { return map[int]bool{1 + i: true} },
			func(b *basic) (tuple, tuple) { return b.in, b.out }, len(params), params, bg)
	}, s.u)}
}
