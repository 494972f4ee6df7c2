// This file holds emitter, the TensorFlow face of the kit's Emitter (importer.Emitter): op
// importers build a chain of catalogue ops for one node, the last result named after the node
// (final) and the intermediate ones after the node and the op kind.

package tf

import (
	kit "github.com/graphc/graphc/frontend/importer"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// emitter emits the ops of one node, remembering the first error in err.
type emitter struct {
	c   *nodeCtx
	err error
	k   kit.Emitter
}

func (c *nodeCtx) emitter() *emitter {
	e := &emitter{c: c}
	e.k = kit.Emitter{Node: c, Base: c.Name(), Err: &e.err}
	return e
}

// resultName is the name of a final result (the node's), "" for an intermediate one.
func (e *emitter) resultName(final bool) string {
	if final {
		return e.c.Name()
	}
	return ""
}

// op emits one catalogue op.
func (e *emitter) op(kind string, final bool, attrs ir.Attrs, operands ...*ir.Value) *ir.Value {
	return e.k.Op(kind, e.resultName(final), attrs, operands...)
}

// cast converts v to element type t (v itself when it already has it and is not final).
func (e *emitter) cast(v *ir.Value, t ir.DType, final bool) *ir.Value {
	return e.k.Cast(v, t, e.resultName(final))
}

// reshape gives v the given shape (the same elements in row-major order).
func (e *emitter) reshape(v *ir.Value, shape []volume.Aff, final bool) *ir.Value {
	return e.k.Reshape(v, shape, e.resultName(final))
}

// transpose permutes the dims of v.
func (e *emitter) transpose(v *ir.Value, perm []int64, final bool) *ir.Value {
	return e.op("transpose", final, ir.Attrs{"perm": ir.IntsAttr(perm...)}, v)
}

func (e *emitter) in(i int) *ir.Value                     { return e.k.In(i) }
func (e *emitter) scalar(t ir.DType, v float64) *ir.Value { return e.k.Scalar(t, v) }
func (e *emitter) unitDims(v *ir.Value, n int) *ir.Value  { return e.k.UnitDims(v, n) }
func (e *emitter) out(i int, v *ir.Value)                 { e.k.Out(i, v) }
func (e *emitter) fail(err error)                         { e.k.Fail(err) }
func (e *emitter) done() error                            { return e.err }
func extentsString(shape []volume.Aff) string             { return ir.ExtentsString(shape) }
func ints(axes []int) ir.Attr                             { return kit.Ints(axes) }
func resolveAxes(axes []int64, rank int) ([]int, error) {
	return kit.ResolveAxes(axes, rank, ErrInvalid)
}
func (e *emitter) count(v *ir.Value, axes []int, t ir.DType) *ir.Value { return e.k.Count(v, axes, t) }
