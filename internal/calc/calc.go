// This file parses and evaluates calculator statements.

package calc

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/graphc/graphc/volume"
)

type kind int

const (
	kSet kind = iota
	kMap
	kBool
	kInt
	kCode
)

func (k kind) String() string {
	return [...]string{"a set", "a map", "a boolean", "an integer", "code"}[k]
}

type value struct {
	k    kind
	set  volume.Set
	m    volume.Map
	b    bool
	n    int64
	code string
	ok   bool // set by binary when the operand kinds fit the operator
}

func (v value) String() string {
	switch v.k {
	case kSet:
		return v.set.Coalesce().String()
	case kMap:
		return v.m.Coalesce().String()
	case kBool:
		if v.b {
			return "True"
		}
		return "False"
	case kInt:
		return strconv.FormatInt(v.n, 10)
	}
	return strings.TrimRight(v.code, "\n")
}

// Run executes the statements of src and writes the value of each expression statement to w,
// one per line. It stops at the first error, which carries the line and column.
func Run(src string, w io.Writer) error {
	toks, err := lex(src)
	if err != nil {
		return err
	}
	in := &interp{src: src, toks: toks, vars: map[string]value{}}
	for {
		for in.accept(";") {
		}
		if in.peek().kind == tEOF {
			return nil
		}
		if err := in.statement(w); err != nil {
			return err
		}
		if in.peek().kind != tEOF && !in.accept(";") {
			return in.errHere("expected \";\" between statements")
		}
	}
}

type interp struct {
	src  string
	toks []token
	pos  int
	vars map[string]value
}

func (in *interp) peek() token { return in.toks[in.pos] }

func (in *interp) next() token {
	t := in.toks[in.pos]
	if in.pos < len(in.toks)-1 {
		in.pos++
	}
	return t
}

func (in *interp) is(s string) bool {
	t := in.peek()
	return (t.kind == tPunct || t.kind == tIdent) && t.text == s
}

func (in *interp) accept(s string) bool {
	if in.is(s) {
		in.next()
		return true
	}
	return false
}

func (in *interp) errHere(format string, args ...any) error {
	t := in.peek()
	if t.kind == tEOF {
		return errAt(in.src, t.pos, "%s (at the end of the input)", fmt.Sprintf(format, args...))
	}
	return errAt(in.src, t.pos, "%s (at %q)", fmt.Sprintf(format, args...), t.text)
}

func (in *interp) statement(w io.Writer) error {
	if t := in.peek(); t.kind == tIdent && !keywords[t.text] && in.toks[in.pos+1].text == ":=" {
		in.next()
		in.next()
		v, err := in.expr()
		if err != nil {
			return err
		}
		in.vars[t.text] = v
		return nil
	}
	v, err := in.expr()
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, v)
	return err
}

// Operators lists the calculator's operators, one per line (graphc calc --help prints it; the
// package doc holds the same table).
const Operators = `A * B       intersection (a map times a set intersects the map's domain)
A + B       union
A - B       difference
M(S)        image of the set S under the map M
M . N       composition: { x -> z : x -> y in M, y -> z in N }
M^-1        inverse of a map
dom M       domain;  ran M  range
lexmin S    lexicographic minimum per tuple (sets without parameters); lexmax S likewise
card S      number of points of a bounded set without parameters, over all its tuples
sample S    one point of S
coalesce S  S with fewer pieces
codegen S   C loops that visit the points of S in lexicographic order, calling S(i, j, ...)
S <= T      subset;  S >= T  superset;  S = T  equality;  S < T, S > T strict
`

var keywords = map[string]bool{"dom": true, "ran": true, "lexmin": true, "lexmax": true, "card": true,
	"codegen": true, "sample": true, "coalesce": true}

// expr := sum [cmp sum]
func (in *interp) expr() (value, error) {
	a, err := in.sum()
	if err != nil {
		return value{}, err
	}
	for _, op := range []string{"<=", ">=", "=", "<", ">"} {
		if !in.is(op) {
			continue
		}
		t := in.next()
		b, err := in.sum()
		if err != nil {
			return value{}, err
		}
		return in.compare(t, op, a, b)
	}
	return a, nil
}

// sum := prod (("+" | "-") prod)*
func (in *interp) sum() (value, error) {
	a, err := in.prod()
	if err != nil {
		return value{}, err
	}
	for in.is("+") || in.is("-") {
		t := in.next()
		b, err := in.prod()
		if err != nil {
			return value{}, err
		}
		if a, err = in.binary(t, a, b); err != nil {
			return value{}, err
		}
	}
	return a, nil
}

// prod := unary (("*" | ".") unary)*
func (in *interp) prod() (value, error) {
	a, err := in.unary()
	if err != nil {
		return value{}, err
	}
	for in.is("*") || in.is(".") {
		t := in.next()
		b, err := in.unary()
		if err != nil {
			return value{}, err
		}
		if a, err = in.binary(t, a, b); err != nil {
			return value{}, err
		}
	}
	return a, nil
}

// unary := keyword unary | postfix
func (in *interp) unary() (value, error) {
	if t := in.peek(); t.kind == tIdent && keywords[t.text] {
		in.next()
		a, err := in.unary()
		if err != nil {
			return value{}, err
		}
		return in.apply(t, a)
	}
	return in.postfix()
}

// postfix := primary ("(" expr ")" | "^-1")*
func (in *interp) postfix() (value, error) {
	a, err := in.primary()
	if err != nil {
		return value{}, err
	}
	for {
		switch {
		case in.is("("):
			t := in.next()
			b, err := in.expr()
			if err != nil {
				return value{}, err
			}
			if !in.accept(")") {
				return value{}, in.errHere("expected \")\"")
			}
			if a.k != kMap || b.k != kSet {
				return value{}, errAt(in.src, t.pos, "application M(S) needs a map and a set, got %s and %s", a.k, b.k)
			}
			a = value{k: kSet, set: b.set.Apply(a.m)}
			if err := in.valueErr(t, a); err != nil {
				return value{}, err
			}
		case in.is("^-1"):
			t := in.next()
			if a.k != kMap {
				return value{}, errAt(in.src, t.pos, "^-1 needs a map, got %s", a.k)
			}
			a = value{k: kMap, m: a.m.Reverse()}
			if err := in.valueErr(t, a); err != nil {
				return value{}, err
			}
		default:
			return a, nil
		}
	}
}

func (in *interp) primary() (value, error) {
	t := in.peek()
	switch {
	case t.kind == tLiteral:
		in.next()
		return in.literal(t)
	case t.kind == tIdent && !keywords[t.text]:
		in.next()
		v, ok := in.vars[t.text]
		if !ok {
			return value{}, errAt(in.src, t.pos, "unknown variable %s (bind it first with %s := ...)", t.text, t.text)
		}
		return v, nil
	case in.is("("):
		in.next()
		v, err := in.expr()
		if err != nil {
			return value{}, err
		}
		if !in.accept(")") {
			return value{}, in.errHere("expected \")\"")
		}
		return v, nil
	}
	return value{}, in.errHere("expected a set, a map, a variable or \"(\"")
}

// literal parses an isl set or map; positions in its errors are made relative to the input.
func (in *interp) literal(t token) (value, error) {
	s, serr := volume.ParseSet(t.text)
	if serr == nil {
		return value{k: kSet, set: s}, nil
	}
	m, merr := volume.ParseMap(t.text)
	if merr == nil {
		return value{k: kMap, m: m}, nil
	}
	err := serr
	var pe *volume.ParseError
	if !errors.As(serr, &pe) && errors.Is(serr, volume.ErrSyntax) {
		err = merr // "expected a set, got a map": the map's own error is the useful one
	}
	if errors.As(err, &pe) {
		return value{}, errAt(in.src, t.pos+pe.Offset, "%s", pe.Msg)
	}
	return value{}, errAt(in.src, t.pos, "%v", err)
}

// valueErr returns the error of r when volume gave up computing it (space mismatch, overflow,
// too complex), as an error at token t.
func (in *interp) valueErr(t token, r value) error {
	if err := volume.FirstErr(r.set, r.m); err != nil {
		return in.volumeErr(t, err)
	}
	return nil
}

// volumeErr is volume's error err at token t.
func (in *interp) volumeErr(t token, err error) error {
	e := errAt(in.src, t.pos, "%s: %v", t.text, err)
	e.Err = err
	return e
}

func (in *interp) binary(t token, a, b value) (value, error) {
	var r value
	bad := func() error {
		return errAt(in.src, t.pos, "%q needs two sets or two maps, got %s and %s", t.text, a.k, b.k)
	}
	func() {
		switch {
		case a.k == kSet && b.k == kSet:
			switch t.text {
			case "*":
				r = value{k: kSet, set: a.set.Intersect(b.set), ok: true}
			case "+":
				r = value{k: kSet, set: a.set.Union(b.set), ok: true}
			case "-":
				r = value{k: kSet, set: a.set.Subtract(b.set), ok: true}
			}
		case a.k == kMap && b.k == kMap:
			switch t.text {
			case "*":
				r = value{k: kMap, m: a.m.Intersect(b.m), ok: true}
			case "+":
				r = value{k: kMap, m: a.m.Union(b.m), ok: true}
			case "-":
				r = value{k: kMap, m: a.m.Subtract(b.m), ok: true}
			case ".":
				r = value{k: kMap, m: a.m.ApplyRange(b.m), ok: true}
			}
		case a.k == kMap && b.k == kSet && t.text == "*":
			r = value{k: kMap, m: a.m.IntersectDomain(b.set), ok: true}
		}
	}()
	if err := in.valueErr(t, r); err != nil {
		return value{}, err
	}
	if !r.ok {
		return value{}, bad()
	}
	return r, nil
}

func (in *interp) compare(t token, op string, a, b value) (value, error) {
	if a.k != b.k || (a.k != kSet && a.k != kMap) {
		return value{}, errAt(in.src, t.pos, "%q compares two sets or two maps, got %s and %s", op, a.k, b.k)
	}
	sub := func(x, y value) volume.Tri {
		if x.k == kSet {
			return x.set.IsSubset(y.set)
		}
		return x.m.IsSubset(y.m)
	}
	var r volume.Tri
	switch op {
	case "<=":
		r = sub(a, b)
	case ">=":
		r = sub(b, a)
	case "=":
		r = sub(a, b).And(sub(b, a))
	case "<":
		r = sub(a, b).And(sub(b, a).Not())
	case ">":
		r = sub(b, a).And(sub(a, b).Not())
	}
	if !r.Known() {
		// the calculator answers exactly or not at all
		if err := volume.FirstErr(a.set, a.m, b.set, b.m); err != nil {
			return value{}, in.volumeErr(t, err)
		}
		return value{}, in.volumeErr(t, fmt.Errorf("%w: the comparison gave up", volume.ErrTooComplex))
	}
	return value{k: kBool, b: r == volume.Yes}, nil
}

// apply evaluates a prefix word on a.
func (in *interp) apply(t token, a value) (value, error) {
	need := func(k kind) error {
		if a.k != k {
			return errAt(in.src, t.pos, "%s needs %s, got %s", t.text, k, a.k)
		}
		return nil
	}
	var r value
	var ferr error
	fail := func(err error) {
		e := errAt(in.src, t.pos, "%s: %v", t.text, err)
		e.Err = err
		ferr = e
	}
	switch t.text {
	case "dom", "ran":
		if err := need(kMap); err != nil {
			return value{}, err
		}
	case "coalesce":
		if a.k != kMap {
			if err := need(kSet); err != nil {
				return value{}, err
			}
		}
	default:
		if err := need(kSet); err != nil {
			return value{}, err
		}
	}
	func() {
		switch t.text {
		case "dom":
			r = value{k: kSet, set: a.m.Domain()}
		case "ran":
			r = value{k: kSet, set: a.m.Range()}
		case "coalesce":
			r = a
		case "lexmin", "lexmax":
			f := a.set.Lexmin
			if t.text == "lexmax" {
				f = a.set.Lexmax
			}
			s, err := f()
			if err != nil {
				fail(err)
				return
			}
			r = value{k: kSet, set: s}
		case "card":
			if len(a.set.Params()) > 0 {
				fail(fmt.Errorf("the set has parameters %v: bind them first", a.set.Params()))
				return
			}
			var total int64
			for _, part := range a.set.Tuples() {
				n, err := part.Card(nil)
				if err != nil {
					fail(err)
					return
				}
				if total+n < total {
					fail(volume.ErrOverflow)
					return
				}
				total += n
			}
			r = value{k: kInt, n: total}
		case "sample":
			p, found := a.set.Sample()
			if !found.Known() {
				fail(fmt.Errorf("%w: no sample found", volume.ErrTooComplex))
				return
			}
			s := "{ }"
			if found == volume.Yes {
				s = pointText(a.set.Params(), p)
			}
			r = value{k: kSet, set: volume.MustParseSet(s)}
		case "codegen":
			code, err := codegen(a.set)
			if err != nil {
				fail(err)
				return
			}
			r = value{k: kCode, code: code}
		}
	}()
	if ferr != nil {
		return value{}, ferr
	}
	if err := in.valueErr(t, r); err != nil {
		return value{}, err
	}
	return r, nil
}

// pointText prints a sample point as a set: [N] -> { S[1, 2] : N = 3 }.
func pointText(params []string, p volume.Point) string {
	coords := make([]string, len(p.Coords))
	for i, c := range p.Coords {
		coords[i] = strconv.FormatInt(c, 10)
	}
	s := "{ " + p.Tuple + "[" + strings.Join(coords, ", ") + "]"
	if len(params) == 0 {
		return s + " }"
	}
	var cons []string
	for i, n := range params {
		cons = append(cons, fmt.Sprintf("%s = %d", n, p.Params[i]))
	}
	return "[" + strings.Join(params, ", ") + "] -> " + s + " : " + strings.Join(cons, " and ") + " }"
}

// codegen prints C loops that visit the points of s in lexicographic order, with isl's leaf
// convention S(c0, c1, ...) (S the tuple name). Tuples of one arity are scanned together.
func codegen(s volume.Set) (string, error) {
	var sb strings.Builder
	groups := map[int]volume.Set{}
	var order []int
	for _, part := range s.Tuples() {
		n := part.NDim()
		if g, ok := groups[n]; ok {
			groups[n] = g.Union(part)
		} else {
			groups[n] = part
			order = append(order, n)
		}
	}
	for _, n := range order {
		g := groups[n]
		ast, err := g.Scan()
		if err != nil {
			return "", err
		}
		names := make([]string, n)
		if len(g.Tuples()) == 1 {
			names = g.DimNames()
		}
		stmts := g.ScanStmtNames()
		sb.WriteString(volume.C(ast, names, func(k int) string {
			if k < len(stmts) && stmts[k] != "" {
				return stmts[k]
			}
			return "S"
		}))
	}
	return sb.String(), nil
}
