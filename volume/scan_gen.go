// This file holds the loop generator of scanning: one level at a time, the pieces still active are
// separated into ordered atoms, and each atom becomes a for loop (bounds from the gist of its
// constraints, a stride from its congruences), an assignment when an equality fixes the
// dimension, and guards for what neither can express.

package volume

import "fmt"

// scanDom is a piece of statement stmt's domain, restricted to the enclosing loops.
type scanDom struct {
	stmt int
	b    *basic
}

// scanner generates the loops of one scan.
type scanner struct {
	params []string
	n      int // dimensions scanned
}

// gen returns the AST scanning doms over dims d.., the outer dims being fixed by loops whose
// visited points are exactly ctx. It returns nil when there is nothing to execute.
func (sc *scanner) gen(doms []scanDom, d int, ctx *basic) Node {
	if len(doms) == 0 {
		return nil
	}
	if d == sc.n {
		return sc.leaves(doms, ctx)
	}
	doms = coalesceDoms(doms)
	if len(doms) == 1 {
		r := shadowOuter(doms[0].b, d)
		if r.plainIsEmpty() {
			return nil
		}
		return sc.region(r, doms, d, ctx)
	}
	var nodes []Node
	for _, group := range orderAtoms(atoms(doms, d), d) {
		var nd Node
		if len(group) == 1 {
			var sub []scanDom
			for _, k := range group[0].label {
				sub = append(sub, doms[k])
			}
			nd = sc.region(group[0].b, sub, d, ctx)
		} else {
			// the loop runs over a hull of the atoms: each piece is cut to the atoms that carry
			// it, so that no piece is scanned again at the points of another component
			bs := make([]*basic, len(group))
			var sub []scanDom
			for i, a := range group {
				bs[i] = a.b
				for _, k := range a.label {
					x := intersectBasic(doms[k].b, a.b)
					if x.tidy() && !scanEmpty(x) {
						x.dropUnusedDivs()
						sub = append(sub, scanDom{doms[k].stmt, x})
					}
				}
			}
			nd = sc.merged(bs, sub, d, ctx, 0)
		}
		if nd != nil {
			nodes = append(nodes, nd)
		}
	}
	return block(nodes)
}

// coalesceDoms merges the pieces of each statement whose union is convex (pieces that were split
// apart at an outer level can be one loop again inside it).
func coalesceDoms(doms []scanDom) []scanDom {
	count := map[int]int{}
	for _, dm := range doms {
		count[dm.stmt]++
	}
	var out []scanDom
	seen := map[int]bool{}
	for _, dm := range doms {
		if count[dm.stmt] == 1 {
			out = append(out, dm)
			continue
		}
		if seen[dm.stmt] {
			continue
		}
		seen[dm.stmt] = true
		var bs []*basic
		for _, o := range doms {
			if o.stmt == dm.stmt {
				bs = append(bs, o.b)
			}
		}
		for _, b := range coalesceList(bs) {
			out = append(out, scanDom{dm.stmt, b})
		}
	}
	return out
}

// leaves executes the statements of doms at a point: in statement order, each under the guard of
// its constraints that the loops do not already ensure.
func (sc *scanner) leaves(doms []scanDom, ctx *basic) Node {
	var nodes []Node
	for stmt := 0; len(nodes) < len(doms); stmt++ {
		for _, dm := range doms {
			if dm.stmt != stmt {
				continue
			}
			j, eqs, ineqs := gistOf(dm.b, ctx, -1)
			var n Node = &Leaf{Stmt: stmt}
			if conds := sc.conds(j, eqs, ineqs); len(conds) > 0 {
				n = &If{Conds: conds, Then: n}
			}
			nodes = append(nodes, n)
		}
		if stmt > 1<<20 {
			panic(internalError{"scan: statement numbers out of range"})
		}
	}
	return block(nodes)
}

func (sc *scanner) conds(j *basic, eqs, ineqs [][]int64) []Constraint {
	var cs []Constraint
	for _, r := range eqs {
		cs = append(cs, Constraint{Aff: j.rowAff(r, sc.params), Eq: true})
	}
	for _, r := range ineqs {
		cs = append(cs, Constraint{Aff: j.rowAff(r, sc.params)})
	}
	return cs
}

func block(nodes []Node) Node {
	var flat []Node
	for _, n := range nodes {
		if b, ok := n.(*Block); ok {
			flat = append(flat, b.Nodes...)
		} else if n != nil {
			flat = append(flat, n)
		}
	}
	switch len(flat) {
	case 0:
		return nil
	case 1:
		return flat[0]
	}
	return &Block{Nodes: flat}
}

// crow is a constraint row with its kind.
type crow struct {
	row []int64
	eq  bool
}

// region returns the loop of dim d over the region r (a basic over dims 0..d) with the statements
// of doms inside it.
func (sc *scanner) region(r *basic, doms []scanDom, d int, ctx *basic) Node {
	r = withPlainBounds(r, d)
	j, keptEqs, keptIneqs := gistOf(r, ctx, d)
	lv := divLevels(j)
	colD := 1 + j.nParam + d
	var outer, assigns, strides, bounds, rest []crow
	for _, e := range keptEqs {
		switch {
		case rowLevel(j, lv, e) < d:
			outer = append(outer, crow{e, true})
		case usesLevelDiv(j, lv, e, d):
			strides = append(strides, crow{e, true})
		case e[colD] != 0:
			assigns = append(assigns, crow{e, true})
		default:
			rest = append(rest, crow{e, true})
		}
	}
	for _, e := range keptIneqs {
		switch {
		case rowLevel(j, lv, e) < d:
			outer = append(outer, crow{e, false})
		case usesLevelDiv(j, lv, e, d) || e[colD] == 0:
			rest = append(rest, crow{e, false})
		default:
			bounds = append(bounds, crow{e, false})
		}
	}
	nCtxEq, nCtxIneq := len(ctx.eqs), len(ctx.ineqs)
	base := system{eqs: cloneRows(j.eqs[:nCtxEq]), ineqs: append(cloneRows(j.ineqs[:nCtxIneq]), j.allDivConstraints()...)}
	for _, c := range outer {
		if c.eq {
			base.eqs = append(base.eqs, c.row)
		} else {
			base.ineqs = append(base.ineqs, c.row)
		}
	}

	var node func(body Node) Node
	var check []crow // constraints the loop construct does not enforce by itself
	extra := false   // base has one more column (the stride's multiplier)

	// an equality fixes d: prefer a unit coefficient, which needs no divisibility check
	pick := -1
	for i, a := range assigns {
		if pick < 0 || abs64(a.row[colD]) < abs64(assigns[pick].row[colD]) {
			pick = i
		}
	}
	var assignRow []int64
	if pick >= 0 {
		assignRow = assigns[pick].row
		check = append(append(check, assigns[:pick]...), assigns[pick+1:]...)
		check = append(append(append(check, strides...), bounds...), rest...)
	} else if len(strides) == 0 && len(rest) == 0 {
		// a single lower bound that every point attains is an equality in disguise
		var lower []int64
		nLower := 0
		for _, b := range bounds {
			if b.row[colD] > 0 {
				lower = b.row
				nLower++
			}
		}
		if nLower == 1 && lower[colD] == 1 {
			above := cloneRow(lower)
			above[0] = subc(above[0], 1)
			if !scanFeasible(j.eqs, append(allIneqs(j), above)) {
				assignRow = lower
				for _, b := range bounds {
					if !equalRows(b.row, lower) {
						check = append(check, b)
					}
				}
			}
		}
	}
	if assignRow != nil {
		a := assignRow
		if a[colD] < 0 {
			a = negRow(a)
		}
		c := a[colD]
		restRow := cloneRow(a)
		restRow[colD] = 0
		val := j.rowAff(negRow(restRow), sc.params).floorDiv(c)
		if c == 1 {
			base.eqs = append(base.eqs, a)
		} else { // c·x <= -rest <= c·x + c - 1
			lo := negRow(a)
			hi := cloneRow(a)
			hi[0] = addc(hi[0], c-1)
			base.ineqs = append(base.ineqs, lo, hi)
			if len(assigns) > 0 {
				check = append(check, crow{assignRow, true})
			}
		}
		node = func(body Node) Node { return &Assign{Dim: d, Value: val, Body: body} }
	} else {
		f := &For{Dim: d, Stride: 1}
		for _, b := range bounds {
			a := b.row[colD]
			restRow := cloneRow(b.row)
			restRow[colD] = 0
			if a > 0 {
				f.Lower = appendUnique(f.Lower, j.rowAff(negRow(restRow), sc.params).ceilDiv(a))
			} else {
				f.Upper = appendUnique(f.Upper, j.rowAff(restRow, sc.params).floorDiv(-a))
			}
			base.ineqs = append(base.ineqs, b.row)
		}
		if len(f.Lower) == 0 || len(f.Upper) == 0 {
			side := "upper"
			if len(f.Lower) == 0 {
				side = "lower"
			}
			panic(fmt.Errorf("%w: dimension %d has no %s bound in %s", ErrUnbounded, d, side, Set{union{params: sc.params, spaces: []space{{r.in, r.out}}, pieces: []*basic{r}}}))
		}
		// a congruence gives the stride; all congruences are checked below (the one used is
		// implied by the stride when it is exact)
		for _, st := range strides {
			if m, off, cong, ok := strideOf(j, lv, st.row, d, sc.params); ok {
				f.Stride, f.Offset = m, off
				extra = true
				base.eqs = append(base.eqs, cong)
				break
			}
		}
		check = append(check, strides...) // the one used is implied by the congruence when exact
		check = append(check, rest...)
		node = func(body Node) Node { f.Body = body; return f }
	}

	// what the loop does not enforce is checked inside it
	if extra {
		grow := func(rows [][]int64) [][]int64 {
			out := make([][]int64, len(rows))
			for i, r := range rows {
				if len(r) < j.width()+1 {
					r = append(cloneRow(r), 0)
				}
				out[i] = r
			}
			return out
		}
		base.eqs, base.ineqs = grow(base.eqs), grow(base.ineqs)
		for i := range check {
			check[i].row = append(cloneRow(check[i].row), 0)
		}
	}
	var inner []crow
	alive := make([]bool, len(check))
	for i := range alive {
		alive[i] = true
	}
	for i, c := range check {
		sys := system{eqs: base.eqs, ineqs: base.ineqs}
		for k, o := range check {
			if k == i || !alive[k] {
				continue
			}
			if o.eq {
				sys.eqs = append(sys.eqs[:len(sys.eqs):len(sys.eqs)], o.row)
			} else {
				sys.ineqs = append(sys.ineqs[:len(sys.ineqs):len(sys.ineqs)], o.row)
			}
		}
		if sys.implies(c.row, c.eq) {
			alive[i] = false
		} else {
			r := c.row
			if extra {
				r = r[:len(r)-1]
			}
			inner = append(inner, crow{r, c.eq})
		}
	}

	// the statements inside, restricted to this region
	kept := withRows(j, keptEqs, keptIneqs)
	inner2 := withRows(j, append(cloneRows(j.eqs[:nCtxEq]), keptEqs...), append(cloneRows(j.ineqs[:nCtxIneq]), keptIneqs...))
	inner2.dropUnusedDivs()
	var sub []scanDom
	for _, dm := range doms {
		b := intersectBasic(dm.b, kept)
		if !b.tidy() || len(doms) > 1 && scanEmpty(b) {
			continue
		}
		b.dropUnusedDivs()
		sub = append(sub, scanDom{dm.stmt, b})
	}
	body := sc.gen(sub, d+1, inner2)
	if body == nil {
		return nil
	}
	if len(inner) > 0 {
		var e, i [][]int64
		for _, c := range inner {
			if c.eq {
				e = append(e, c.row)
			} else {
				i = append(i, c.row)
			}
		}
		body = &If{Conds: sc.conds(j, e, i), Then: body}
	}
	n := node(body)
	if len(outer) > 0 {
		var e, i [][]int64
		for _, c := range outer {
			if c.eq {
				e = append(e, c.row)
			} else {
				i = append(i, c.row)
			}
		}
		n = &If{Conds: sc.conds(j, e, i), Then: n}
	}
	return n
}

func appendUnique(as []Aff, a Aff) []Aff {
	for _, x := range as {
		if x.Equal(a) {
			return as
		}
	}
	return append(as, a)
}
