// This file adds the exporters' idioms that known-values and exact gathers see through: constant
// masks (triangles with offsets, bands, boxes, checkerboards, and unstructured ones that must
// fall back) applied by where, an additive -inf mask or a 0/1 product, masked softmax chains
// followed by a product with another value, triu of a -inf fill, and gathers with constant
// indices (scalars, negative, affine, arbitrary lists).

package randgraph

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/graphc/graphc/ir"
)

// maskPattern returns a random boolean pattern over an m×n grid (true = masked).
func maskPattern(r *rand.Rand) func(i, j int64) bool {
	k := int64(r.IntN(5) - 2)
	switch r.IntN(6) {
	case 0:
		return func(i, j int64) bool { return j-i > k } // causal: masked above the diagonal
	case 1:
		return func(i, j int64) bool { return j-i < k }
	case 2:
		w := int64(r.IntN(3))
		return func(i, j int64) bool { return j-i > w || i-j > w } // a band
	case 3:
		a, b := int64(r.IntN(3)), int64(r.IntN(3))
		return func(i, j int64) bool { return i < a || j >= b+1 } // a box
	case 4:
		p := int64(r.IntN(2))
		return func(i, j int64) bool { return (i+j)%2 == p } // a checkerboard
	}
	seed := r.Uint64()
	return func(i, j int64) bool { return (uint64(i*31+j*17)*seed)>>61&1 == 1 } // no structure
}

// maskConst adds a constant of v's shape holding masked / kept (broadcast along the leading
// dims, which are 1 in the constant as exporters write them).
func maskConst(r *rand.Rand, g *ir.Graph, v *ir.Value, elem ir.DType, masked, kept float64) *ir.Value {
	s, ok := v.Type.StaticShape()
	if !ok || len(s) < 2 {
		return nil
	}
	shape := make([]int64, len(s))
	for i := range shape {
		shape[i] = 1
	}
	m, n := s[len(s)-2], s[len(s)-1]
	shape[len(s)-2], shape[len(s)-1] = m, n
	pat := maskPattern(r)
	t := ir.NewTensor(elem, shape)
	for i := int64(0); i < m; i++ {
		for j := int64(0); j < n; j++ {
			v := kept
			if pat(i, j) {
				v = masked
			}
			if elem.IsFloat() {
				t.F[i*n+j] = v
			} else {
				t.I[i*n+j] = int64(v)
			}
		}
	}
	return g.AddConst("mask", t)
}

func scalarConst(g *ir.Graph, v float64) *ir.Value {
	t := ir.NewTensor(ir.F32, nil)
	t.F[0] = v
	return g.AddConst("c", t)
}

func init() {
	Makers = append(Makers,
		func(r *rand.Rand, g *ir.Graph, vals []*ir.Value) *ir.Op { // masked_fill: where(mask, -inf, v)
			v := Pick(r, vals)
			mask := maskConst(r, g, v, ir.Bool, 1, 0)
			if mask == nil {
				return nil
			}
			fill := []float64{math.Inf(-1), 0, -1e4}[r.IntN(3)]
			return TryOp(g, "where", []*ir.Value{mask, scalarConst(g, fill), v}, nil)
		},
		func(r *rand.Rand, g *ir.Graph, vals []*ir.Value) *ir.Op { // an additive or multiplicative mask
			v := Pick(r, vals)
			if r.IntN(2) == 0 {
				mask := maskConst(r, g, v, ir.F32, math.Inf(-1), 0)
				if mask == nil {
					return nil
				}
				return TryOp(g, "add", []*ir.Value{v, mask}, nil)
			}
			mask := maskConst(r, g, v, ir.F32, 0, 1)
			if mask == nil {
				return nil
			}
			return TryOp(g, "mul", []*ir.Value{mask, v}, nil)
		},
		func(r *rand.Rand, g *ir.Graph, vals []*ir.Value) *ir.Op { // causal attention on v
			v := Pick(r, vals)
			s, ok := v.Type.StaticShape()
			if !ok || len(s) != 2 {
				return nil
			}
			var mask *ir.Value
			keep := ir.Attrs{"axes": ir.IntsAttr(1), "keepdims": ir.IntAttr(1)}
			steps := []func(p []*ir.Value) (string, []*ir.Value, ir.Attrs){}
			if r.IntN(2) == 0 {
				mask = maskConst(r, g, v, ir.Bool, 1, 0)
				ninf := scalarConst(g, math.Inf(-1))
				steps = append(steps, func([]*ir.Value) (string, []*ir.Value, ir.Attrs) {
					return "where", []*ir.Value{mask, ninf, v}, nil
				})
			} else {
				full := TryOp(g, "fill", nil, ir.Attrs{"type": ir.StringAttr(v.Type.String()), "value": ir.FloatAttr(math.Inf(-1))})
				if full == nil {
					return nil
				}
				tri := TryOp(g, "trilu", []*ir.Value{full.Result}, ir.Attrs{"k": ir.IntAttr(int64(r.IntN(3))), "upper": ir.IntAttr(1)})
				if tri == nil {
					return nil
				}
				steps = append(steps, func([]*ir.Value) (string, []*ir.Value, ir.Attrs) {
					return "add", []*ir.Value{v, tri.Result}, nil
				})
			}
			steps = append(steps,
				func(p []*ir.Value) (string, []*ir.Value, ir.Attrs) { return "reduce_max", []*ir.Value{p[0]}, keep },
				func(p []*ir.Value) (string, []*ir.Value, ir.Attrs) { return "sub", []*ir.Value{p[0], p[1]}, nil },
				func(p []*ir.Value) (string, []*ir.Value, ir.Attrs) { return "exp", []*ir.Value{p[2]}, nil },
				func(p []*ir.Value) (string, []*ir.Value, ir.Attrs) { return "reduce_sum", []*ir.Value{p[3]}, keep },
				func(p []*ir.Value) (string, []*ir.Value, ir.Attrs) { return "div", []*ir.Value{p[3], p[4]}, nil })
			last := chain(g, steps...)
			if last == nil || r.IntN(2) == 0 {
				return last
			}
			for _, w := range vals { // P·V when some value has a fitting shape
				if w.Type.Rank() == 2 && w.Type.Shape[0].Equal(v.Type.Shape[1]) {
					if op := TryOp(g, "matmul", []*ir.Value{last.Result, w}, nil); op != nil {
						return op
					}
				}
			}
			return last
		},
		func(r *rand.Rand, g *ir.Graph, vals []*ir.Value) *ir.Op { // a mask from positions: where(cmp(row, col), fill, v)
			v := Pick(r, vals)
			s, ok := v.Type.StaticShape()
			if !ok || len(s) != 2 {
				return nil
			}
			rows := TryOp(g, "range", nil, ir.Attrs{"limit": ir.StringAttr(fmt.Sprint(s[0])), "start": ir.StringAttr(fmt.Sprint(r.IntN(3)))})
			cols := TryOp(g, "range", nil, ir.Attrs{"limit": ir.StringAttr(fmt.Sprint(s[1]))})
			if rows == nil || cols == nil {
				return nil
			}
			n0 := rows.Result.Type.Shape[0].String()
			row := TryOp(g, "reshape", []*ir.Value{rows.Result}, ir.Attrs{"shape": ir.StringAttr("[" + n0 + ", 1]")})
			col := TryOp(g, "reshape", []*ir.Value{cols.Result}, ir.Attrs{"shape": ir.StringAttr(fmt.Sprintf("[1, %d]", s[1]))})
			if row == nil || col == nil {
				return nil
			}
			cmp := []string{"less", "greater", "less_equal", "greater_equal", "equal"}[r.IntN(5)]
			m := TryOp(g, cmp, []*ir.Value{row.Result, col.Result}, nil)
			if m == nil {
				return nil
			}
			return TryOp(g, "where", []*ir.Value{m.Result, scalarConst(g, []float64{math.Inf(-1), 0}[r.IntN(2)]), v}, nil)
		},
		func(r *rand.Rand, g *ir.Graph, vals []*ir.Value) *ir.Op { // gather with constant indices
			v := Pick(r, vals)
			s, ok := v.Type.StaticShape()
			if !ok || len(s) == 0 {
				return nil
			}
			axis := r.IntN(len(s))
			n := s[axis]
			if n == 0 {
				return nil
			}
			var idx *ir.Tensor
			switch r.IntN(4) {
			case 0: // x[:, -1]
				idx = ir.NewTensor(ir.I64, nil)
				idx.I[0] = -1 - r.Int64N(n)
			case 1: // arange
				idx = ir.NewTensor(ir.I64, []int64{n})
				for i := range idx.I {
					idx.I[i] = int64(i)
				}
			case 2: // x[:, [-1]] and other short lists
				idx = ir.NewTensor(ir.I64, []int64{1 + r.Int64N(3)})
				for i := range idx.I {
					idx.I[i] = r.Int64N(2*n) - n
				}
			default: // a 2-d index tensor
				idx = ir.NewTensor(ir.I64, []int64{2, 1 + r.Int64N(2)})
				for i := range idx.I {
					idx.I[i] = r.Int64N(n)
				}
			}
			ind := g.AddConst("idx", idx)
			return TryOp(g, "gather", []*ir.Value{v, ind}, ir.Attrs{"axis": ir.IntAttr(int64(axis))})
		},
	)
}
