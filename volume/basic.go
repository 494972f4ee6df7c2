// This file holds basic, one conjunction of affine constraints: the building block of sets and maps.

package volume

import (
	"fmt"
	"slices"
)

// tuple is a named tuple of dimensions, like S[i, j] or the anonymous [i, j]. A tuple is never
// modified once built (its dims may be shared by many basics and spaces).
type tuple struct {
	name string
	dims []string // dimension names used for printing; "" when unnamed
}

func (t tuple) n() int { return len(t.dims) }

func (t tuple) sameSpace(u tuple) bool { return t.name == u.name && len(t.dims) == len(u.dims) }

// div is a local variable defined as floor(num · (1, vars) / den), den > 0. num refers only to the
// constant, the parameters, the dimensions and earlier divs.
type div struct {
	num []int64
	den int64
}

// basic is a conjunction of affine equalities and inequalities over integer variables: a basic
// set (nIn == 0) or a basic map. Column layout of every row (and of every div numerator):
//
//	[0] constant | parameters | input dims | output dims | divs | existentials
//
// Existentials (nEx) only exist transiently, during projection; every basic a Set or Map holds
// has nEx == 0, so all its local variables are divs, which is what makes complement exact.
type basic struct {
	nParam  int
	in, out tuple
	divs    []div
	nEx     int
	eqs     [][]int64 // row · (1, vars) = 0
	ineqs   [][]int64 // row · (1, vars) >= 0
	// nonEmpty records that b was proven to have an integer point, tidied that tidy would not
	// change it. They are set when a basic is final (a piece of a union) and never copied by
	// clone, whose copies are to be modified.
	nonEmpty, tidied bool
}

func (b *basic) nIn() int      { return len(b.in.dims) }
func (b *basic) nOut() int     { return len(b.out.dims) }
func (b *basic) nDim() int     { return b.nIn() + b.nOut() }
func (b *basic) divStart() int { return 1 + b.nParam + b.nDim() }
func (b *basic) exStart() int  { return b.divStart() + len(b.divs) }
func (b *basic) width() int    { return b.exStart() + b.nEx }
func (b *basic) inStart() int  { return 1 + b.nParam }
func (b *basic) outStart() int { return 1 + b.nParam + b.nIn() }

func newBasic(nParam int, in, out tuple) *basic {
	return &basic{nParam: nParam, in: in, out: out}
}

// clone returns a copy of b whose rows can be modified. Tuples are shared: they are never
// modified once built.
func (b *basic) clone() *basic { return b.cloneWith() }

// cloneWith is clone with copies of the inequalities extra appended. All rows share one
// allocation: cloning is on every hot path.
func (b *basic) cloneWith(extra ...[]int64) *basic {
	c := &basic{nParam: b.nParam, in: b.in, out: b.out, nEx: b.nEx}
	total := 0
	for _, d := range b.divs {
		total += len(d.num)
	}
	for _, r := range b.eqs {
		total += len(r)
	}
	for _, r := range b.ineqs {
		total += len(r)
	}
	for _, r := range extra {
		total += len(r)
	}
	buf := make([]int64, total)
	take := func(r []int64) []int64 {
		n := buf[:len(r):len(r)]
		buf = buf[len(r):]
		copy(n, r)
		return n
	}
	if len(b.divs) > 0 {
		c.divs = make([]div, len(b.divs))
		for i, d := range b.divs {
			c.divs[i] = div{take(d.num), d.den}
		}
	}
	ne, ni := len(b.eqs), len(b.ineqs)+len(extra)
	hdr := make([][]int64, ne+ni)
	c.eqs, c.ineqs = hdr[:ne:ne], hdr[ne:]
	for i, r := range b.eqs {
		c.eqs[i] = take(r)
	}
	for i, r := range b.ineqs {
		c.ineqs[i] = take(r)
	}
	for i, r := range extra {
		c.ineqs[len(b.ineqs)+i] = take(r)
	}
	return c
}

// rowsArena returns an allocator of rows backed by one array, sized for every row and div
// numerator of b grown by delta columns.
func (b *basic) rowsArena(delta int) func(n int) []int64 {
	total := 0
	for _, r := range b.eqs {
		total += len(r) + delta
	}
	for _, r := range b.ineqs {
		total += len(r) + delta
	}
	for _, d := range b.divs {
		total += len(d.num) + delta
	}
	buf := make([]int64, max(total, 0))
	return func(n int) []int64 {
		if n > len(buf) {
			return make([]int64, n)
		}
		r := buf[:n:n]
		buf = buf[n:]
		return r
	}
}

func (b *basic) newRow() []int64 { return make([]int64, b.width()) }

// insertCols inserts n zero columns before column pos in every row and div numerator.
func (b *basic) insertCols(pos, n int) {
	if n == 0 {
		return
	}
	alloc := b.rowsArena(n)
	ins := func(r []int64) []int64 {
		nr := alloc(len(r) + n)
		copy(nr, r[:pos])
		copy(nr[pos+n:], r[pos:])
		return nr
	}
	for i := range b.eqs {
		b.eqs[i] = ins(b.eqs[i])
	}
	for i := range b.ineqs {
		b.ineqs[i] = ins(b.ineqs[i])
	}
	for i := range b.divs {
		b.divs[i].num = ins(b.divs[i].num)
	}
}

// dropCol removes column pos from every row and div numerator, in place (b owns its rows). The
// caller guarantees that the column no longer carries information (it is zero or the rows using
// it are gone).
func (b *basic) dropCol(pos int) {
	del := func(r []int64) []int64 {
		copy(r[pos:], r[pos+1:])
		return r[: len(r)-1 : len(r)-1]
	}
	for i := range b.eqs {
		b.eqs[i] = del(b.eqs[i])
	}
	for i := range b.ineqs {
		b.ineqs[i] = del(b.ineqs[i])
	}
	for i := range b.divs {
		b.divs[i].num = del(b.divs[i].num)
	}
}

// shallow returns a copy of b that shares its rows (with room for extra more inequalities): rows
// must be replaced in it, as remapRows does, never modified.
func (b *basic) shallow(extra int) *basic {
	c := &basic{nParam: b.nParam, in: b.in, out: b.out, nEx: b.nEx}
	c.divs = slices.Clone(b.divs)
	hdr := make([][]int64, len(b.eqs)+len(b.ineqs), len(b.eqs)+len(b.ineqs)+extra)
	copy(hdr, b.eqs)
	copy(hdr[len(b.eqs):], b.ineqs)
	c.eqs, c.ineqs = hdr[:len(b.eqs):len(b.eqs)], hdr[len(b.eqs):]
	return c
}

// remapRows rebuilds every row with a new layout: newCol[i] is the new column of old column i
// (or -1 when the old column must be zero), over a new width. The new rows share one allocation;
// the old ones are not modified.
func (b *basic) remapRows(newCol []int, width int) {
	buf := make([]int64, (len(b.eqs)+len(b.ineqs)+len(b.divs))*width)
	mp := func(r []int64) []int64 {
		nr := buf[:width:width]
		buf = buf[width:]
		for i, v := range r {
			if v == 0 {
				continue
			}
			if newCol[i] < 0 {
				panic(fmt.Sprintf("volume: internal error: dropping non-zero column %d", i))
			}
			nr[newCol[i]] = addc(nr[newCol[i]], v)
		}
		return nr
	}
	for i := range b.eqs {
		b.eqs[i] = mp(b.eqs[i])
	}
	for i := range b.ineqs {
		b.ineqs[i] = mp(b.ineqs[i])
	}
	for i := range b.divs {
		b.divs[i].num = mp(b.divs[i].num)
	}
}

// divConstraints returns the two inequalities that define div k:
// num - den*q >= 0 and -num + den*q + den - 1 >= 0.
func (b *basic) divConstraints(k int) (lo, hi []int64) {
	d := b.divs[k]
	col := b.divStart() + k
	lo = make([]int64, b.width())
	copy(lo, d.num)
	lo[col] = subc(lo[col], d.den)
	hi = negRow(lo)
	hi[0] = addc(hi[0], d.den-1)
	return lo, hi
}

// addDivsAsConstraints returns the inequalities of all divs.
func (b *basic) allDivConstraints() [][]int64 {
	var out [][]int64
	for k := range b.divs {
		lo, hi := b.divConstraints(k)
		out = append(out, lo, hi)
	}
	return out
}

// addDiv appends a div (defined over the current columns, excluding existentials) and returns its
// column. If an identical div already exists, its column is returned instead.
func (b *basic) addDiv(num []int64, den int64) int {
	// normalise: numerator width up to current divStart+len(divs), zero beyond.
	for k, d := range b.divs {
		if d.den == den && equalRows(d.num[:b.exStart()], num[:b.exStart()]) && isZeroFrom(num, b.exStart()) {
			return b.divStart() + k
		}
	}
	pos := b.exStart()
	b.insertCols(pos, 1)
	n := make([]int64, b.width()+1) // the new column is not counted until the div is appended
	copy(n, num[:pos])
	b.divs = append(b.divs, div{num: n, den: den})
	return pos
}

// space checks
func (b *basic) sameSpace(c *basic) bool {
	return b.nParam == c.nParam && b.in.sameSpace(c.in) && b.out.sameSpace(c.out)
}

// intersect returns the conjunction of b and c (same space, same params).
func (b *basic) intersect(c *basic) *basic {
	r, _, _ := b.join(c, true)
	r.mergeDuplicateDivs()
	return r
}

// join returns a copy of a whose columns are followed by the divs of c (c's divs become divs of
// the copy), and c's equalities and inequalities over those columns. With merge, the copy also
// holds c's constraints (conjunction) and the returned rows are the same rows; without, it only
// holds a's. Every row is a new one; they share one allocation. Both have no existentials.
func (a *basic) join(c *basic, merge bool) (base *basic, ceqs, cineqs [][]int64) {
	if a.nEx != 0 || c.nEx != 0 {
		panic(internalError{"join of basics with existentials"})
	}
	ds, na, nc := a.divStart(), len(a.divs), len(c.divs)
	w := ds + na + nc
	nae, nce, nai, nci := len(a.eqs), len(c.eqs), len(a.ineqs), len(c.ineqs)
	buf := make([]int64, (nae+nce+nai+nci+na+nc)*w)
	take := func() []int64 {
		r := buf[:w:w]
		buf = buf[w:]
		return r
	}
	// rows of a keep their columns; rows of c move their divs after a's
	fromC := func(r []int64) []int64 {
		n := take()
		copy(n[:ds], r[:ds])
		copy(n[ds+na:], r[ds:])
		return n
	}
	fromA := func(r []int64) []int64 {
		n := take()
		copy(n, r)
		return n
	}
	base = &basic{nParam: a.nParam, in: a.in, out: a.out, divs: make([]div, 0, na+nc)}
	for _, d := range a.divs {
		base.divs = append(base.divs, div{fromA(d.num), d.den})
	}
	for _, d := range c.divs {
		base.divs = append(base.divs, div{fromC(d.num), d.den})
	}
	hdr := make([][]int64, nae+nce+nai+nci)
	eqs, ineqs := hdr[:nae+nce:nae+nce], hdr[nae+nce:]
	for i, e := range a.eqs {
		eqs[i] = fromA(e)
	}
	for i, e := range c.eqs {
		eqs[nae+i] = fromC(e)
	}
	for i, e := range a.ineqs {
		ineqs[i] = fromA(e)
	}
	for i, e := range c.ineqs {
		ineqs[nai+i] = fromC(e)
	}
	ceqs, cineqs = eqs[nae:], ineqs[nai:]
	if merge {
		base.eqs, base.ineqs = eqs, ineqs
	} else {
		base.eqs, base.ineqs = eqs[:nae:nae], ineqs[:nai:nai]
	}
	return base, ceqs, cineqs
}

// mergeDuplicateDivs replaces later copies of identical divs by the first one.
func (b *basic) mergeDuplicateDivs() {
	for {
		merged := false
		for i := 0; i < len(b.divs) && !merged; i++ {
			for j := i + 1; j < len(b.divs) && !merged; j++ {
				if b.divs[i].den == b.divs[j].den && equalRows(b.divs[i].num, b.divs[j].num) {
					b.replaceCol(b.divStart()+j, b.divStart()+i)
					b.removeDiv(j)
					merged = true
				}
			}
		}
		if !merged {
			return
		}
	}
}

// replaceCol adds column from into column to and zeroes from (from and to denote equal values).
func (b *basic) replaceCol(from, to int) {
	f := func(r []int64) {
		if r[from] != 0 {
			r[to] = addc(r[to], r[from])
			r[from] = 0
		}
	}
	for _, r := range b.eqs {
		f(r)
	}
	for _, r := range b.ineqs {
		f(r)
	}
	for i := range b.divs {
		f(b.divs[i].num)
	}
}

// removeDiv drops div k, whose column must be unused.
func (b *basic) removeDiv(k int) {
	b.dropCol(b.divStart() + k)
	b.divs = append(b.divs[:k], b.divs[k+1:]...)
}

// divUsed reports whether div column col appears in a constraint or in another div.
func (b *basic) colUsed(col int) bool {
	for _, r := range b.eqs {
		if r[col] != 0 {
			return true
		}
	}
	for _, r := range b.ineqs {
		if r[col] != 0 {
			return true
		}
	}
	for _, d := range b.divs {
		if d.num[col] != 0 {
			return true
		}
	}
	return false
}

// dropUnusedDivs removes divs that no constraint or other div refers to.
func (b *basic) dropUnusedDivs() {
	for k := len(b.divs) - 1; k >= 0; k-- {
		if !b.colUsed(b.divStart() + k) {
			b.removeDiv(k)
		}
	}
}

// universeBasic returns the basic set/map without constraints.
func universeBasic(nParam int, in, out tuple) *basic { return newBasic(nParam, in, out) }

// emptyMarker builds an obviously infeasible basic (0 >= 1).
func (b *basic) markEmpty() {
	r := b.newRow()
	r[0] = -1
	b.eqs = nil
	b.ineqs = [][]int64{r}
}
