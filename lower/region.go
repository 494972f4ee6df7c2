// This file computes the region of every tensor the module stores: the bounding box of the
// elements that are written (the image of the producer's domain through its out map) or read
// (the image of each consumer's domain through its access map, over-approximated for
// data-dependent reads). After DIE this is the bounding box of the required volume: the last
// row of a 128×32000 product keeps a 1×32000 buffer. Accesses are rebased to the box origin.

package lower

import (
	"fmt"

	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// region is a per-dimension bounding box, symbolic in the graph's parameters. The box of
// dimension d is the hull of its pieces: lo = min over pieces of max(Lower), hi = max over
// pieces of min(Upper), each piece counting only where its parameter conditions hold; the box
// is then clamped to the tensor's extent, so a region is never larger than its tensor.
type region struct {
	full bool         // the whole tensor (graph inputs, outputs, constants, fallbacks)
	dims [][]dimPiece // per dimension; no piece means the region is empty
}

// dimPiece is one convex piece of the projection of a region onto one dimension.
type dimPiece struct {
	conds        []volume.Constraint // on the parameters only
	lower, upper []volume.Aff        // in the parameters only
}

// fullRegion is the whole tensor.
var fullRegion = &region{full: true}

// regionOf returns the bounding box of a set of elements of a rank-r tensor.
func regionOf(s volume.Set, rank int) (*region, error) {
	r := &region{dims: make([][]dimPiece, rank)}
	var inner error
	err := volume.Try(func() {
		for d := 0; d < rank && inner == nil; d++ {
			t := s.ProjectOut(d+1, rank-d-1).ProjectOut(0, d)
			var ast volume.Node
			if ast, inner = t.Scan(); inner != nil {
				return
			}
			r.dims[d], inner = dimPieces(ast, nil)
		}
	})
	if err != nil {
		return nil, err
	}
	return r, inner
}

// dimPieces collects the loops of the AST of a one-dimensional set.
func dimPieces(n volume.Node, conds []volume.Constraint) ([]dimPiece, error) {
	switch n := n.(type) {
	case nil:
		return nil, nil
	case *volume.Block:
		var out []dimPiece
		for _, c := range n.Nodes {
			ps, err := dimPieces(c, conds)
			if err != nil {
				return nil, err
			}
			out = append(out, ps...)
		}
		return out, nil
	case *volume.If:
		return dimPieces(n.Then, append(append([]volume.Constraint(nil), conds...), n.Conds...))
	case *volume.For:
		// a stride only thins the piece: its hull is the same interval
		return []dimPiece{{conds: conds, lower: n.Lower, upper: n.Upper}}, nil
	case *volume.Assign:
		return []dimPiece{{conds: conds, lower: []volume.Aff{n.Value}, upper: []volume.Aff{n.Value}}}, nil
	case *volume.Leaf:
		return nil, fmt.Errorf("a one-dimensional set scanned to a statement without a loop")
	}
	return nil, fmt.Errorf("unknown AST node %T", n)
}

// computeRegions returns the region of every op result of g that is not a graph output.
func computeRegions(g *ir.Graph) map[*ir.Value]*region {
	params := g.Params
	outs := map[*ir.Value]bool{}
	for _, o := range g.Outputs {
		outs[o] = true
	}
	used := map[*ir.Value]volume.Set{}
	bad := map[*ir.Value]bool{}
	add := func(v *ir.Value, s volume.Set) {
		s = s.SetTupleName("")
		if old, ok := used[v]; ok {
			used[v] = old.Union(s)
		} else {
			used[v] = s
		}
	}
	for _, op := range g.Ops {
		op := op
		err := volume.Try(func() {
			add(op.Result, op.Domain.Apply(op.OutMap(params)))
		})
		if err != nil {
			bad[op.Result] = true
		}
		for k, o := range op.Operands {
			if o.Def == nil || outs[o] {
				continue
			}
			err := volume.Try(func() { add(o, op.Domain.Apply(op.AccessMap(params, k))) })
			if err != nil {
				bad[o] = true
			}
		}
	}
	regs := map[*ir.Value]*region{}
	for _, op := range g.Ops {
		v := op.Result
		if outs[v] {
			continue
		}
		s, ok := used[v]
		if bad[v] || !ok {
			regs[v] = fullRegion
			continue
		}
		r, err := regionOf(s, v.Type.Rank())
		if err != nil {
			r = fullRegion
		}
		regs[v] = r
	}
	return regs
}

// box emits the origin and extents of region r of a tensor of type t: origin and extents
// per dimension, each extent clamped to [0, tensor extent - origin].
func (fb *funcBuilder) box(r *region, t ir.TensorType) (lo, ext []value.Value) {
	full := fb.extents(t)
	if r == nil || r.full {
		lo = make([]value.Value, len(full))
		for i := range lo {
			lo[i] = i64(0)
		}
		return lo, full
	}
	lo = make([]value.Value, len(full))
	ext = make([]value.Value, len(full))
	const big = int64(1) << 62
	for d, ps := range r.dims {
		var l, h value.Value = i64(big), i64(-big)
		for _, p := range ps {
			var pl, ph value.Value
			for i, a := range p.lower {
				v := fb.aff(a, nil)
				if i == 0 {
					pl = v
				} else {
					pl = fb.smax(pl, v)
				}
			}
			for i, a := range p.upper {
				v := fb.aff(a, nil)
				if i == 0 {
					ph = v
				} else {
					ph = fb.smin(ph, v)
				}
			}
			if pl == nil {
				pl = i64(0)
			}
			if ph == nil {
				ph = fb.sub(full[d], i64(1))
			}
			if len(p.conds) > 0 {
				c := fb.conds(p.conds, nil)
				pl = fb.sel(c, pl, i64(big))
				ph = fb.sel(c, ph, i64(-big))
			}
			l = fb.smin(l, pl)
			h = fb.smax(h, ph)
		}
		// clamp to the tensor: [max(l, 0), min(h, extent-1)]
		l = fb.smax(l, i64(0))
		h = fb.smin(h, fb.sub(full[d], i64(1)))
		lo[d] = fb.smin(l, full[d]) // keeps the origin inside [0, extent] when the box is empty
		ext[d] = fb.smax(fb.add(fb.sub(h, lo[d]), i64(1)), i64(0))
	}
	return lo, ext
}
