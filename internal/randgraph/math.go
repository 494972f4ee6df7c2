// This file adds the math, reduction, normalisation and contraction families to the random
// graph builders: float-valued ops only (the semantic test compares float outputs), with
// comparisons and arg reductions reached through where and cast.

package randgraph

import (
	"math/rand/v2"

	"github.com/graphc/graphc/ir"
)

// randomAxes returns a random subset of [0, rank).
func randomAxes(r *rand.Rand, rank int) []int64 {
	var axes []int64
	for a := range rank {
		if r.IntN(2) == 0 {
			axes = append(axes, int64(a))
		}
	}
	return axes
}

// chain appends ops one after the other; each step reads the previous results.
func chain(g *ir.Graph, steps ...func(prev []*ir.Value) (string, []*ir.Value, ir.Attrs)) *ir.Op {
	var prev []*ir.Value
	var last *ir.Op
	for _, s := range steps {
		kind, ops, attrs := s(prev)
		op := TryOp(g, kind, ops, attrs)
		if op == nil {
			return last
		}
		prev = append(prev, op.Result)
		last = op
	}
	return last
}

func init() {
	for _, k := range []string{"erf", "floor", "ceil", "sigmoid", "tanh", "softplus", "elu", "selu", "leaky_relu",
		"hard_sigmoid", "gelu", "exp", "reciprocal", "softsign", "round", "sign"} {
		Makers = append(Makers, UnaryMaker(k))
	}
	Makers = append(Makers,
		BinaryMaker("div"), BinaryMaker("pow"),
		func(r *rand.Rand, g *ir.Graph, vals []*ir.Value) *ir.Op { // reductions
			v := Pick(r, vals)
			kinds := []string{"reduce_sum", "reduce_prod", "reduce_max", "reduce_min"}
			return TryOp(g, kinds[r.IntN(len(kinds))], []*ir.Value{v}, ir.Attrs{
				"axes": ir.IntsAttr(randomAxes(r, v.Type.Rank())...), "keepdims": ir.IntAttr(int64(r.IntN(2)))})
		},
		func(r *rand.Rand, g *ir.Graph, vals []*ir.Value) *ir.Op { // softmax over one axis
			v := Pick(r, vals)
			if v.Type.Rank() == 0 {
				return nil
			}
			keep := ir.Attrs{"axes": ir.IntsAttr(int64(r.IntN(v.Type.Rank()))), "keepdims": ir.IntAttr(1)}
			return chain(g,
				func([]*ir.Value) (string, []*ir.Value, ir.Attrs) { return "reduce_max", []*ir.Value{v}, keep },
				func(p []*ir.Value) (string, []*ir.Value, ir.Attrs) { return "sub", []*ir.Value{v, p[0]}, nil },
				func(p []*ir.Value) (string, []*ir.Value, ir.Attrs) { return "exp", []*ir.Value{p[1]}, nil },
				func(p []*ir.Value) (string, []*ir.Value, ir.Attrs) { return "reduce_sum", []*ir.Value{p[2]}, keep },
				func(p []*ir.Value) (string, []*ir.Value, ir.Attrs) { return "div", []*ir.Value{p[2], p[3]}, nil })
		},
		func(r *rand.Rand, g *ir.Graph, vals []*ir.Value) *ir.Op { // where(a > b, a, b) and friends
			a, b := Pick(r, vals), Pick(r, vals)
			cmp := []string{"greater", "less", "equal", "greater_equal", "less_equal"}[r.IntN(5)]
			return chain(g,
				func([]*ir.Value) (string, []*ir.Value, ir.Attrs) { return cmp, []*ir.Value{a, b}, nil },
				func(p []*ir.Value) (string, []*ir.Value, ir.Attrs) { return "where", []*ir.Value{p[0], a, b}, nil })
		},
		func(r *rand.Rand, g *ir.Graph, vals []*ir.Value) *ir.Op { // argmax/argmin, cast back to f32
			v := Pick(r, vals)
			if v.Type.Rank() == 0 {
				return nil
			}
			kind := []string{"argmax", "argmin"}[r.IntN(2)]
			attrs := ir.Attrs{"axis": ir.IntAttr(int64(r.IntN(v.Type.Rank()))), "keepdims": ir.IntAttr(int64(r.IntN(2))),
				"select_last_index": ir.IntAttr(int64(r.IntN(2)))}
			return chain(g,
				func([]*ir.Value) (string, []*ir.Value, ir.Attrs) { return kind, []*ir.Value{v}, attrs },
				func(p []*ir.Value) (string, []*ir.Value, ir.Attrs) {
					return "cast", []*ir.Value{p[0]}, ir.Attrs{"to": ir.StringAttr("f32")}
				})
		},
		func(r *rand.Rand, g *ir.Graph, vals []*ir.Value) *ir.Op { // einsum: matmul, transposed, diagonal, sums
			a, b := Pick(r, vals), Pick(r, vals)
			eqs := []struct {
				eq   string
				args []*ir.Value
			}{{"ij,jk->ik", []*ir.Value{a, b}}, {"ji,jk->ik", []*ir.Value{a, b}}, {"ij,kj->ik", []*ir.Value{a, b}},
				{"ii->i", []*ir.Value{a}}, {"ij->", []*ir.Value{a}}, {"...i,...i->...", []*ir.Value{a, b}}, {"ij->ji", []*ir.Value{a}}}
			e := eqs[r.IntN(len(eqs))]
			return TryOp(g, "einsum", e.args, ir.Attrs{"equation": ir.StringAttr(e.eq)})
		},
		func(r *rand.Rand, g *ir.Graph, vals []*ir.Value) *ir.Op { // batch norm with constant statistics
			x := Pick(r, vals)
			if x.Type.Rank() < 2 {
				return nil
			}
			c, _ := x.Type.Dim(1)
			stats := make([]*ir.Value, 4)
			for k := range stats {
				t := ir.NewTensor(ir.F32, []int64{c})
				for i := range t.F {
					t.F[i] = ir.RoundFloat(ir.F32, r.Float64()*2)
				}
				stats[k] = g.AddConst("bn", t)
			}
			return TryOp(g, "batch_norm", append([]*ir.Value{x}, stats...), nil)
		},
		func(r *rand.Rand, g *ir.Graph, vals []*ir.Value) *ir.Op { // running sums and products: triangular domains
			v := Pick(r, vals)
			if v.Type.Rank() == 0 {
				return nil
			}
			return TryOp(g, []string{"cumsum", "cumprod"}[r.IntN(2)], []*ir.Value{v}, ir.Attrs{"axis": ir.IntAttr(int64(r.IntN(v.Type.Rank()))),
				"exclusive": ir.IntAttr(int64(r.IntN(2))), "reverse": ir.IntAttr(int64(r.IntN(2)))})
		},
		func(r *rand.Rand, g *ir.Graph, vals []*ir.Value) *ir.Op { // LRN's window
			x := Pick(r, vals)
			return TryOp(g, "channel_window_sum", []*ir.Value{x}, ir.Attrs{"size": ir.IntAttr(int64(1 + r.IntN(4)))})
		},
	)
}
