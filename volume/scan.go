// This file holds the entry points of scanning: Set.Scan and ScanStatements turn sets into loop
// ASTs that visit every point exactly once, in lexicographic order.

package volume

// rowAff converts columns 1.. of a row of b (params, dims, divs; no existentials) into an Aff
// over the dims of b (inputs then outputs).
func (b *basic) rowAff(r []int64, params []string) Aff {
	a := AffConst(r[0])
	// the parameter terms in one sum (adding them one by one costs a sort per term: rows of a
	// concatenation of a hundred run-time extents have a hundred)
	var ps []ParamTerm
	for p := 0; p < b.nParam; p++ {
		if r[1+p] != 0 {
			ps = append(ps, ParamTerm{params[p], r[1+p]})
		}
	}
	if len(ps) > 0 {
		a = a.add(Aff{Params: ps})
	}
	for i := 0; i < b.nDim(); i++ {
		if c := r[1+b.nParam+i]; c != 0 {
			a = a.add(AffDim(i).mul(c))
		}
	}
	for k, d := range b.divs {
		if c := r[b.divStart()+k]; c != 0 {
			a = a.add(b.rowAff(d.num, params).floorDiv(d.den).mul(c))
		}
	}
	return a
}

// Scan returns a loop AST that visits every point of s exactly once, in lexicographic order (see
// ScanStatements). The tuples of s are its statements, numbered in the order of s's spaces (one
// statement, 0, for a set in one space; ScanStmtNames gives their names); they must have the same
// number of dimensions. The AST of an empty set is an empty Block.
func (s Set) Scan() (node Node, err error) {
	if s.u.err != nil {
		return nil, s.u.err
	}
	err = try(func() { node = s.scan() })
	return node, err
}

// ScanStmtNames returns the tuple names of the statements of s.Scan(), by statement number.
func (s Set) ScanStmtNames() []string {
	names := make([]string, len(s.u.spaces))
	for i, sp := range s.u.spaces {
		names[i] = sp.out.name
	}
	return names
}

func (s Set) scan() Node {
	if len(s.u.spaces) == 0 {
		return &Block{}
	}
	n := s.u.spaces[0].out.n()
	stmts := make([][]*basic, len(s.u.spaces))
	for k, sp := range s.u.spaces {
		if sp.in.n() != 0 || sp.out.n() != n {
			spaceMismatch("Scan of a set whose tuples have %d and %d dimensions", n, sp.in.n()+sp.out.n())
		}
		for _, p := range s.u.pieces {
			if (space{p.in, p.out}).same(sp) {
				stmts[k] = append(stmts[k], p)
			}
		}
	}
	return scanStmts(s.u.params, n, stmts)
}

// ScanStatements returns one loop AST that executes several statements in one lexicographic
// schedule: statement k runs at the points of sets[k], the points of all statements are visited
// in lexicographic order, and statements that share a point run in the order of sets. Leaf.Stmt
// is the index in sets. Every set must live in one space, and all must have the same number of
// dimensions; parameters are matched by name. This is how partitioned domains (a dense interior
// and its borders, each with its own body) become one loop nest.
func ScanStatements(sets []Set) (node Node, err error) {
	for _, s := range sets {
		if s.u.err != nil {
			return nil, s.u.err
		}
	}
	err = try(func() {
		var all union
		for _, s := range sets {
			all, _ = align(all, s.u)
		}
		stmts := make([][]*basic, len(sets))
		n := -1
		for k, s := range sets {
			if len(s.u.spaces) != 1 {
				spaceMismatch("ScanStatements: set #%d lives in %d spaces", k, len(s.u.spaces))
			}
			if nd := s.u.spaces[0].out.n(); n < 0 {
				n = nd
			} else if nd != n {
				spaceMismatch("ScanStatements: set #%d has %d dimensions, set #0 has %d", k, nd, n)
			}
			stmts[k] = s.u.withParams(all.params).pieces
		}
		if n < 0 {
			node = &Block{}
			return
		}
		node = scanStmts(all.params, n, stmts)
	})
	return node, err
}

// scanStmts scans the statements whose pieces are given (same parameters, n dims each).
func scanStmts(params []string, n int, stmts [][]*basic) Node {
	sc := &scanner{params: params, n: n}
	var doms []scanDom
	for k, pieces := range stmts {
		var ps []*basic
		for _, p := range pieces {
			c := setBasic(p, n)
			if c.tidy() && !scanEmpty(c) {
				c.dropUnusedDivs()
				ps = append(ps, c)
			}
		}
		ps = coalesceList(ps)
		ps = coalesceList(disjointPieces(ps))
		for _, p := range ps {
			doms = append(doms, scanDom{k, p})
		}
	}
	ctx := newBasic(len(params), tuple{}, tuple{"", make([]string, n)})
	if node := sc.gen(doms, 0, ctx); node != nil {
		return node
	}
	return &Block{}
}

// disjointPieces returns pieces with the same union as ps that are pairwise disjoint: each piece
// minus the ones before it.
func disjointPieces(ps []*basic) []*basic {
	var out []*basic
	for i, p := range ps {
		cur := []*basic{p}
		for _, q := range ps[:i] {
			var next []*basic
			for _, c := range cur {
				next = append(next, subtractBasic(c, q)...)
			}
			cur = next
		}
		out = append(out, cur...)
	}
	return out
}
