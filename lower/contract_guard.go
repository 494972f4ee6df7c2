// This file specialises contractions with guarded reads for register tiles. Reads guarded along
// the tile dims (the pads of a convolution) split the op: the interior, the results all of
// whose iterations read defined elements, runs on tiles with those guards and their selects
// removed; the border runs on the per-point nest (the volume-model paper's interior and border
// partitions, section 5). Reads guarded along the reduction dims only (a bias read once per
// result, at the first reduction point) are peeled: the reduction scans its guarded points
// with the whole body first, then the others with the body in which those reads are 0, which
// is then a plain product (a fused multiply-add).

package lower

import (
	"fmt"
	"math"
	"slices"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// guardUses reports whether a guard involves iteration dim d.
func guardUses(g []volume.Constraint, d int) bool {
	for _, c := range g {
		if coefOf(c.Aff, d) != 0 || floorsUse(c.Aff, d) {
			return true
		}
	}
	return false
}

// splitInterior returns op restricted to the results all of whose iterations satisfy the
// guards of the reads ks, with those guards removed, and op restricted to the other results
// (nil when there are none). It returns nil, nil when no result is interior.
func splitInterior(op *ir.Op, nOut int, ks []int) (inner, border *ir.Op) {
	dom := op.Domain
	var cons []volume.Constraint
	for _, k := range ks {
		cons = append(cons, op.Access[k].Pieces[0].Guard...)
	}
	defined := volume.SetFromConstraints(dom.Params(), dom.TupleName(), dom.DimNames(), cons)
	bad := dom.Subtract(defined)
	drop := map[int]bool{}
	for _, k := range ks {
		drop[k] = true
	}
	inner = specialize(op, drop, true)
	switch bad.IsEmpty() {
	case volume.Yes:
		return inner, nil
	case volume.Unknown:
		return nil, nil // volume gave up: no result is known to be interior
	}
	ex := make([]volume.Aff, nOut)
	for d := range ex {
		ex[d] = volume.AffDim(d)
	}
	toP := volume.MultiAff{Params: dom.Params(), InName: dom.TupleName(), InDims: dom.DimNames(), OutName: "", Exprs: ex}.Map()
	pbad := bad.Apply(toP)
	dbad := dom.Intersect(pbad.Preimage(toP)).Coalesce()
	dint := dom.Subtract(dbad).Coalesce()
	if volume.FirstErr(dint, dbad) != nil || dint.IsEmpty().Or(true) { // unknown: no interior
		return nil, nil
	}
	inner.Domain = dint
	b := *op
	b.Domain = dbad
	return inner, &b
}

// specialize returns a copy of op in which the reads drop are known to be defined (defined
// true: their guards and avail tests removed) or undefined (false: their avail tests are
// false, so the selects that guard them take their other arm).
func specialize(op *ir.Op, drop map[int]bool, defined bool) *ir.Op {
	c := *op
	c.Access = append([]ir.Access(nil), op.Access...)
	if defined {
		for k := range drop {
			ps := append([]ir.AccessPiece(nil), op.Access[k].Pieces...)
			ps[0].Guard = nil
			c.Access[k] = ir.Access{Pieces: ps}
		}
	}
	c.Body = simplifyAvail(op.Body, drop, defined)
	return &c
}

// simplifyAvail replaces avail(k) for k in drop by the constant defined and folds the selects
// and additions of zero that this decides. Adding +0 is dropped only at the top of the body
// (the term that is accumulated): an accumulator that starts at +0 is never -0, so adding +0
// or -0 to it gives the same bits as adding the term itself.
func simplifyAvail(s *ir.Scalar, drop map[int]bool, defined bool) *ir.Scalar {
	var rec func(s *ir.Scalar) *ir.Scalar
	rec = func(s *ir.Scalar) *ir.Scalar {
		if s.Op == ir.SAvail && drop[s.Arg] {
			return ir.ConstI(ir.Bool, map[bool]int64{true: 1, false: 0}[defined])
		}
		if len(s.Args) == 0 {
			return s
		}
		args := make([]*ir.Scalar, len(s.Args))
		changed := false
		for i, a := range s.Args {
			args[i] = rec(a)
			changed = changed || args[i] != a
		}
		if s.Op == ir.SSelect && args[0].Op == ir.SConst {
			if args[0].I != 0 {
				return args[1]
			}
			return args[2]
		}
		if !changed {
			return s
		}
		c := *s
		c.Args = args
		return &c
	}
	return rec(s)
}

// isZero reports whether s is the constant +0 or -0.
func isZero(s *ir.Scalar) bool {
	return s.Op == ir.SConst && ((s.Type.IsFloat() && s.F == 0) || (!s.Type.IsFloat() && s.I == 0))
}

// dropAddZero folds body = x + 0 (or 0 + x) to x for an accumulated body (see simplifyAvail).
func dropAddZero(body *ir.Scalar, init float64) *ir.Scalar {
	if body.Op != ir.SAdd || init != 0 || math.Signbit(init) {
		return body
	}
	if isZero(body.Args[1]) {
		return body.Args[0]
	}
	if isZero(body.Args[0]) {
		return body.Args[1]
	}
	return body
}

// planReads checks the reads that keep a guard: it must involve the reduction dims only (the
// guard is then the same for a whole tile), and the index must stay inside the operand for
// every point of the domain's bounding box lo..hi (the tiles read it before the guard selects
// it, and their dead points read too). With symbolic dims the box (box: the same as a set,
// where the op has iterations) and the operands' shapes are expressions of them, and the check
// is made with volume operations for every value.
func (c *contraction) planReads(op *ir.Op, lo, hi []volume.Aff, box volume.Set) (string, error) {
	clo, chi := make([]int64, len(lo)), make([]int64, len(hi))
	static := true
	for d := range lo {
		var okl, okh bool
		clo[d], okl = lo[d].IsConst()
		chi[d], okh = hi[d].IsConst()
		static = static && okl && okh
	}
	for k, acc := range op.Access {
		if !op.Body.Reads(k) {
			continue
		}
		p := acc.Pieces[0]
		for d := 0; d < c.nOut; d++ {
			if len(p.Guard) > 0 && guardUses(p.Guard, d) {
				return fmt.Sprintf("read %d is guarded along result dim %d", k, d), nil
			}
		}
		shape, ok := op.Operands[k].Type.StaticShape()
		if !ok || !static {
			if why := c.readsInBox(op, k, box); why != "" {
				return why, nil
			}
			continue
		}
		for d, a := range p.Index {
			if len(a.Floors) > 0 || len(a.Params) > 0 {
				if len(p.Guard) > 0 {
					return fmt.Sprintf("guarded read %d has a quasi-affine index", k), nil
				}
				continue // unguarded: in bounds on the constructor's domain, which holds the box
			}
			l, h := a.Const, a.Const
			for e, x := range a.Dims {
				if x > 0 {
					l, h = l+x*clo[e], h+x*chi[e]
				} else {
					l, h = l+x*chi[e], h+x*clo[e]
				}
			}
			if l < 0 || h >= shape[d] {
				return fmt.Sprintf("read %d leaves operand dim %d on the bounding box", k, d), nil
			}
		}
	}
	return "", nil
}

// readsInBox checks planReads' condition for read k with symbolic dims: no point of box reads
// outside the operand's shape, whatever the symbolic dims.
func (c *contraction) readsInBox(op *ir.Op, k int, box volume.Set) string {
	p := op.Access[k].Pieces[0]
	params := box.Params()
	for _, d := range op.Operands[k].Type.Shape {
		params = append(params, d.ParamNames()...)
	}
	params = uniqueStrings(params)
	nd := box.NDim()
	for d, a := range p.Index {
		if len(a.Floors) > 0 && len(p.Guard) > 0 {
			return fmt.Sprintf("guarded read %d has a quasi-affine index", k)
		}
		ext := op.Operands[k].Type.Shape[d]
		out := volume.SetFromConstraints(params, "", make([]string, nd), []volume.Constraint{volume.GE(volume.AffConst(-1), a)}).
			Union(volume.SetFromConstraints(params, "", make([]string, nd), []volume.Constraint{volume.GE(a, ext)}))
		if !c.holds(box.SetTupleName("").Intersect(out).IsEmpty(), "reads stay inside their operand") {
			return fmt.Sprintf("read %d leaves operand dim %d on the bounding box", k, d)
		}
	}
	return ""
}

// uniqueStrings returns ss without repetitions, in order of first appearance.
func uniqueStrings(ss []string) []string {
	var out []string
	for _, s := range ss {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// planReduction cuts the reduction set into the parts scanned in order: the points where some
// guarded read is defined, with the whole body, then the others, with the body specialised.
func (c *contraction) planReduction(op *ir.Op, rset volume.Set, win *volume.Set) (string, error) {
	var guarded []int
	var cons [][]volume.Constraint
	for k, acc := range op.Access {
		if op.Body.Reads(k) && len(acc.Pieces[0].Guard) > 0 {
			guarded = append(guarded, k)
			// the guard on the reduction dims, renumbered from 0
			var g []volume.Constraint
			for _, x := range acc.Pieces[0].Guard {
				a := x.Aff
				a.Dims = append([]int64(nil), a.Dims[min(c.nOut, len(a.Dims)):]...)
				a.Floors = nil
				if len(x.Aff.Floors) > 0 {
					return "guard with floor divisions", nil
				}
				g = append(g, volume.Constraint{Aff: a, Eq: x.Eq})
			}
			cons = append(cons, g)
		}
	}
	scan := func(s volume.Set) (volume.Node, error) {
		if win != nil {
			s = s.Intersect(*win)
		}
		return s.Scan()
	}
	elem := op.Result.Type.Elem
	part := func(s volume.Set, body *ir.Scalar) error {
		if c.holds(s.IsEmpty(), "a part of the reduction is empty") {
			return nil
		}
		ast, err := scan(s)
		if err != nil {
			return err
		}
		body = dropAddZero(body, op.Init)
		c.rparts = append(c.rparts, reductionPart{scan: ast, body: body, fma: body.Op == ir.SMul && body.Type == elem})
		return nil
	}
	if len(guarded) == 0 {
		return "", part(rset, op.Body)
	}
	first := volume.EmptySet(rset.Params(), rset.TupleName(), rset.DimNames())
	for _, g := range cons {
		first = first.Union(volume.SetFromConstraints(rset.Params(), rset.TupleName(), rset.DimNames(), g).Intersect(rset))
	}
	rest := rset.Subtract(first)
	if !c.holds(first.IsEmpty(), "no reduction point is guarded") && !c.holds(rest.IsEmpty(), "every reduction point is guarded") {
		// every guarded point must come before every other one, so that each result
		// element is combined in the evaluator's order. With symbolic dims (a conv over a
		// dynamic length: its bias read at c = k = 0), the union over every value of them is
		// compared: first before rest there holds for each value (sufficient, not necessary)
		f, r := first, rest
		for _, p := range f.Params() {
			f, r = f.ProjectOutParam(p), r.ProjectOutParam(p)
		}
		fmax, err := f.Lexmax()
		if err != nil {
			if len(first.Params()) > 0 {
				return "guarded reduction points are not first for every symbolic dim", nil
			}
			return "", err
		}
		rmin, err := r.Lexmin()
		if err != nil {
			if len(first.Params()) > 0 {
				return "guarded reduction points are not first for every symbolic dim", nil
			}
			return "", err
		}
		a, fa := fmax.Sample()
		b, fb := rmin.Sample()
		if !c.holds(fa.And(fb), "the extreme points exist") || !lexLess(a, b) {
			return "guarded reduction points are not first", nil
		}
	}
	if err := part(first, op.Body); err != nil {
		return "", err
	}
	drop := map[int]bool{}
	for _, k := range guarded {
		drop[k] = true
	}
	return "", part(rest, simplifyAvail(op.Body, drop, false))
}

// lexLess reports whether point a precedes point b lexicographically.
func lexLess(a, b volume.Point) bool {
	for i := range a.Coords {
		if a.Coords[i] != b.Coords[i] {
			return a.Coords[i] < b.Coords[i]
		}
	}
	return false
}
