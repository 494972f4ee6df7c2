// This file splits the domain of an op without reduction along the guards of its reads: a
// concatenation becomes one copy per operand, a padding copy an interior copy and a border of
// zeros. Each part's body is specialised (the reads defined on it lose their guard and their
// avail tests, the others are not read), so the parts have unguarded unit-stride loops that
// vectorise (the volume-model paper's interior and border partitions, section 5).

package lower

import (
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// maxGuardSplit bounds the guarded reads of an op that is split (a DenseNet block concatenates
// a few dozen tensors).
const maxGuardSplit = 128

// splitGuarded returns the parts of op (nil when it is not split): op is not a reduction, and
// the guards of its guarded reads (single pieces) are pairwise disjoint over its domain. Part
// k runs where read k is defined, with that read unguarded and the other guarded reads
// undefined; a last part, where none is defined, reads none of them.
func splitGuarded(op *ir.Op, params []string) []*ir.Op {
	if op.Reduce != ir.ReduceNone {
		return nil
	}
	var guarded []int
	for k, acc := range op.Access {
		if !op.Body.Reads(k) || len(acc.Pieces) == 0 {
			continue
		}
		if acc.Approx || len(acc.Pieces) != 1 || hasDynRead(op.Body, k) {
			return nil
		}
		if len(acc.Pieces[0].Guard) > 0 {
			guarded = append(guarded, k)
		}
	}
	if len(guarded) == 0 || len(guarded) > maxGuardSplit {
		return nil
	}
	var parts []*ir.Op
	ok := false
	_ = volume.Try(func() {
		dom := op.Domain
		used := volume.EmptySet(dom.Params(), dom.TupleName(), dom.DimNames())
		all := map[int]bool{}
		for _, k := range guarded {
			all[k] = true
		}
		for _, k := range guarded {
			g := volume.SetFromConstraints(dom.Params(), dom.TupleName(), dom.DimNames(), op.Access[k].Pieces[0].Guard).Intersect(dom)
			if !g.Intersect(used).IsEmpty() {
				return // overlapping guards: the body decides which read wins
			}
			used = used.Union(g).Coalesce()
			if g.IsEmpty() {
				continue
			}
			p := specialize(op, map[int]bool{k: true}, true)
			others := map[int]bool{}
			for j := range all {
				if j != k {
					others[j] = true
				}
			}
			p.Body = simplifyAvail(p.Body, others, false)
			p.Domain = g.Coalesce()
			parts = append(parts, p)
		}
		if rest := dom.Subtract(used).Coalesce(); !rest.IsEmpty() {
			p := specialize(op, all, false)
			p.Domain = rest
			parts = append(parts, p)
		}
		ok = true
	})
	if !ok || len(parts) == 0 {
		return nil
	}
	return parts
}
