// This file holds the one case where fuse keeps an elementwise producer apart from its
// consumer: the producer applies a function to a contraction's result (a Relu after a
// convolution) and the consumer copies it into part of a larger tensor (a concatenation, a
// padding). Apart, lowering runs the producer as the contraction's epilogue (free: the tile
// applies it to its accumulators) and writes its result in place, inside the copy's buffer
// (lower/alias.go): the copy of that part disappears. Inlined, the copy applies the function
// itself and must read the contraction's result from a buffer of its own (SqueezeNet's Fire
// modules and GoogLeNet's Inception branches each concatenate Relu'd convolutions).

package passes

import (
	"slices"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// keepsEpilogue reports whether p, the producer of c's operand k, is to stay apart from c
// (see the file comment): the graph has static shapes (lowering writes in place only then), c
// is a copy without reduction whose body, where read k is defined, is that read, which is one
// guarded piece (a part of c) at the iteration point plus constants, and p is elementwise over one
// operand that only p reads, the float result of a sum of products (a bias may be added in the
// sum's body), read at the iteration point.
func (fc *fuseCost) keepsEpilogue(g *ir.Graph, c *ir.Op, k int, p *ir.Op) bool {
	if len(g.Params) > 0 || fc.users == nil || c.Reduce != ir.ReduceNone || p.Reduce != ir.ReduceNone {
		return false
	}
	acc := c.Access[k]
	if acc.Approx || len(acc.Pieces) != 1 || len(acc.Pieces[0].Guard) == 0 || !shiftedIdentity(acc.Pieces[0].Index) {
		return false
	}
	if b := partBody(c.Body, k); b.Op != ir.SRead || b.Arg != k {
		return false
	}
	var x *ir.Value
	for j, o := range p.Operands {
		if o.Def == nil && o.Data != nil {
			continue // a constant (a bias, a Clip bound)
		}
		if x != nil || len(p.Access[j].Pieces) != 1 || len(p.Access[j].Pieces[0].Guard) > 0 || !shiftedIdentity(p.Access[j].Pieces[0].Index) {
			return false
		}
		x = o
	}
	if x == nil || x.Def == nil || !x.Type.Elem.IsFloat() || x.Def.Reduce != ir.ReduceSum || !multiplies(x.Def.Body) || len(fc.users[x]) != 1 || x.Type.Rank() != p.NDim() || slices.Contains(g.Outputs, x) {
		return false
	}
	for d, a := range p.Access[slices.Index(p.Operands, x)].Pieces[0].Index {
		if !a.Equal(volume.AffDim(d)) {
			return false
		}
	}
	fc.st.remark("fuse", c.Result.Name, "%"+p.Result.Name+" ("+p.Kind+") kept apart: the epilogue of %"+x.Name+"'s contraction, which then writes its part in place")
	return true
}

// shiftedIdentity reports whether idx is the iteration point plus constants.
func shiftedIdentity(idx []volume.Aff) bool {
	for d, a := range idx {
		b := a
		b.Const = 0
		if !b.Equal(volume.AffDim(d)) {
			return false
		}
	}
	return true
}

// partBody returns the part of body b that holds where read k is defined and the reads it
// tests before k are not (a concatenation's select(avail(0), in0, select(avail(1), in1, ...))).
func partBody(b *ir.Scalar, k int) *ir.Scalar {
	for b.Op == ir.SSelect && len(b.Args) == 3 && b.Args[0].Op == ir.SAvail {
		if b.Args[0].Arg == k {
			b = b.Args[1]
		} else {
			b = b.Args[2]
		}
	}
	return b
}
