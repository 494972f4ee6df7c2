// This file prints sets and maps in isl notation, so that any result can be pasted into isl
// (or iscc) and back.

package volume

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// String prints s in isl notation, e.g. "[N] -> { [i, j] : 0 <= i < N and i <= j < N }".
// An error value prints as "(error: …)", which no parser reads as a set.
func (s Set) String() string { return s.u.print(false) }

// String prints m in isl notation, e.g. "{ [i, j] -> [i + 1, 2j] }".
func (m Map) String() string { return m.u.print(true) }

func (u union) print(isMap bool) string {
	if u.err != nil {
		return "(error: " + u.err.Error() + ")"
	}
	var sb strings.Builder
	if len(u.params) > 0 {
		sb.WriteString("[" + strings.Join(u.params, ", ") + "] -> ")
	}
	sb.WriteString("{ ")
	var parts []string
	for _, sp := range u.spaces {
		names := dimNames(sp.in, sp.out, u.params)
		plain := printTuple(sp.out.name, names[sp.in.n():])
		if isMap {
			plain = printTuple(sp.in.name, names[:sp.in.n()]) + " -> " + plain
		}
		var heads, bodies []string
		universe := false
		for _, p := range u.pieces {
			if !(space{p.in, p.out}).same(sp) {
				continue
			}
			h, body := p.print(u.params, isMap)
			if body == "" && h == plain {
				universe = true
				break
			}
			heads = append(heads, h)
			bodies = append(bodies, body)
		}
		switch {
		case universe:
			parts = append(parts, plain)
		case len(heads) == 0:
			if len(u.spaces) == 1 {
				parts = append(parts, plain+" : false")
			}
		case allSame(heads) && !slices.Contains(bodies, ""):
			parts = append(parts, heads[0]+" : "+strings.Join(bodies, " or "))
		default:
			// pieces with the plain tuple share it; those with inline expressions print apart
			var plainBodies []string
			for i, h := range heads {
				if h == plain && bodies[i] != "" {
					plainBodies = append(plainBodies, bodies[i])
				}
			}
			if len(plainBodies) > 0 {
				parts = append(parts, plain+" : "+strings.Join(plainBodies, " or "))
			}
			for i, h := range heads {
				if h == plain && bodies[i] != "" {
					continue
				}
				if bodies[i] != "" {
					h += " : " + bodies[i]
				}
				parts = append(parts, h)
			}
		}
	}
	sb.WriteString(strings.Join(parts, "; "))
	sb.WriteString(" }")
	return sb.String()
}

func allSame(l []string) bool {
	for _, x := range l {
		if x != l[0] {
			return false
		}
	}
	return true
}

// dimNames returns printable, unique names for the in and out dims.
func dimNames(in, out tuple, params []string) []string {
	used := map[string]bool{}
	for _, p := range params {
		used[p] = true
	}
	all := append(append([]string(nil), in.dims...), out.dims...)
	names := make([]string, len(all))
	for i, n := range all {
		if n == "" || used[n] || !validIdent(n) {
			base := "i"
			k := i
			if i >= in.n() {
				if in.n() > 0 {
					base = "o"
				}
				k = i - in.n()
			}
			n = base + strconv.Itoa(k)
			for used[n] {
				n += "'"
			}
		}
		used[n] = true
		names[i] = n
	}
	return names
}

func validIdent(s string) bool {
	if s == "" || reserved[s] {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && (r >= '0' && r <= '9' || r == '\'')) {
			return false
		}
	}
	return true
}

var reserved = map[string]bool{"and": true, "or": true, "not": true, "exists": true, "floor": true,
	"ceil": true, "mod": true, "true": true, "false": true, "min": true, "max": true}

func printTuple(name string, entries []string) string {
	return name + "[" + strings.Join(entries, ", ") + "]"
}

// printer renders rows of one basic.
type printer struct {
	b     *basic
	names []string // column names for columns 1..divStart-1 (params, dims)
}

func (b *basic) print(params []string, isMap bool) (head, body string) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(overflow); !ok {
				panic(r)
			}
			head, body = b.printPlain(params, isMap)
		}
	}()
	pr := printer{b: b}
	dn := dimNames(b.in, b.out, params)
	pr.names = append(append([]string{""}, params...), dn...)
	eqs := append([][]int64(nil), b.eqs...)
	outs := append([]string(nil), dn[b.nIn():]...)
	{
		// Print output dims defined by an equality over inputs/params inline, substituting them
		// away from the other constraints (which are tidied again, so that printing is stable).
		var inlined bool
		b, inlined = b.inlineOutputs(outs, pr)
		if inlined {
			pr.b = b
		}
	}
	eqs = b.eqs
	head = printTuple(b.out.name, outs)
	if isMap {
		head = printTuple(b.in.name, dn[:b.nIn()]) + " -> " + head
	}
	var cons []string
	for _, e := range eqs {
		cons = append(cons, pr.constraint(e, true))
	}
	cons = append(cons, pr.inequalities(b.withoutDivBounds())...)
	return head, strings.Join(cons, " and ")
}

// inlineOutputs finds, for each output dim, an equality defining it as an expression of the
// inputs, parameters and divs that do not depend on outputs; it writes the expression to outs
// and returns a copy of b without that dim in its constraints.
func (b *basic) inlineOutputs(outs []string, pr printer) (*basic, bool) {
	var c *basic
	done := make([]bool, b.nOut())
	pivots := make([][]int64, b.nOut())
	// repeat: inlining one dim can turn another's equality into a definition
	for again := true; again; {
		again = false
		for j := 0; j < b.nOut(); j++ {
			if done[j] {
				continue
			}
			if c.inlineOne(b, j, pivots, pr, &c) {
				done[j], again = true, true
				c.tidy() // may reveal equalities (a pair of opposite bounds)
			}
		}
	}
	if c == nil {
		return b, false
	}
	if b.nIn() == 0 {
		// a set's dims keep their names unless the piece is a single constant point: { A[0, 1] }
		for _, r := range pivots {
			if r == nil || !isZeroFrom(r, 1) {
				return b, false
			}
		}
	}
	pr.b = c
	for j, r := range pivots {
		if r != nil {
			outs[j] = pr.expr(r)
		}
	}
	c.foldConstantDivs()
	c.mergeDuplicateDivs()
	c.tidy()
	c.dropUnusedDivs()
	return c, true
}

// inlineOne inlines output dim j of *cp (or of b while *cp is nil, cloning it into *cp) when an
// equality defines it; it reports whether it did.
// The defining expressions (rows with the dim's column zeroed) go to pivots[j]; later inlinings
// are substituted into them too.
func (_ *basic) inlineOne(b *basic, j int, pivots [][]int64, pr printer, cp **basic) bool {
	c := *cp
	{
		src := b
		if c != nil {
			src = c
		}
		col := src.outStart() + j
		for k, e := range src.eqs {
			if e[col] != 1 && e[col] != -1 {
				continue
			}
			// a map's output is inlined as an expression of the inputs and parameters; a set's
			// dimension as one of the parameters and earlier dimensions, without divs
			isSet := src.nIn() == 0
			ok := true
			for x := src.outStart(); x < src.divStart(); x++ {
				if x != col && e[x] != 0 && !(isSet && x < col) {
					ok = false
				}
			}
			pr.b = src
			for d := range src.divs {
				if e[src.divStart()+d] != 0 && (isSet || pr.divUsesOut(d)) {
					ok = false
				}
			}
			if !ok {
				continue
			}
			if c == nil {
				c = b.clone()
			}
			piv := cloneRow(c.eqs[k])
			c.eqs = append(c.eqs[:k:k], c.eqs[k+1:]...)
			for _, o := range c.eqs {
				substitute(o, piv, col)
				normEq(o) // a unit coefficient may appear only after division by the gcd
			}
			for _, o := range c.ineqs {
				substitute(o, piv, col)
			}
			for d := range c.divs {
				substitute(c.divs[d].num, piv, col)
			}
			for _, o := range pivots {
				if o != nil {
					substitute(o, piv, col)
				}
			}
			r := piv
			if r[col] == 1 {
				r = negRow(r)
			}
			r[col] = 0
			pivots[j] = r
			*cp = c
			return true
		}
	}
	return false
}

func (pr printer) divUsesOut(d int) bool {
	b := pr.b
	for c := b.outStart(); c < b.divStart(); c++ {
		if b.divs[d].num[c] != 0 {
			return true
		}
	}
	for k := 0; k < d; k++ {
		if b.divs[d].num[b.divStart()+k] != 0 && pr.divUsesOut(k) {
			return true
		}
	}
	return false
}

// term renders coefficient c times column col (c != 0), with sign handled by the caller.
func (pr printer) atom(col int) string {
	if col < pr.b.divStart() {
		return pr.names[col]
	}
	d := pr.b.divs[col-pr.b.divStart()]
	return "floor((" + pr.expr(d.num) + ")/" + strconv.FormatInt(d.den, 10) + ")"
}

// expr renders row · (1, vars) as an affine expression: parameters and dims in column order,
// then the floor terms ordered by their text, so that the printed form does not depend on the
// order in which the divs were created (a reparse creates them in the order it reads them).
func (pr printer) expr(r []int64) string {
	type term struct {
		c    int64
		atom string
	}
	var terms, floors []term
	for col := 1; col < len(r); col++ {
		if c := r[col]; c != 0 {
			t := term{c, pr.atom(col)}
			if col < pr.b.divStart() {
				terms = append(terms, t)
			} else {
				floors = append(floors, t)
			}
		}
	}
	sort.SliceStable(floors, func(i, j int) bool { return floors[i].atom < floors[j].atom })
	terms = append(terms, floors...)
	var sb strings.Builder
	first := true
	for _, t := range terms {
		c, a := t.c, t.atom
		switch {
		case first && c < 0:
			sb.WriteString("-")
		case !first && c < 0:
			sb.WriteString(" - ")
		case !first:
			sb.WriteString(" + ")
		}
		ac := abs64(c)
		if ac != 1 {
			sb.WriteString(strconv.FormatInt(ac, 10))
			if strings.HasPrefix(a, "floor(") {
				sb.WriteString("*")
			}
		}
		sb.WriteString(a)
		first = false
	}
	if r[0] != 0 || first {
		switch {
		case first:
			sb.WriteString(strconv.FormatInt(r[0], 10))
		case r[0] < 0:
			sb.WriteString(" - " + strconv.FormatInt(-r[0], 10))
		default:
			sb.WriteString(" + " + strconv.FormatInt(r[0], 10))
		}
	}
	return sb.String()
}

// modConstraint recognises r = s*(num - den*q) + c for a div q = floor(num/den) and s = ±1, and
// prints it with "mod": "(i + j) mod 2 = 0", "i mod 4 <= 2".
func (pr printer) modConstraint(r []int64, eq bool) (string, bool) {
	b := pr.b
	for k, d := range b.divs {
		col := b.divStart() + k
		for _, s := range []int64{1, -1} {
			if r[col] != -s*d.den {
				continue
			}
			t := cloneRow(r)
			t[col] = 0
			for i := 1; i < len(d.num); i++ {
				t[i] = subc(t[i], mulc(s, d.num[i]))
			}
			if !isZeroFrom(t, 1) {
				continue
			}
			c := subc(r[0], mulc(s, d.num[0])) // r = s*(num mod den) + c
			num := pr.expr(d.num)
			if !isSimpleTerm(d.num) {
				num = "(" + num + ")"
			}
			m := num + " mod " + strconv.FormatInt(d.den, 10)
			switch {
			case eq:
				return m + " = " + strconv.FormatInt(mulc(-s, c), 10), true
			case s > 0:
				return m + " >= " + strconv.FormatInt(negc(c), 10), true
			default:
				return m + " <= " + strconv.FormatInt(c, 10), true
			}
		}
	}
	return "", false
}

// isSimpleTerm reports whether row is one variable with coefficient 1 and no constant.
func isSimpleTerm(r []int64) bool {
	n := 0
	for i, v := range r {
		if v == 0 {
			continue
		}
		if i == 0 || v != 1 {
			return false
		}
		n++
	}
	return n == 1
}

// constraint renders one equality (eq) or inequality.
func (pr printer) constraint(r []int64, eq bool) string {
	op := " >= "
	if eq {
		op = " = "
	}
	if m, ok := pr.modConstraint(r, eq); ok {
		return m
	}
	if eq {
		// "x = expr" with x the innermost dimension that has a unit coefficient
		for c := pr.b.divStart() - 1; c > pr.b.nParam; c-- {
			if r[c] == 1 || r[c] == -1 {
				rest := cloneRow(r)
				if r[c] == 1 {
					rest = negRow(rest)
				}
				rest[c] = 0
				return pr.names[c] + " = " + pr.expr(rest)
			}
		}
	}
	// move negative terms to the right-hand side
	lhs, rhs := make([]int64, len(r)), make([]int64, len(r))
	for i, c := range r {
		if c > 0 {
			lhs[i] = c
		} else {
			rhs[i] = -c
		}
	}
	if eq && isZeroFrom(lhs, 1) {
		lhs, rhs = rhs, lhs
	}
	// keep constants on the side without variables when possible
	if isZeroFrom(rhs, 1) || isZeroFrom(lhs, 1) {
		// fine as it is
	} else if lhs[0] != 0 {
		rhs[0] = subc(rhs[0], lhs[0])
		lhs[0] = 0
		if rhs[0] < 0 {
			lhs[0], rhs[0] = -rhs[0], 0
		}
	}
	return pr.expr(lhs) + op + pr.expr(rhs)
}

// bound is an inequality seen as a bound on its pivot column.
type bound struct {
	row   []int64
	pivot int
	coef  int64 // >0 lower bound coef*x >= -rest, <0 upper bound
}

// inequalities renders inequalities, chaining a lower and an upper bound of the same variable
// into "L <= x <= U".
func (pr printer) inequalities(rows [][]int64) []string {
	var bs []bound
	var out []string
	for _, r := range rows {
		if m, ok := pr.modConstraint(r, false); ok {
			out = append(out, m)
			continue
		}
		p := 0
		for c := pr.b.divStart() - 1; c >= 1; c-- {
			if r[c] != 0 {
				p = c
				break
			}
		}
		if p == 0 {
			bs = append(bs, bound{r, 0, 0})
			continue
		}
		bs = append(bs, bound{r, p, r[p]})
	}
	used := make([]bool, len(bs))
	for i, lo := range bs {
		if used[i] {
			continue
		}
		used[i] = true
		if lo.coef == 0 {
			out = append(out, pr.constraint(lo.row, false))
			continue
		}
		// find a partner bound on the same pivot with opposite sign and same |coef|
		partner := -1
		for j := i + 1; j < len(bs); j++ {
			if !used[j] && bs[j].pivot == lo.pivot && bs[j].coef == -lo.coef {
				partner = j
				break
			}
		}
		if partner < 0 {
			out = append(out, pr.single(lo))
			continue
		}
		used[partner] = true
		up := bs[partner]
		if lo.coef < 0 {
			lo, up = up, lo
		}
		out = append(out, pr.chain(lo, up))
	}
	return out
}

// sideOf returns coef and the other side of a bound: coef*x >= rhs (lower) or coef*x <= rhs.
func (pr printer) sideOf(bd bound) (x string, rhs []int64) {
	a := abs64(bd.coef)
	x = pr.atom(bd.pivot)
	if a != 1 {
		if bd.pivot >= pr.b.divStart() {
			x = strconv.FormatInt(a, 10) + "*" + x
		} else {
			x = strconv.FormatInt(a, 10) + x
		}
	}
	rhs = make([]int64, len(bd.row))
	for i, c := range bd.row {
		if i != bd.pivot {
			if bd.coef > 0 {
				rhs[i] = -c
			} else {
				rhs[i] = c
			}
		}
	}
	return x, rhs
}

func (pr printer) single(bd bound) string {
	x, rhs := pr.sideOf(bd)
	if bd.coef > 0 {
		return x + " >= " + pr.expr(rhs)
	}
	return pr.upper(x, rhs)
}

// upper prints x <= rhs, as x < rhs + 1 when that reads better (constant bounds).
func (pr printer) upper(x string, rhs []int64) string {
	if (isZeroFrom(rhs, 1) || rhs[0] < 0) && rhs[0] < 1<<63-1 {
		r := cloneRow(rhs)
		r[0] = addc(r[0], 1)
		return x + " < " + pr.expr(r)
	}
	return x + " <= " + pr.expr(rhs)
}

func (pr printer) chain(lo, up bound) string {
	x, l := pr.sideOf(lo)
	_, u := pr.sideOf(up)
	return pr.expr(l) + " <= " + strings.TrimPrefix(pr.upper(x, u), "")
}

// printPlain prints b as "expr >= 0" and "expr = 0" constraints, without any arithmetic that
// could overflow: the fallback of print for coefficients near the int64 limits.
func (b *basic) printPlain(params []string, isMap bool) (head, body string) {
	pr := printer{b: b}
	dn := dimNames(b.in, b.out, params)
	pr.names = append(append([]string{""}, params...), dn...)
	head = printTuple(b.out.name, dn[b.nIn():])
	if isMap {
		head = printTuple(b.in.name, dn[:b.nIn()]) + " -> " + head
	}
	var cons []string
	for _, e := range b.eqs {
		cons = append(cons, pr.expr(e)+" = 0")
	}
	for _, e := range b.ineqs {
		cons = append(cons, pr.expr(e)+" >= 0")
	}
	return head, strings.Join(cons, " and ")
}

// withoutDivBounds returns the inequalities of b except those implied by the definition of a div
// (0 <= num - den*q <= den - 1 holds by definition of q = floor(num/den)): printing them adds noise.
func (b *basic) withoutDivBounds() [][]int64 {
	if len(b.divs) == 0 {
		return b.ineqs
	}
	defs := b.allDivConstraints()
	var out [][]int64
	for _, r := range b.ineqs {
		implied := false
		for _, d := range defs {
			if d[0] <= r[0] && sameCoeffs(d, r, 1) {
				implied = true
				break
			}
		}
		if !implied {
			out = append(out, r)
		}
	}
	return out
}

// debugRows renders raw rows (tests and debugging).
func (b *basic) debugRows() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "params=%d in=%v out=%v divs=%d ex=%d\n", b.nParam, b.in, b.out, len(b.divs), b.nEx)
	for _, e := range b.eqs {
		fmt.Fprintf(&sb, "  eq %v\n", e)
	}
	for _, e := range b.ineqs {
		fmt.Fprintf(&sb, "  in %v\n", e)
	}
	for _, d := range b.divs {
		fmt.Fprintf(&sb, "  div %v / %d\n", d.num, d.den)
	}
	return sb.String()
}
