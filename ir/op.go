// This file holds Value, Op and Graph: the SSA graph every package of graphc speaks.

package ir

import (
	"fmt"
	"slices"
	"strings"

	"github.com/graphc/graphc/volume"
)

// Value is an SSA tensor value: a graph input, a constant (Data != nil) or an op result.
type Value struct {
	Name string
	Type TensorType
	Def  *Op     // producing op; nil for inputs and constants
	Data *Tensor // constant data
}

// IsConst reports whether v is a constant.
func (v *Value) IsConst() bool { return v.Data != nil }

// IterKind is the kind of an iteration dimension.
type IterKind uint8

// Iterator kinds.
const (
	Parallel IterKind = iota
	Reduction
)

func (k IterKind) String() string {
	if k == Reduction {
		return "reduction"
	}
	return "parallel"
}

// ReduceKind says how the iterations that map to one result element are combined.
type ReduceKind uint8

// Reductions. ReduceNone writes the body's value (the last write wins); the others combine it
// with the current value of the element, which starts at Op.Init.
const (
	ReduceNone ReduceKind = iota
	ReduceSum
	ReduceProd
	ReduceMax
	ReduceMin
	ReduceArgMax     // index (iteration dim ArgDim) of the first maximum
	ReduceArgMin     // index of the first minimum
	ReduceArgMaxLast // index of the last maximum
	ReduceArgMinLast // index of the last minimum
)

var reduceNames = []string{"none", "sum", "prod", "max", "min", "argmax", "argmin", "argmax_last", "argmin_last"}

func (r ReduceKind) String() string { return reduceNames[r] }

// ParseReduceKind parses a reduction name.
func ParseReduceKind(s string) (ReduceKind, error) {
	i := slices.Index(reduceNames, s)
	if i < 0 {
		return 0, fmt.Errorf("unknown reduction %q (want one of %v)", s, reduceNames)
	}
	return ReduceKind(i), nil
}

// IsArg reports whether r yields an index rather than a value.
func (r ReduceKind) IsArg() bool { return r >= ReduceArgMax }

// AccessPiece is one piece of an access function: where Guard holds (a conjunction over the
// iteration dimensions; empty means everywhere), the operand element read is Index.
type AccessPiece struct {
	Guard []volume.Constraint
	Index []volume.Aff
}

// Access is how an op reads one operand (or writes its result): a piecewise quasi-affine
// function of the iteration point. A data-dependent access (gather) is marked Approx and
// carries an over-approximation of the elements it may read in ApproxMap.
type Access struct {
	Pieces    []AccessPiece
	Approx    bool
	ApproxMap volume.Map
}

// AffAccess returns the unguarded access reading index.
func AffAccess(index ...volume.Aff) Access {
	return Access{Pieces: []AccessPiece{{Index: index}}}
}

// Map returns the access as a relation from the iteration space (ndim dims) to the operand's
// index space: the union over pieces of { x -> Index(x) : Guard(x) }, or ApproxMap.
func (a Access) Map(params []string, dims []string) volume.Map {
	if a.Approx {
		return a.ApproxMap
	}
	var m volume.Map
	for i, p := range a.Pieces {
		pm := volume.MultiAff{Params: params, InDims: dims, Exprs: p.Index}.Map()
		if len(p.Guard) > 0 {
			pm = pm.IntersectDomain(volume.SetFromConstraints(params, "", dims, p.Guard))
		}
		if i == 0 {
			m = pm
		} else {
			m = m.Union(pm)
		}
	}
	return m
}

// Op is one operation in generic form: for every point x of Domain, the body is evaluated on
// the operand elements Access[k](x) and written (or combined by Reduce) into the result element
// Out(x). Every result element starts as Init. Kind names the catalogue entry that built the
// generic form from Attrs and the operand types.
type Op struct {
	Kind     string
	Name     string // source node name, for diagnostics
	Attrs    Attrs
	Operands []*Value
	Result   *Value

	Dims   []string
	Iters  []IterKind
	Full   volume.Set // the constructor's iteration domain
	Domain volume.Set // the iterations actually executed (⊆ Full); DIE restricts it
	Access []Access
	Out    Access
	Body   *Scalar
	Reduce ReduceKind
	Init   float64
	ArgDim int
	// Requires lists constraints on the symbolic dims (affine expressions of parameters only)
	// outside which the op is undefined: a slice of a static buffer to a symbolic end T needs
	// T to fit in the buffer. The builder derives them, like the rest of the generic form; the
	// evaluator and the compiled entry check them before running (a status, not a crash).
	Requires []volume.Constraint
}

// CheckRequires returns an error when params violate one of the op's requirements.
func (op *Op) CheckRequires(params map[string]int64) error {
	for _, c := range op.Requires {
		v, err := c.Aff.Eval(nil, func(n string) (int64, bool) { p, ok := params[n]; return p, ok })
		if err != nil {
			return err
		}
		if c.Eq && v != 0 || !c.Eq && v < 0 {
			return fmt.Errorf("the symbolic dims %s violate the requirement %s of %s", paramText(params), RequirementString(c), op.Kind)
		}
	}
	return nil
}

func paramText(params map[string]int64) string {
	names := make([]string, 0, len(params))
	for n := range params {
		names = append(names, n)
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s = %d", n, params[n])
	}
	return strings.Join(parts, ", ")
}

// nonNegative reports whether a >= 0 for every non-negative value of its parameters.
func nonNegative(a volume.Aff) bool {
	if len(a.Dims) > 0 || len(a.Floors) > 0 || a.Const < 0 {
		return false
	}
	for _, p := range a.Params {
		if p.Coef < 0 {
			return false
		}
	}
	return true
}

// RequirementString prints a requirement on the symbolic dims as "EXPR >= 0" or "EXPR = 0".
func RequirementString(c volume.Constraint) string {
	if c.Eq {
		return c.Aff.String() + " = 0"
	}
	return c.Aff.String() + " >= 0"
}

// ParseRequirement parses what RequirementString prints.
func ParseRequirement(s string) (volume.Constraint, error) {
	for _, rel := range []struct {
		suffix string
		eq     bool
	}{{">= 0", false}, {"= 0", true}} {
		if e, ok := strings.CutSuffix(strings.TrimSpace(s), rel.suffix); ok {
			a, err := volume.ParseAff(strings.TrimSpace(e), nil)
			if err != nil {
				return volume.Constraint{}, fmt.Errorf("requirement %q: %w", s, err)
			}
			if len(a.Dims) > 0 {
				return volume.Constraint{}, fmt.Errorf("requirement %q uses iteration dims: only symbolic dims may appear", s)
			}
			return volume.Constraint{Aff: a, Eq: rel.eq}, nil
		}
	}
	return volume.Constraint{}, fmt.Errorf("requirement %q: want \"EXPR >= 0\" or \"EXPR = 0\"", s)
}

// require appends the requirement c on the symbolic dims to the op being built. A constant
// requirement is decided now: a false one is an error about the model.
func (b *Builder) require(c volume.Constraint) error {
	if v, ok := c.Aff.IsConst(); ok {
		if c.Eq && v != 0 || !c.Eq && v < 0 {
			return b.Errorf("invalid: %s does not hold", RequirementString(c))
		}
		return nil
	}
	if !c.Eq && nonNegative(c.Aff) {
		return nil // symbolic dims are never negative (the entry checks that first)
	}
	for _, o := range b.Op.Requires {
		if o.Eq == c.Eq && o.Aff.Equal(c.Aff) {
			return nil
		}
	}
	b.Op.Requires = append(b.Op.Requires, c)
	return nil
}

// NDim returns the number of iteration dimensions.
func (op *Op) NDim() int { return len(op.Dims) }

// AccessMap returns the relation from iterations to elements of operand k.
func (op *Op) AccessMap(params []string, k int) volume.Map {
	return op.Access[k].Map(params, op.Dims)
}

// OutMap returns the relation from iterations to result elements.
func (op *Op) OutMap(params []string) volume.Map { return op.Out.Map(params, op.Dims) }

// ElementMap returns the volume element map from result elements to the elements of operand k
// they depend on: Out⁻¹ restricted to the domain, composed with Access[k].
func (op *Op) ElementMap(params []string, k int) volume.Map {
	return op.OutMap(params).IntersectDomain(op.Domain).Reverse().ApplyRange(op.AccessMap(params, k))
}

// IsRestricted reports whether the domain is smaller than the constructor's (when volume gives
// up: restricted, the answer that keeps every guard).
func (op *Op) IsRestricted() bool {
	return !op.Full.IsSubset(op.Domain).Or(false)
}

// Graph is an SSA graph of ops over tensor values with symbolic dimensions Params.
type Graph struct {
	Name    string
	Params  []string
	Inputs  []*Value
	Consts  []*Value
	Ops     []*Op // in topological order
	Outputs []*Value
	// Bounded lists the params whose values the graph computes at run time (bounded.go)
	Bounded []BoundedDim

	names map[string]bool
}

// NewGraph returns an empty graph.
func NewGraph(name string) *Graph { return &Graph{Name: name, names: map[string]bool{}} }

// uniqueName returns base, or base_N when taken.
func (g *Graph) uniqueName(base string) string {
	if g.names == nil {
		g.names = map[string]bool{}
	}
	base = sanitizeName(base)
	if base == "" {
		base = fmt.Sprint(len(g.names))
	}
	n := base
	for i := 1; g.names[n]; i++ {
		n = fmt.Sprintf("%s_%d", base, i)
	}
	g.names[n] = true
	return n
}

// sanitizeName keeps letters, digits, '_' and '.'.
func sanitizeName(s string) string {
	b := []byte(s)
	out := b[:0]
	for _, c := range b {
		if c == '_' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			out = append(out, c)
		} else {
			out = append(out, '_')
		}
	}
	return string(out)
}

// AddParam declares a symbolic dimension.
func (g *Graph) AddParam(name string) {
	if !slices.Contains(g.Params, name) {
		g.Params = append(g.Params, name)
	}
}

// AddInput adds a graph input.
func (g *Graph) AddInput(name string, t TensorType) *Value {
	for _, p := range t.Params() {
		g.AddParam(p)
	}
	v := &Value{Name: g.uniqueName(name), Type: t}
	g.Inputs = append(g.Inputs, v)
	return v
}

// AddConst adds a constant. A large one is compacted (Tensor.Compact): data must not be
// modified afterwards.
func (g *Graph) AddConst(name string, data *Tensor) *Value {
	data.Compact()
	v := &Value{Name: g.uniqueName(name), Type: StaticType(data.Elem, data.Shape...), Data: data}
	g.Consts = append(g.Consts, v)
	return v
}

// Producer returns the op defining v, or nil.
func (g *Graph) Producer(v *Value) *Op { return v.Def }

// Users returns, for every value, the ops that read it.
func (g *Graph) Users() map[*Value][]*Op {
	u := map[*Value][]*Op{}
	for _, op := range g.Ops {
		for _, o := range op.Operands {
			if !slices.Contains(u[o], op) {
				u[o] = append(u[o], op)
			}
		}
	}
	return u
}

// Lookup returns the value with the given name.
func (g *Graph) Lookup(name string) *Value {
	for _, v := range g.Inputs {
		if v.Name == name {
			return v
		}
	}
	for _, v := range g.Consts {
		if v.Name == name {
			return v
		}
	}
	for _, op := range g.Ops {
		if op.Result.Name == name {
			return op.Result
		}
	}
	return nil
}

// OpByName returns the op whose result or source name is name.
func (g *Graph) OpByName(name string) *Op {
	for _, op := range g.Ops {
		if op.Result.Name == name || op.Name == name {
			return op
		}
	}
	return nil
}

// RemoveOps deletes the ops for which drop returns true, and the constants no op uses any more.
func (g *Graph) RemoveOps(drop func(*Op) bool) int {
	n := 0
	ops := g.Ops[:0]
	for _, op := range g.Ops {
		if drop(op) {
			n++
			delete(g.names, op.Result.Name)
			continue
		}
		ops = append(ops, op)
	}
	clear(g.Ops[len(ops):]) // the tail of the array would keep removed ops alive
	g.Ops = ops
	used := map[*Value]bool{}
	for _, op := range g.Ops {
		for _, o := range op.Operands {
			used[o] = true
		}
	}
	for _, o := range g.Outputs {
		used[o] = true
	}
	cs := g.Consts[:0]
	for _, c := range g.Consts {
		if used[c] {
			cs = append(cs, c)
		} else {
			delete(g.names, c.Name)
		}
	}
	g.Consts = cs
	return n
}

// ReplaceUses makes every op and output that reads old read new instead.
func (g *Graph) ReplaceUses(old, new *Value) {
	for _, op := range g.Ops {
		for i, o := range op.Operands {
			if o == old {
				op.Operands[i] = new
			}
		}
	}
	for i, o := range g.Outputs {
		if o == old {
			g.Outputs[i] = new
		}
	}
}

// RenameValue renames v to a unique name derived from name.
func (g *Graph) RenameValue(v *Value, name string) {
	if g.names == nil {
		g.names = map[string]bool{}
	}
	delete(g.names, v.Name)
	v.Name = g.uniqueName(name)
}
