// This file decides access guards against the domain an op actually runs on. After DIE (and
// known-values) an op often runs on a part of its box where a guard is always true or always
// false: softmax over causally masked scores runs on the lower triangle, where the fused mask
// always selects the scores and never the -Inf fill. Such pieces lose their guard or go, so that
// the kernel reads unguarded, vectorizable operands and Avail folds to a constant.

package lower

import (
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// decideGuards returns op with every guarded access piece that holds on the whole domain
// unguarded and every piece that holds nowhere on it dropped (op itself when nothing changes).
// An access left without pieces reads 0 and is never available, as everywhere outside its
// pieces. Exact volume tests; an undecided test keeps the piece as it is.
func decideGuards(op *ir.Op) *ir.Op {
	var acc []ir.Access
	for k, a := range op.Access {
		if a.Approx {
			continue
		}
		changed := false
		var pieces []ir.AccessPiece
		for _, p := range a.Pieces {
			if len(p.Guard) == 0 {
				pieces = append(pieces, p)
				continue
			}
			g := volume.SetFromConstraints(op.Domain.Params(), op.Domain.TupleName(), op.Domain.DimNames(), p.Guard)
			nowhere := op.Domain.Intersect(g).IsEmpty()
			// unknown: the guard may hold somewhere (the piece stays), and may not hold
			// everywhere (its guard stays)
			never := nowhere.Or(false)
			always := nowhere == volume.No && op.Domain.IsSubset(g).Or(false)
			switch {
			case never:
				changed = true
			case always:
				changed = true
				pieces = append(pieces, ir.AccessPiece{Index: p.Index})
			default:
				pieces = append(pieces, p)
			}
		}
		if !changed {
			continue
		}
		if acc == nil {
			acc = append([]ir.Access(nil), op.Access...)
		}
		acc[k] = ir.Access{Pieces: pieces}
	}
	if acc == nil {
		return op
	}
	cp := *op
	cp.Access = acc
	return &cp
}

// constAvail reports whether operand k's availability is the same at every point: no piece
// (never) or one unguarded piece (always).
func constAvail(a ir.Access) bool {
	return !a.Approx && (len(a.Pieces) == 0 || len(a.Pieces) == 1 && len(a.Pieces[0].Guard) == 0)
}
