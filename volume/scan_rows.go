// This file holds the row-level helpers of scanning: the level of a constraint (the innermost
// dimension it involves, directly or through a div), column remapping, and the conjunction of two
// basics over shared columns.

package volume

// divLevels returns, for each div of b, the innermost set dimension its definition depends on
// (directly or through earlier divs), or -1 when it depends on parameters only. Scanned basics
// are sets (no input dims), so dimension i is column 1+nParam+i.
func divLevels(b *basic) []int {
	lv := make([]int, len(b.divs))
	ds := b.divStart()
	for k, d := range b.divs {
		l := -1
		for i := 0; i < b.nDim(); i++ {
			if d.num[1+b.nParam+i] != 0 {
				l = i
			}
		}
		for k2 := 0; k2 < k; k2++ {
			if d.num[ds+k2] != 0 && lv[k2] > l {
				l = lv[k2]
			}
		}
		lv[k] = l
	}
	return lv
}

// rowLevel returns the innermost dimension row r involves, directly or through a div (-1: only
// parameters and constants).
func rowLevel(b *basic, divLv []int, r []int64) int {
	l := -1
	for i := 0; i < b.nDim(); i++ {
		if r[1+b.nParam+i] != 0 {
			l = i
		}
	}
	ds := b.divStart()
	for k, dl := range divLv {
		if r[ds+k] != 0 && dl > l {
			l = dl
		}
	}
	return l
}

// usesLevelDiv reports whether r involves a div whose level is d (a div of the dimension d itself).
func usesLevelDiv(b *basic, divLv []int, r []int64, d int) bool {
	ds := b.divStart()
	for k, dl := range divLv {
		if dl == d && r[ds+k] != 0 {
			return true
		}
	}
	return false
}

// remapRow returns r with column i moved to colmap[i] in a row of the given width (colmap[i] < 0
// requires r[i] == 0).
func remapRow(r []int64, colmap []int, width int) []int64 {
	nr := make([]int64, width)
	for i, v := range r {
		if v == 0 {
			continue
		}
		if colmap[i] < 0 {
			panic(internalError{"scan: dropping a non-zero column"})
		}
		nr[colmap[i]] = addc(nr[colmap[i]], v)
	}
	return nr
}

// joinBasic returns the conjunction of a and b (same space, no existentials) together with the
// positions of b's rows in it: the result's eqs[beq:] and ineqs[bineq:] are b's constraints, in
// b's order, after a's. Divs of b that duplicate divs of a are merged, so a row of b that equals
// a row of a compares equal.
func joinBasic(a, b *basic) (j *basic, beq, bineq int) {
	j = a.clone()
	nd := len(a.divs)
	j.insertCols(j.exStart(), len(b.divs))
	width := a.width() + len(b.divs)
	newCol := make([]int, b.width())
	for i := 0; i < b.divStart(); i++ {
		newCol[i] = i
	}
	for k := range b.divs {
		newCol[b.divStart()+k] = a.divStart() + nd + k
	}
	for _, d := range b.divs {
		j.divs = append(j.divs, div{remapRow(d.num, newCol, width), d.den})
	}
	for _, r := range b.eqs {
		j.eqs = append(j.eqs, remapRow(r, newCol, width))
	}
	for _, r := range b.ineqs {
		j.ineqs = append(j.ineqs, remapRow(r, newCol, width))
	}
	j.mergeDuplicateDivs()
	return j, len(a.eqs), len(a.ineqs)
}

// subtractBasic returns a − c as pairwise disjoint non-empty basics: a with the first violated
// constraint of c negated, for each constraint of c in turn.
func subtractBasic(a, c *basic) []*basic {
	j, ceq, cin := joinBasic(a, c)
	var cons [][]int64
	for _, e := range j.eqs[ceq:] {
		cons = append(cons, e, negRow(e))
	}
	cons = append(cons, j.ineqs[cin:]...)
	cur := withRows(j, j.eqs[:ceq], j.ineqs[:cin])
	var out []*basic
	for _, k := range cons {
		p := cur.clone()
		p.ineqs = append(p.ineqs, negIneq(k))
		if !p.tidy() || scanEmpty(p) {
			continue // cur implies k: adding it changes nothing
		}
		p.mergeDuplicateDivs()
		p.dropUnusedDivs()
		out = append(out, p)
		cur = cur.clone()
		cur.ineqs = append(cur.ineqs, cloneRow(k))
	}
	return out
}

// intersectBasic returns a ∧ b.
func intersectBasic(a, b *basic) *basic {
	j, _, _ := joinBasic(a, b)
	return j
}

// allRows returns the constraints of b as inequalities (every equality as two) plus the
// definitions of its divs: the system a feasibility test needs.
func allIneqs(b *basic) [][]int64 {
	out := make([][]int64, 0, len(b.ineqs)+2*len(b.eqs)+2*len(b.divs))
	out = append(out, b.ineqs...)
	for _, e := range b.eqs {
		out = append(out, e, negRow(e))
	}
	return append(out, b.allDivConstraints()...)
}

// negIneq returns the negation of the inequality r >= 0, that is -r - 1 >= 0.
func negIneq(r []int64) []int64 {
	n := negRow(r)
	n[0] = subc(n[0], 1)
	return n
}

// nonZeros counts the non-zero coefficients of r beyond the constant.
func nonZeros(r []int64) int {
	c := 0
	for _, v := range r[1:] {
		if v != 0 {
			c++
		}
	}
	return c
}

// setBasic returns a copy of b as a piece of the anonymous n-dimensional set space every scanned
// statement shares, so that pieces of different statements combine.
func setBasic(b *basic, n int) *basic {
	c := b.clone()
	c.in = tuple{}
	c.out = tuple{"", make([]string, n)}
	return c
}

// emptyBasic returns an obviously empty basic of the scanning space.
func emptyBasic(nParam, n int) *basic {
	b := newBasic(nParam, tuple{}, tuple{"", make([]string, n)})
	b.markEmpty()
	return b
}
