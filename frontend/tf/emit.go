// This file holds emitter, the TensorFlow node importers' handle on the kit's Emitter
// (kit.Emitter, embedded: e.Op, e.In, e.Cast, e.Out, e.Done, …, the same face the ONNX
// importers use): the node's result is named after the node (e.Base), the intermediate ones
// after the node and the op kind.

package tf

import (
	kit "github.com/graphc/graphc/frontend/importer"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// emitter emits the ops of one node, remembering the first error in err.
type emitter struct {
	kit.Emitter
	c   *nodeCtx
	err error
}

func (c *nodeCtx) emitter() *emitter {
	e := &emitter{c: c}
	e.Emitter = kit.Emitter{Node: c, Base: c.Name(), Err: &e.err}
	return e
}

func extentsString(shape []volume.Aff) string { return ir.ExtentsString(shape) }
func ints(axes []int) ir.Attr                 { return kit.Ints(axes) }
func resolveAxes(axes []int64, rank int) ([]int, error) {
	return kit.ResolveAxes(axes, rank, ErrInvalid)
}
