// This file holds emitter, the ONNX face of the kit's Emitter (kit.Emitter): the short
// names the node importers build their chains of catalogue ops with, intermediate results
// named after the node's first output.

package onnx

import (
	kit "github.com/graphc/graphc/frontend/importer"
	"github.com/graphc/graphc/ir"
)

// emitter emits the ops of one node, remembering the first error in err.
type emitter struct {
	c   *nodeCtx
	err error
	k   kit.Emitter
}

func (c *nodeCtx) emitter() *emitter {
	base := c.Output(0)
	if base == "" {
		base = c.node.GetName()
	}
	e := &emitter{c: c}
	e.k = kit.Emitter{Node: c, Base: base, Err: &e.err}
	return e
}

// base returns the name intermediate results are derived from.
func (e *emitter) base() string { return e.k.Base }

func (e *emitter) in(i int) *ir.Value { return e.k.In(i) }

// op emits one catalogue op; name "" derives an intermediate name from the node's output.
func (e *emitter) op(kind, name string, attrs ir.Attrs, operands ...*ir.Value) *ir.Value {
	return e.k.Op(kind, name, attrs, operands...)
}

func (e *emitter) scalar(t ir.DType, v float64) *ir.Value { return e.k.Scalar(t, v) }

// cast converts v to element type t (v itself when it already has it).
func (e *emitter) cast(v *ir.Value, t ir.DType) *ir.Value { return e.k.Cast(v, t, "") }

func (e *emitter) out(i int, v *ir.Value) { e.k.Out(i, v) }

func (e *emitter) done() error { return e.err }

func (e *emitter) count(v *ir.Value, axes []int, t ir.DType) *ir.Value { return e.k.Count(v, axes, t) }

func ints(axes []int) ir.Attr { return kit.Ints(axes) }

func resolveAxes(axes []int64, rank int) ([]int, error) {
	return kit.ResolveAxes(axes, rank, ErrInvalid)
}
