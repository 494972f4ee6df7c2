// This file computes the region of every tensor the module stores in the workspace: a box that
// contains every element written (the producer's out map over its domain) or read (each
// consumer's access maps over its domain). After DIE this is the bounding box of the required
// volume: the last row of a 128×32000 product keeps a 1×32000 buffer. Accesses are rebased to
// the box origin.
//
// The box is found by interval arithmetic, not by exact projection (which is exponential in
// the number of dims and took minutes on 7-dimensional convolution domains): the domain's loop
// AST (the scan that code generation uses) gives each iteration dim an interval, symbolic in
// the parameters, and each index expression is bounded over those intervals. Guards and strides
// are ignored, so the box over-approximates, which is safe; it is clamped to the tensor.

package lower

import (
	"fmt"

	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// symKind is the operation of a symbolic bound.
type symKind uint8

const (
	symAff   symKind = iota // an Aff in the parameters
	symAdd                  // args[0] + args[1]
	symScale                // coef · args[0]
	symMin                  // min(args...)
	symMax                  // max(args...)
	symFloor                // floor(args[0] / den)
)

// sym is an integer bound, symbolic in the graph's parameters.
type sym struct {
	kind symKind
	aff  volume.Aff
	args []*sym
	coef int64
	den  int64
}

func symOf(a volume.Aff) *sym { return &sym{kind: symAff, aff: a} }

func symConst(c int64) *sym { return symOf(volume.AffConst(c)) }

func symAddOf(a, b *sym) *sym {
	if a.kind == symAff && b.kind == symAff {
		return symOf(a.aff.Add(b.aff))
	}
	return &sym{kind: symAdd, args: []*sym{a, b}}
}

func symScaleOf(c int64, a *sym) *sym {
	switch {
	case c == 1:
		return a
	case a.kind == symAff:
		return symOf(a.aff.Mul(c))
	}
	return &sym{kind: symScale, coef: c, args: []*sym{a}}
}

// symExtreme returns the min (or max) of the bounds, folding constants.
func symExtreme(isMin bool, xs []*sym) *sym {
	if len(xs) == 1 {
		return xs[0]
	}
	kind := symMax
	if isMin {
		kind = symMin
	}
	var out []*sym
	var best *int64
	for _, x := range xs {
		if c, ok := x.constant(); ok {
			if best == nil || isMin && c < *best || !isMin && c > *best {
				best = &c
			}
			continue
		}
		out = append(out, x)
	}
	if best != nil {
		out = append(out, symConst(*best))
	}
	if len(out) == 1 {
		return out[0]
	}
	return &sym{kind: kind, args: out}
}

func (s *sym) constant() (int64, bool) {
	if s.kind == symAff {
		return s.aff.IsConst()
	}
	return 0, false
}

// emit computes the bound (constants fold in Go).
func (fb *funcBuilder) emitSym(s *sym) value.Value {
	switch s.kind {
	case symAff:
		return fb.aff(s.aff, nil)
	case symAdd:
		return fb.add(fb.emitSym(s.args[0]), fb.emitSym(s.args[1]))
	case symScale:
		return fb.mul(fb.emitSym(s.args[0]), i64(s.coef))
	case symFloor:
		return fb.floorDiv(fb.emitSym(s.args[0]), s.den)
	}
	v := fb.emitSym(s.args[0])
	for _, a := range s.args[1:] {
		if s.kind == symMin {
			v = fb.smin(v, fb.emitSym(a))
		} else {
			v = fb.smax(v, fb.emitSym(a))
		}
	}
	return v
}

// interval is a range [lo, hi] of an integer quantity.
type interval struct{ lo, hi *sym }

// affInterval bounds a quasi-affine expression over intervals of the dims (params are exact).
func affInterval(a volume.Aff, env []interval) (interval, error) {
	if err := a.Err(); err != nil { // the bounds of a scan are derived: see affcheck.go
		return interval{}, err
	}
	base := volume.Aff{Const: a.Const, Params: a.Params}
	lo, hi := symOf(base), symOf(base)
	for i, c := range a.Dims {
		if c == 0 {
			continue
		}
		if i >= len(env) || env[i].lo == nil {
			return interval{}, fmt.Errorf("dimension %d has no bound", i)
		}
		l, h := symScaleOf(c, env[i].lo), symScaleOf(c, env[i].hi)
		if c < 0 {
			l, h = h, l
		}
		lo, hi = symAddOf(lo, l), symAddOf(hi, h)
	}
	for _, f := range a.Floors {
		n, err := affInterval(f.Num, env)
		if err != nil {
			return interval{}, err
		}
		fl := &sym{kind: symFloor, den: f.Den, args: []*sym{n.lo}}
		fh := &sym{kind: symFloor, den: f.Den, args: []*sym{n.hi}}
		l, h := symScaleOf(f.Coef, fl), symScaleOf(f.Coef, fh)
		if f.Coef < 0 {
			l, h = h, l
		}
		lo, hi = symAddOf(lo, l), symAddOf(hi, h)
	}
	return interval{lo, hi}, nil
}

// domainBox returns, per iteration dim, an interval containing every point of the domain whose
// loop AST is n (nil intervals when the domain has no point).
func domainBox(n volume.Node, ndim int) ([]interval, error) {
	env := make([]interval, ndim)
	var box []interval
	var walk func(n volume.Node) error
	walk = func(n volume.Node) error {
		switch n := n.(type) {
		case nil:
			return nil
		case *volume.Block:
			for _, c := range n.Nodes {
				if err := walk(c); err != nil {
					return err
				}
			}
			return nil
		case *volume.If:
			return walk(n.Then) // the conditions only thin the box
		case *volume.Leaf:
			if box == nil {
				box = append([]interval(nil), env...)
				return nil
			}
			for d := range box {
				box[d] = interval{symExtreme(true, []*sym{box[d].lo, env[d].lo}), symExtreme(false, []*sym{box[d].hi, env[d].hi})}
			}
			return nil
		case *volume.Assign:
			iv, err := affInterval(n.Value, env)
			if err != nil {
				return err
			}
			saved := env[n.Dim]
			env[n.Dim] = iv
			err = walk(n.Body)
			env[n.Dim] = saved
			return err
		case *volume.For:
			var los, his []*sym
			for _, b := range n.Lower {
				iv, err := affInterval(b, env)
				if err != nil {
					return err
				}
				los = append(los, iv.lo)
			}
			for _, b := range n.Upper {
				iv, err := affInterval(b, env)
				if err != nil {
					return err
				}
				his = append(his, iv.hi)
			}
			if len(los) == 0 || len(his) == 0 {
				return fmt.Errorf("loop over dimension %d is unbounded", n.Dim)
			}
			saved := env[n.Dim]
			env[n.Dim] = interval{symExtreme(false, los), symExtreme(true, his)}
			err := walk(n.Body)
			env[n.Dim] = saved
			return err
		}
		return fmt.Errorf("unknown AST node %T", n)
	}
	if err := walk(n); err != nil {
		return nil, err
	}
	return box, nil
}

// region is a box of a tensor: per dim the candidate lower and upper bounds, whose min and max
// (clamped to the tensor) bound the elements stored.
type region struct {
	full   bool
	lo, hi [][]*sym
}

var fullRegion = &region{full: true}

// add widens r to contain the box of index over the domain box dom.
func (r *region) add(index []volume.Aff, dom []interval) error {
	if r.full {
		return nil
	}
	if dom == nil {
		return nil // an empty domain touches nothing
	}
	for d, a := range index {
		iv, err := affInterval(a, dom)
		if err != nil {
			return err
		}
		r.lo[d] = append(r.lo[d], iv.lo)
		r.hi[d] = append(r.hi[d], iv.hi)
	}
	return nil
}

// domainInfo is what lowering derives from a domain alone: its text (isl notation), its loop
// AST and the box of its points. Ops with the same domain text share one (layers repeated in a
// model scan their domains once).
type domainInfo struct {
	text    string
	ast     volume.Node
	scanErr error
	box     []interval
	err     error // no AST or no box
}

// domainOf returns the domain information of op, computed once per distinct domain.
func (ec *entryCtx) domainOf(op *ir.Op) *domainInfo {
	if di, ok := ec.opDomains[op]; ok {
		return di
	}
	text := op.Domain.String()
	di, ok := ec.mc.domains[text]
	if !ok {
		di = &domainInfo{text: text}
		di.ast, di.scanErr = op.Domain.Scan()
		di.err = di.scanErr
		if di.err == nil {
			di.box, di.err = domainBox(di.ast, op.NDim())
		}
		ec.mc.domains[text] = di
	}
	ec.opDomains[op] = di
	return di
}

// domainText returns op's domain in isl notation.
func (ec *entryCtx) domainText(op *ir.Op) string { return ec.domainOf(op).text }

// computeRegions returns the region of every op result that is not a graph output.
func (ec *entryCtx) computeRegions() map[*ir.Value]*region {
	g := ec.g
	outs := map[*ir.Value]bool{}
	for _, o := range g.Outputs {
		outs[o] = true
	}
	regs := map[*ir.Value]*region{}
	for _, op := range g.Ops {
		if !outs[op.Result] {
			r := op.Result.Type.Rank()
			regs[op.Result] = &region{lo: make([][]*sym, r), hi: make([][]*sym, r)}
		}
	}
	for _, op := range g.Ops {
		di := ec.domainOf(op)
		dom, err := di.box, di.err
		if err != nil {
			// no box for this domain: whatever it writes or reads is stored whole
			if r := regs[op.Result]; r != nil {
				regs[op.Result] = fullRegion
			}
			for _, o := range op.Operands {
				if regs[o] != nil {
					regs[o] = fullRegion
				}
			}
			continue
		}
		if r := regs[op.Result]; r != nil {
			if err := r.add(op.Out.Pieces[0].Index, dom); err != nil {
				regs[op.Result] = fullRegion
			}
		}
		for k, o := range op.Operands {
			r := regs[o]
			if r == nil {
				continue
			}
			acc := op.Access[k]
			if !op.Body.Reads(k) {
				continue // only avail(k), which reads nothing
			}
			if hasDynRead(op.Body, k) {
				regs[o] = fullRegion // data-dependent: any element of the tensor
				continue
			}
			for _, p := range acc.Pieces {
				if err := r.add(p.Index, dom); err != nil {
					regs[o] = fullRegion
					break
				}
			}
		}
	}
	return regs
}

// hasDynRead reports whether the body reads operand k at data-dependent indices.
func hasDynRead(s *ir.Scalar, k int) bool {
	found := false
	s.Walk(func(n *ir.Scalar) {
		if n.Op == ir.SDynRead && n.Arg == k {
			found = true
		}
	})
	return found
}

// box emits the origin and extents of region r of a tensor of type t, clamped to the tensor.
func (fb *funcBuilder) box(r *region, t ir.TensorType) (lo, ext []value.Value) {
	full := fb.extents(t)
	lo = make([]value.Value, len(full))
	if r == nil || r.full {
		for i := range lo {
			lo[i] = i64(0)
		}
		return lo, full
	}
	ext = make([]value.Value, len(full))
	for d := range full {
		if len(r.lo[d]) == 0 {
			lo[d], ext[d] = i64(0), i64(0) // nothing stored
			continue
		}
		l := fb.smax(fb.emitSym(symExtreme(true, r.lo[d])), i64(0))
		h := fb.smin(fb.emitSym(symExtreme(false, r.hi[d])), fb.sub(full[d], i64(1)))
		lo[d] = fb.smin(l, full[d]) // keeps the origin inside [0, extent] when the box is empty
		ext[d] = fb.smax(fb.add(fb.sub(h, lo[d]), i64(1)), i64(0))
	}
	return lo, ext
}
