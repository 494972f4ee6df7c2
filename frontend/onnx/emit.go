// This file holds emitter, the helper the math, reduction and normalisation importers use to
// build a chain of catalogue ops for one node: it names intermediate results after the node's
// output, creates scalar constants, and keeps the first error so that chains read straight.

package onnx

import (
	"fmt"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// emitter emits the ops of one node, remembering the first error.
type emitter struct {
	c   *nodeCtx
	err error
}

func (c *nodeCtx) emitter() *emitter { return &emitter{c: c} }

// base returns the name intermediate results are derived from.
func (e *emitter) base() string {
	if o := e.c.Output(0); o != "" {
		return o
	}
	return e.c.node.GetName()
}

// in returns input i (nil and the error recorded when it is missing).
func (e *emitter) in(i int) *ir.Value {
	if e.err != nil {
		return nil
	}
	v, err := e.c.Input(i)
	if err != nil {
		e.err = err
		return nil
	}
	return v
}

// op emits one catalogue op; name "" derives an intermediate name from the node's output.
func (e *emitter) op(kind, name string, attrs ir.Attrs, operands ...*ir.Value) *ir.Value {
	if e.err != nil {
		return nil
	}
	for _, o := range operands {
		if o == nil {
			e.err = fmt.Errorf("internal error: nil operand of %s", kind)
			return nil
		}
	}
	if name == "" {
		name = e.base() + "_" + kind
	}
	v, err := e.c.Emit(kind, operands, attrs, name)
	if err != nil {
		e.err = err
		return nil
	}
	return v
}

// scalar returns a rank-0 constant of type t.
func (e *emitter) scalar(t ir.DType, v float64) *ir.Value {
	if e.err != nil {
		return nil
	}
	d := ir.NewTensor(t, nil)
	if t.IsFloat() {
		d.F[0] = ir.RoundFloat(t, v)
	} else {
		d.I[0] = ir.IntInit(t, v)
	}
	return e.c.im.g.AddConst(e.base()+"_c", d)
}

// cast converts v to element type t (v itself when it already has it).
func (e *emitter) cast(v *ir.Value, t ir.DType) *ir.Value {
	if v == nil || v.Type.Elem == t {
		return v
	}
	return e.op("cast", "", ir.Attrs{"to": ir.StringAttr(t.String())}, v)
}

// out binds output i to v.
func (e *emitter) out(i int, v *ir.Value) {
	if e.err == nil && v != nil {
		e.c.SetOutput(i, v)
	}
}

// done returns the recorded error.
func (e *emitter) done() error { return e.err }

// count returns the number of elements of v over the given axes as a scalar of type t: a
// constant when the extents are static, else a reduction of ones over those axes (exact for
// counts the type represents).
func (e *emitter) count(v *ir.Value, axes []int, t ir.DType) *ir.Value {
	if e.err != nil {
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
		return e.scalar(t, float64(n))
	}
	shape := make([]volume.Aff, len(axes))
	all := make([]int, len(axes))
	for i, a := range axes {
		shape[i] = v.Type.Shape[a]
		all[i] = i
	}
	ones := e.op("fill", "", ir.Attrs{"type": ir.StringAttr(ir.TensorType{Elem: t, Shape: shape}.String()), "value": ir.FloatAttr(1)})
	return e.op("reduce_sum", "", ir.Attrs{"axes": ints(all), "keepdims": ir.IntAttr(0)}, ones)
}

// ints converts axes to an integer-list attribute.
func ints(axes []int) ir.Attr {
	out := make([]int64, len(axes))
	for i, a := range axes {
		out[i] = int64(a)
	}
	return ir.IntsAttr(out...)
}

// resolveAxes maps possibly negative axes into [0, rank), rejecting repeats.
func resolveAxes(axes []int64, rank int) ([]int, error) {
	out := make([]int, 0, len(axes))
	seen := map[int]bool{}
	for _, a := range axes {
		if a < -int64(rank) || a >= int64(rank) {
			return nil, fmt.Errorf("%w: axis %d out of range for rank %d", ErrInvalid, a, rank)
		}
		if a < 0 {
			a += int64(rank)
		}
		if seen[int(a)] {
			return nil, fmt.Errorf("%w: axis %d repeated", ErrInvalid, a)
		}
		seen[int(a)] = true
		out = append(out, int(a))
	}
	return out, nil
}
