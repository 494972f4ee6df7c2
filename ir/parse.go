// This file parses the text format back into a Graph: parse(print(g)) rebuilds every op through
// the catalogue and restores restricted domains.

package ir

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/graphc/graphc/volume"
)

// maxTextLen bounds the text accepted by Parse (256 MiB).
const maxTextLen = 256 << 20

// ParseError is a text-format error with its line.
type ParseError struct {
	Line int
	Msg  string
}

func (e *ParseError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// Parse parses a graph in the text format.
func Parse(text string) (*Graph, error) {
	if len(text) > maxTextLen {
		return nil, fmt.Errorf("input of %d bytes exceeds the limit of %d", len(text), maxTextLen)
	}
	p := &textParser{s: stripComments(text)}
	g, err := p.graph()
	if err != nil {
		return nil, err
	}
	return g, nil
}

// stripComments removes // comments (the CHECK lines of test files), keeping line numbers.
func stripComments(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		inStr := false
		for j := 0; j+1 < len(l); j++ {
			if l[j] == '"' && (j == 0 || l[j-1] != '\\') {
				inStr = !inStr
			}
			if !inStr && l[j] == '/' && l[j+1] == '/' {
				lines[i] = l[:j]
				break
			}
		}
	}
	return strings.Join(lines, "\n")
}

type textParser struct {
	s string
	i int
	g *Graph
}

func (p *textParser) line() int { return strings.Count(p.s[:p.i], "\n") + 1 }

func (p *textParser) errf(format string, args ...any) error {
	return &ParseError{Line: p.line(), Msg: fmt.Sprintf(format, args...)}
}

func (p *textParser) skip() {
	for p.i < len(p.s) && strings.ContainsRune(" \t\r\n", rune(p.s[p.i])) {
		p.i++
	}
}

func (p *textParser) peekStr(t string) bool {
	p.skip()
	return strings.HasPrefix(p.s[p.i:], t)
}

func (p *textParser) accept(t string) bool {
	if p.peekStr(t) {
		p.i += len(t)
		return true
	}
	return false
}

func (p *textParser) expect(t string) error {
	if !p.accept(t) {
		got := p.s[p.i:min(p.i+20, len(p.s))]
		return p.errf("expected %q, got %q", t, got)
	}
	return nil
}

func isIdentByte(c byte, first bool) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || !first && (c >= '0' && c <= '9' || c == '.')
}

func (p *textParser) ident() string {
	p.skip()
	j := p.i
	for j < len(p.s) && isIdentByte(p.s[j], j == p.i) {
		j++
	}
	id := p.s[p.i:j]
	p.i = j
	return id
}

// graphName parses the name after "@": everything up to the parameters or operands, as the
// printer writes any graph name (model file stems such as add-f32 included).
func (p *textParser) graphName() string {
	j := p.i
	for j < len(p.s) && !strings.ContainsRune(" \t\r\n[(", rune(p.s[j])) {
		j++
	}
	id := p.s[p.i:j]
	p.i = j
	return id
}

// valueName parses %name (names may start with a digit).
func (p *textParser) valueName() (string, error) {
	if err := p.expect("%"); err != nil {
		return "", err
	}
	j := p.i
	for j < len(p.s) && isIdentByte(p.s[j], false) {
		j++
	}
	if j == p.i {
		return "", p.errf("expected a value name after %%")
	}
	n := p.s[p.i:j]
	p.i = j
	return n, nil
}

// balanced returns the text up to the matching close of the bracket at p.i.
func (p *textParser) balanced(open, close byte) (string, error) {
	p.skip()
	if p.i >= len(p.s) || p.s[p.i] != open {
		return "", p.errf("expected %q", open)
	}
	depth, inStr := 0, false
	for j := p.i; j < len(p.s); j++ {
		c := p.s[j]
		if c == '"' && (j == 0 || p.s[j-1] != '\\') {
			inStr = !inStr
		}
		if inStr {
			continue
		}
		if c == open {
			depth++
		} else if c == close {
			depth--
			if depth == 0 {
				t := p.s[p.i : j+1]
				p.i = j + 1
				return t, nil
			}
		}
	}
	return "", p.errf("unbalanced %q", open)
}

// typeText parses "elem[...]".
func (p *textParser) tensorType() (TensorType, error) {
	p.skip()
	start := p.i
	p.ident()
	if _, err := p.balanced('[', ']'); err != nil {
		return TensorType{}, err
	}
	t, err := ParseType(p.s[start:p.i])
	if err != nil {
		return TensorType{}, p.errf("%v", err)
	}
	return t, nil
}

func (p *textParser) graph() (*Graph, error) {
	if err := p.expect("graph"); err != nil {
		return nil, err
	}
	if err := p.expect("@"); err != nil {
		return nil, err
	}
	g := NewGraph(p.graphName())
	p.g = g
	var pend []pendingBounded
	if p.peekStr("[") {
		t, err := p.balanced('[', ']')
		if err != nil {
			return nil, err
		}
		for _, n := range splitTop(t[1:len(t)-1], ',') {
			pb, ok, err := parseBoundedParam(n)
			if err != nil {
				return nil, p.errf("%v", err)
			}
			if ok {
				pend = append(pend, pb)
				n = pb.param
			}
			if n != "" {
				g.AddParam(n)
			}
		}
	}
	if err := p.expect("("); err != nil {
		return nil, err
	}
	for !p.accept(")") {
		name, err := p.valueName()
		if err != nil {
			return nil, err
		}
		if err := p.expect(":"); err != nil {
			return nil, err
		}
		t, err := p.tensorType()
		if err != nil {
			return nil, err
		}
		if g.Lookup(name) != nil {
			return nil, p.errf("value %%%s defined twice", name)
		}
		v := g.AddInput(name, t)
		if v.Name != name {
			return nil, p.errf("invalid value name %%%s", name)
		}
		p.accept(",")
	}
	if err := p.expect("{"); err != nil {
		return nil, err
	}
	for {
		if p.accept("return") {
			for {
				p.skip()
				if p.peekStr("}") {
					break
				}
				n, err := p.valueName()
				if err != nil {
					return nil, err
				}
				v := g.Lookup(n)
				if v == nil {
					return nil, p.errf("return of undefined value %%%s", n)
				}
				g.Outputs = append(g.Outputs, v)
				if !p.accept(",") {
					break
				}
			}
			if err := p.expect("}"); err != nil {
				return nil, err
			}
			p.skip()
			if p.i != len(p.s) {
				return nil, p.errf("unexpected text after the graph")
			}
			if err := resolveBounded(g, pend); err != nil {
				return nil, p.errf("%v", err)
			}
			return g, nil
		}
		if p.i >= len(p.s) {
			return nil, p.errf("missing return")
		}
		if err := p.stmt(); err != nil {
			return nil, err
		}
	}
}

func (p *textParser) stmt() error {
	name, err := p.valueName()
	if err != nil {
		return err
	}
	if p.g.Lookup(name) != nil {
		return p.errf("value %%%s defined twice", name)
	}
	if err := p.expect("="); err != nil {
		return err
	}
	kind := p.ident()
	if kind == "constant" {
		return p.constant(name)
	}
	def := LookupOp(kind)
	if def == nil {
		return p.errf("unknown op %q", kind)
	}
	if err := p.expect("("); err != nil {
		return err
	}
	var operands []*Value
	for !p.accept(")") {
		n, err := p.valueName()
		if err != nil {
			return err
		}
		v := p.g.Lookup(n)
		if v == nil {
			return p.errf("use of undefined value %%%s", n)
		}
		operands = append(operands, v)
		p.accept(",")
	}
	attrs := Attrs{}
	if p.peekStr("{") {
		attrs, err = p.attrs()
		if err != nil {
			return err
		}
	}
	if err := p.expect(":"); err != nil {
		return err
	}
	t, err := p.tensorType()
	if err != nil {
		return err
	}
	src := ""
	if p.accept("loc(") {
		p.skip()
		s, err := p.quoted()
		if err != nil {
			return err
		}
		src = s
		if err := p.expect(")"); err != nil {
			return err
		}
	}
	op, err := MakeOp(p.g.Params, kind, src, operands, attrs)
	if err != nil {
		return p.errf("%v", err)
	}
	if !op.Result.Type.Equal(t) {
		return p.errf("%s yields %s, the text says %s", kind, op.Result.Type, t)
	}
	if p.accept("domain") {
		p.skip()
		start := p.i
		if p.s[p.i] == '[' {
			if _, err := p.balanced('[', ']'); err != nil {
				return err
			}
			if err := p.expect("->"); err != nil {
				return err
			}
		}
		if _, err := p.balanced('{', '}'); err != nil {
			return err
		}
		d, err := volume.ParseSet(p.s[start:p.i])
		if err != nil {
			return p.errf("domain: %v", err)
		}
		if d.PlainIsEmpty() && d.NPieces() == 0 {
			d = volume.EmptySet(p.g.Params, "", op.Dims)
		}
		if n := len(d.Tuples()); n != 1 {
			return p.errf("domain: a set of one space is needed, this one has %d", n)
		}
		if d.NDim() != op.NDim() {
			return p.errf("domain has %d dims, %s iterates over %d", d.NDim(), kind, op.NDim())
		}
		op.Domain = d.SetTupleName("").SetDimNames(op.Dims).DropUnusedParams()
	}
	op.Result.Name = name
	if p.g.names == nil {
		p.g.names = map[string]bool{}
	}
	p.g.names[name] = true
	p.g.Ops = append(p.g.Ops, op)
	return nil
}

func (p *textParser) quoted() (string, error) {
	p.skip()
	if p.i >= len(p.s) || p.s[p.i] != '"' {
		return "", p.errf("expected a string")
	}
	j := p.i + 1
	for j < len(p.s) && (p.s[j] != '"' || p.s[j-1] == '\\') {
		j++
	}
	if j >= len(p.s) {
		return "", p.errf("unterminated string")
	}
	s, err := strconv.Unquote(p.s[p.i : j+1])
	if err != nil {
		return "", p.errf("bad string: %v", err)
	}
	p.i = j + 1
	return s, nil
}

func (p *textParser) attrs() (Attrs, error) {
	a := Attrs{}
	if err := p.expect("{"); err != nil {
		return nil, err
	}
	for !p.accept("}") {
		k := p.ident()
		if k == "" {
			return nil, p.errf("expected an attribute name")
		}
		if err := p.expect("="); err != nil {
			return nil, err
		}
		v, err := p.attrValue()
		if err != nil {
			return nil, err
		}
		a[k] = v
		p.accept(",")
	}
	return a, nil
}

func (p *textParser) scalarLit() (string, error) {
	p.skip()
	j := p.i
	for j < len(p.s) && !strings.ContainsRune(",]} \t\n", rune(p.s[j])) {
		j++
	}
	if j == p.i {
		return "", p.errf("expected a value")
	}
	t := p.s[p.i:j]
	p.i = j
	return t, nil
}

func (p *textParser) attrValue() (Attr, error) {
	p.skip()
	if p.peekStr("\"") {
		s, err := p.quoted()
		return StringAttr(s), err
	}
	if p.accept("[") {
		var items []Attr
		for !p.accept("]") {
			v, err := p.attrValue()
			if err != nil {
				return Attr{}, err
			}
			items = append(items, v)
			p.accept(",")
		}
		if len(items) == 0 {
			return IntsAttr(), nil
		}
		switch items[0].Kind {
		case AttrString:
			var s []string
			for _, it := range items {
				s = append(s, it.Str)
			}
			return StringsAttr(s...), nil
		}
		allInt := true
		for _, it := range items {
			allInt = allInt && it.Kind == AttrInt
		}
		if allInt {
			var v []int64
			for _, it := range items {
				v = append(v, it.Int)
			}
			return IntsAttr(v...), nil
		}
		var f []float64
		for _, it := range items {
			if it.Kind == AttrInt {
				f = append(f, float64(it.Int))
			} else {
				f = append(f, it.Float)
			}
		}
		return FloatsAttr(f...), nil
	}
	lit, err := p.scalarLit()
	if err != nil {
		return Attr{}, err
	}
	if v, err := strconv.ParseInt(lit, 10, 64); err == nil {
		return IntAttr(v), nil
	}
	if v, err := strconv.ParseFloat(lit, 64); err == nil {
		return FloatAttr(v), nil
	}
	return Attr{}, p.errf("bad attribute value %q", lit)
}

func (p *textParser) constant(name string) error {
	p.skip()
	if p.peekStr(ElidedConstant) {
		return p.errf("constant %%%s was elided from a dump (dumps print large constants as %s; --print-constants prints their data)", name, ElidedConstant)
	}
	if err := p.expect("dense<"); err != nil {
		return err
	}
	var lits []string
	var raw []byte
	p.skip()
	if p.peekStr("\"") {
		s, err := p.quoted()
		if err != nil {
			return err
		}
		raw, err = hex.DecodeString(strings.TrimPrefix(s, "0x"))
		if err != nil {
			return p.errf("bad hex constant: %v", err)
		}
	} else {
		if err := p.expect("["); err != nil {
			return err
		}
		for !p.accept("]") {
			l, err := p.scalarLit()
			if err != nil {
				return err
			}
			lits = append(lits, l)
			p.accept(",")
		}
	}
	if err := p.expect(">"); err != nil {
		return err
	}
	if err := p.expect(":"); err != nil {
		return err
	}
	t, err := p.tensorType()
	if err != nil {
		return err
	}
	shape, ok := t.StaticShape()
	if !ok {
		return p.errf("constant %%%s has a symbolic shape %s", name, t)
	}
	var data *Tensor
	if raw != nil {
		data, err = TensorFromBytes(t.Elem, shape, raw)
		if err != nil {
			return p.errf("constant %%%s: %v", name, err)
		}
	} else {
		if int64(len(lits)) != NumElements(shape) {
			return p.errf("constant %%%s has %d values for shape %s", name, len(lits), t)
		}
		data = NewTensor(t.Elem, shape)
		for i, l := range lits {
			if t.Elem.IsFloat() {
				v, err := strconv.ParseFloat(l, 64)
				if err != nil {
					return p.errf("constant %%%s: bad value %q", name, l)
				}
				data.F[i] = RoundFloat(t.Elem, v)
			} else {
				v, err := strconv.ParseInt(l, 10, 64)
				if err != nil {
					return p.errf("constant %%%s: bad value %q", name, l)
				}
				data.I[i] = t.Elem.WrapInt(v)
			}
		}
	}
	v := p.g.AddConst(name, data)
	if v.Name != name {
		return p.errf("invalid constant name %%%s", name)
	}
	return nil
}
