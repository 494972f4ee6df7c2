// This file holds BindParams: fixing symbolic dims of a built graph to values (--dim on graphc
// IR text), by rebuilding every op from its catalogue entry.

package ir

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/graphc/graphc/volume"
)

// BindParams returns a copy of g in which the symbolic dims named in dims have their values:
// they leave Params, input types use the values, and every op is rebuilt by its catalogue
// entry from attributes in which the dims are replaced (isl sets and maps through
// volume's FixParam, types, shapes and expressions term by term), so that its generic form,
// requirements and result type are what the builder derives for the values. A restricted
// iteration domain stays restricted, with the dims fixed. A name g does not have is an error
// wrapping ErrUnknownDim that lists g's dims; g itself is not changed.
func BindParams(g *Graph, dims map[string]int64) (*Graph, error) {
	if len(dims) == 0 {
		return g, nil
	}
	var unknown []string
	for name := range dims {
		if !slices.Contains(g.Params, name) {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		bound := map[string]int64{}
		for _, n := range unknown {
			bound[n] = dims[n]
		}
		return nil, UnknownDimError(bound, nil, g.Params)
	}
	for name := range dims {
		if _, ok := g.BoundedParam(name); ok {
			return nil, fmt.Errorf("dim %s is computed by the graph at run time (a bounded dim): it cannot be bound", name)
		}
	}
	b := paramBinder(dims)
	out := NewGraph(g.Name)
	out.Bounded = slices.Clone(g.Bounded)
	for _, p := range g.Params {
		if _, ok := dims[p]; !ok {
			out.Params = append(out.Params, p)
		}
	}
	vals := map[*Value]*Value{}
	keep := func(v *Value, t TensorType) *Value {
		nv := &Value{Name: v.Name, Type: t, Data: v.Data}
		out.names[v.Name] = true
		vals[v] = nv
		return nv
	}
	for _, v := range g.Inputs {
		out.Inputs = append(out.Inputs, keep(v, b.tensorType(v.Type)))
	}
	for _, v := range g.Consts {
		out.Consts = append(out.Consts, keep(v, v.Type))
	}
	for _, op := range g.Ops {
		operands := make([]*Value, len(op.Operands))
		for i, o := range op.Operands {
			operands[i] = vals[o]
		}
		attrs := maps.Clone(op.Attrs)
		for k, a := range attrs {
			attrs[k] = b.attr(a)
		}
		nop, err := MakeOp(out.Params, op.Kind, op.Name, operands, attrs)
		if err != nil {
			return nil, fmt.Errorf("binding %s in %s %%%s: %w", b, op.Kind, op.Result.Name, err)
		}
		if op.IsRestricted() {
			nop.Domain = b.set(op.Domain)
		}
		nop.Result.Name = op.Result.Name
		out.names[nop.Result.Name] = true
		vals[op.Result] = nop.Result
		out.Ops = append(out.Ops, nop)
	}
	for _, v := range g.Outputs {
		out.Outputs = append(out.Outputs, vals[v])
	}
	return out, nil
}

// paramBinder replaces symbolic dims by their values.
type paramBinder map[string]int64

func (b paramBinder) String() string {
	var parts []string
	for _, n := range slices.Sorted(maps.Keys(b)) {
		parts = append(parts, fmt.Sprintf("%s=%d", n, b[n]))
	}
	return strings.Join(parts, ", ")
}

// aff returns a with the bound dims replaced by their values.
func (b paramBinder) aff(a volume.Aff) volume.Aff {
	r := volume.AffConst(a.Const)
	for i, c := range a.Dims {
		if c != 0 {
			r = r.Add(volume.AffDim(i).Mul(c))
		}
	}
	for _, p := range a.Params {
		if v, ok := b[p.Name]; ok {
			r = r.Add(volume.AffConst(v).Mul(p.Coef))
		} else {
			r = r.Add(volume.AffParam(p.Name).Mul(p.Coef))
		}
	}
	for _, f := range a.Floors {
		r = r.Add(b.aff(f.Num).FloorDiv(f.Den).Mul(f.Coef))
	}
	return r
}

// uses reports whether a mentions a bound dim.
func (b paramBinder) uses(names []string) bool {
	for _, n := range names {
		if _, ok := b[n]; ok {
			return true
		}
	}
	return false
}

func (b paramBinder) affs(as []volume.Aff) []volume.Aff {
	out := make([]volume.Aff, len(as))
	for i, a := range as {
		out[i] = b.aff(a)
	}
	return out
}

func (b paramBinder) tensorType(t TensorType) TensorType {
	return TensorType{Elem: t.Elem, Shape: b.affs(t.Shape)}
}

func (b paramBinder) set(s volume.Set) volume.Set {
	for n, v := range b {
		s = s.FixParam(n, v)
	}
	return s
}

// attr returns a with the bound dims replaced in its strings.
func (b paramBinder) attr(a Attr) Attr {
	switch a.Kind {
	case AttrString:
		a.Str = b.text(a.Str)
	case AttrStrings:
		ss := make([]string, len(a.Strings))
		for i, s := range a.Strings {
			ss[i] = b.text(s)
		}
		a.Strings = ss
	}
	return a
}

// text replaces the bound dims in an attribute string: an isl set or map, a tensor type
// ("f32[N, 12]"), a shape ("[N, 12]") or an expression ("N - 1"). Any other string (a mode,
// an element type) is returned as it is, and so is one that mentions no bound dim.
func (b paramBinder) text(s string) string {
	if strings.Contains(s, "{") {
		if set, err := volume.ParseSet(s); err == nil {
			if !b.uses(set.Params()) {
				return s
			}
			return b.set(set).String()
		}
		if m, err := volume.ParseMap(s); err == nil {
			if !b.uses(m.Params()) {
				return s
			}
			for n, v := range b {
				m = m.FixParam(n, v)
			}
			return m.String()
		}
		return s
	}
	if t, err := ParseType(s); err == nil {
		if !b.uses(t.Params()) {
			return s
		}
		return b.tensorType(t).String()
	}
	if ext, err := ParseExtents(s); err == nil {
		if !b.uses(TensorType{Shape: ext}.Params()) {
			return s
		}
		return ExtentsString(b.affs(ext))
	}
	if a, err := volume.ParseAff(s, nil); err == nil && b.uses(a.ParamNames()) {
		return b.aff(a).String()
	}
	return s
}
