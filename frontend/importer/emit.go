// This file holds Emitter, the helper op importers use to build a chain of catalogue ops for
// one node: it names intermediate results after the node, creates scalar constants, and keeps
// the first error so that chains read straight.

package importer

import (
	"fmt"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// Node is what an Emitter needs of the format's node context.
type Node interface {
	// Input returns data input i as an IR value.
	Input(i int) (*ir.Value, error)
	// Emit adds the catalogue op kind to the graph (or folds it) and returns its result,
	// named name when name is not "".
	Emit(kind string, operands []*ir.Value, attrs ir.Attrs, name string) (*ir.Value, error)
	// SetOutput binds output i of the node to v.
	SetOutput(i int, v *ir.Value)
	// AddConst adds a constant to the graph.
	AddConst(name string, t *ir.Tensor) *ir.Value
}

// Emitter emits the ops of one node, remembering the first error: once one is recorded,
// every method returns nil and Done returns the error. It is the one face both formats build
// their node importers with (each format's emitter embeds it), so that an op imported from
// ONNX and from TensorFlow reads the same: every method that adds an op takes the result's
// name, "" for an intermediate result (named after Base and the op kind) and usually Base or a
// named output of the node for the node's own result.
type Emitter struct {
	Node Node
	// Base is what intermediate results are named after (the node's first output or name).
	Base string
	// Err points at the first error: the format's emitter owns the variable, so that its node
	// importers can test it between steps.
	Err *error
}

// NameIf returns Base when last is true and "" (an intermediate result) otherwise: the name of
// a step that may or may not be the node's final one.
func (e *Emitter) NameIf(last bool) string {
	if last {
		return e.Base
	}
	return ""
}

// In returns input i (nil and the error recorded when it is missing).
func (e *Emitter) In(i int) *ir.Value {
	if *e.Err != nil {
		return nil
	}
	v, err := e.Node.Input(i)
	if err != nil {
		*e.Err = err
		return nil
	}
	return v
}

// Op emits one catalogue op; name "" names the result after Base and the op kind (an
// intermediate result).
func (e *Emitter) Op(kind, name string, attrs ir.Attrs, operands ...*ir.Value) *ir.Value {
	if *e.Err != nil {
		return nil
	}
	for _, o := range operands {
		if o == nil {
			*e.Err = fmt.Errorf("internal error: nil operand of %s", kind)
			return nil
		}
	}
	if name == "" {
		name = e.Base + "_" + kind
	}
	v, err := e.Node.Emit(kind, operands, attrs, name)
	if err != nil {
		*e.Err = err
		return nil
	}
	return v
}

// Scalar returns a rank-0 constant of type t.
func (e *Emitter) Scalar(t ir.DType, v float64) *ir.Value {
	if *e.Err != nil {
		return nil
	}
	d := ir.NewTensor(t, nil)
	if t.IsFloat() {
		d.F[0] = ir.RoundFloat(t, v)
	} else {
		d.I[0] = ir.IntInit(t, v)
	}
	return e.Node.AddConst(e.Base+"_c", d)
}

// Cast converts v to element type t. With name "" it returns v itself when it already has
// type t; with a name the result is always a new value of that name (an identity when the
// type is unchanged).
func (e *Emitter) Cast(v *ir.Value, t ir.DType, name string) *ir.Value {
	if v == nil || v.Type.Elem == t && name == "" {
		return v
	}
	if v.Type.Elem == t {
		return e.Op("identity", name, nil, v)
	}
	return e.Op("cast", name, ir.Attrs{"to": ir.StringAttr(t.String())}, v)
}

// Reshape gives v the given shape (the same elements in row-major order).
func (e *Emitter) Reshape(v *ir.Value, shape []volume.Aff, name string) *ir.Value {
	return e.Op("reshape", name, ir.Attrs{"shape": ir.StringAttr(ir.ExtentsString(shape))}, v)
}

// Transpose permutes the dims of v.
func (e *Emitter) Transpose(v *ir.Value, perm []int64, name string) *ir.Value {
	return e.Op("transpose", name, ir.Attrs{"perm": ir.IntsAttr(perm...)}, v)
}

// UnitDims appends n unit dims to v ([C] → [C, 1, 1] for n = 2).
func (e *Emitter) UnitDims(v *ir.Value, n int) *ir.Value {
	if v == nil {
		return nil
	}
	shape := append([]volume.Aff(nil), v.Type.Shape...)
	for range n {
		shape = append(shape, volume.AffConst(1))
	}
	return e.Reshape(v, shape, "")
}

// Out binds output i to v.
func (e *Emitter) Out(i int, v *ir.Value) {
	if *e.Err == nil && v != nil {
		e.Node.SetOutput(i, v)
	}
}

// Fail records err (when none is recorded yet).
func (e *Emitter) Fail(err error) {
	if *e.Err == nil {
		*e.Err = err
	}
}

// Done returns the recorded error.
func (e *Emitter) Done() error { return *e.Err }

// Count returns the number of elements of v over the given axes as a scalar of type t: a
// constant when the extents are static, else a reduction of ones over those axes (exact for
// counts the type represents).
func (e *Emitter) Count(v *ir.Value, axes []int, t ir.DType) *ir.Value {
	if *e.Err != nil {
		return nil
	}
	n := int64(1)
	static := true
	for _, a := range axes {
		d, ok := v.Type.Dim(a)
		if !ok {
			static = false
			break
		}
		n *= d
	}
	if static {
		return e.Scalar(t, float64(n))
	}
	shape := make([]volume.Aff, len(axes))
	all := make([]int, len(axes))
	for i, a := range axes {
		shape[i] = v.Type.Shape[a]
		all[i] = i
	}
	ones := e.Op("fill", "", ir.Attrs{"type": ir.StringAttr(ir.TensorType{Elem: t, Shape: shape}.String()), "value": ir.FloatAttr(1)})
	return e.Op("reduce_sum", "", ir.Attrs{"axes": Ints(all), "keepdims": ir.IntAttr(0)}, ones)
}
