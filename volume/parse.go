// This file parses isl notation: "[N] -> { S[i, j] : 0 <= i < N and exists (e : i + j = 2e) }",
// maps "{ A[i, j] -> B[i + 1, 2j] }", floor/ceil/mod, chains, lists, not, or, and ";"-separated
// pieces in different tuples.

package volume

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ErrSyntax is wrapped by every parse error.
var ErrSyntax = errors.New("volume: syntax error")

// ParseError is a syntax error at a byte offset of the parsed text. It wraps ErrSyntax.
type ParseError struct {
	Offset int    // byte offset of the offending token (the input length at its end)
	Near   string // the offending token, "" at the end of the input
	Msg    string
}

func (e *ParseError) Error() string {
	if e.Near == "" && e.Offset < 0 {
		return "volume: syntax error: " + e.Msg
	}
	where := "end of input"
	if e.Near != "" {
		where = fmt.Sprintf("%q at offset %d", e.Near, e.Offset)
	}
	return fmt.Sprintf("volume: syntax error: %s (at %s)", e.Msg, where)
}

func (e *ParseError) Unwrap() error { return ErrSyntax }

func parseErr(offset int, near, format string, args ...any) error {
	return &ParseError{Offset: offset, Near: near, Msg: fmt.Sprintf(format, args...)}
}

// maxParseLen bounds the input accepted by the parsers (1 MiB), so that hostile input cannot make
// them allocate without bound.
const maxParseLen = 1 << 20

// maxDisjuncts bounds the disjunctive normal form of one formula (after simplifyDNF), and
// maxProductDisjuncts the product of two forms before it is simplified.
const (
	maxDisjuncts        = 4096
	maxProductDisjuncts = 16 * maxDisjuncts
)

// ParseSet parses a set in isl notation. The parse is one operation: its projections and
// emptiness tests share one work budget (see ErrTooComplex).
func ParseSet(s string) (Set, error) { return ParseSetContext(context.Background(), s) }

// ParseSetContext is ParseSet that stops with ctx's error when ctx is done.
func ParseSetContext(ctx context.Context, s string) (Set, error) {
	u, isMap, err := parseUnion(ctx, s, wantSet)
	if err != nil {
		return Set{}, err
	}
	if isMap {
		return Set{}, fmt.Errorf("%w: expected a set, got a map: %q", ErrSyntax, clip(s))
	}
	return Set{u}, nil
}

// ParseMap parses a map in isl notation (one operation, as ParseSet).
func ParseMap(s string) (Map, error) { return ParseMapContext(context.Background(), s) }

// ParseMapContext is ParseMap that stops with ctx's error when ctx is done.
func ParseMapContext(ctx context.Context, s string) (Map, error) {
	u, isMap, err := parseUnion(ctx, s, wantMap)
	if err != nil {
		return Map{}, err
	}
	if !isMap && len(u.spaces) > 0 {
		return Map{}, fmt.Errorf("%w: expected a map, got a set: %q", ErrSyntax, clip(s))
	}
	return Map{u}, nil
}

// MustParseSet is ParseSet for literals known to be valid; it panics on error.
func MustParseSet(s string) Set {
	r, err := ParseSet(s)
	if err != nil {
		panic(err)
	}
	return r
}

// MustParseMap is ParseMap for literals known to be valid; it panics on error.
func MustParseMap(s string) Map {
	r, err := ParseMap(s)
	if err != nil {
		panic(err)
	}
	return r
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

// parseUnion parses a set or a map; want says which the caller takes, so that a piece of the
// other kind is refused as soon as its tuples are read, before its constraints cost any
// elimination (ParseMap of a set text used to project and coalesce it first).
func parseUnion(ctx context.Context, s string, want parseKind) (u union, isMap bool, err error) {
	if len(s) > maxParseLen {
		return union{}, false, fmt.Errorf("%w: input of %d bytes exceeds the limit of %d", ErrSyntax, len(s), maxParseLen)
	}
	toks, err := tokenize(s)
	if err != nil {
		return union{}, false, err
	}
	p := &parser{toks: toks, src: s, bg: newBudget(ctx), want: want}
	var perr error
	err = try(func() { u, isMap, perr = p.parseTop() })
	if err == nil {
		err = perr
	}
	if err != nil {
		return union{}, false, err
	}
	return u, isMap, nil
}

// ---- tokens ----

type tokKind int

const (
	tEOF tokKind = iota
	tIdent
	tInt
	tPunct
)

type token struct {
	kind tokKind
	text string
	val  int64
	pos  int
}

func tokenize(s string) ([]token, error) {
	var toks []token
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c >= '0' && c <= '9':
			j := i
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			v, err := strconv.ParseInt(s[i:j], 10, 64)
			if err != nil {
				return nil, parseErr(i, s[i:j], "integer %s out of the int64 range", s[i:j])
			}
			toks = append(toks, token{tInt, s[i:j], v, i})
			i = j
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '$':
			j := i
			for j < len(s) && (s[j] == '_' || s[j] == '\'' || s[j] == '$' || s[j] == '.' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			toks = append(toks, token{tIdent, s[i:j], 0, i})
			i = j
		default:
			two := ""
			if i+1 < len(s) {
				two = s[i : i+2]
			}
			switch two {
			case "->", "<=", ">=", "!=", "==", ":=", "&&", "||", "//":
				toks = append(toks, token{tPunct, two, 0, i})
				i += 2
				continue
			}
			if strings.ContainsRune("{}[](),:;+-*/%=<>", rune(c)) {
				toks = append(toks, token{tPunct, string(c), 0, i})
				i++
				continue
			}
			return nil, parseErr(i, string(c), "unexpected character %q", c)
		}
	}
	toks = append(toks, token{tEOF, "", 0, len(s)})
	return toks, nil
}

// ---- parser state ----

type varKind int

const (
	vParam varKind = iota
	vDim
	vDiv
	vEx
	vDefEx // an existential defined as the floor of an expression with existentials
)

type pvar struct {
	kind varKind
	idx  int // parameter index, dimension index, or creation order
	def  lin // div definition numerator
	den  int64
}

// lin is an affine expression over the variables of the piece being parsed, with rational
// coefficients: (c + Σ t[v]·v) / d. isl reads "i/2" as a rational expression (its floor is a
// div, a constraint over it is multiplied by its denominator), so the parser keeps expressions
// rational until a floor or a constraint makes them integral. d is 0 or 1 for an integral
// expression (lin{} is 0), otherwise d > 1.
type lin struct {
	c int64
	t map[int]int64
	d int64
}

func constLin(c int64) lin { return lin{c: c} }

func varLin(v int) lin { return lin{t: map[int]int64{v: 1}} }

// den is the denominator of a (1 for an integral expression).
func (a lin) den() int64 { return max(a.d, 1) }

// add returns a + s·b.
func (a lin) add(b lin, s int64) lin {
	if a.den() != b.den() {
		l := lcm(a.den(), b.den())
		a, b = a.numScale(l/a.den()), b.numScale(l/b.den())
		a.d, b.d = l, l
	}
	r := lin{c: addc(a.c, mulc(s, b.c)), t: map[int]int64{}, d: a.d}
	for k, v := range a.t {
		r.t[k] = v
	}
	for k, v := range b.t {
		r.t[k] = addc(r.t[k], mulc(s, v))
		if r.t[k] == 0 {
			delete(r.t, k)
		}
	}
	return r.reduce()
}

// scale returns s·a.
func (a lin) scale(s int64) lin { return a.numScale(s).reduce() }

// numScale multiplies the numerator of a by s (the denominator is kept).
func (a lin) numScale(s int64) lin {
	r := lin{c: mulc(a.c, s), t: map[int]int64{}, d: a.d}
	if s == 0 {
		return lin{}
	}
	for k, v := range a.t {
		r.t[k] = mulc(v, s)
	}
	return r
}

// divBy returns a/k for k > 0.
func (a lin) divBy(k int64) lin {
	r := a.numScale(1)
	r.d = mulc(a.den(), k)
	return r.reduce()
}

// reduce writes the denominator 1 as 0. It keeps a common factor of numerator and
// denominator: floor((4i + 2)/2) stays a div of that numerator, as printed, so that
// print→parse→print is stable.
func (a lin) reduce() lin {
	if a.d <= 1 {
		a.d = 0
	}
	return a
}

// num returns the numerator of a: a times its denominator, an integral expression.
func (a lin) num() lin {
	a.d = 0
	return a
}

func (a lin) isConst() bool { return len(a.t) == 0 }

// atom is one constraint: lin = 0 (eq) or lin >= 0.
type atom struct {
	l  lin
	eq bool
}

// conj is a conjunction of atoms; dnf is a disjunction of conjunctions.
type conj []atom
type dnf []conj

type parser struct {
	toks   []token
	pos    int
	src    string
	params []string
	// per piece
	vars  []pvar
	names map[string]lin // identifiers in scope: dims, exists variables, aliases
	// defs holds the constraints defining floors of expressions with existential variables
	// (q = floor(e/d) as d*q <= e <= d*q + d - 1). q is a function of the other variables, so the
	// definitions hold in every disjunct of the piece and are never negated.
	defs conj
	bg   *budget   // the work budget of the whole parse
	want parseKind // a set or a map: the other kind is an error
	// firstPiece is set while the first piece is parsed: its kind is the union's (a later
	// piece of another kind is parseTop's "cannot mix sets and maps")
	firstPiece bool
}

// parseKind is what a parse takes: a set or a map.
type parseKind int

const (
	wantSet parseKind = iota
	wantMap
)

func (p *parser) peek() token { return p.toks[p.pos] }
func (p *parser) peekN(n int) token {
	if p.pos+n < len(p.toks) {
		return p.toks[p.pos+n]
	}
	return p.toks[len(p.toks)-1]
}
func (p *parser) next() token {
	t := p.toks[p.pos]
	if p.pos < len(p.toks)-1 {
		p.pos++
	}
	return t
}
func (p *parser) is(text string) bool {
	t := p.peek()
	return (t.kind == tPunct || t.kind == tIdent) && t.text == text
}
func (p *parser) accept(text string) bool {
	if p.is(text) {
		p.next()
		return true
	}
	return false
}
func (p *parser) errf(format string, args ...any) error {
	t := p.peek()
	return parseErr(t.pos, t.text, format, args...)
}
func (p *parser) expect(text string) error {
	if !p.accept(text) {
		return p.errf("expected %q", text)
	}
	return nil
}

func (p *parser) parseTop() (union, bool, error) {
	if p.is("[") {
		// parameter list: [N, M] ->
		p.next()
		for !p.is("]") {
			t := p.next()
			if t.kind != tIdent || reserved[t.text] {
				return union{}, false, p.errf("expected a parameter name")
			}
			if slices.Contains(p.params, t.text) {
				return union{}, false, p.errf("parameter %s declared twice", t.text)
			}
			p.params = append(p.params, t.text)
			if !p.accept(",") {
				break
			}
		}
		if err := p.expect("]"); err != nil {
			return union{}, false, err
		}
		if err := p.expect("->"); err != nil {
			return union{}, false, err
		}
	}
	if err := p.expect("{"); err != nil {
		return union{}, false, err
	}
	u := union{params: p.params}
	isMap, first := false, true
	for !p.is("}") {
		p.firstPiece = first
		pieces, sp, pm, err := p.parsePiece()
		if err != nil {
			return union{}, false, err
		}
		if !first && pm != isMap {
			return union{}, false, p.errf("cannot mix sets and maps")
		}
		isMap, first = pm, false
		u.addSpace(sp)
		for _, b := range pieces {
			if b.tidy() && !b.isEmpty(p.bg) {
				b.nonEmpty = true
				b.dropUnusedDivs()
				b.tidied = true
				u.pieces = append(u.pieces, b)
			}
		}
		if !p.accept(";") {
			break
		}
	}
	if err := p.expect("}"); err != nil {
		return union{}, false, err
	}
	if p.peek().kind != tEOF {
		return union{}, false, p.errf("unexpected trailing input")
	}
	return u, isMap, nil
}

// parsePiece parses "tuple [-> tuple] [: formula]".
func (p *parser) parsePiece() ([]*basic, space, bool, error) {
	p.vars = nil
	p.defs = nil
	p.names = map[string]lin{}
	for i, n := range p.params {
		p.vars = append(p.vars, pvar{kind: vParam, idx: i})
		p.names[n] = varLin(len(p.vars) - 1)
	}
	var extra conj
	in, err := p.parseTuple(0, &extra)
	if err != nil {
		return nil, space{}, false, err
	}
	isMap := false
	var out tuple
	if p.accept("->") {
		isMap = true
		out, err = p.parseTuple(in.n(), &extra)
		if err != nil {
			return nil, space{}, false, err
		}
	} else {
		in, out = tuple{}, in
	}
	switch {
	case !p.firstPiece:
	case p.want == wantSet && isMap:
		return nil, space{}, false, fmt.Errorf("%w: expected a set, got a map: %q", ErrSyntax, clip(p.src))
	case p.want == wantMap && !isMap:
		return nil, space{}, false, fmt.Errorf("%w: expected a map, got a set: %q", ErrSyntax, clip(p.src))
	}
	f := dnf{conj{}}
	if p.accept(":") {
		f, err = p.parseDisjunction(false)
		if err != nil {
			return nil, space{}, false, err
		}
	}
	var pieces []*basic
	for _, c := range f {
		b := p.build(in, out, append(append(append(conj{}, extra...), p.defs...), c...))
		pieces = append(pieces, coalesceProjection(b.eliminateEx(p.bg), p.bg)...)
	}
	return pieces, space{in, out}, isMap, nil
}

// parseTuple parses name[e1, ..., en]; fresh identifiers name new dims, other expressions
// create anonymous dims constrained to be equal to them.
func (p *parser) parseTuple(first int, extra *conj) (tuple, error) {
	var t tuple
	if p.peek().kind == tIdent && !reserved[p.peek().text] && p.peekN(1).text == "[" {
		t.name = p.next().text
	}
	if err := p.expect("["); err != nil {
		return t, err
	}
	idx := first
	for !p.is("]") {
		tk := p.peek()
		nt := p.peekN(1)
		if tk.kind == tIdent && !reserved[tk.text] && (nt.text == "," || nt.text == "]") {
			if _, bound := p.names[tk.text]; !bound {
				p.next()
				p.vars = append(p.vars, pvar{kind: vDim, idx: idx})
				p.names[tk.text] = varLin(len(p.vars) - 1)
				t.dims = append(t.dims, tk.text)
				idx++
				if !p.accept(",") {
					break
				}
				continue
			}
		}
		// "name = expr" or an expression
		var name string
		if tk.kind == tIdent && nt.text == "=" {
			if _, bound := p.names[tk.text]; !bound {
				name = tk.text
				p.next()
				p.next()
			}
		}
		e, err := p.parseExpr()
		if err != nil {
			return t, err
		}
		p.vars = append(p.vars, pvar{kind: vDim, idx: idx})
		v := len(p.vars) - 1
		*extra = append(*extra, atom{varLin(v).add(e, -1).num(), true})
		if name != "" {
			p.names[name] = varLin(v)
		}
		t.dims = append(t.dims, name)
		idx++
		if !p.accept(",") {
			break
		}
	}
	return t, p.expect("]")
}

// build turns a conjunction into a basic with existentials for the exists variables.
func (p *parser) build(in, out tuple, c conj) *basic {
	b := newBasic(len(p.params), in, out)
	// divs in creation order (they only refer to earlier variables), then existentials
	col := map[int]int{}
	for v, pv := range p.vars {
		switch pv.kind {
		case vParam:
			col[v] = 1 + pv.idx
		case vDim:
			col[v] = 1 + len(p.params) + pv.idx
		}
	}
	var exVars []int
	for v, pv := range p.vars {
		if pv.kind == vEx || pv.kind == vDefEx {
			exVars = append(exVars, v)
		}
	}
	for v, pv := range p.vars {
		if pv.kind != vDiv {
			continue
		}
		num := make([]int64, b.width())
		num[0] = pv.def.c
		for k, x := range pv.def.t {
			num[col[k]] = x
		}
		b.insertCols(b.exStart(), 1)
		num = append(num, 0)
		b.divs = append(b.divs, div{num: num, den: pv.den})
		col[v] = b.exStart() - 1
	}
	for _, v := range exVars {
		b.insertCols(b.width(), 1)
		b.nEx++
		col[v] = b.width() - 1
	}
	row := func(l lin) []int64 {
		r := b.newRow()
		r[0] = l.c
		for k, x := range l.t {
			r[col[k]] = addc(r[col[k]], x)
		}
		return r
	}
	for _, a := range c {
		if a.eq {
			b.eqs = append(b.eqs, row(a.l))
		} else {
			b.ineqs = append(b.ineqs, row(a.l))
		}
	}
	return b
}

// ---- formulas ----

func (p *parser) parseOr() (dnf, error) { return p.parseDisjunction(true) }

// parseDisjunction parses a disjunction; with simplify, its DNF is simplified. A piece's own
// disjunction is not: it is what the printer writes (pieces, each a conjunction of atoms), and
// reading printed text must give its pieces back, duplicates included (print→parse→print is
// stable); the disjunctions nested in it and the products of and are.
func (p *parser) parseDisjunction(simplify bool) (dnf, error) {
	f, err := p.parseAnd()
	if err != nil {
		return nil, err
	}
	for p.accept("or") || p.accept("||") {
		g, err := p.parseAnd()
		if err != nil {
			return nil, err
		}
		f = append(f, g...)
		if len(f) > maxDisjuncts {
			return nil, p.errf("formula has more than %d disjuncts", maxDisjuncts)
		}
	}
	if simplify && len(f) > 1 {
		// "x or true" is true, "a or (a and b)" is a: each conjunction costs a projection and
		// every later operation a piece
		f = simplifyDNF(f)
	}
	return f, nil
}

func (p *parser) parseAnd() (dnf, error) {
	f, err := p.parseNot()
	if err != nil {
		return nil, err
	}
	for p.accept("and") || p.accept("&&") {
		g, err := p.parseNot()
		if err != nil {
			return nil, err
		}
		if len(f)*len(g) > maxProductDisjuncts {
			return nil, p.errf("formula has more than %d disjuncts", maxDisjuncts)
		}
		var h dnf
		for _, a := range f {
			for _, b := range g {
				h = append(h, append(append(conj{}, a...), b...))
			}
		}
		if len(h) > 1 {
			if h = simplifyDNF(h); len(h) > maxDisjuncts {
				return nil, p.errf("formula has more than %d disjuncts", maxDisjuncts)
			}
		}
		f = h
	}
	return f, nil
}

func (p *parser) parseNot() (dnf, error) {
	if p.accept("not") {
		nvars := len(p.vars)
		f, err := p.parseNot()
		if err != nil {
			return nil, err
		}
		for v := nvars; v < len(p.vars); v++ {
			if p.vars[v].kind == vEx {
				return nil, p.errf("negation of an existentially quantified formula is not supported")
			}
		}
		return p.negate(f)
	}
	if p.accept("true") {
		return dnf{conj{}}, nil
	}
	if p.accept("false") {
		return dnf{}, nil
	}
	if p.is("exists") {
		p.next()
		if err := p.expect("("); err != nil {
			return nil, err
		}
		saved := make(map[string]lin, len(p.names))
		for k, v := range p.names {
			saved[k] = v
		}
		for {
			t := p.next()
			if t.kind != tIdent || reserved[t.text] {
				return nil, p.errf("expected an existential variable name")
			}
			if p.accept("=") {
				e, err := p.parseExpr()
				if err != nil {
					return nil, err
				}
				p.names[t.text] = e
			} else {
				p.vars = append(p.vars, pvar{kind: vEx})
				p.names[t.text] = varLin(len(p.vars) - 1)
			}
			if !p.accept(",") {
				break
			}
		}
		if err := p.expect(":"); err != nil {
			return nil, err
		}
		f, err := p.parseOr()
		if err != nil {
			return nil, err
		}
		if err := p.expect(")"); err != nil {
			return nil, err
		}
		p.names = saved
		return f, nil
	}
	if p.is("(") {
		// a parenthesised formula, or an expression that starts a comparison
		save, nv := p.pos, len(p.vars)
		p.next()
		f, err := p.parseOr()
		if err == nil && p.accept(")") && !p.isRelOrArith() {
			return f, nil
		}
		if pe := (*ParseError)(nil); errors.As(err, &pe) && strings.Contains(pe.Msg, "disjuncts") {
			return nil, err // a formula too large, not an expression: say so
		}
		p.pos, p.vars = save, p.vars[:nv]
	}
	return p.parseChain()
}

func (p *parser) isRelOrArith() bool {
	for _, op := range []string{"<", "<=", ">", ">=", "=", "==", "!=", "+", "-", "*", "/", "//", "%", "mod", ","} {
		if p.is(op) {
			return true
		}
	}
	return false
}

// negate returns the DNF of ¬f.
func (p *parser) negate(f dnf) (dnf, error) {
	res := dnf{conj{}}
	for _, c := range f {
		// ¬c = ∨ ¬atom
		var nc dnf
		for _, a := range c {
			if a.eq {
				nc = append(nc, conj{{a.l.add(constLin(1), 1).scale(-1), false}}, conj{{a.l.add(constLin(-1), 1), false}})
			} else {
				nc = append(nc, conj{{a.l.scale(-1).add(constLin(-1), 1), false}})
			}
		}
		if len(res)*len(nc) > maxProductDisjuncts {
			return nil, p.errf("negation has more than %d disjuncts", maxDisjuncts)
		}
		var h dnf
		for _, a := range res {
			for _, b := range nc {
				h = append(h, append(append(conj{}, a...), b...))
			}
		}
		if res = h; len(res) > 64 {
			res = simplifyDNF(res)
		}
		if len(res) > maxDisjuncts {
			return nil, p.errf("negation has more than %d disjuncts", maxDisjuncts)
		}
	}
	return res, nil
}

var relOps = []string{"<=", "<", ">=", ">", "=", "==", "!="}

// parseChain parses "list op list op list ...", e.g. "0 <= i, j < N".
func (p *parser) parseChain() (dnf, error) {
	lists := [][]lin{}
	var ops []string
	l, err := p.parseList()
	if err != nil {
		return nil, err
	}
	lists = append(lists, l)
	for {
		op := ""
		for _, o := range relOps {
			if p.is(o) {
				op = o
				break
			}
		}
		if op == "" {
			break
		}
		p.next()
		l, err := p.parseList()
		if err != nil {
			return nil, err
		}
		ops = append(ops, op)
		lists = append(lists, l)
	}
	if len(ops) == 0 {
		return nil, p.errf("expected a comparison")
	}
	f := dnf{conj{}}
	for k, op := range ops {
		var g dnf
		for _, a := range lists[k] {
			for _, b := range lists[k+1] {
				c := compare(a, op, b)
				if len(g)*len(c) > maxDisjuncts { // "a, b, ... != x, y, ..." doubles g per pair
					return nil, p.errf("formula has more than %d disjuncts", maxDisjuncts)
				}
				g = and(g, c)
			}
		}
		if len(f)*len(g) > maxDisjuncts {
			return nil, p.errf("formula has more than %d disjuncts", maxDisjuncts)
		}
		var h dnf
		for _, x := range f {
			for _, y := range g {
				h = append(h, append(append(conj{}, x...), y...))
			}
		}
		f = h
	}
	return f, nil
}

func and(f, g dnf) dnf {
	if f == nil {
		return g
	}
	var h dnf
	for _, x := range f {
		for _, y := range g {
			h = append(h, append(append(conj{}, x...), y...))
		}
	}
	return h
}

// compare returns the DNF of a op b. As in isl, a < b is a <= b - 1 also when a or b is
// rational (i/2 < 1 is i <= 0), and a constraint over rational expressions is multiplied by
// their (positive) denominator.
func compare(a lin, op string, b lin) dnf {
	ge := func(l lin) atom { return atom{l.num(), false} }
	gt := func(l lin) atom { return atom{l.add(constLin(-1), 1).num(), false} }
	switch op {
	case "<=":
		return dnf{conj{ge(b.add(a, -1))}}
	case "<":
		return dnf{conj{gt(b.add(a, -1))}}
	case ">=":
		return dnf{conj{ge(a.add(b, -1))}}
	case ">":
		return dnf{conj{gt(a.add(b, -1))}}
	case "=", "==":
		return dnf{conj{{a.add(b, -1).num(), true}}}
	default: // !=
		return dnf{conj{gt(b.add(a, -1))}, conj{gt(a.add(b, -1))}}
	}
}

func (p *parser) parseList() ([]lin, error) {
	var l []lin
	for {
		e, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		l = append(l, e)
		if !p.is(",") {
			return l, nil
		}
		// a comma continues the list only if an expression follows that is not a new piece
		save := p.pos
		p.next()
		if _, err := p.peekExprStart(); err != nil {
			p.pos = save
			return l, nil
		}
	}
}

func (p *parser) peekExprStart() (bool, error) {
	t := p.peek()
	if t.kind == tInt || t.kind == tIdent && !reserved[t.text] || t.text == "(" || t.text == "-" || t.text == "floor" || t.text == "ceil" {
		return true, nil
	}
	return false, p.errf("expected an expression")
}

// ---- expressions ----

// Expressions follow isl's grammar (accept_affine and accept_affine_factor in isl_input.c),
// which TestISLPrecedence checks form by form against the installed isl:
//
//	expr    := ['+'] term { ('+' | '-') term }     any number of '-' before a term flip its sign
//	term    := INT ('*' | before IDENT) factor     the coefficient scales the whole factor, its
//	                                                mod included: 2i mod 8 = 2*(i mod 8)
//	         | INT ['//' cst]                       a constant, signed before the division
//	         | factor
//	factor  := primary ( mod INT | ['*' cst] ['/' cst] ['//' cst] )
//	primary := IDENT | '(' expr ')' | floor(expr) | ceil(expr) | INT ['*' factor]
//	cst     := INT {'*' INT}
//
// so -i mod 8 is -(i mod 8), a - b mod m is a - (b mod m), 2*3*i mod 4 is 2*(3*(i mod 4)) but
// 3*2*i*3 mod 4 is 3*((2*(i*3)) mod 4), "/" divides the factor before it (floor(i + j/2) is
// i + floor(j/2), i/2 = j is i = 2j), and a < b is a <= b - 1 also for rational a, b. Where isl
// rejects a form, so does the parser (a constant or a product before mod at the level of
// terms, "i*2 mod 8", "i mod 8 mod 3", "i mod 8 * 2"), with a message saying how to write it;
// its extensions read as their isl spelling: a coefficient before "(", floor or ceil as with
// "*" (2(i + j) is 2*(i + j)), a leading "+", "- 3" as "-3" after "*".

func (p *parser) parseExpr() (lin, error) {
	var e lin
	p.accept("+")
	for {
		sign := int64(1)
		for p.accept("-") {
			sign = -sign
		}
		t, err := p.parseTerm(sign)
		if err != nil {
			return lin{}, err
		}
		e = e.add(t, 1)
		switch {
		case p.accept("+"):
		case p.is("-"):
		case p.is("mod") || p.is("%"):
			return lin{}, p.errf("isl does not read mod after a constant, a product or a mod: write (e) mod m")
		case p.is("*") || p.is("/") || p.is("//"):
			return lin{}, p.errf("isl does not read %s after a mod or a scaled term: write (e)%s", p.peek().text, p.peek().text)
		default:
			return e, nil
		}
	}
}

// startsFactor reports whether the next token can start a factor that a coefficient scales:
// an identifier (isl), or "(", floor, ceil (graphc's juxtaposition, as with "*").
func (p *parser) startsFactor() bool {
	n := p.peek()
	return n.kind == tIdent && !isOpWord(n.text) || n.text == "("
}

// parseTerm parses a term preceded by sign (±1) and returns it signed: isl signs a constant
// before it divides it (- 5 // 2 is -3).
func (p *parser) parseTerm(sign int64) (lin, error) {
	t := p.peek()
	if t.kind != tInt {
		f, err := p.parseFactor()
		return f.scale(sign), err
	}
	p.next()
	v := mulc(sign, t.val)
	if p.accept("*") || p.startsFactor() {
		f, err := p.parseFactor()
		return f.scale(v), err
	}
	if p.accept("//") {
		d, err := p.cstFactor()
		if err != nil {
			return lin{}, err
		}
		return constLin(floorDiv(v, d)), nil
	}
	return constLin(v), nil
}

// cstFactor parses a positive constant, a product of INTs (isl's accept_cst_factor), as a
// divisor.
func (p *parser) cstFactor() (int64, error) {
	v := int64(1)
	for {
		t := p.next()
		if t.kind != tInt || t.val <= 0 {
			return 0, parseErr(t.pos, t.text, "expected a positive integer divisor")
		}
		v = mulc(v, t.val)
		if !p.accept("*") {
			return v, nil
		}
	}
}

// signedInt parses an INT, or "-" INT (isl's lexer reads "-3" as one number).
func (p *parser) signedInt() (int64, bool) {
	if p.peek().kind == tInt {
		return p.next().val, true
	}
	if p.is("-") && p.peekN(1).kind == tInt {
		p.next()
		return negc(p.next().val), true
	}
	return 0, false
}

func (p *parser) parseFactor() (lin, error) {
	e, err := p.parsePrimary()
	if err != nil {
		return lin{}, err
	}
	if p.accept("mod") || p.accept("%") {
		t := p.next()
		if t.kind != tInt || t.val <= 0 {
			return lin{}, parseErr(t.pos, t.text, "expected a positive integer modulus")
		}
		q := p.floorDiv(e, t.val)
		return e.add(q.scale(t.val), -1), nil
	}
	if p.accept("*") {
		for {
			v, ok := p.signedInt()
			if !ok {
				if e.isConst() && e.den() == 1 && p.startsFactor() {
					return lin{}, p.errf("isl does not read a product whose second factor is not a constant: write %d*(...)", e.c)
				}
				return lin{}, p.errf("non-affine product: expected a constant factor")
			}
			e = e.scale(v)
			if !p.accept("*") {
				break
			}
		}
	}
	if p.accept("/") {
		d, err := p.cstFactor()
		if err != nil {
			return lin{}, err
		}
		e = e.divBy(d)
	}
	if p.accept("//") {
		d, err := p.cstFactor()
		if err != nil {
			return lin{}, err
		}
		e = p.floorDiv(e, d)
	}
	return e, nil
}

func (p *parser) parsePrimary() (lin, error) {
	t := p.peek()
	switch {
	case t.kind == tInt || t.text == "-" && p.peekN(1).kind == tInt:
		v, _ := p.signedInt()
		if p.accept("*") {
			f, err := p.parseFactor()
			return f.scale(v), err
		}
		return constLin(v), nil
	case t.text == "(":
		p.next()
		e, err := p.parseExpr()
		if err != nil {
			return lin{}, err
		}
		return e, p.expect(")")
	case t.kind == tIdent && (t.text == "floor" || t.text == "ceil"):
		p.next()
		if err := p.expect("("); err != nil {
			return lin{}, err
		}
		e, err := p.parseExpr()
		if err != nil {
			return lin{}, err
		}
		if err := p.expect(")"); err != nil {
			return lin{}, err
		}
		if t.text == "ceil" {
			return p.floorDiv(e.scale(-1), 1).scale(-1), nil
		}
		return p.floorDiv(e, 1), nil
	case t.kind == tIdent && !reserved[t.text]:
		p.next()
		if e, ok := p.names[t.text]; ok {
			return e, nil
		}
		return lin{}, parseErr(t.pos, t.text, "unknown identifier %s (declare parameters as [%s] -> { ... })", t.text, t.text)
	}
	return lin{}, p.errf("expected an expression")
}

func isOpWord(s string) bool { return s == "mod" || s == "and" || s == "or" }

// floorDiv returns a variable equal to floor(e/d) (e may be rational): a div when e has no
// existential, otherwise an existential with D*q <= num(e) <= D*q + D - 1, D = d·den(e).
func (p *parser) floorDiv(e lin, d int64) lin {
	d = mulc(d, e.den())
	e = e.num()
	if d == 1 {
		return e
	}
	if e.isConst() {
		return constLin(floorDiv(e.c, d))
	}
	hasEx := false
	for k := range e.t {
		if p.vars[k].kind == vEx || p.vars[k].kind == vDefEx {
			hasEx = true
		}
	}
	if !hasEx {
		for v, pv := range p.vars {
			if pv.kind == vDiv && pv.den == d && linEqual(pv.def, e) {
				return varLin(v)
			}
		}
		p.vars = append(p.vars, pvar{kind: vDiv, def: e, den: d})
		return varLin(len(p.vars) - 1)
	}
	p.vars = append(p.vars, pvar{kind: vDefEx})
	q := varLin(len(p.vars) - 1)
	// d*q <= e <= d*q + d - 1
	p.defs = append(p.defs, atom{e.add(q.scale(d), -1), false}, atom{q.scale(d).add(constLin(d-1), 1).add(e, -1), false})
	return q
}

func linEqual(a, b lin) bool {
	if a.c != b.c || len(a.t) != len(b.t) {
		return false
	}
	for k, v := range a.t {
		if b.t[k] != v {
			return false
		}
	}
	return true
}
