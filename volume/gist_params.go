// This file holds GistParams: a set without the constraints that a context on its parameters
// implies (isl's isl_set_gist_params), so that a set that depends on a parameter only through
// constraints the context makes redundant no longer mentions it.

package volume

// GistParams returns a set s' with s' ∩ ctx = s ∩ ctx whose pieces are those of s without the
// constraints ctx (a set with no dims) and the piece's other constraints imply. A context of
// several pieces, or with divs, is not used (s is returned).
func (s Set) GistParams(ctx Set) Set {
	return Set{guard(func(bg *budget, a, b union) union { return a.gistParams(b, bg) }, s.u, ctx.u)}
}

func (u union) gistParams(ctx union, bg *budget) union {
	if len(ctx.pieces) != 1 || len(ctx.pieces[0].divs) > 0 {
		return u
	}
	if ctx.pieces[0].nDim() != 0 {
		spaceMismatch("GistParams with a set of %d dims", ctx.pieces[0].nDim())
	}
	su, cu := align(u, ctx)
	c := cu.pieces[0]
	r := union{params: su.params, spaces: su.spaces}
	for _, a := range su.pieces {
		j, eqs, ineqs := gistOf(a, c.embed(a.in, a.out, nil), -1) // scan_gist.go
		r.addPieces(bg, withRows(j, eqs, ineqs))
	}
	return r
}
