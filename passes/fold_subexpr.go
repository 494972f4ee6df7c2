// This file holds the second half of fold-constants: the parts of an op's body that read
// only constants, all at the same index, are evaluated once per element of those constants
// at compile time instead of once per iteration. An inference BatchNorm that no convolution
// absorbs (DenseNet's, applied to the concatenated features before a ReLU, or any
// pre-activation block) computes (x - mean) / sqrt(var + eps) · gamma + beta per element
// with its statistics read per channel: sqrt(var + eps) becomes a per-channel constant, and
// every element then pays a subtraction, a division, a multiplication and an addition
// instead of a vector square root on top. The division stays: the evaluator divides, and
// a multiplication by a reciprocal would not give its bits.

package passes

import (
	"context"
	"fmt"
	"slices"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// constSubexpr is a maximal part of a body that reads only constant operands, all through
// one access piece.
type constSubexpr struct {
	node *ir.Scalar
	// operands are the operand indices it reads (in body order of first read)
	operands []int
}

// hoistConstSubexprs replaces, in every op's body, each maximal subexpression that computes
// from constants read at one index (and literals) by a read of a new constant holding its
// value at every index, within budget bytes; it returns the bytes made. The constants read
// must share their shape, be static, hold the subexpression's float type (no widening), and
// their access be one unguarded piece, identical for all of them; a subexpression that is a
// plain read or a literal stays.
func hoistConstSubexprs(ctx context.Context, g *ir.Graph, budget int64) (int64, error) {
	var made int64
	for i, op := range g.Ops {
		if err := ctx.Err(); err != nil {
			return made, err
		}
		if op.Body == nil || op.Reduce.IsArg() || ir.AlgorithmOf(op) != nil || op.Kind == "einsum" || len(op.Access) != len(op.Operands) {
			continue // algorithms and einsums (fold_weights.go) keep their named form
		}
		subs := constSubexprs(op)
		if len(subs) == 0 {
			continue
		}
		// the op is rebuilt in generic form (a named op's operands are fixed by its kind,
		// batch_norm's five; a generic op's attributes spell its accesses)
		work := *op
		work.Operands, work.Access = slices.Clone(op.Operands), slices.Clone(op.Access)
		repl := map[*ir.Scalar]*ir.Scalar{}
		var n int64
		for _, s := range subs {
			shape, _ := op.Operands[s.operands[0]].Type.StaticShape()
			b := int64(s.node.Type.Size())
			for _, e := range shape {
				b *= e
			}
			if made+n+b > budget {
				continue
			}
			v, ok := evalSubexpr(ctx, g, op, s)
			if !ok {
				continue
			}
			n += b
			work.Operands = append(work.Operands, v)
			work.Access = append(work.Access, op.Access[s.operands[0]])
			repl[s.node] = ir.Read(len(work.Operands)-1, s.node.Type)
		}
		if len(repl) == 0 {
			continue
		}
		work.Body = cloneScalar(op.Body, func(n *ir.Scalar) *ir.Scalar { return repl[n] })
		dropUnread(&work)
		gen, err := ir.ToGeneric(g.Params, &work)
		if err != nil {
			g.RemoveOps(func(*ir.Op) bool { return false }) // drops the constants made
			continue
		}
		gen.Result = op.Result
		op.Result.Def = gen
		g.Ops[i] = gen
		made += n
	}
	return made, nil
}

// dropUnread removes the operands op's body no longer reads nor asks the availability of
// (the constants a hoisted subexpression read), renumbering the body's leaves.
func dropUnread(op *ir.Op) {
	used := map[int]bool{}
	op.Body.Walk(func(n *ir.Scalar) {
		if n.Op == ir.SRead || n.Op == ir.SAvail || n.Op == ir.SDynRead {
			used[n.Arg] = true
		}
	})
	at := map[int]int{}
	var ops []*ir.Value
	var acc []ir.Access
	for k, o := range op.Operands {
		if used[k] {
			at[k] = len(ops)
			ops = append(ops, o)
			acc = append(acc, op.Access[k])
		}
	}
	if len(ops) == len(op.Operands) {
		return
	}
	body := cloneScalar(op.Body, func(*ir.Scalar) *ir.Scalar { return nil })
	seen := map[*ir.Scalar]bool{}
	var renumber func(n *ir.Scalar)
	renumber = func(n *ir.Scalar) {
		if seen[n] {
			return
		}
		seen[n] = true
		if n.Op == ir.SRead || n.Op == ir.SAvail || n.Op == ir.SDynRead {
			n.Arg = at[n.Arg]
		}
		for _, a := range n.Args {
			renumber(a)
		}
	}
	renumber(body)
	op.Body, op.Operands, op.Access = body, ops, acc
}

// constSubexprs finds the maximal constant subexpressions of op's body worth a constant
// (at least one read and one operation, of a float type).
func constSubexprs(op *ir.Op) []constSubexpr {
	type info struct {
		ok    bool  // reads constants at one index and literals only
		key   int   // an operand read (-1: none, a literal expression)
		reads []int // operands read
		calc  bool  // has an operation
	}
	memo := map[*ir.Scalar]info{}
	var visit func(s *ir.Scalar) info
	visit = func(s *ir.Scalar) info {
		if r, ok := memo[s]; ok {
			return r
		}
		var r info
		switch s.Op {
		case ir.SConst:
			r = info{ok: true, key: -1}
		case ir.SRead:
			r = info{ok: constRead(op, s.Arg), key: s.Arg, reads: []int{s.Arg}}
		case ir.SDynRead, ir.SAvail, ir.SIndex, ir.SParam:
			r = info{}
		default:
			r = info{ok: true, key: -1, calc: true}
			for _, a := range s.Args {
				ai := visit(a)
				if !ai.ok {
					r.ok = false
					continue
				}
				for _, k := range ai.reads {
					if !slices.Contains(r.reads, k) {
						r.reads = append(r.reads, k)
					}
				}
				if ai.key >= 0 {
					if r.key >= 0 && !sameConstRead(op, r.key, ai.key) {
						r.ok = false
					}
					r.key = ai.key
				}
			}
		}
		memo[s] = r
		return r
	}
	var out []constSubexpr
	seen := map[*ir.Scalar]bool{}
	var collect func(s *ir.Scalar)
	collect = func(s *ir.Scalar) {
		if seen[s] {
			return
		}
		seen[s] = true
		if r := visit(s); r.ok {
			if r.calc && r.key >= 0 && s.Type.IsFloat() && sameElem(op, r.reads, s.Type) {
				out = append(out, constSubexpr{node: s, operands: r.reads})
			}
			return
		}
		for _, a := range s.Args {
			collect(a)
		}
	}
	collect(op.Body)
	return out
}

// sameElem reports whether the operands ks all hold elements of type t: a part that widens
// its constants (the cast of i8 or 4-bit weights to f32) stays in the body, where the
// weights keep their compact form (and their quantized kernels).
func sameElem(op *ir.Op, ks []int, t ir.DType) bool {
	for _, k := range ks {
		if op.Operands[k].Type.Elem != t {
			return false
		}
	}
	return true
}

// constRead reports whether operand k is a static constant read through one unguarded piece.
func constRead(op *ir.Op, k int) bool {
	o := op.Operands[k]
	if o.Data == nil || o.Type.Elem == ir.Bool {
		return false
	}
	if _, ok := o.Type.StaticShape(); !ok {
		return false
	}
	acc := op.Access[k]
	return !acc.Approx && len(acc.Pieces) == 1 && len(acc.Pieces[0].Guard) == 0
}

// sameConstRead reports whether operands j and k (constant reads) have one shape and one
// access index, so that a function of both is a tensor of that shape read at that index.
func sameConstRead(op *ir.Op, j, k int) bool {
	if j == k {
		return true
	}
	sj, _ := op.Operands[j].Type.StaticShape()
	sk, _ := op.Operands[k].Type.StaticShape()
	return slices.Equal(sj, sk) && slices.EqualFunc(op.Access[j].Pieces[0].Index, op.Access[k].Pieces[0].Index, func(a, b volume.Aff) bool {
		return a.String() == b.String()
	})
}

// evalSubexpr evaluates s over every index of the constants it reads (the reference
// evaluator: the same bits as the body computes them) into a new constant of the graph.
func evalSubexpr(ctx context.Context, g *ir.Graph, op *ir.Op, s constSubexpr) (*ir.Value, bool) {
	first := op.Operands[s.operands[0]]
	shape, _ := first.Type.StaticShape()
	r := len(shape)
	names := make([]string, r)
	for d := range names {
		names[d] = fmt.Sprintf("d%d", d)
	}
	local := map[int]int{}
	var ops []*ir.Value
	var acc []ir.Access
	for _, k := range s.operands {
		local[k] = len(ops)
		ops = append(ops, op.Operands[k])
		acc = append(acc, ir.AffAccess(identityAffs(r)...))
	}
	body := cloneScalar(s.node, func(n *ir.Scalar) *ir.Scalar {
		if n.Op == ir.SRead {
			return ir.Read(local[n.Arg], n.Type)
		}
		return nil
	})
	box := volume.Box(g.Params, "", names, first.Type.Shape)
	res := &ir.Value{Name: first.Name + "_c", Type: ir.StaticType(s.node.Type, shape...)}
	one := &ir.Op{
		Kind: "generic", Name: op.Name, Operands: ops, Dims: names, Iters: make([]ir.IterKind, r),
		Full: box, Domain: box, Access: acc, Out: ir.AffAccess(identityAffs(r)...), Body: body, Result: res,
	}
	res.Def = one
	data, ok := evalOp(ctx, g, one)
	if !ok {
		return nil, false
	}
	return g.AddConst(first.Name+"_c", data), true
}
