// This file splits the domain of an op without reduction along the guards of its reads: a
// concatenation becomes one copy per operand, a padding copy an interior copy and a border of
// zeros. Each part's body is specialised (the reads defined on it lose their guard and their
// avail tests, the others are not read), so the parts have unguarded unit-stride loops that
// vectorise (the volume-model paper's interior and border partitions, section 5).

package lower

import (
	"fmt"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// maxGuardSplit bounds the guarded reads of an op that is split (a DenseNet block concatenates
// a few dozen tensors).
const maxGuardSplit = 128

// splitGuarded returns the parts of op, or nil and why it is not split: op is not a
// reduction, or a reduction whose guards constrain only dims that index its result (a global
// pool over a concatenation: each result element's whole window is in one part, so each part
// writes its own elements, combined in the evaluator's order), and the guards of its guarded
// reads (single pieces) are pairwise disjoint over its domain. Part k runs where read k is defined, with that read unguarded and the other
// guarded reads undefined; a last part, where none is defined, reads none of them.
func splitGuarded(op *ir.Op, params []string) ([]*ir.Op, string) {
	if op.Reduce != ir.ReduceNone && !guardsOnResult(op) {
		return splitWindow(op)
	}
	var guarded []int
	for k, acc := range op.Access {
		if !op.Body.Reads(k) || len(acc.Pieces) == 0 {
			continue
		}
		if acc.Approx || len(acc.Pieces) != 1 || hasDynRead(op.Body, k) {
			return nil, "a read has pieces or is data-dependent"
		}
		if len(acc.Pieces[0].Guard) > 0 {
			guarded = append(guarded, k)
		}
	}
	if len(guarded) == 0 {
		return nil, "no guarded read"
	}
	if len(guarded) > maxGuardSplit {
		return nil, fmt.Sprintf("more than %d guarded reads", maxGuardSplit)
	}
	var parts []*ir.Op
	why := ""
	gaveUp := false
	// empty answers whether s is empty; volume giving up stops the split (checked below)
	empty := func(s volume.Set) bool {
		e := s.IsEmpty()
		gaveUp = gaveUp || !e.Known()
		return e == volume.Yes
	}
	// symbolic dims are never negative (the entry checks that first): the guards of a
	// concatenation of symbolic extents, [0, a), [a, a + b), [a + b, a + b + c), overlap only
	// where b < 0
	var nonNeg []volume.Constraint
	for _, p := range op.Domain.Params() {
		nonNeg = append(nonNeg, volume.GE(volume.AffParam(p), volume.AffConst(0)))
	}
	valid := ir.SetFromParamConstraints(op.Domain.Params(), nonNeg)
	func() {
		dom := op.Domain
		used := volume.EmptySet(dom.Params(), dom.TupleName(), dom.DimNames())
		all := map[int]bool{}
		for _, k := range guarded {
			all[k] = true
		}
		for _, k := range guarded {
			g := volume.SetFromConstraints(dom.Params(), dom.TupleName(), dom.DimNames(), op.Access[k].Pieces[0].Guard).Intersect(dom)
			if !empty(g.Intersect(used).IntersectParams(valid)) {
				why = "the guards overlap (the body decides which read wins)"
				return
			}
			used = used.Union(g).Coalesce()
			if empty(g) {
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
		if rest := dom.Subtract(used).Coalesce(); !empty(rest.IntersectParams(valid)) {
			p := specialize(op, all, false)
			p.Domain = rest
			parts = append(parts, p)
		}
	}()
	for _, p := range parts {
		gaveUp = gaveUp || p.Domain.Err() != nil
	}
	switch {
	case gaveUp:
		// volume gave up on the guards: the conservative answer is not to split
		return nil, "the guards are too complex to compare"
	case why != "":
		return nil, why
	case len(parts) == 0:
		return nil, "the domain is empty"
	}
	return parts, ""
}

// splitPieces returns, for a reduction whose reads have several pieces (the clamped taps of a
// resize), the op restricted to the results all of whose iterations read one piece of each
// such access (the interior: those reads become that piece, unguarded), then the op on the
// other results; or nil and why not (the interior is less than half the results, or the op
// does not qualify). Every result is computed by one part, in the same order: results keep
// their bits.
func splitPieces(op *ir.Op, params []string) ([]*ir.Op, string) {
	switch {
	case op.Reduce == ir.ReduceNone || op.Reduce.IsArg():
		return nil, "not a sum, product or extremum"
	case len(params) > 0:
		return nil, "symbolic dims"
	}
	var multi []int
	for k, acc := range op.Access {
		if !op.Body.Reads(k) {
			continue
		}
		if acc.Approx || hasDynRead(op.Body, k) {
			return nil, "a read is data-dependent"
		}
		if len(acc.Pieces) > 1 {
			multi = append(multi, k)
		}
	}
	if len(multi) == 0 {
		return nil, "no read has pieces"
	}
	var nPar int
	for d, it := range op.Iters {
		if it == ir.Parallel {
			if d != nPar {
				return nil, "the parallel dims do not lead"
			}
			nPar++
		}
	}
	if nPar == 0 || nPar == op.NDim() {
		return nil, "no parallel or no reduction dim"
	}
	var parts []*ir.Op
	why := "the interior is less than half the results"
	func() {
		dom := op.Domain
		name, dims := dom.TupleName(), dom.DimNames()
		results := dom.ProjectOut(nPar, op.NDim()-nPar)
		ex := make([]volume.Aff, nPar)
		for d := range ex {
			ex[d] = volume.AffDim(d)
		}
		toP := volume.MultiAff{InName: name, InDims: dims, OutName: results.TupleName(), Exprs: ex}.Map()
		interior := results
		inner := *op
		inner.Access = append([]ir.Access(nil), op.Access...)
		drop := map[int]bool{}
		for _, k := range multi {
			// the piece p applies where its guard holds and no earlier one's does
			best, bestCard := -1, int64(-1)
			var bestI volume.Set
			var earlier volume.Set
			for p, pc := range op.Access[k].Pieces {
				g := volume.SetFromConstraints(nil, name, dims, pc.Guard).Intersect(dom)
				eff := g
				if p > 0 {
					eff = g.Subtract(earlier)
					earlier = earlier.Union(g)
				} else {
					earlier = g
				}
				// the results all of whose iterations read piece p
				in := results.Subtract(dom.Subtract(eff).Apply(toP)).Coalesce()
				c, err := in.Card(nil)
				if err != nil {
					return
				}
				if c > bestCard {
					best, bestCard, bestI = p, c, in
				}
			}
			if best < 0 || bestCard == 0 {
				return
			}
			interior = interior.Intersect(bestI)
			inner.Access[k] = ir.Access{Pieces: []ir.AccessPiece{{Index: op.Access[k].Pieces[best].Index}}}
			drop[k] = true
		}
		interior = interior.Coalesce()
		ni, err1 := interior.Card(nil)
		nr, err2 := results.Card(nil)
		if err1 != nil || err2 != nil || 2*ni < nr {
			return
		}
		inner.Body = simplifyAvail(op.Body, drop, true)
		inner.Domain = dom.Intersect(interior.Preimage(toP)).Coalesce()
		border := *op
		border.Domain = dom.Subtract(inner.Domain).Coalesce()
		parts = []*ir.Op{&inner}
		if !border.Domain.IsEmpty().Or(false) { // unknown: the border stays (it may be empty)
			parts = append(parts, &border)
		}
	}()
	gaveUp := false
	for _, p := range parts {
		gaveUp = gaveUp || p.Domain.Err() != nil
	}
	if gaveUp {
		// volume gave up on the pieces: the conservative answer is not to split
		return nil, "the pieces are too complex to count"
	}
	if parts == nil {
		return nil, why
	}
	return parts, ""
}

// guardsOnResult reports whether op (a plain reduction, not an arg reduction) guards its reads
// only on parallel dims that name an index of its result.
func guardsOnResult(op *ir.Op) bool {
	if op.Reduce.IsArg() || len(op.Out.Pieces) != 1 {
		return false
	}
	out := op.Out.Pieces[0].Index
	for k, acc := range op.Access {
		if !op.Body.Reads(k) {
			continue
		}
		for _, p := range acc.Pieces {
			for _, c := range p.Guard {
				for d := range op.Iters {
					if (coefOf(c.Aff, d) != 0 || floorsUse(c.Aff, d)) && (op.Iters[d] != ir.Parallel || !indexedBy(out, d)) {
						return false
					}
				}
			}
		}
	}
	return true
}
