// This file adds random builders of the shape-family ops: transpose, reshape, slice, concat,
// pad (every mode), tile, expand, gather with constant indices, resize, 1-D convolutions and
// pools. Their guarded, piecewise and quasi-affine accesses are what the passes must get right.

package randgraph

import (
	"fmt"
	"math/rand/v2"

	"github.com/graphc/graphc/ir"
)

func init() {
	Makers = append(Makers,
		func(r *rand.Rand, g *ir.Graph, vals []*ir.Value) *ir.Op {
			v := Pick(r, vals)
			perm := r.Perm(v.Type.Rank())
			p := make([]int64, len(perm))
			for i, x := range perm {
				p[i] = int64(x)
			}
			return TryOp(g, "transpose", []*ir.Value{v}, ir.Attrs{"perm": ir.IntsAttr(p...)})
		},
		func(r *rand.Rand, g *ir.Graph, vals []*ir.Value) *ir.Op { // reshape to a random factorisation
			v := Pick(r, vals)
			s, ok := v.Type.StaticShape()
			if !ok {
				return nil
			}
			n := ir.NumElements(s)
			var shape []string
			for n > 1 && len(shape) < 2 {
				f := divisor(r, n)
				shape = append(shape, fmt.Sprint(f))
				n /= f
			}
			shape = append(shape, fmt.Sprint(n))
			r.Shuffle(len(shape), func(i, j int) { shape[i], shape[j] = shape[j], shape[i] })
			return TryOp(g, "reshape", []*ir.Value{v}, ir.Attrs{"shape": ir.StringAttr("[" + join(shape) + "]")})
		},
		func(r *rand.Rand, g *ir.Graph, vals []*ir.Value) *ir.Op {
			v := Pick(r, vals)
			if v.Type.Rank() == 0 { // a scalar has no axis to slice
				return nil
			}
			ax := r.IntN(v.Type.Rank())
			step := int64(r.IntN(5) - 2)
			if step == 0 {
				step = 1
			}
			return TryOp(g, "slice", []*ir.Value{v}, ir.Attrs{"axes": ir.IntsAttr(int64(ax)),
				"starts": ir.IntsAttr(int64(r.IntN(9) - 4)), "ends": ir.IntsAttr(int64(r.IntN(11) - 5)), "steps": ir.IntsAttr(step)})
		},
		func(r *rand.Rand, g *ir.Graph, vals []*ir.Value) *ir.Op { // concat of values that agree off the axis
			for range 8 {
				a, b := Pick(r, vals), Pick(r, vals)
				if op := TryOp(g, "concat", []*ir.Value{a, b, a}, ir.Attrs{"axis": ir.IntAttr(int64(r.IntN(3) - 1))}); op != nil {
					return op
				}
			}
			return nil
		},
		func(r *rand.Rand, g *ir.Graph, vals []*ir.Value) *ir.Op {
			v := Pick(r, vals)
			pads := make([]int64, 2*v.Type.Rank())
			for i := range pads {
				pads[i] = int64(r.IntN(4) - 1)
			}
			mode := []string{"constant", "edge", "reflect", "wrap"}[r.IntN(4)]
			return TryOp(g, "pad", []*ir.Value{v}, ir.Attrs{"pads": ir.IntsAttr(pads...), "mode": ir.StringAttr(mode), "value": ir.FloatAttr(0.5)})
		},
		func(r *rand.Rand, g *ir.Graph, vals []*ir.Value) *ir.Op {
			v := Pick(r, vals)
			reps := make([]int64, v.Type.Rank())
			for i := range reps {
				reps[i] = int64(1 + r.IntN(3))
			}
			return TryOp(g, "tile", []*ir.Value{v}, ir.Attrs{"repeats": ir.IntsAttr(reps...)})
		},
		func(r *rand.Rand, g *ir.Graph, vals []*ir.Value) *ir.Op {
			v := Pick(r, vals)
			return TryOp(g, "expand", []*ir.Value{v}, ir.Attrs{"shape": ir.StringAttr(fmt.Sprintf("[%d, 1]", 1+r.IntN(3)))})
		},
		func(r *rand.Rand, g *ir.Graph, vals []*ir.Value) *ir.Op { // gather with constant indices
			v := Pick(r, vals)
			if v.Type.Rank() == 0 {
				return nil
			}
			ax := r.IntN(v.Type.Rank())
			n, _ := v.Type.Dim(ax)
			if n == 0 {
				return nil
			}
			idx := ir.NewTensor(ir.I64, []int64{int64(1 + r.IntN(3))})
			for i := range idx.I {
				idx.I[i] = r.Int64N(2*n) - n
			}
			c := g.AddConst("idx", idx)
			return TryOp(g, "gather", []*ir.Value{v, c}, ir.Attrs{"axis": ir.IntAttr(int64(ax))})
		},
		func(r *rand.Rand, g *ir.Graph, vals []*ir.Value) *ir.Op { // resize the last dim
			v := Pick(r, vals)
			s, ok := v.Type.StaticShape()
			if !ok || len(s) == 0 || s[len(s)-1] == 0 {
				return nil
			}
			out := append([]int64(nil), s...)
			out[len(out)-1] = int64(1 + r.IntN(6))
			scales := make([]float64, len(s))
			for i := range scales {
				scales[i] = float64(out[i]) / float64(s[i])
			}
			mode := []string{"nearest", "linear", "cubic"}[r.IntN(3)]
			ctm := []string{"half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel"}[r.IntN(4)]
			return TryOp(g, "resize", []*ir.Value{v}, ir.Attrs{"shape": ir.StringAttr(shapeAttr(out)), "scales": ir.FloatsAttr(scales...),
				"mode": ir.StringAttr(mode), "coordinate_transformation_mode": ir.StringAttr(ctm)})
		},
		func(r *rand.Rand, g *ir.Graph, vals []*ir.Value) *ir.Op { // 1-D conv over [N, C, W]
			v := Pick(r, vals)
			s, ok := v.Type.StaticShape()
			if !ok || len(s) != 3 {
				return nil
			}
			k := int64(1 + r.IntN(3))
			w := ir.NewTensor(ir.F32, []int64{int64(1 + r.IntN(3)), s[1], k})
			for i := range w.F {
				w.F[i] = ir.RoundFloat(ir.F32, r.Float64()*2-1)
			}
			wc := g.AddConst("w", w)
			attrs := ir.Attrs{"pads": ir.IntsAttr(int64(r.IntN(3)), int64(r.IntN(3))), "strides": ir.IntsAttr(int64(1 + r.IntN(2))),
				"dilations": ir.IntsAttr(int64(1 + r.IntN(2)))}
			kind := "conv"
			if r.IntN(3) == 0 {
				kind = "conv_transpose"
				w.Shape = []int64{s[1], w.Shape[0], k}
				wc.Type = ir.StaticType(ir.F32, w.Shape...)
			}
			return TryOp(g, kind, []*ir.Value{v, wc}, attrs)
		},
		func(r *rand.Rand, g *ir.Graph, vals []*ir.Value) *ir.Op { // 1-D pools over [N, C, W]
			v := Pick(r, vals)
			if v.Type.Rank() != 3 {
				return nil
			}
			kind := []string{"max_pool", "avg_pool", "global_avg_pool", "global_max_pool"}[r.IntN(4)]
			var attrs ir.Attrs
			if kind == "max_pool" || kind == "avg_pool" {
				attrs = ir.Attrs{"kernel": ir.IntsAttr(int64(1 + r.IntN(3))), "pads": ir.IntsAttr(int64(r.IntN(2)), int64(r.IntN(2))),
					"strides": ir.IntsAttr(int64(1 + r.IntN(2))), "ceil_mode": ir.IntAttr(int64(r.IntN(2)))}
				if kind == "avg_pool" {
					attrs["count_include_pad"] = ir.IntAttr(int64(r.IntN(2)))
				}
			}
			return TryOp(g, kind, []*ir.Value{v}, attrs)
		},
	)
}

// divisor returns a random divisor of n > 1.
func divisor(r *rand.Rand, n int64) int64 {
	var ds []int64
	for d := int64(1); d <= n; d++ {
		if n%d == 0 {
			ds = append(ds, d)
		}
	}
	return ds[r.IntN(len(ds))]
}

func join(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}

func shapeAttr(s []int64) string {
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = fmt.Sprint(d)
	}
	return "[" + join(parts) + "]"
}
