// This file holds Scalar, the expression DAG that is the body of an op: what each iteration
// computes from operand elements, iteration indices and constants.

package ir

import (
	"fmt"
	"strconv"
	"strings"
)

// Scalar is a node of an op body.
type Scalar struct {
	Op   ScalarOp
	Type DType
	Args []*Scalar
	Arg  int     // operand index (SRead, SDynRead, SAvail) or dimension (SIndex)
	Name string  // SParam
	F    float64 // SConst of a float type
	I    int64   // SConst of an integer type
}

// Read returns the element of operand k (of type t) at the op's access map.
func Read(k int, t DType) *Scalar { return &Scalar{Op: SRead, Arg: k, Type: t} }

// DynRead returns the element of operand k (type t) at data-dependent indices.
func DynRead(k int, t DType, idx ...*Scalar) *Scalar {
	return &Scalar{Op: SDynRead, Arg: k, Type: t, Args: idx}
}

// Avail returns whether operand k's access is defined at the current iteration.
func Avail(k int) *Scalar { return &Scalar{Op: SAvail, Arg: k, Type: Bool} }

// Index returns iteration dimension d as an i64.
func Index(d int) *Scalar { return &Scalar{Op: SIndex, Arg: d, Type: I64} }

// ConstF returns a float constant of type t.
func ConstF(t DType, v float64) *Scalar { return &Scalar{Op: SConst, Type: t, F: RoundFloat(t, v)} }

// ConstI returns an integer constant of type t.
func ConstI(t DType, v int64) *Scalar { return &Scalar{Op: SConst, Type: t, I: t.WrapInt(v)} }

// Const returns a constant of type t from a float64 value.
func Const(t DType, v float64) *Scalar {
	if t.IsFloat() {
		return ConstF(t, v)
	}
	return ConstI(t, int64(v))
}

// Un returns op(a), typed by op's rule.
func Un(op ScalarOp, a *Scalar) *Scalar {
	t := a.Type
	if op.IsCompare() {
		t = Bool
	}
	return &Scalar{Op: op, Type: t, Args: []*Scalar{a}}
}

// Bin returns op(a, b); comparisons yield i1.
func Bin(op ScalarOp, a, b *Scalar) *Scalar {
	t := a.Type
	if op.IsCompare() {
		t = Bool
	}
	return &Scalar{Op: op, Type: t, Args: []*Scalar{a, b}}
}

// Select returns c ? a : b.
func Select(c, a, b *Scalar) *Scalar {
	return &Scalar{Op: SSelect, Type: a.Type, Args: []*Scalar{c, a, b}}
}

// Cast converts a to type t.
func Cast(a *Scalar, t DType) *Scalar {
	if a.Type == t {
		return a
	}
	return &Scalar{Op: SCast, Type: t, Args: []*Scalar{a}}
}

// Bitcast reinterprets the bits of a as type t (of the same size).
func Bitcast(a *Scalar, t DType) *Scalar {
	return &Scalar{Op: SBitcast, Type: t, Args: []*Scalar{a}}
}

// String prints the expression in the body syntax, e.g. "max(in0, 0:f32)".
func (s *Scalar) String() string {
	switch s.Op {
	case SRead:
		return "in" + strconv.Itoa(s.Arg)
	case SAvail:
		return "avail(" + strconv.Itoa(s.Arg) + ")"
	case SIndex:
		return "idx(" + strconv.Itoa(s.Arg) + ")"
	case SParam:
		return "param(" + s.Name + ")"
	case SConst:
		if s.Type.IsFloat() {
			return formatFloat(s.F) + ":" + s.Type.String()
		}
		return strconv.FormatInt(s.I, 10) + ":" + s.Type.String()
	case SCast, SBitcast:
		return s.Op.String() + "<" + s.Type.String() + ">(" + s.Args[0].String() + ")"
	case SDynRead:
		parts := []string{strconv.Itoa(s.Arg), s.Type.String()}
		for _, a := range s.Args {
			parts = append(parts, a.String())
		}
		return "read(" + strings.Join(parts, ", ") + ")"
	}
	parts := make([]string, len(s.Args))
	for i, a := range s.Args {
		parts[i] = a.String()
	}
	return s.Op.String() + "(" + strings.Join(parts, ", ") + ")"
}

// Walk calls f on every node of s (parents before children).
func (s *Scalar) Walk(f func(*Scalar)) {
	f(s)
	for _, a := range s.Args {
		a.Walk(f)
	}
}

// Reads returns whether the expression reads operand k (statically or dynamically).
func (s *Scalar) Reads(k int) bool {
	found := false
	s.Walk(func(n *Scalar) {
		if (n.Op == SRead || n.Op == SDynRead) && n.Arg == k {
			found = true
		}
	})
	return found
}

// ParseScalar parses a body expression; operandTypes gives the types of in0, in1, ….
func ParseScalar(text string, operandTypes []DType) (*Scalar, error) {
	p := &scalarParser{s: text, types: operandTypes}
	e, err := p.expr()
	if err != nil {
		return nil, err
	}
	p.skip()
	if p.i != len(p.s) {
		return nil, fmt.Errorf("body: unexpected %q at offset %d", p.s[p.i:], p.i)
	}
	return e, nil
}

type scalarParser struct {
	s     string
	i     int
	types []DType
	depth int
}

func (p *scalarParser) skip() {
	for p.i < len(p.s) && strings.ContainsRune(" \t\n\r", rune(p.s[p.i])) {
		p.i++
	}
}

func (p *scalarParser) ident() string {
	p.skip()
	j := p.i
	for j < len(p.s) && (p.s[j] == '_' || p.s[j] >= 'a' && p.s[j] <= 'z' || p.s[j] >= 'A' && p.s[j] <= 'Z' || p.s[j] >= '0' && p.s[j] <= '9' || j > p.i && p.s[j] == '.') {
		j++
	}
	id := p.s[p.i:j]
	p.i = j
	return id
}

func (p *scalarParser) want(c byte) error {
	p.skip()
	if p.i >= len(p.s) || p.s[p.i] != c {
		return fmt.Errorf("body: expected %q at offset %d", c, p.i)
	}
	p.i++
	return nil
}

func (p *scalarParser) int() (int64, error) {
	p.skip()
	j := p.i
	if j < len(p.s) && p.s[j] == '-' {
		j++
	}
	for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
		j++
	}
	v, err := strconv.ParseInt(p.s[p.i:j], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("body: expected an integer at offset %d", p.i)
	}
	p.i = j
	return v, nil
}

func (p *scalarParser) expr() (*Scalar, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > 200 {
		return nil, fmt.Errorf("body: expression nested deeper than 200")
	}
	p.skip()
	if p.i < len(p.s) && (p.s[p.i] == '-' || p.s[p.i] >= '0' && p.s[p.i] <= '9' || p.s[p.i] == '+') {
		// constant value:type
		j := p.i
		for j < len(p.s) && p.s[j] != ':' && !strings.ContainsRune(",) \t\n", rune(p.s[j])) {
			j++
		}
		lit := p.s[p.i:j]
		p.i = j
		if err := p.want(':'); err != nil {
			return nil, err
		}
		t, err := ParseDType(p.ident())
		if err != nil {
			return nil, fmt.Errorf("body: %w", err)
		}
		if t.IsFloat() {
			v, err := strconv.ParseFloat(lit, 64)
			if err != nil {
				return nil, fmt.Errorf("body: bad float constant %q", lit)
			}
			return ConstF(t, v), nil
		}
		v, err := strconv.ParseInt(lit, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("body: bad integer constant %q", lit)
		}
		return ConstI(t, v), nil
	}
	start := p.i
	id := p.ident()
	if id == "" {
		return nil, fmt.Errorf("body: expected an expression at offset %d", start)
	}
	if strings.HasPrefix(id, "in") && len(id) > 2 {
		k, err := strconv.Atoi(id[2:])
		if err != nil || k < 0 || k >= len(p.types) {
			return nil, fmt.Errorf("body: %s is not an operand (the op has %d)", id, len(p.types))
		}
		return Read(k, p.types[k]), nil
	}
	switch id {
	case "avail", "idx":
		if err := p.want('('); err != nil {
			return nil, err
		}
		k, err := p.int()
		if err != nil {
			return nil, err
		}
		if err := p.want(')'); err != nil {
			return nil, err
		}
		if id == "avail" {
			if k < 0 || int(k) >= len(p.types) {
				return nil, fmt.Errorf("body: avail(%d): the op has %d operands", k, len(p.types))
			}
			return Avail(int(k)), nil
		}
		return Index(int(k)), nil
	case "param":
		if err := p.want('('); err != nil {
			return nil, err
		}
		n := p.ident()
		if err := p.want(')'); err != nil {
			return nil, err
		}
		return &Scalar{Op: SParam, Name: n, Type: I64}, nil
	case "cast", "bitcast":
		if err := p.want('<'); err != nil {
			return nil, err
		}
		t, err := ParseDType(p.ident())
		if err != nil {
			return nil, fmt.Errorf("body: %w", err)
		}
		if err := p.want('>'); err != nil {
			return nil, err
		}
		if err := p.want('('); err != nil {
			return nil, err
		}
		a, err := p.expr()
		if err != nil {
			return nil, err
		}
		if err := p.want(')'); err != nil {
			return nil, err
		}
		op := SCast
		if id == "bitcast" {
			op = SBitcast
		}
		return &Scalar{Op: op, Type: t, Args: []*Scalar{a}}, nil
	case "read":
		if err := p.want('('); err != nil {
			return nil, err
		}
		k, err := p.int()
		if err != nil {
			return nil, err
		}
		if k < 0 || int(k) >= len(p.types) {
			return nil, fmt.Errorf("body: read(%d): the op has %d operands", k, len(p.types))
		}
		if err := p.want(','); err != nil {
			return nil, err
		}
		t, err := ParseDType(p.ident())
		if err != nil {
			return nil, fmt.Errorf("body: %w", err)
		}
		n := &Scalar{Op: SDynRead, Arg: int(k), Type: t}
		for {
			p.skip()
			if p.i < len(p.s) && p.s[p.i] == ')' {
				p.i++
				return n, nil
			}
			if err := p.want(','); err != nil {
				return nil, err
			}
			a, err := p.expr()
			if err != nil {
				return nil, err
			}
			n.Args = append(n.Args, a)
		}
	}
	op, ok := scalarByName[id]
	if !ok || op.Def().Leaf || op.Def().Result == ResultGiven {
		return nil, fmt.Errorf("body: unknown operation %q at offset %d", id, start)
	}
	if err := p.want('('); err != nil {
		return nil, err
	}
	var args []*Scalar
	for {
		a, err := p.expr()
		if err != nil {
			return nil, err
		}
		args = append(args, a)
		p.skip()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		break
	}
	if err := p.want(')'); err != nil {
		return nil, err
	}
	d := op.Def()
	if len(args) != d.Arity {
		return nil, fmt.Errorf("body: %s takes %d arguments, not %d", op, d.Arity, len(args))
	}
	// the arguments that make the result share its type
	same := args
	if d.Result == ResultArm {
		same = args[1:]
	}
	for _, a := range same[1:] {
		if a.Type != same[0].Type {
			return nil, fmt.Errorf("body: %s of %s and %s", op, same[0].Type, a.Type)
		}
	}
	t := same[0].Type
	if d.Result == ResultBool {
		t = Bool
	}
	return &Scalar{Op: op, Type: t, Args: args}, nil
}
