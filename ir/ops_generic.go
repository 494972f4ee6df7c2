// This file declares the generic op: an op whose generic form is spelled out in its attributes
// (iteration domain, access maps and out map in isl notation, body expression), for tests, the
// papers' stencil examples and anything the named ops do not cover.

package ir

import (
	"fmt"
	"strings"

	"github.com/graphc/graphc/volume"
)

func init() {
	register(&OpDef{
		Name:    "generic",
		Summary: "an op spelled out in generic form: domain, access maps, out map, body",
		Example: `%r = generic(%t) {access = ["{ [i, j] -> [i + 1, j + 2] }", "{ [i, j] -> [i + 2, j + 1] }"], body = "abs(sub(in0, in1))", ` +
			`domain = "[H, W] -> { [i, j] : 0 <= i < H - 3 and 0 <= j < W - 3 }", out = "{ [i, j] -> [i + 1, j + 2] }", type = "f32[H, W]"} : f32[H, W]`,
		MinOperands: 0, MaxOperands: -1,
		Attrs: []AttrDef{
			{Name: "type", Kind: AttrString, Doc: "result type, e.g. \"f32[H, W]\""},
			{Name: "domain", Kind: AttrString, Doc: "iteration domain in isl notation"},
			{Name: "access", Kind: AttrStrings, Default: dflt(StringsAttr()), Doc: "one isl map per operand, from iterations to operand elements"},
			{Name: "out", Kind: AttrString, Doc: "isl map from iterations to result elements"},
			{Name: "body", Kind: AttrString, Doc: "scalar body: in0.., avail(k), idx(d), constants v:type, add(a, b), select(c, a, b), …"},
			{Name: "iterators", Kind: AttrStrings, Default: dflt(StringsAttr()), Doc: "parallel or reduction per dim (default: parallel)"},
			{Name: "reduce", Kind: AttrString, Default: dflt(StringAttr("none")), Doc: "none, sum, prod, max, min, argmax, argmin"},
			{Name: "init", Kind: AttrFloat, Default: dflt(FloatAttr(0)), Doc: "initial value of every result element"},
			{Name: "argdim", Kind: AttrInt, Default: dflt(IntAttr(0)), Doc: "iteration dim whose index argmax/argmin return"},
			{Name: "requires", Kind: AttrStrings, Default: dflt(StringsAttr()), Doc: "constraints on the symbolic dims, \"EXPR >= 0\" or \"EXPR = 0\", outside which the op is undefined"},
		},
		Build: buildGeneric,
	})
}

func buildGeneric(b *Builder) error {
	a := b.Op.Attrs
	rt, err := ParseType(a.Str("type", ""))
	if err != nil {
		return b.Errorf("type: %v", err)
	}
	dom, err := volume.ParseSet(a.Str("domain", ""))
	if err != nil {
		return b.Errorf("domain: %v", err)
	}
	if n := len(dom.Tuples()); n != 1 {
		return b.Errorf("domain: a set of one space is needed, %q has %d", a.Str("domain", ""), n)
	}
	nd := dom.NDim()
	dims := dom.DimNames()
	for i, d := range dims {
		if d == "" {
			dims[i] = fmt.Sprintf("d%d", i)
		}
	}
	b.Op.Dims = dims
	b.Op.Full = dom.SetDimNames(dims)
	its := a.Strings("iterators", nil)
	b.Op.Iters = make([]IterKind, nd)
	if len(its) != 0 && len(its) != nd {
		return b.Errorf("%d iterators for a %d-dimensional domain", len(its), nd)
	}
	for i, s := range its {
		switch s {
		case "parallel":
		case "reduction":
			b.Op.Iters[i] = Reduction
		default:
			return b.Errorf("iterator %q is neither parallel nor reduction", s)
		}
	}
	accs := a.Strings("access", nil)
	if len(accs) != b.NumIn() {
		return b.Errorf("%d access maps for %d operands", len(accs), b.NumIn())
	}
	parse := func(what, s string, want int) (Access, error) {
		m, err := volume.ParseMap(s)
		if err != nil {
			return Access{}, b.Errorf("%s: %v", what, err)
		}
		ps, err := m.AffPieces()
		if err != nil {
			return Access{}, b.Errorf("%s: %v", what, err)
		}
		var acc Access
		for _, p := range ps {
			if len(p.Exprs) != want {
				return Access{}, b.Errorf("%s maps to %d dims, the tensor has %d", what, len(p.Exprs), want)
			}
			acc.Pieces = append(acc.Pieces, AccessPiece{Guard: p.Guard, Index: p.Exprs})
		}
		return acc, nil
	}
	b.Op.Access = make([]Access, b.NumIn())
	types := make([]DType, b.NumIn())
	for k, s := range accs {
		acc, err := parse(fmt.Sprintf("access #%d", k), s, b.In(k).Rank())
		if err != nil {
			return err
		}
		b.Op.Access[k] = acc
		types[k] = b.In(k).Elem
	}
	out, err := parse("out", a.Str("out", ""), rt.Rank())
	if err != nil {
		return err
	}
	if len(out.Pieces) != 1 || len(out.Pieces[0].Guard) != 0 {
		return b.Errorf("out map must be a single unguarded function")
	}
	b.Op.Out = out
	body, err := ParseScalar(a.Str("body", ""), types)
	if err != nil {
		return b.Errorf("%v", err)
	}
	b.Op.Body = body
	r, err := ParseReduceKind(a.Str("reduce", "none"))
	if err != nil {
		return b.Errorf("%v", err)
	}
	b.Op.Reduce = r
	b.Op.Init = a.Float("init", 0)
	b.Op.ArgDim = int(a.Int("argdim", 0))
	for _, t := range a.Strings("requires", nil) {
		c, err := ParseRequirement(t)
		if err != nil {
			return b.Errorf("requires: %v", err)
		}
		b.Op.Requires = append(b.Op.Requires, c)
	}
	if r.IsArg() && (b.Op.ArgDim < 0 || b.Op.ArgDim >= nd) {
		return b.Errorf("argdim %d out of range", b.Op.ArgDim)
	}
	if !r.IsArg() && body.Type != rt.Elem {
		return b.Errorf("body yields %s, result type is %s", body.Type, rt.Elem)
	}
	b.Result = rt
	return nil
}

// ParseType parses a tensor type such as "f32[N, 512]" or "i64[]".
func ParseType(s string) (TensorType, error) {
	s = strings.TrimSpace(s)
	i := strings.IndexByte(s, '[')
	if i < 0 || !strings.HasSuffix(s, "]") {
		return TensorType{}, fmt.Errorf("bad tensor type %q (want e.g. f32[N, 512])", s)
	}
	elem, err := ParseDType(strings.TrimSpace(s[:i]))
	if err != nil {
		return TensorType{}, err
	}
	t := TensorType{Elem: elem}
	inner := strings.TrimSpace(s[i+1 : len(s)-1])
	if inner == "" {
		return t, nil
	}
	for _, part := range splitTop(inner, ',') {
		d, err := volume.ParseAff(part, nil)
		if err != nil {
			return TensorType{}, fmt.Errorf("bad extent %q in %q: %w", part, s, err)
		}
		t.Shape = append(t.Shape, d)
	}
	return t, nil
}

// splitTop splits s at sep outside parentheses and brackets.
func splitTop(s string, sep byte) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case sep:
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

func init() {
	register(&OpDef{
		Name:        "fill",
		Summary:     "a tensor whose elements all equal value",
		Example:     `%z = fill() {type = "f32[4, 3]", value = 0.0} : f32[4, 3]`,
		MinOperands: 0, MaxOperands: 0,
		Attrs: []AttrDef{
			{Name: "type", Kind: AttrString, Doc: "result type"},
			{Name: "value", Kind: AttrFloat, Default: dflt(FloatAttr(0)), Doc: "the element value"},
		},
		Build: func(b *Builder) error {
			rt, err := ParseType(b.Op.Attrs.Str("type", ""))
			if err != nil {
				return b.Errorf("type: %v", err)
			}
			v := b.Op.Attrs.Float("value", 0)
			b.SetBox(dimNames(rt.Rank()), rt.Shape, nil)
			b.Op.Access = []Access{}
			b.Op.Out = AffAccess(identity(0, rt.Rank())...)
			b.Op.Body = Const(rt.Elem, v)
			b.Op.Init = v
			b.Result = rt
			return nil
		},
	})
}

// NewFill returns a fill op of type t with the given value (not yet in a graph).
func NewFill(params []string, t TensorType, value float64, name string) (*Op, error) {
	return MakeOp(params, "fill", name, nil, Attrs{"type": StringAttr(t.String()), "value": FloatAttr(value)})
}
