// This file keeps the ops' requirements on the symbolic dims (ir.Op.Requires) when passes
// remove or merge ops: the compiled entry checks every op's requirements before it runs a
// kernel, and DIE restricts domains assuming them.

package passes

import (
	"slices"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// inheritRequires adds to dst the requirements of srcs it lacks. fuse calls it when a
// consumer absorbs a view or a producer: the absorbed op goes, its requirement must not (a
// LLaMA export's rotary table sliced to seq needs seq <= 256; without the requirement, the
// entry of the default pipeline's build ran for seq = 300 on domains that DIE had restricted
// to seq < 257, and lowering, which assumes the requirements, saw no result written whole).
func inheritRequires(dst *ir.Op, srcs ...*ir.Op) {
	for _, s := range srcs {
		for _, c := range s.Requires {
			if !slices.ContainsFunc(dst.Requires, func(o volume.Constraint) bool { return o.Eq == c.Eq && o.Aff.Equal(c.Aff) }) {
				dst.Requires = append(slices.Clip(dst.Requires), c)
			}
		}
	}
}

// keepRequires moves the requirements of the ops drop removes to an op that stays, so that
// removing an op never widens the symbolic dims the graph accepts: the first one after the
// removed op, else the last one before it. The entry checks a requirement on caller dims
// before any kernel, so which op holds it does not matter for those; one on a bounded dim is
// checked once the dim is computed, so it must stay after the op computing it (kept: its
// value is an output), as the removed op was: on the first op of the graph, a requirement of
// SSDlite's per-class TopK used its class's k before any class was selected.
func keepRequires(g *ir.Graph, drop func(*ir.Op) bool) {
	var gone []*ir.Op
	var last *ir.Op // the last op that stays, so far
	for _, op := range g.Ops {
		if drop(op) {
			if len(op.Requires) > 0 {
				gone = append(gone, op)
			}
			continue
		}
		if len(gone) > 0 {
			inheritRequires(op, gone...)
			gone = nil
		}
		last = op
	}
	if last != nil && len(gone) > 0 {
		inheritRequires(last, gone...)
	}
}
