// This file holds emitter, the helper op importers use to build a chain of catalogue ops for
// one node: it names intermediate results after the node, creates scalar constants and keeps
// the first error so that chains read straight.

package tf

import (
	"fmt"
	"strings"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// emitter emits the ops of one node, remembering the first error.
type emitter struct {
	c   *nodeCtx
	err error
}

func (c *nodeCtx) emitter() *emitter { return &emitter{c: c} }

// in returns data input i (nil and the error recorded when it is missing).
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

// op emits one catalogue op. Its result is named after the node when final, else after the
// node and the op kind (an intermediate result).
func (e *emitter) op(kind string, final bool, attrs ir.Attrs, operands ...*ir.Value) *ir.Value {
	if e.err != nil {
		return nil
	}
	for _, o := range operands {
		if o == nil {
			e.err = fmt.Errorf("internal error: nil operand of %s", kind)
			return nil
		}
	}
	name := e.c.Name()
	if !final {
		name += "_" + kind
	}
	g := e.c.im.g
	op, err := ir.MakeOp(g.Params, kind, e.c.Name(), operands, attrs)
	if err != nil {
		e.err = err
		return nil
	}
	if t, ok := fold(op); ok {
		return g.AddConst(name, t)
	}
	g.Append(op, name)
	return op.Result
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
	return e.c.im.g.AddConst(e.c.Name()+"_c", d)
}

// cast converts v to element type t (v itself when it already has it).
func (e *emitter) cast(v *ir.Value, t ir.DType, final bool) *ir.Value {
	if v == nil || v.Type.Elem == t && !final {
		return v
	}
	if v.Type.Elem == t {
		return e.op("identity", true, nil, v)
	}
	return e.op("cast", final, ir.Attrs{"to": ir.StringAttr(t.String())}, v)
}

// out binds output port i to v.
func (e *emitter) out(i int, v *ir.Value) {
	if e.err == nil && v != nil {
		e.c.SetOutput(i, v)
	}
}

// fail records err (when none is recorded yet).
func (e *emitter) fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

// done returns the recorded error.
func (e *emitter) done() error { return e.err }

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

// unitDims appends n unit dims to v ([C] → [C, 1, 1] for n = 2).
func (e *emitter) unitDims(v *ir.Value, n int) *ir.Value {
	if v == nil {
		return nil
	}
	shape := append([]volume.Aff(nil), v.Type.Shape...)
	for i := 0; i < n; i++ {
		shape = append(shape, volume.AffConst(1))
	}
	return e.reshape(v, shape, false)
}

// reshape gives v the given shape (the same elements in row-major order).
func (e *emitter) reshape(v *ir.Value, shape []volume.Aff, final bool) *ir.Value {
	if e.err != nil {
		return nil
	}
	return e.op("reshape", final, ir.Attrs{"shape": ir.StringAttr(extentsString(shape))}, v)
}

// extentsString prints extents as a shape attribute: "[N, 12]".
func extentsString(shape []volume.Aff) string {
	parts := make([]string, len(shape))
	for i, d := range shape {
		parts[i] = d.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// transpose permutes the dims of v.
func (e *emitter) transpose(v *ir.Value, perm []int64, final bool) *ir.Value {
	return e.op("transpose", final, ir.Attrs{"perm": ir.IntsAttr(perm...)}, v)
}
