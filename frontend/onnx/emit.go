// This file holds emitter, the ONNX node importers' handle on the kit's Emitter (kit.Emitter,
// embedded: e.Op, e.In, e.Cast, e.Out, e.Done, …, the same face the TensorFlow importers use),
// with intermediate results named after the node's first output.

package onnx

import (
	kit "github.com/graphc/graphc/frontend/importer"
	"github.com/graphc/graphc/ir"
)

// emitter emits the ops of one node, remembering the first error in err.
type emitter struct {
	kit.Emitter
	c   *nodeCtx
	err error
}

func (c *nodeCtx) emitter() *emitter {
	base := c.Output(0)
	if base == "" {
		base = c.node.GetName()
	}
	e := &emitter{c: c}
	e.Emitter = kit.Emitter{Node: c, Base: base, Err: &e.err}
	return e
}

func ints(axes []int) ir.Attr { return kit.Ints(axes) }

func resolveAxes(axes []int64, rank int) ([]int, error) {
	return kit.ResolveAxes(axes, rank, ErrInvalid)
}
