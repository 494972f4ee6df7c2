// This file holds bounded dims: symbolic dims whose value an op of the graph computes at run
// time (NonZero's count, TopK's computed k), with an upper bound known when the graph is built.
//
// A bounded dim is a graph parameter like any other: it appears in types, domains and element
// maps, so every volume computation stays exact for each of its values. What differs is where
// the value comes from. It is the value of a scalar i64 output of the graph (Output), which the
// caller gets back (the ABI's out-parameter of the dim); ops that use the dim come after that
// output's producer. The context of the graph's parameters includes 0 <= n <= Bound, buffers are
// sized at the bound, and the evaluator and the compiled entry check the computed value against
// it.

package ir

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/graphc/graphc/volume"
)

// BoundedDim is a symbolic dim defined at run time: Param takes the value of the scalar i64
// output g.Outputs[Output], which lies in [0, Bound].
type BoundedDim struct {
	Param  string
	Bound  int64
	Output int
}

// AddBoundedDim declares the bounded dim name, whose value v (a scalar i64 value of the graph)
// computes, and appends v to the outputs. name may already be a param (declared with AddParam
// while the ops that use it were built) but not one of an input's type or another bounded dim.
func (g *Graph) AddBoundedDim(name string, bound int64, v *Value) error {
	if _, ok := g.BoundedParam(name); ok {
		return fmt.Errorf("bounded dim %s declared twice", name)
	}
	for _, in := range g.Inputs {
		if slices.Contains(in.Type.Params(), name) {
			return fmt.Errorf("bounded dim %s is a dim of input %%%s", name, in.Name)
		}
	}
	if v.Type.Elem != I64 || v.Type.Rank() != 0 {
		return fmt.Errorf("bounded dim %s: its value %%%s must be a scalar i64, it is %s", name, v.Name, v.Type)
	}
	if bound < 0 {
		return fmt.Errorf("bounded dim %s: negative bound %d", name, bound)
	}
	g.AddParam(name)
	g.Outputs = append(g.Outputs, v)
	g.Bounded = append(g.Bounded, BoundedDim{Param: name, Bound: bound, Output: len(g.Outputs) - 1})
	return nil
}

// BoundedParam returns the bounded dim named p.
func (g *Graph) BoundedParam(p string) (BoundedDim, bool) {
	for _, b := range g.Bounded {
		if b.Param == p {
			return b, true
		}
	}
	return BoundedDim{}, false
}

// BoundedValue returns the value that defines bounded dim b.
func (g *Graph) BoundedValue(b BoundedDim) *Value { return g.Outputs[b.Output] }

// CallerParams returns the symbolic dims the caller gives (those that are not bounded dims), in
// order.
func (g *Graph) CallerParams() []string {
	var out []string
	for _, p := range g.Params {
		if _, ok := g.BoundedParam(p); !ok {
			out = append(out, p)
		}
	}
	return out
}

// BoundConstraints returns 0 <= n and n <= Bound for every bounded dim n: the context in which
// every op of the graph runs.
func (g *Graph) BoundConstraints() []volume.Constraint {
	var cs []volume.Constraint
	for _, b := range g.Bounded {
		n := volume.AffParam(b.Param)
		cs = append(cs, volume.GE(n, volume.AffConst(0)), volume.GE(volume.AffConst(b.Bound), n))
	}
	return cs
}

// UsesBounded reports whether a mentions a bounded dim of g.
func (g *Graph) UsesBounded(a volume.Aff) bool {
	for _, p := range a.ParamNames() {
		if _, ok := g.BoundedParam(p); ok {
			return true
		}
	}
	return false
}

// CheckBoundedValue checks that v, the value computed for bounded dim b, lies in [0, Bound].
func CheckBoundedValue(b BoundedDim, v int64) error {
	if v < 0 || v > b.Bound {
		return fmt.Errorf("bounded dim %s = %d lies outside [0, %d]", b.Param, v, b.Bound)
	}
	return nil
}

// verifyBounded checks the bounded dims: declared params, scalar i64 outputs, used only after
// their value is computed.
func verifyBounded(g *Graph) error {
	seen := map[string]bool{}
	for _, b := range g.Bounded {
		if seen[b.Param] || !slices.Contains(g.Params, b.Param) {
			return fmt.Errorf("bounded dim %s is undeclared or declared twice", b.Param)
		}
		seen[b.Param] = true
		if b.Output < 0 || b.Output >= len(g.Outputs) {
			return fmt.Errorf("bounded dim %s: no output #%d", b.Param, b.Output)
		}
		v := g.Outputs[b.Output]
		if v.Type.Elem != I64 || v.Type.Rank() != 0 {
			return fmt.Errorf("bounded dim %s: its value %%%s is %s, not a scalar i64", b.Param, v.Name, v.Type)
		}
		for _, in := range g.Inputs {
			if slices.Contains(in.Type.Params(), b.Param) {
				return fmt.Errorf("bounded dim %s appears in the type of input %%%s", b.Param, in.Name)
			}
		}
	}
	// an op may use a bounded dim only after the op that computes it
	known := map[string]bool{}
	for _, b := range g.Bounded {
		if g.Outputs[b.Output].Def == nil {
			known[b.Param] = true
		}
	}
	for _, op := range g.Ops {
		for _, p := range opParams(op) {
			if _, ok := g.BoundedParam(p); ok && !known[p] {
				return fmt.Errorf("op %%%s (%s) uses bounded dim %s before its value is computed", op.Result.Name, op.Kind, p)
			}
		}
		for _, b := range g.Bounded {
			if g.Outputs[b.Output] == op.Result {
				known[b.Param] = true
			}
		}
	}
	return nil
}

// opParams returns the symbolic dims an op's result type and domain use.
func opParams(op *Op) []string {
	ps := op.Result.Type.Params()
	for _, c := range op.Requires {
		ps = append(ps, c.Aff.ParamNames()...)
	}
	for _, o := range op.Operands {
		ps = append(ps, o.Type.Params()...)
	}
	return ps
}

// boundedString prints the declaration of bounded dim b in the graph's parameter list:
// "n <= 24 from %count".
func (g *Graph) boundedString(b BoundedDim) string {
	return fmt.Sprintf("%s <= %d from %%%s", b.Param, b.Bound, g.Outputs[b.Output].Name)
}

// pendingBounded is a bounded dim parsed from the parameter list, resolved at the return.
type pendingBounded struct {
	param string
	bound int64
	value string
}

// parseBoundedParam parses "n <= 24 from %count"; ok is false for a plain parameter name.
func parseBoundedParam(s string) (pendingBounded, bool, error) {
	name, rest, ok := strings.Cut(s, "<=")
	if !ok {
		return pendingBounded{}, false, nil
	}
	bs, v, ok := strings.Cut(rest, "from")
	if !ok {
		return pendingBounded{}, true, fmt.Errorf("bounded dim %q: want \"NAME <= BOUND from %%VALUE\"", s)
	}
	bound, err := strconv.ParseInt(strings.TrimSpace(bs), 10, 64)
	if err != nil {
		return pendingBounded{}, true, fmt.Errorf("bounded dim %q: bound: %v", s, err)
	}
	v = strings.TrimSpace(v)
	if !strings.HasPrefix(v, "%") {
		return pendingBounded{}, true, fmt.Errorf("bounded dim %q: want a value %%NAME after from", s)
	}
	return pendingBounded{param: strings.TrimSpace(name), bound: bound, value: v[1:]}, true, nil
}

// resolveBounded attaches the parsed bounded dims to the outputs of g.
func resolveBounded(g *Graph, pend []pendingBounded) error {
	for _, pb := range pend {
		idx := -1
		for i, o := range g.Outputs {
			if o.Name == pb.value {
				idx = i
			}
		}
		if idx < 0 {
			return fmt.Errorf("bounded dim %s: %%%s is not an output of the graph", pb.param, pb.value)
		}
		g.Bounded = append(g.Bounded, BoundedDim{Param: pb.param, Bound: pb.bound, Output: idx})
	}
	return nil
}

// SettleBounded widens the domains of the ops that run before a bounded dim is computed: a pass
// (DIE) may have restricted them by constraints on the dim, whose value is not known yet when
// they run. Such a domain becomes its union over every value of the dim within its bound (the
// projection of the parameter), which contains the iterations any value needs.
func SettleBounded(g *Graph) {
	if len(g.Bounded) == 0 {
		return
	}
	pending := map[string]bool{}
	for _, b := range g.Bounded {
		if g.Outputs[b.Output].Def != nil {
			pending[b.Param] = true
		}
	}
	for _, op := range g.Ops {
		if len(pending) == 0 {
			return
		}
		if op.IsRestricted() {
			d := op.Domain
			for _, b := range g.Bounded {
				if !pending[b.Param] || !slices.Contains(d.Params(), b.Param) {
					continue
				}
				ctx := SetFromParamConstraints(d.Params(), []volume.Constraint{
					volume.GE(volume.AffParam(b.Param), volume.AffConst(0)),
					volume.GE(volume.AffConst(b.Bound), volume.AffParam(b.Param))})
				d = d.IntersectParams(ctx).ProjectOutParam(b.Param)
			}
			op.Domain = op.Full.Intersect(d).Coalesce()
		}
		for _, b := range g.Bounded {
			if g.Outputs[b.Output] == op.Result {
				delete(pending, b.Param)
			}
		}
	}
}

// SetFromParamConstraints returns the set of parameter values (no dims) satisfying cs.
func SetFromParamConstraints(params []string, cs []volume.Constraint) volume.Set {
	return volume.SetFromConstraints(params, "", nil, cs)
}
