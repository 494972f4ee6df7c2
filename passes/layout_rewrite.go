// This file holds what the rewrites of channels-last (layout.go, layout_pad.go,
// layout_taps.go) share: the terms a sum adds, rebasing an access onto new iteration dims,
// reading a padded operand's term unguarded, checking that a guard is exactly a read's bounds,
// the bounding box of a set, and placing a new op before its consumer.

package passes

import (
	"slices"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// bodyTerms returns the terms that a body adds: the operands of its nested additions, left to
// right (the body itself when it is not an addition).
func bodyTerms(body *ir.Scalar) []*ir.Scalar {
	var terms []*ir.Scalar
	var walk func(s *ir.Scalar)
	walk = func(s *ir.Scalar) {
		if s.Op == ir.SAdd {
			walk(s.Args[0])
			walk(s.Args[1])
			return
		}
		terms = append(terms, s)
	}
	walk(body)
	return terms
}

// substAccess returns access a with its guards and indices rewritten for new iteration dims:
// old dim d becomes sub[d]. The result is exact (no approximation carried over).
func substAccess(a ir.Access, sub []volume.Aff) ir.Access {
	out := ir.Access{}
	for _, p := range a.Pieces {
		np := ir.AccessPiece{}
		for _, c := range p.Guard {
			np.Guard = append(np.Guard, volume.Constraint{Aff: c.Aff.SubstDims(sub), Eq: c.Eq})
		}
		for _, x := range p.Index {
			np.Index = append(np.Index, x.SubstDims(sub))
		}
		out.Pieces = append(out.Pieces, np)
	}
	return out
}

// unguardTerm returns a copy of body in which the term select(avail(k), x·w, 0) found by
// paddedTerm is the bare product of operands k and w, in the term's factor order: for a sum
// whose operand k is read where it is defined only (padded, or a region of live taps).
func unguardTerm(body, term *ir.Scalar, k, w int, elem ir.DType) *ir.Scalar {
	prod := ir.Bin(ir.SMul, ir.Read(k, elem), ir.Read(w, elem))
	if term.Args[1].Args[0].Arg != k {
		prod = ir.Bin(ir.SMul, ir.Read(w, elem), ir.Read(k, elem))
	}
	return cloneScalar(body, func(s *ir.Scalar) *ir.Scalar {
		if s == term {
			return prod
		}
		return nil
	})
}

// guardedByBounds reports whether the guard of piece is exactly the bounds of the operand of
// the given shape that it indexes, on dom (iteration dims named dims), and returns the piece's
// index map.
func guardedByBounds(params []string, dom volume.Set, dims []string, piece ir.AccessPiece, shape []volume.Aff) (volume.Map, bool) {
	guard := volume.SetFromConstraints(params, dom.TupleName(), dims, piece.Guard)
	idxMap := volume.MultiAff{Params: params, InName: dom.TupleName(), InDims: dims, Exprs: piece.Index}.Map()
	inBounds := volume.Box(params, "", nil, shape).Preimage(idxMap)
	return idxMap, guard.Intersect(dom).IsEqual(inBounds.Intersect(dom)).Or(false) // unknown: not the bounds
}

// boundsOf returns the smallest and largest value of every dim of a bounded set, or nil when
// some dim has none (an error when the set is unbounded).
func boundsOf(s volume.Set) (lo, hi []int64, err error) {
	nd := s.NDim()
	lo, hi = make([]int64, nd), make([]int64, nd)
	for a := 0; a < nd; a++ {
		one := s.ProjectOnto(a)
		mn, err := one.Lexmin()
		if err != nil {
			return nil, nil, err
		}
		mx, err := one.Lexmax()
		if err != nil {
			return nil, nil, err
		}
		pmn, ok1 := mn.Sample()
		pmx, ok2 := mx.Sample()
		if ok1 != volume.Yes || ok2 != volume.Yes { // empty, or volume gave up
			return nil, nil, nil
		}
		lo[a], hi[a] = pmn.Coords[0], pmx.Coords[0]
	}
	return lo, hi, nil
}

// boxSetOf returns { name[x] : lo <= x <= hi }.
func boxSetOf(params []string, name string, dims []string, lo, hi []int64) volume.Set {
	var cons []volume.Constraint
	for d := range lo {
		cons = append(cons, volume.GE(volume.AffDim(d), volume.AffConst(lo[d])), volume.GE(volume.AffConst(hi[d]), volume.AffDim(d)))
	}
	return volume.SetFromConstraints(params, name, dims, cons)
}

// insertBefore adds op to g (naming its result after name) right before the op before.
func insertBefore(g *ir.Graph, before, op *ir.Op, name string) {
	g.Append(op, name)
	g.Ops = g.Ops[:len(g.Ops)-1]
	at := slices.Index(g.Ops, before)
	g.Ops = slices.Insert(g.Ops, at, op)
}
