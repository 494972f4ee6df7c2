// This file holds the op catalogue: one OpDef per named op. The constructor (NewOp), the
// printer, the parser, the verifier and `graphc ops --ir` (summaries, examples, attribute
// docs) all read this table.

package ir

import (
	"cmp"
	"fmt"
	"sort"
	"strings"

	"github.com/graphc/graphc/volume"
)

// OpDef declares a named op: its operands, attributes and how it builds its generic form.
type OpDef struct {
	Name    string
	Summary string
	Example string // a line of the text format using the op
	// MinOperands and MaxOperands bound the operand count (MaxOperands < 0: variadic).
	MinOperands, MaxOperands int
	Attrs                    []AttrDef
	// Build fills in the generic form of b.Op (dims, iterators, domain, accesses, body,
	// reduction, init) and its result type, from b.Op's operands and attributes.
	Build func(b *Builder) error
	// Algorithm, when set, is the op's semantics: the generic form only declares what the
	// result may depend on (ops_algo.go).
	Algorithm *Algorithm
}

// AttrDef declares an attribute. A nil Default makes it required.
type AttrDef struct {
	Name    string
	Kind    AttrKind
	Default *Attr
	Doc     string
}

var catalogue = map[string]*OpDef{}

func register(defs ...*OpDef) {
	for _, d := range defs {
		if _, dup := catalogue[d.Name]; dup {
			panic("ir: op " + d.Name + " registered twice")
		}
		catalogue[d.Name] = d
	}
}

// LookupOp returns the definition of the named op, or nil.
func LookupOp(name string) *OpDef { return catalogue[name] }

// Ops returns every op definition, sorted by name.
func Ops() []*OpDef {
	out := make([]*OpDef, 0, len(catalogue))
	for _, d := range catalogue {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func dflt(a Attr) *Attr { return &a }

// Builder is what an OpDef's Build function works on.
type Builder struct {
	Op     *Op
	Params []string
	Result TensorType
}

// In returns the type of operand k.
func (b *Builder) In(k int) TensorType { return b.Op.Operands[k].Type }

// NumIn returns the number of operands.
func (b *Builder) NumIn() int { return len(b.Op.Operands) }

// Errorf returns an error naming the op.
func (b *Builder) Errorf(format string, args ...any) error {
	return fmt.Errorf("%s: %s", b.Op.Kind, fmt.Sprintf(format, args...))
}

// SetBox sets the iteration dims and a box domain 0 <= dims[k] < extents[k].
func (b *Builder) SetBox(dims []string, extents []volume.Aff, iters []IterKind) {
	b.Op.Dims = dims
	b.Op.Iters = iters
	if iters == nil {
		b.Op.Iters = make([]IterKind, len(dims))
	}
	b.Op.Full = cachedBox(b.Params, dims, extents)
}

// dimNames returns n iteration dimension names: i, j, k, l, … then d<n>.
func dimNames(n int) []string {
	base := []string{"i", "j", "k", "l", "m", "n", "o", "p"}
	out := make([]string, n)
	for i := range out {
		if n <= len(base) {
			out[i] = base[i]
		} else {
			out[i] = fmt.Sprintf("d%d", i)
		}
	}
	return out
}

// identity returns the access reading dims first..first+n-1.
func identity(first, n int) []volume.Aff {
	out := make([]volume.Aff, n)
	for i := range out {
		out[i] = volume.AffDim(first + i)
	}
	return out
}

// MakeOp builds an op from the catalogue without adding it to a graph. The result value is
// unnamed; Graph.Append names it.
func MakeOp(params []string, kind, name string, operands []*Value, attrs Attrs) (*Op, error) {
	def := catalogue[kind]
	if def == nil {
		return nil, fmt.Errorf("unknown op %q", kind)
	}
	if len(operands) < def.MinOperands || def.MaxOperands >= 0 && len(operands) > def.MaxOperands {
		want := fmt.Sprint(def.MinOperands)
		if def.MaxOperands != def.MinOperands {
			want = fmt.Sprintf("%d to %d", def.MinOperands, def.MaxOperands)
			if def.MaxOperands < 0 {
				want = fmt.Sprintf("at least %d", def.MinOperands)
			}
		}
		return nil, fmt.Errorf("%s: expected %s operands, got %d", kind, want, len(operands))
	}
	var full Attrs // nil for an op without attributes: one map less for every elementwise op
	if len(def.Attrs) > 0 {
		full = make(Attrs, len(def.Attrs))
	}
	for _, ad := range def.Attrs {
		v, ok := attrs[ad.Name]
		if !ok {
			if ad.Default == nil {
				return nil, fmt.Errorf("%s: missing required attribute %q", kind, ad.Name)
			}
			full[ad.Name] = *ad.Default
			continue
		}
		if !attrKindCompatible(v.Kind, ad.Kind) {
			return nil, fmt.Errorf("%s: attribute %q must be %s, got %s", kind, ad.Name, kindName(ad.Kind), v.String())
		}
		full[ad.Name] = coerceAttr(v, ad.Kind)
	}
	for k := range attrs {
		if !hasAttrDef(def, k) {
			return nil, fmt.Errorf("%s: unknown attribute %q (known: %s)", kind, k, attrNames(def))
		}
	}
	op := &Op{Kind: kind, Name: name, Attrs: full, Operands: append([]*Value(nil), operands...)}
	b := &Builder{Op: op, Params: params}
	if err := def.Build(b); err != nil {
		return nil, err
	}
	if op.Body == nil || len(op.Access) != len(operands) {
		return nil, fmt.Errorf("%s: internal error: incomplete generic form", kind)
	}
	// the op's sets carry the symbolic dims they mention, not every dim of the graph
	// (volume/params_used.go: a detector has hundreds, each op uses a few)
	op.Full = op.Full.DropUnusedParams()
	for k := range op.Access {
		if op.Access[k].Approx {
			op.Access[k].ApproxMap = op.Access[k].ApproxMap.DropUnusedParams()
		}
	}
	op.Domain = op.Full
	op.Result = &Value{Type: b.Result, Def: op}
	// builders do their shape and index arithmetic in volume, whose values record an overflow
	// (a Tile of 2^61 repeats): attributes come from models, so that is an error about the model
	if err := op.VolumeErr(); err != nil {
		return nil, fmt.Errorf("%s: %w", kind, err)
	}
	return op, nil
}

// NewOp builds an op from the catalogue and appends it to g, naming its result.
func (g *Graph) NewOp(kind, name string, operands []*Value, attrs Attrs) (*Op, error) {
	op, err := MakeOp(g.Params, kind, name, operands, attrs)
	if err != nil {
		return nil, err
	}
	g.Append(op, name)
	return op, nil
}

// Append adds op at the end of g with a result named after resultName (made unique).
func (g *Graph) Append(op *Op, resultName string) {
	op.Result.Name = g.uniqueName(resultName)
	g.Ops = append(g.Ops, op)
}

func attrKindCompatible(have, want AttrKind) bool {
	switch {
	case have == AttrInts && (want == AttrFloats || want == AttrStrings):
		return true // "[]" parses as an empty integer list
	case have == want:
		return true
	case want == AttrFloat && have == AttrInt:
		return true
	case want == AttrInts && have == AttrInt:
		return true
	case want == AttrFloats && (have == AttrInts || have == AttrFloat || have == AttrInt):
		return true
	case want == AttrStrings && have == AttrString:
		return true
	}
	return false
}

func coerceAttr(v Attr, want AttrKind) Attr {
	switch {
	case v.Kind == want:
		return v
	case want == AttrFloat:
		return FloatAttr(float64(v.Int))
	case want == AttrInts:
		return IntsAttr(v.Int)
	case want == AttrFloats:
		switch v.Kind {
		case AttrInts:
			f := make([]float64, 0, len(v.Ints))
			for _, x := range v.Ints {
				f = append(f, float64(x))
			}
			return FloatsAttr(f...)
		case AttrFloat:
			return FloatsAttr(v.Float)
		case AttrInt:
			return FloatsAttr(float64(v.Int))
		}
	case want == AttrStrings:
		if v.Kind == AttrInts {
			return StringsAttr()
		}
		return StringsAttr(v.Str)
	}
	return v
}

func kindName(k AttrKind) string {
	return map[AttrKind]string{AttrInt: "an integer", AttrFloat: "a float", AttrString: "a string",
		AttrInts: "a list of integers", AttrFloats: "a list of floats", AttrStrings: "a list of strings"}[k]
}

func hasAttrDef(d *OpDef, name string) bool {
	for _, a := range d.Attrs {
		if a.Name == name {
			return true
		}
	}
	return false
}

func attrNames(d *OpDef) string {
	var n []string
	for _, a := range d.Attrs {
		n = append(n, a.Name)
	}
	if len(n) == 0 {
		return "none"
	}
	return strings.Join(n, ", ")
}

// VolumeErr returns the first volume error value among op's sets, maps and affine expressions
// (its full domain and domain, accesses, and result and operand shapes), or nil. volume records
// a computation that gave up in the value it returns: code that builds or rewrites an op with
// volume checks the op before using it.
func (op *Op) VolumeErr() error {
	// no slices are built: MakeOp calls it for every op it makes
	if op.Result != nil {
		if err := AffsErr(op.Result.Type.Shape); err != nil {
			return err
		}
	}
	for _, o := range op.Operands {
		if o != nil {
			if err := AffsErr(o.Type.Shape); err != nil {
				return err
			}
		}
	}
	if err := cmp.Or(op.Full.Err(), op.Domain.Err(), accessErr(op.Out)); err != nil {
		return err
	}
	for _, acc := range op.Access {
		if err := accessErr(acc); err != nil {
			return err
		}
	}
	return nil
}

// accessErr returns the first volume error value of acc's map, indices and guards, or nil.
func accessErr(acc Access) error {
	if err := acc.ApproxMap.Err(); err != nil {
		return err
	}
	for _, p := range acc.Pieces {
		if err := AffsErr(p.Index); err != nil {
			return err
		}
		for _, c := range p.Guard {
			if err := c.Aff.Err(); err != nil {
				return err
			}
		}
	}
	return nil
}

// AffsErr returns the error of the first volume error value among as, or nil.
func AffsErr(as []volume.Aff) error {
	for _, a := range as {
		if err := a.Err(); err != nil {
			return err
		}
	}
	return nil
}
