// This file holds what the importer does with inputs that must be known at compile time (shape
// operands such as Reshape's shape, Slice's starts, Pad's pads): the helpers op importers call,
// the error they return when such an input is only known at run time, and the option that binds
// a graph input to constant data.

package onnx

import (
	"fmt"
	"strings"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// NeedConstError says that an op needs an input at compile time which is not known then. When
// the input is a graph input, binding it with WithConstInput makes the model compile.
type NeedConstError struct {
	Input      string // the ONNX value name
	Role       string // what the op uses it for, e.g. "shape"
	GraphInput bool   // the value is a graph input (not computed by the graph)
	// DependsOn lists the graph inputs a computed value depends on: binding them all makes
	// it computable at import.
	DependsOn []string
	// SymbolicDims are the model's symbolic dims so far (the value may depend on them: binding
	// them with --dim / onnx.WithDim makes shapes known).
	SymbolicDims []string
}

func (e *NeedConstError) Error() string {
	msg := fmt.Sprintf("%v: input %q (%s) must be known at compile time (an initializer, a Constant, or computed from shapes)", ErrUnsupported, e.Input, e.Role)
	switch {
	case e.GraphInput:
		msg += "; it is a graph input: bind its value at compile time"
	case len(e.DependsOn) > 0:
		msg += fmt.Sprintf("; it is computed from the graph inputs %q: bind them at compile time", e.DependsOn)
	}
	if len(e.SymbolicDims) > 0 {
		msg += fmt.Sprintf("; the model's symbolic dims are %s: bind them with --dim NAME=VALUE if the value comes from shapes", strings.Join(e.SymbolicDims, ", "))
	}
	return msg
}

// Inputs returns the graph inputs whose binding would make the value known.
func (e *NeedConstError) Inputs() []string {
	if e.GraphInput {
		return []string{e.Input}
	}
	return e.DependsOn
}

func (e *NeedConstError) Unwrap() error { return ErrUnsupported }

// WithConstInput binds the graph input name to data at import: it becomes a constant (the
// compiled graph is specialised for that value and no longer takes it as an argument).
func WithConstInput(name string, data *ir.Tensor) Option {
	return func(c *config) {
		if c.constInputs == nil {
			c.constInputs = map[string]*ir.Tensor{}
		}
		c.constInputs[name] = data
	}
}

// needConst returns the error for input i of the node.
func (c *nodeCtx) needConst(i int, role string) error {
	name := c.node.Input[i]
	graphInput := false
	if v, ok := c.im.Vals[name]; ok && v.Def == nil && !v.IsConst() {
		graphInput = true
	}
	e := &NeedConstError{Input: name, Role: role, GraphInput: graphInput, SymbolicDims: append([]string(nil), c.im.g.Params...)}
	if v, ok := c.im.Vals[name]; ok && !graphInput {
		e.DependsOn = c.im.inputsOf(v)
	}
	return e
}

// inputsOf returns the ONNX names of the graph inputs v is computed from, in graph order.
func (im *importer) inputsOf(v *ir.Value) []string {
	seen := map[*ir.Value]bool{}
	var walk func(v *ir.Value)
	walk = func(v *ir.Value) {
		if seen[v] {
			return
		}
		seen[v] = true
		if v.Def != nil {
			for _, o := range v.Def.Operands {
				walk(o)
			}
		}
	}
	walk(v)
	var out []string
	for _, in := range im.g.Inputs {
		if !seen[in] {
			continue
		}
		for name, w := range im.Vals {
			if w == in {
				out = append(out, name)
			}
		}
	}
	return out
}

// RequireConst returns the data of input i, which the op needs at compile time.
func (c *nodeCtx) RequireConst(i int, role string) (*ir.Tensor, error) {
	t, ok := c.ConstInput(i)
	if !ok {
		if !c.HasInput(i) {
			return nil, fmt.Errorf("%w: missing input #%d (%s)", ErrInvalid, i, role)
		}
		return nil, c.needConst(i, role)
	}
	return t.Decoded(), nil
}

// RequireInts returns integer input i, which the op needs at compile time.
func (c *nodeCtx) RequireInts(i int, role string) ([]int64, error) {
	t, err := c.RequireConst(i, role)
	if err != nil {
		return nil, err
	}
	if t.Elem.IsFloat() {
		return nil, fmt.Errorf("%w: input %q (%s) must hold integers, got %s", ErrInvalid, c.node.Input[i], role, t.Elem)
	}
	return append([]int64(nil), t.Decoded().I...), nil
}

// RequireSymInts returns integer input i as quasi-affine values (constants, or expressions of
// the symbolic dims), which the op needs at compile time.
func (c *nodeCtx) RequireSymInts(i int, role string) ([]volume.Aff, error) {
	if v, ok := c.SymInts(i); ok {
		return v, nil
	}
	if !c.HasInput(i) {
		return nil, fmt.Errorf("%w: missing input #%d (%s)", ErrInvalid, i, role)
	}
	if t, ok := c.ConstInput(i); ok && t.Elem.IsFloat() {
		return nil, fmt.Errorf("%w: input %q (%s) must hold integers, got %s", ErrInvalid, c.node.Input[i], role, t.Elem)
	}
	return nil, c.needConst(i, role)
}

// RequireFloats returns input i as floats, which the op needs at compile time.
func (c *nodeCtx) RequireFloats(i int, role string) ([]float64, error) {
	t, err := c.RequireConst(i, role)
	if err != nil {
		return nil, err
	}
	out := make([]float64, t.Len())
	for k := range out {
		out[k] = t.Float(k)
	}
	return out, nil
}
