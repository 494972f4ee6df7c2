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

// keepRequires moves the requirements of the ops drop removes to the first op that stays (the
// entry checks all of them before any kernel, so which op holds one does not matter), so
// that removing an op never widens the symbolic dims the graph accepts.
func keepRequires(g *ir.Graph, drop func(*ir.Op) bool) {
	var gone []*ir.Op
	var keep *ir.Op
	for _, op := range g.Ops {
		switch {
		case drop(op):
			if len(op.Requires) > 0 {
				gone = append(gone, op)
			}
		case keep == nil:
			keep = op
		}
	}
	if keep != nil && len(gone) > 0 {
		inheritRequires(keep, gone...)
	}
}
