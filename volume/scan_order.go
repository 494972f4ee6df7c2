// This file holds the separation step of scanning (Quilleré–Rajopadhye–Wilde, as in CLooG): at
// one loop level the projections of the statement pieces are split into disjoint atoms, each
// labelled with the pieces it carries, and the atoms are ordered along the loop dimension; atoms
// whose order changes with the outer dimensions share one loop.

package volume

import "slices"

// scanAtom is a piece of the projection of the scanned pieces on the dims 0..d, disjoint from the
// other atoms of the level; label lists the pieces (indices into the level's doms) it carries.
type scanAtom struct {
	b     *basic
	label []int
}

// atoms returns the disjoint atoms of the projections of doms on dims 0..d: every point of the
// union of the projections lies in exactly one atom, and an atom lies inside the projection of
// each piece of its label and outside the projections of the others.
func atoms(doms []scanDom, d int) []scanAtom {
	var out []scanAtom
	for k, dm := range doms {
		p := shadowOuter(dm.b, d)
		if p.plainIsEmpty() {
			continue
		}
		rest := []*basic{p}
		var next []scanAtom
		for _, a := range out {
			in := intersectBasic(a.b, p)
			if !in.tidy() || scanEmpty(in) {
				next = append(next, a)
				continue
			}
			in.dropUnusedDivs()
			next = append(next, scanAtom{in, append(slices.Clone(a.label), k)})
			for _, piece := range subtractBasic(a.b, p) {
				next = append(next, scanAtom{piece, a.label})
			}
			var r2 []*basic
			for _, r := range rest {
				r2 = append(r2, subtractBasic(r, a.b)...)
			}
			rest = r2
		}
		for _, r := range rest {
			next = append(next, scanAtom{r, []int{k}})
		}
		out = next
	}
	// atoms carrying the same pieces may form one convex region again
	var merged []scanAtom
	done := make([]bool, len(out))
	for i := range out {
		if done[i] {
			continue
		}
		group := []*basic{out[i].b}
		for k := i + 1; k < len(out); k++ {
			if !done[k] && slices.Equal(out[k].label, out[i].label) {
				group = append(group, out[k].b)
				done[k] = true
			}
		}
		for _, b := range coalesceList(group) {
			merged = append(merged, scanAtom{b, out[i].label})
		}
	}
	return merged
}

// orderPair compares atoms x and y (disjoint, over dims 0..d) along dim d at the outer points
// they share: xFirst when no point of x has d >= that of a point of y with the same outer
// coordinates, yFirst symmetrically. Both hold when they share no outer point.
func orderPair(x, y *basic, d int) (xFirst, yFirst bool) {
	ds := x.divStart()
	colD := 1 + x.nParam + d
	width := ds + 1 + len(x.divs) + len(y.divs)
	xmap := make([]int, x.width())
	for c := range xmap {
		if c < ds {
			xmap[c] = c
		} else {
			xmap[c] = ds + 1 + (c - ds)
		}
	}
	ymap := make([]int, y.width())
	for c := range ymap {
		switch {
		case c == colD:
			ymap[c] = ds
		case c < ds:
			ymap[c] = c
		default:
			ymap[c] = ds + 1 + len(x.divs) + (c - ds)
		}
	}
	var eqs, ineqs [][]int64
	for _, r := range x.eqs {
		eqs = append(eqs, remapRow(r, xmap, width))
	}
	for _, r := range y.eqs {
		eqs = append(eqs, remapRow(r, ymap, width))
	}
	for _, r := range append(cloneRows(x.ineqs), x.allDivConstraints()...) {
		ineqs = append(ineqs, remapRow(r, xmap, width))
	}
	for _, r := range append(cloneRows(y.ineqs), y.allDivConstraints()...) {
		ineqs = append(ineqs, remapRow(r, ymap, width))
	}
	ge := make([]int64, width) // x_d - y_d >= 0
	ge[colD], ge[ds] = 1, -1
	le := negRow(ge)
	xFirst = !scanFeasible(eqs, append(ineqs[:len(ineqs):len(ineqs)], ge))
	yFirst = !scanFeasible(eqs, append(ineqs[:len(ineqs):len(ineqs)], le))
	return xFirst, yFirst
}

// orderAtoms returns the atoms grouped into components in execution order. Atoms that interleave
// along d (neither is always first where both exist), or that form a cycle of precedences, end up
// in one component, which is scanned by a single loop. Independent components keep the order of
// the atoms.
func orderAtoms(as []scanAtom, d int) [][]scanAtom {
	n := len(as)
	if n == 1 {
		return [][]scanAtom{as}
	}
	comp := make([]int, n) // union-find of interleaved atoms
	for i := range comp {
		comp[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for comp[i] != i {
			comp[i] = comp[comp[i]]
			i = comp[i]
		}
		return i
	}
	before := make([][]bool, n)
	for i := range before {
		before[i] = make([]bool, n)
	}
	for i := 0; i < n; i++ {
		for k := i + 1; k < n; k++ {
			xf, yf := orderPair(as[i].b, as[k].b, d)
			switch {
			case xf && yf: // no shared outer point
			case xf:
				before[i][k] = true
			case yf:
				before[k][i] = true
			default:
				comp[find(i)] = find(k)
			}
		}
	}
	// merge cycles between components until the component graph is acyclic
	for {
		roots := map[int]bool{}
		for i := range as {
			roots[find(i)] = true
		}
		edge := func(a, b int) bool { // some atom of component a precedes some atom of component b
			for i := 0; i < n; i++ {
				if find(i) != a {
					continue
				}
				for k := 0; k < n; k++ {
					if find(k) == b && before[i][k] {
						return true
					}
				}
			}
			return false
		}
		// reach[a][b]: b reachable from a
		var rs []int
		for r := range roots {
			rs = append(rs, r)
		}
		slices.Sort(rs)
		idx := map[int]int{}
		for i, r := range rs {
			idx[r] = i
		}
		m := len(rs)
		reach := make([][]bool, m)
		for i := range reach {
			reach[i] = make([]bool, m)
			for k := range reach[i] {
				reach[i][k] = i != k && edge(rs[i], rs[k])
			}
		}
		for via := 0; via < m; via++ {
			for i := 0; i < m; i++ {
				if reach[i][via] {
					for k := 0; k < m; k++ {
						if reach[via][k] {
							reach[i][k] = true
						}
					}
				}
			}
		}
		merged := false
		for i := 0; i < m; i++ {
			for k := i + 1; k < m; k++ {
				if reach[i][k] && reach[k][i] {
					comp[find(rs[i])] = find(rs[k])
					merged = true
				}
			}
		}
		if !merged {
			// topological order, ties broken by the smallest atom index
			var order [][]scanAtom
			placed := make([]bool, m)
			first := make([]int, m)
			for i := range first {
				first[i] = n
			}
			for i := 0; i < n; i++ {
				c := idx[find(i)]
				first[c] = min(first[c], i)
			}
			for len(order) < m {
				best := -1
				for c := 0; c < m; c++ {
					if placed[c] {
						continue
					}
					ready := true
					for p := 0; p < m && ready; p++ {
						ready = placed[p] || p == c || !reach[p][c]
					}
					if ready && (best < 0 || first[c] < first[best]) {
						best = c
					}
				}
				placed[best] = true
				var group []scanAtom
				for i := 0; i < n; i++ {
					if idx[find(i)] == best {
						group = append(group, as[i])
					}
				}
				order = append(order, group)
			}
			return order
		}
	}
}
