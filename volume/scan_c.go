// This file prints loop ASTs as C statements in the style of isl's codegen: loop variables
// declared in the for, dimensions fixed by equalities substituted, a call S(e1, ..., en) at each
// leaf, and the helpers floord, ceild, min and max for divisions and bounds.

package volume

import (
	"fmt"
	"strings"
)

// CHelpers defines the helpers the printed C uses, as isl's users define them.
const CHelpers = `#define floord(n, d) (((n) < 0) ? -((-(n) + (d) - 1) / (d)) : (n) / (d))
#define ceild(n, d) (((n) < 0) ? -((-(n)) / (d)) : ((n) + (d) - 1) / (d))
#define max(x, y) ((x) > (y) ? (x) : (y))
#define min(x, y) ((x) < (y) ? (x) : (y))
`

// C prints the AST as a sequence of C statements: for loops declaring their variable (names gives
// the dimension names; an empty name prints as c0, c1, … like isl), if statements, and
// stmtName(k)(e1, ..., en) at each leaf, where e_i is the value of dimension i. Dimensions fixed by
// an Assign have no variable: their value is substituted. Divisions print as floord(n, d) and
// ceild(n, d), remainders as % where the dividend is known to be non-negative; define CHelpers
// before the statements.
func C(n Node, names []string, stmtName func(int) string) string {
	p := &cPrinter{stmtName: stmtName}
	for i, nm := range names {
		if nm == "" {
			nm = fmt.Sprintf("c%d", i)
		}
		p.names = append(p.names, nm)
	}
	p.grow(len(names))
	p.node(n, 0)
	return p.sb.String()
}

type cPrinter struct {
	sb       strings.Builder
	names    []string
	stmtName func(int) string
	env      []Aff  // the value of each dimension in terms of loop variables
	nonneg   []bool // loop variables known to be non-negative
}

// grow makes room for dimension n-1 (expressions may use dims beyond the names given).
func (p *cPrinter) grow(n int) {
	for len(p.env) < n {
		i := len(p.env)
		p.env = append(p.env, AffDim(i))
		p.nonneg = append(p.nonneg, false)
		if i >= len(p.names) {
			p.names = append(p.names, fmt.Sprintf("c%d", i))
		}
	}
}

// subst returns a with every dimension replaced by its value.
func (p *cPrinter) subst(a Aff) Aff {
	p.grow(a.NDimUsed())
	return a.substDims(p.env)
}

// stmts counts the C statements n prints (assignments print none).
func stmts(n Node) int {
	switch n := n.(type) {
	case nil:
		return 0
	case *Block:
		c := 0
		for _, k := range n.Nodes {
			c += stmts(k)
		}
		return c
	case *Assign:
		return stmts(n.Body)
	}
	return 1
}

func (p *cPrinter) line(ind int, format string, args ...any) {
	p.sb.WriteString(strings.Repeat("  ", ind))
	fmt.Fprintf(&p.sb, format, args...)
	p.sb.WriteByte('\n')
}

// body prints the body of a for or if: braces only around several statements, as isl does.
func (p *cPrinter) body(head string, b Node, ind int) {
	if stmts(b) == 1 {
		p.line(ind, "%s", head)
		p.node(b, ind+1)
		return
	}
	p.line(ind, "%s {", head)
	p.node(b, ind+1)
	p.line(ind, "}")
}

func (p *cPrinter) node(n Node, ind int) {
	switch n := n.(type) {
	case nil:
	case *Block:
		for _, k := range n.Nodes {
			p.node(k, ind)
		}
	case *Leaf:
		args := make([]string, len(p.names))
		for i := range args {
			args[i] = p.expr(p.env[i])
		}
		p.line(ind, "%s(%s);", p.stmtName(n.Stmt), strings.Join(args, ", "))
	case *Assign:
		p.grow(n.Dim + 1)
		v := p.subst(n.Value)
		old, oldNN := p.env[n.Dim], p.nonneg[n.Dim]
		p.env[n.Dim] = v
		p.node(n.Body, ind)
		p.env[n.Dim], p.nonneg[n.Dim] = old, oldNN
	case *If:
		var cs []string
		for _, c := range n.Conds {
			cs = append(cs, p.constraint(p.subst(c.Aff), c.Eq))
		}
		p.body("if ("+strings.Join(cs, " && ")+")", n.Then, ind)
	case *For:
		p.grow(n.Dim + 1)
		v := p.names[n.Dim]
		lower := make([]Aff, len(n.Lower))
		for i, b := range n.Lower {
			lower[i] = p.subst(b)
		}
		upper := make([]Aff, len(n.Upper))
		for i, b := range n.Upper {
			upper[i] = p.subst(b)
		}
		lo := p.minMax("max", lower)
		if n.Stride > 1 {
			off := p.subst(n.Offset)
			if len(lower) == 1 {
				// the first value >= lo congruent to off: lo + (off - lo) mod s
				t := reduceMod(off.sub(lower[0]), n.Stride)
				if _, ok := t.IsConst(); !ok || t.Const != 0 {
					lo = p.expr(lower[0].add(t.mod(n.Stride)))
				}
			} else {
				lo = fmt.Sprintf("%s + %d * ceild(%s - %s, %d)", p.expr(off), n.Stride, lo, p.paren(off), n.Stride)
			}
		}
		hi := v + " <= " + p.minMax("min", upper)
		if len(upper) == 1 {
			if _, isConst := upper[0].IsConst(); !isConst && upper[0].Const < 0 {
				hi = v + " < " + p.expr(upper[0].addConst(1))
			}
		}
		head := fmt.Sprintf("for (int %s = %s; %s; %s += %d)", v, lo, hi, v, max(n.Stride, 1))
		old, oldNN := p.env[n.Dim], p.nonneg[n.Dim]
		p.env[n.Dim] = AffDim(n.Dim)
		p.nonneg[n.Dim] = false
		for _, b := range lower {
			p.nonneg[n.Dim] = p.nonneg[n.Dim] || p.isNonneg(b)
		}
		p.body(head, n.Body, ind)
		p.env[n.Dim], p.nonneg[n.Dim] = old, oldNN
	}
}

func (p *cPrinter) minMax(fn string, bs []Aff) string {
	s := p.expr(bs[0])
	for _, b := range bs[1:] {
		s = fmt.Sprintf("%s(%s, %s)", fn, s, p.expr(b))
	}
	return s
}

// isNonneg reports whether a is non-negative whatever the parameters: non-negative constant and
// coefficients over loop variables known to be non-negative.
func (p *cPrinter) isNonneg(a Aff) bool {
	if a.Const < 0 || len(a.Params) > 0 {
		return false
	}
	for i, c := range a.Dims {
		if c < 0 || c > 0 && (i >= len(p.nonneg) || !p.nonneg[i]) {
			return false
		}
	}
	for _, f := range a.Floors {
		if f.Coef < 0 || !p.isNonneg(f.Num) {
			return false
		}
	}
	return true
}

// cTerm is coef·atom in a printed sum.
type cTerm struct {
	coef int64
	atom string
}

// terms splits a into printable terms (the constant is returned apart). A remainder
// num - d·floor(num/d) with num known non-negative prints as num % d; other floors print as
// floord, or as ceild when their coefficient is negative and negCeil is set.
func (p *cPrinter) terms(a Aff, negCeil bool) (ts []cTerm, c int64) {
	for _, f := range a.Floors {
		if f.Coef != -f.Den || !p.isNonneg(f.Num) {
			continue
		}
		rest := a.sub(f.Num.mod(f.Den))
		if termCount(rest) < termCount(a) {
			ts, c = p.terms(rest, negCeil)
			atom := p.expr(f.Num)
			if termCount(f.Num) > 1 || f.Num.Const != 0 {
				atom = "(" + atom + ")"
			}
			return append(ts, cTerm{1, fmt.Sprintf("%s %% %d", atom, f.Den)}), c
		}
	}
	for i, k := range a.Dims {
		if k != 0 {
			p.grow(i + 1)
			ts = append(ts, cTerm{k, p.names[i]})
		}
	}
	for _, t := range a.Params {
		ts = append(ts, cTerm{t.Coef, t.Name})
	}
	for _, f := range a.Floors {
		if f.Coef < 0 && negCeil {
			ts = append(ts, cTerm{-f.Coef, fmt.Sprintf("ceild(%s, %d)", p.expr(f.Num.neg()), f.Den)})
		} else {
			ts = append(ts, cTerm{f.Coef, fmt.Sprintf("floord(%s, %d)", p.expr(f.Num), f.Den)})
		}
	}
	return ts, a.Const
}

func termCount(a Aff) int {
	n := len(a.Params) + len(a.Floors)
	for _, c := range a.Dims {
		if c != 0 {
			n++
		}
	}
	return n
}

// sum renders terms and a constant as a C sum.
func sum(ts []cTerm, c int64) string {
	var sb strings.Builder
	for i, t := range ts {
		k := t.coef
		switch {
		case i == 0 && k < 0:
			sb.WriteString("-")
		case i > 0 && k < 0:
			sb.WriteString(" - ")
		case i > 0:
			sb.WriteString(" + ")
		}
		if abs64(k) != 1 {
			atom := t.atom
			if strings.Contains(atom, " % ") {
				atom = "(" + atom + ")"
			}
			fmt.Fprintf(&sb, "%d * %s", abs64(k), atom)
		} else {
			sb.WriteString(t.atom)
		}
	}
	switch {
	case len(ts) == 0:
		fmt.Fprint(&sb, c)
	case c > 0:
		fmt.Fprintf(&sb, " + %d", c)
	case c < 0:
		fmt.Fprintf(&sb, " - %d", -c)
	}
	return sb.String()
}

// expr prints a (in terms of loop variables) as a C expression.
func (p *cPrinter) expr(a Aff) string { return sum(p.terms(a, true)) }

// paren prints a, in parentheses when it is a sum.
func (p *cPrinter) paren(a Aff) string {
	s := p.expr(a)
	if termCount(a) > 1 || termCount(a) == 1 && a.Const != 0 {
		return "(" + s + ")"
	}
	return s
}

// constraint prints a >= 0 (or a == 0) with the negative terms moved to the right, as isl does:
// N >= i + 2, (i + j) % 2 == 0.
func (p *cPrinter) constraint(a Aff, eq bool) string {
	op := " >= "
	if eq {
		op = " == "
	}
	// a remainder: a = ±(num mod d) + rest, printed num % d when num is known to be
	// non-negative (or when testing divisibility, which C's % gets right for any sign)
	for _, f := range a.Floors {
		if abs64(f.Coef) != f.Den {
			continue
		}
		m := f.Num.mod(f.Den)
		rest := a.add(m) // a = -m + rest
		if f.Coef < 0 {
			rest = a.sub(m) // a = m + rest
		}
		if termCount(rest) >= termCount(a) {
			continue
		}
		c, isConst := rest.IsConst()
		if !p.isNonneg(f.Num) && !(eq && isConst && c == 0) {
			continue
		}
		mod := fmt.Sprintf("%s %% %d", p.paren(f.Num), f.Den)
		if f.Coef < 0 { // m + rest >= 0
			return mod + op + p.expr(rest.neg())
		}
		if eq {
			return mod + op + p.expr(rest)
		}
		return mod + " <= " + p.expr(rest)
	}
	ts, c := p.terms(a, false)
	var left, right []cTerm
	for _, t := range ts {
		if t.coef > 0 {
			left = append(left, t)
		} else {
			right = append(right, cTerm{-t.coef, t.atom})
		}
	}
	switch {
	case len(left) == 0:
		return sum(nil, c) + op + sum(right, 0)
	case len(right) == 0:
		return sum(left, 0) + op + sum(nil, -c)
	}
	return sum(left, 0) + op + sum(right, -c)
}
