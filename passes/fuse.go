// This file holds fuse: folds views (transpose, reshape, slice, broadcast …) into the access
// maps of their consumers and inlines elementwise producers into their consumers' bodies, so
// that no copy or intermediate buffer is materialised for them.

package passes

import (
	"context"
	"math"
	"slices"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

var fusePass = &Pass{
	Name:    "fuse",
	Summary: "fold views into their consumers' access maps and inline single-use elementwise producers into their consumers' bodies",
	Doc: `A view is an op that copies its operand: it writes every element of its result exactly once
(identity out map over the result's box) with the body in0. A consumer reading a view through
access f reads the view's operand through the composition g∘f of the view's access g, so the
view needs no buffer (transposes and reshapes become index arithmetic; reshape's floor/mod
maps stay quasi-affine).
An elementwise producer (every result element written once, no index or symbolic-dim terms in
its body) used only by one consumer that reads each of its elements at most once (the access is
injective over the consumer's domain, an exact volume test, so a matmul never recomputes its
inputs' producers) is inlined: the consumer's body computes the producer's body on the
producer's operands read through the composed accesses. Floating-point operations are the same,
so results are bit for bit the same. A producer with up to 4 consumers that can all inline it,
a body of at most 16 nodes and operands of at most 1.5 times its result's bytes per element
(softmax's scaled and masked scores and its exp(x - max)) is inlined into all of them: it is
computed again by each, never written. Extents an operand shares with the result cancel in that
ratio, so a bias over a symbolic number of rows counts as with static rows.
Rewritten consumers become generic ops. A producer inlined into its only consumer is removed
(a chain of elementwise ops would otherwise hold every intermediate body); others left without
users are removed by dce, which should run after fuse. A fused body stops growing at 128
nodes: a 100,000-op chain becomes ops of about that size, not one body rebuilt 100,000 times. A graph output that is an identity copy (identity, or a cast to the same
type) of a value used only by it is written by that value's producer directly.
In the default pipeline: exported transformers materialise every transpose, reshape and
elementwise step of attention, softmax, GELU and the norms; folded and inlined, they are not
written and read back (a T=1024 GPT-2 export ran 13% faster), and a contraction reading a
folded transpose keeps its register tiles (the strided operand is packed).
Cost check (passes/cost.go): a rewrite that would cost the consumer its vectors is estimated
first. Lowering vectorises a nest along the dim its result's last axis is when every read is
unit-stride or invariant along it, and loads strided reads lane by lane only in bodies of 8
nodes or more (strides are judged in the layout channels-last will give the values when it
runs later). An iteration is estimated at (nodes + 1) / lanes operations on vectors (plus one
per lane loaded alone) and nodes + 1 scalar; the producer apart costs its own nest (a
permuting view, a block-transposing copy: one operation an element) and, inlined, a vector
store and load of each element. The rewrite is refused when the fused nest is estimated
slower, with a remark in the dump after fuse ("remark: fuse: op %c: %p (transpose) not
folded: ... about N operations against M with %p apart"). Recomputation stays within the
duplication limits above.
Compile time: a consumer whose attempts all failed is examined again only when it, the
producers of its operands or their users change (a bidirectional GRU unrolled over 64 steps:
325,000 attempts became a few thousand; the same rewrites in the same order).
Requirements: a consumer inherits the requirements on the symbolic dims (ir.Op.Requires) of
the views and producers it absorbs.`,
	Run: runFuse,
}

func runFuse(ctx context.Context, g *ir.Graph, st *State) error {
	stats := st.Stats["fuse"]
	outputs := map[*ir.Value]bool{}
	for _, o := range g.Outputs {
		outputs[o] = true
	}
	// producers inlined into their only user are removed after each sweep: along a chain each
	// op absorbs the body of the one before, and the dead ones would hold all those bodies
	dead := map[*ir.Op]bool{}
	fc := &fuseCost{st: st}
	if st.runsLater("channels-last") {
		fc.nhwc = plannedChannelsLast(ctx, g)
	}
	// Sweeps repeat until nothing changes, and most consumers fail every attempt in every
	// sweep (a bidirectional GRU unrolled over 64 steps: 6,000 ops, 65 sweeps). An attempt's
	// outcome depends only on the consumer, its operands' producers, and the users of its
	// operands (how many; inlineEverywhere asks each of them), so a consumer is examined again
	// only when one of those changed since it last failed: the same rewrites happen in the same
	// order, at a fraction of the attempts.
	var now int                     // counts the rewrites
	opStamp := map[*ir.Op]int{}     // the rewrite that last changed an op
	valStamp := map[*ir.Value]int{} // the rewrite that last changed a value's users
	failed := map[*ir.Op]int{}      // when each consumer last failed every attempt (absent: never examined)
	// stale reports whether c changed, or a producer of its operands, or the users of one
	// (a rewrite stamps the operands of every op it touches, before and after: a user that
	// changed stamps the values it reads)
	stale := func(c *ir.Op) bool {
		t, ok := failed[c]
		if !ok || opStamp[c] > t {
			return true
		}
		for _, o := range c.Operands {
			if o.Def != nil && (opStamp[o.Def] > t || valStamp[o] > t) {
				return true
			}
		}
		return false
	}
	var touched []*ir.Op // reused by every attempt
	var before [][]*ir.Value
	for changed := true; changed; {
		changed = false
		if err := ctx.Err(); err != nil {
			return err
		}
		users := g.Users()
		fc.users = users
		for i := 0; i < len(g.Ops); i++ {
			c := g.Ops[i]
			if dead[c] || !stale(c) {
				continue
			}
			rewritten := false
			for k := 0; k < len(c.Operands); k++ {
				p := c.Operands[k].Def
				if p == nil {
					continue
				}
				var done bool
				var err error
				// the ops a rewrite may change, with their operands before it (users is kept
				// up to date: "only user" must be true when a producer is removed); rewrites
				// give an op a new operand list and never edit the old one, which can be kept
				touched, before = touched[:0], before[:0]
				touch := func(ops ...*ir.Op) {
					for _, op := range ops {
						touched = append(touched, op)
						before = append(before, op.Operands)
					}
				}
				if isView(g, p) {
					touch(c)
					done, err = foldView(g, c, k, p, fc)
				} else if !outputs[p.Result] && len(users[p.Result]) == 1 {
					touch(c, p)
					done, err = inlineProducer(g, c, k, p, fc)
					if done {
						// nothing reads p now: drop its body at once, and what the pass and
						// the state keep about it (the op goes at the sweep's end, or sooner)
						dead[p] = true
						*p = ir.Op{Kind: p.Kind, Name: p.Name, Result: p.Result}
						delete(users, p.Result)
						delete(valStamp, p.Result)
						delete(opStamp, p)
						delete(failed, p)
						delete(st.Required, p.Result)
					}
				} else if !outputs[p.Result] {
					us := slices.Clone(users[p.Result])
					touch(us...)
					done, err = inlineEverywhere(g, us, p, fc)
				}
				if err != nil {
					return err
				}
				if done {
					now++
					for i, op := range touched {
						opStamp[op] = now
						for _, o := range before[i] {
							valStamp[o] = now
							users[o] = slices.DeleteFunc(users[o], func(u *ir.Op) bool { return u == op })
						}
					}
					for _, op := range touched {
						for _, o := range op.Operands {
							valStamp[o] = now
							if !slices.Contains(users[o], op) {
								users[o] = append(users[o], op)
							}
						}
					}
					changed = true
					rewritten = true
					if stats != nil {
						stats.OpsRewritten++
					}
					break
				}
			}
			if !rewritten {
				failed[c] = now
			}
			// along a chain most ops die in the first sweep: removing them every eighth of the
			// graph frees their structs (a 100,000-op chain held 50 MB of them at the
			// sweep's end). Inlined producers precede their consumer c: c moves down by as many.
			if len(dead) >= max(minFuseCompaction, len(g.Ops)/8) {
				before := 0
				for _, op := range g.Ops[:i] {
					if dead[op] {
						before++
					}
				}
				n := g.RemoveOps(func(op *ir.Op) bool { return dead[op] })
				if stats != nil {
					stats.OpsRemoved += n
				}
				clear(dead)
				i -= before
			}
		}
		if len(dead) > 0 {
			n := g.RemoveOps(func(op *ir.Op) bool { return dead[op] })
			if stats != nil {
				stats.OpsRemoved += n
			}
			clear(dead)
		}
	}
	users := g.Users()
	for _, o := range g.Outputs {
		if forwardOutput(g, o.Def, users, outputs) {
			if stats != nil {
				stats.OpsRemoved++
			}
			users = g.Users()
		}
	}
	return nil
}

// writesEachOnce reports whether p writes every element of its result exactly once: identity
// out map and a full domain equal to the result's box.
func writesEachOnce(g *ir.Graph, p *ir.Op) bool {
	if p.Reduce != ir.ReduceNone || len(p.Out.Pieces) != 1 || len(p.Out.Pieces[0].Guard) != 0 {
		return false
	}
	idx := p.Out.Pieces[0].Index
	if len(idx) != p.NDim() || p.Result.Type.Rank() != p.NDim() {
		return false
	}
	for d, a := range idx {
		if !a.Equal(volume.AffDim(d)) {
			return false
		}
	}
	// unknown: not a full-box writer (not fused)
	return p.Full.IsEqual(boxOf(g.Params, p.Result.Type).SetDimNames(p.Dims)).Or(false)
}

func isView(g *ir.Graph, p *ir.Op) bool {
	if len(p.Operands) != 1 || !copiesIn0(p.Body) || p.Access[0].Approx ||
		len(p.Access[0].Pieces) != 1 || len(p.Access[0].Pieces[0].Guard) != 0 {
		return false
	}
	return writesEachOnce(g, p)
}

// copiesIn0 reports whether a body is in0, or a cast of in0 to its own type (exported models
// end with such casts: PyTorch's logits.float()).
func copiesIn0(b *ir.Scalar) bool {
	if b.Op == ir.SCast && len(b.Args) == 1 && b.Args[0].Type == b.Type {
		b = b.Args[0]
	}
	return b.Op == ir.SRead && b.Arg == 0
}

// forwardOutput makes the producer of an identity view that is a graph output write the
// output itself: the view's copy (an 8 MB logits cast) disappears with it. The producer must
// have the view as its only user, not be an output itself, and have the output's type; the
// view must copy every element to the same index.
func forwardOutput(g *ir.Graph, v *ir.Op, users map[*ir.Value][]*ir.Op, outputs map[*ir.Value]bool) bool {
	if v == nil || !isView(g, v) || !v.Result.Type.Equal(v.Operands[0].Type) {
		return false
	}
	p := v.Operands[0].Def
	if p == nil || outputs[p.Result] || len(users[p.Result]) != 1 {
		return false
	}
	idx := v.Access[0].Pieces[0].Index
	if len(idx) != v.NDim() {
		return false
	}
	for d, a := range idx {
		if !a.Equal(volume.AffDim(d)) {
			return false
		}
	}
	// p produces the output; v and p's old result go
	inheritRequires(p, v)
	pr, vr := p.Result, v.Result
	p.Result = vr
	vr.Def = p
	v.Result = pr
	g.RemoveOps(func(op *ir.Op) bool { return op == v })
	return true
}

// compose returns the access "read p's operand through q after reading p's result through c".
func compose(c, q ir.Access) ir.Access {
	var out ir.Access
	for _, cp := range c.Pieces {
		for _, qp := range q.Pieces {
			piece := ir.AccessPiece{Guard: append([]volume.Constraint(nil), cp.Guard...)}
			for _, gc := range qp.Guard {
				piece.Guard = append(piece.Guard, volume.Constraint{Aff: gc.Aff.SubstDims(cp.Index), Eq: gc.Eq})
			}
			for _, a := range qp.Index {
				piece.Index = append(piece.Index, a.SubstDims(cp.Index))
			}
			out.Pieces = append(out.Pieces, piece)
		}
	}
	return out
}

// readsDynamically reports whether the body reads operand k through a data-dependent read.
func readsDynamically(s *ir.Scalar, k int) bool {
	found := false
	s.Walk(func(n *ir.Scalar) {
		if n.Op == ir.SDynRead && n.Arg == k {
			found = true
		}
	})
	return found
}

// replaceOp puts the generic form of the rewritten op in place of c, keeping its result.
func replaceOp(g *ir.Graph, c *ir.Op, form *ir.Op) (bool, error) {
	gen, err := ir.ToGeneric(g.Params, form)
	if err != nil {
		return false, nil // cannot be spelled out: leave the op alone
	}
	res := c.Result
	*c = *gen
	c.Result = res
	res.Def = c
	return true, nil
}

func foldView(g *ir.Graph, c *ir.Op, k int, v *ir.Op, fc *fuseCost) (bool, error) {
	if c.Access[k].Approx || readsDynamically(c.Body, k) {
		return false, nil
	}
	form := *c
	form.Operands = append([]*ir.Value(nil), c.Operands...)
	form.Operands[k] = v.Operands[0]
	form.Access = append([]ir.Access(nil), c.Access...)
	form.Access[k] = compose(c.Access[k], v.Access[0])
	inheritRequires(&form, v)
	if fc.refuse(g, c, &form, v, false) {
		return false, nil
	}
	return replaceOp(g, c, &form)
}

// countReads returns how many distinct nodes read operand k statically, and whether the body
// uses Avail(k).
func countReads(s *ir.Scalar, k int) (reads int, avail bool) {
	seen := map[*ir.Scalar]bool{}
	s.Walk(func(n *ir.Scalar) {
		if seen[n] {
			return
		}
		seen[n] = true
		switch {
		case n.Op == ir.SRead && n.Arg == k:
			reads++
		case n.Op == ir.SAvail && n.Arg == k:
			avail = true
		}
	})
	return reads, avail
}

func inlineProducer(g *ir.Graph, c *ir.Op, k int, p *ir.Op, fc *fuseCost) (bool, error) {
	availOf, ok := canInline(g, c, k, p)
	if !ok || fc.keepsEpilogue(g, c, k, p) {
		return false, nil
	}
	form := inlinedForm(c, k, p, availOf)
	if fc.refuse(g, c, form, p, true) {
		return false, nil
	}
	return replaceOp(g, c, form)
}

// minFuseCompaction is the fewest dead producers fuse removes from the graph before its sweep
// ends (RemoveOps walks the whole graph).
const minFuseCompaction = 4096

// maxFusedNodes bounds the body of an op that inlining makes: every inlining rebuilds the
// consumer's body, so a chain of n elementwise ops fused into one would cost O(n²) time and
// memory (a 100,000-op chain took minutes and 6 GB). A chain becomes ops of about this many
// nodes each instead; the bodies of real models' fused ops (norms, GELU, softmax) are smaller.
const maxFusedNodes = 128

// Duplication limits: a producer with several consumers is inlined into all of them when its
// body is small, it has few consumers and recomputing it reads little more than its result.
const (
	maxDupUsers = 4
	maxDupNodes = 16
	// maxDupRead bounds the bytes of operands a duplicated producer reads per element of its
	// result, in units of its element size (broadcast operands count by their share)
	maxDupRead = 1.5
)

// inlineEverywhere inlines p into every consumer (each of which must read it through one
// operand, injectively), so that p's result is never written: softmax's exp(x - max), read by
// the row sum and the division, is computed in both and not stored. All or none.
func inlineEverywhere(g *ir.Graph, users []*ir.Op, p *ir.Op, fc *fuseCost) (bool, error) {
	if len(users) > maxDupUsers || nodeCount(p.Body) > maxDupNodes || !cheapToRecompute(p) {
		return false, nil
	}
	ks := make([]int, len(users))
	avails := make([]int, len(users))
	for i, c := range users {
		ks[i] = -1
		for k, o := range c.Operands {
			if o == p.Result {
				if ks[i] >= 0 {
					return false, nil
				}
				ks[i] = k
			}
		}
		var ok bool
		if avails[i], ok = canInline(g, c, ks[i], p); !ok {
			return false, nil
		}
	}
	forms := make([]*ir.Op, len(users))
	for i, c := range users {
		forms[i] = inlinedForm(c, ks[i], p, avails[i])
		if fc.refuse(g, c, forms[i], p, true) {
			return false, nil
		}
	}
	done := false
	for i, c := range users {
		d, err := replaceOp(g, c, forms[i])
		if err != nil {
			return false, err
		}
		done = done || d
	}
	return done, nil
}

// nodeCount counts the distinct nodes of a body.
func nodeCount(s *ir.Scalar) int {
	seen := map[*ir.Scalar]bool{}
	s.Walk(func(n *ir.Scalar) { seen[n] = true })
	return len(seen)
}

// cheapToRecompute reports whether computing p again reads at most maxDupRead times the bytes
// of its result per element (splat constants are immediates; broadcast operands count by their
// size relative to the result, elementRatio).
func cheapToRecompute(p *ir.Op) bool {
	read := 0.0
	for _, o := range p.Operands {
		if o.IsConst() && splat(o.Data) {
			continue
		}
		read += elementRatio(o.Type.Shape, p.Result.Type.Shape) * float64(o.Type.Elem.Size())
	}
	return read <= maxDupRead*float64(p.Result.Type.Elem.Size())
}

// elementRatio returns how many elements of shape o there are per element of shape r: extents
// the two have in common cancel (a bias [C] against [N, T, C] is 1/(N·T) whatever T is); an
// extent left over that is symbolic counts as costSymbolicExtent, as in the cost checks. With
// static shapes it is the exact ratio.
func elementRatio(o, r []volume.Aff) float64 {
	left := slices.Clone(r)
	num := 1.0
	for _, a := range o {
		if i := slices.IndexFunc(left, a.Equal); i >= 0 {
			left = slices.Delete(left, i, i+1)
			continue
		}
		num *= extentEstimate(a)
	}
	den := 1.0
	for _, a := range left {
		den *= extentEstimate(a)
	}
	return num / den
}

// extentEstimate is an extent's value, or costSymbolicExtent when it is symbolic.
func extentEstimate(a volume.Aff) float64 {
	if c, ok := a.IsConst(); ok {
		return float64(c)
	}
	return costSymbolicExtent
}

// splat reports whether every element of t is the same.
func splat(t *ir.Tensor) bool {
	if t.IsRaw() {
		for i, n := 1, t.Len(); i < n; i++ {
			if t.Bits(i) != t.Bits(0) {
				return false
			}
		}
		return true
	}
	for i := 1; i < len(t.F); i++ {
		if math.Float64bits(t.F[i]) != math.Float64bits(t.F[0]) {
			return false
		}
	}
	for i := 1; i < len(t.I); i++ {
		if t.I[i] != t.I[0] {
			return false
		}
	}
	return true
}

// canInline checks that p can be inlined into c's operand k; availOf is the operand of p whose
// availability stands for c's Avail(k) (-1 when c's body does not ask).
func canInline(g *ir.Graph, c *ir.Op, k int, p *ir.Op) (availOf int, ok bool) {
	if nodeCount(c.Body)+nodeCount(p.Body) > maxFusedNodes {
		return -1, false
	}
	if c.Access[k].Approx || readsDynamically(c.Body, k) || !writesEachOnce(g, p) {
		return -1, false
	}
	for _, o := range c.Operands[k+1:] {
		if o == c.Operands[k] {
			return -1, false
		}
	}
	for _, o := range c.Operands[:k] {
		if o == c.Operands[k] {
			return -1, false
		}
	}
	reads, avail := countReads(c.Body, k)
	if reads != 1 || avail && len(p.Operands) == 0 {
		return -1, false
	}
	for j, a := range p.Access {
		if a.Approx || readsDynamically(p.Body, j) {
			return -1, false
		}
	}
	simple := true
	p.Body.Walk(func(n *ir.Scalar) {
		if n.Op == ir.SIndex || n.Op == ir.SParam {
			simple = false
		}
	})
	if !simple {
		return -1, false
	}
	// Avail(k) in c's body asks whether c's access k is defined. After inlining it is asked of
	// an operand of p whose access is defined at every iteration of p (then only c's access
	// decides): with partial accesses (p a concat) the first operand's availability is not c's.
	availOf = -1
	if avail {
		for j := range p.Operands {
			// unknown: not defined everywhere (another operand, or no fusion)
			if p.Domain.IsSubset(p.AccessMap(g.Params, j).Domain()).Or(false) {
				availOf = j
				break
			}
		}
		if availOf < 0 {
			return -1, false
		}
	}
	// each element of p read at most once: the access is injective over c's domain
	m := c.AccessMap(g.Params, k).IntersectDomain(c.Domain)
	same := m.ApplyRange(m.Reverse())
	id := volume.MultiAff{Params: g.Params, InDims: c.Dims, Exprs: identityAffs(c.NDim())}.Map()
	injective := same.Subtract(id).IsEmpty().Or(false) // unknown: not inlined (an element might be computed twice)
	if !injective {
		return -1, false
	}
	return availOf, true
}

// inlinedForm returns c rewritten to compute p's body in place of its read of operand k.
func inlinedForm(c *ir.Op, k int, p *ir.Op, availOf int) *ir.Op {
	// new operand list: c's without k, then p's
	n := len(c.Operands)
	remapC := func(a int) int {
		if a > k {
			return a - 1
		}
		return a
	}
	form := *c
	form.Operands = nil
	form.Access = nil
	for i, o := range c.Operands {
		if i != k {
			form.Operands = append(form.Operands, o)
			form.Access = append(form.Access, c.Access[i])
		}
	}
	for j, o := range p.Operands {
		form.Operands = append(form.Operands, o)
		form.Access = append(form.Access, compose(c.Access[k], p.Access[j]))
	}
	pBody := cloneScalar(p.Body, func(s *ir.Scalar) *ir.Scalar {
		if s.Op == ir.SRead || s.Op == ir.SAvail {
			cp := *s
			cp.Arg = n - 1 + s.Arg
			return &cp
		}
		return nil
	})
	form.Body = cloneScalar(c.Body, func(s *ir.Scalar) *ir.Scalar {
		switch {
		case s.Op == ir.SRead && s.Arg == k:
			return pBody
		case s.Op == ir.SAvail && s.Arg == k:
			return ir.Avail(n - 1 + availOf) // defined wherever c's access k is
		case s.Op == ir.SRead || s.Op == ir.SAvail:
			cp := *s
			cp.Arg = remapC(s.Arg)
			return &cp
		}
		return nil // SDynRead nodes are copied with their index arguments and fixed below
	})
	inheritRequires(&form, p)
	fixed := map[*ir.Scalar]bool{}
	form.Body.Walk(func(s *ir.Scalar) {
		if s.Op == ir.SDynRead && !fixed[s] {
			fixed[s] = true
			s.Arg = remapC(s.Arg)
		}
	})
	return &form
}

// fuseCost holds what fuse's cost check needs: the values channels-last will store
// channels-last (strides are judged in that layout) and where remarks go.
type fuseCost struct {
	st   *State
	nhwc map[*ir.Value]bool
	// users are the readers of each value, kept up to date by the sweep (keepsEpilogue)
	users map[*ir.Value][]*ir.Op
}

// refuse reports whether c must not be rewritten as form (fuseRefusal), with a remark.
func (fc *fuseCost) refuse(g *ir.Graph, c, form, p *ir.Op, roundTrip bool) bool {
	why := fuseRefusal(g, c, form, p, roundTrip, fc.nhwc)
	if why != "" {
		fc.st.remark("fuse", c.Result.Name, why)
	}
	return why != ""
}

func identityAffs(n int) []volume.Aff {
	out := make([]volume.Aff, n)
	for i := range out {
		out[i] = volume.AffDim(i)
	}
	return out
}

// cloneScalar copies a body; sub returns a replacement for a node (nil: copy it). Shared nodes
// stay shared.
func cloneScalar(s *ir.Scalar, sub func(*ir.Scalar) *ir.Scalar) *ir.Scalar {
	memo := map[*ir.Scalar]*ir.Scalar{}
	var rec func(*ir.Scalar) *ir.Scalar
	rec = func(n *ir.Scalar) *ir.Scalar {
		if r, ok := memo[n]; ok {
			return r
		}
		if r := sub(n); r != nil {
			memo[n] = r
			return r
		}
		cp := *n
		cp.Args = make([]*ir.Scalar, len(n.Args))
		for i, a := range n.Args {
			cp.Args[i] = rec(a)
		}
		memo[n] = &cp
		return &cp
	}
	return rec(s)
}
