// This file holds basic, one conjunction of affine constraints: the building block of sets and maps.

package volume

import "fmt"

// tuple is a named tuple of dimensions, like S[i, j] or the anonymous [i, j].
type tuple struct {
	name string
	dims []string // dimension names used for printing; "" when unnamed
}

func (t tuple) n() int { return len(t.dims) }

func (t tuple) sameSpace(u tuple) bool { return t.name == u.name && len(t.dims) == len(u.dims) }

func (t tuple) clone() tuple { return tuple{t.name, append([]string(nil), t.dims...)} }

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
	return &basic{nParam: nParam, in: in.clone(), out: out.clone()}
}

func (b *basic) clone() *basic {
	c := &basic{nParam: b.nParam, in: b.in.clone(), out: b.out.clone(), nEx: b.nEx}
	// one backing array for all rows: cloning is on every hot path
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
	buf := make([]int64, total)
	take := func(r []int64) []int64 {
		n := buf[:len(r):len(r)]
		buf = buf[len(r):]
		copy(n, r)
		return n
	}
	c.divs = make([]div, len(b.divs))
	for i, d := range b.divs {
		c.divs[i] = div{take(d.num), d.den}
	}
	c.eqs = make([][]int64, len(b.eqs))
	for i, r := range b.eqs {
		c.eqs[i] = take(r)
	}
	c.ineqs = make([][]int64, len(b.ineqs))
	for i, r := range b.ineqs {
		c.ineqs[i] = take(r)
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

// dropCol removes column pos from every row and div numerator. The caller guarantees that the
// column no longer carries information (it is zero or the rows using it are gone).
func (b *basic) dropCol(pos int) {
	alloc := b.rowsArena(-1)
	del := func(r []int64) []int64 {
		nr := alloc(len(r) - 1)
		copy(nr, r[:pos])
		copy(nr[pos:], r[pos+1:])
		return nr
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

// permuteCols rebuilds every row with a new layout: newCol[i] is the new column of old column i
// (or -1 when the old column must be zero), over a new width.
func (b *basic) remapRows(newCol []int, width int) {
	mp := func(r []int64) []int64 {
		nr := make([]int64, width)
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
	r := b.clone()
	// append c's divs after r's divs: c's div columns shift by len(b.divs).
	nd := len(b.divs)
	r.insertCols(r.exStart(), len(c.divs))
	cw := c.width()
	newCol := make([]int, cw)
	for i := 0; i < c.divStart(); i++ {
		newCol[i] = i
	}
	for k := range c.divs {
		newCol[c.divStart()+k] = r.divStart() + nd + k
	}
	cc := c.clone()
	cc.remapRows(newCol, r.width()+len(c.divs))
	for _, d := range cc.divs {
		r.divs = append(r.divs, div{d.num, d.den})
	}
	r.eqs = append(r.eqs, cc.eqs...)
	r.ineqs = append(r.ineqs, cc.ineqs...)
	r.mergeDuplicateDivs()
	return r
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
