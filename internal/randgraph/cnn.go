// This file builds random convolutional networks (rank-4 activations, every conv idiom of
// real models) for the tests of the channels-last pass and of the compiled convolution kernels.

package randgraph

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/graphc/graphc/ir"
)

// CNN returns a small random convolutional network: convolutions of random kernel,
// stride, padding, dilation and groups (depthwise included), with and without bias, relu and
// sigmoid, SiLU, HardSwish, max and average pools with padding, residual adds, squeeze-excitation scales,
// concatenations along channels, channel shuffles, and a global pool with a Gemm-like head (transposed weights). Some intermediate values
// are graph outputs, whose layout the pass must keep. Weights are finite except, sometimes, one
// infinite element (the padded copy must then not be used).
func CNN(r *rand.Rand) *ir.Graph {
	g := ir.NewGraph("cnn")
	c, h, w := int64(1+r.IntN(6)), int64(5+r.IntN(8)), int64(5+r.IntN(8))
	x := g.AddInput("x", ir.StaticType(ir.F32, 1, c, h, w))
	cnst := func(name string, shape ...int64) *ir.Value {
		t := ir.NewTensor(ir.F32, shape)
		for i := range t.F {
			t.F[i] = ir.RoundFloat(ir.F32, r.Float64()*2-1)
		}
		if r.IntN(25) == 0 {
			t.F[r.IntN(len(t.F))] = math.Inf(1)
		}
		return g.AddConst(name, t)
	}
	op := func(kind string, in []*ir.Value, attrs ir.Attrs) *ir.Value {
		o, err := g.NewOp(kind, kind, in, attrs)
		if err != nil {
			panic(fmt.Sprintf("%s: %v", kind, err))
		}
		return o.Result
	}
	shape := func(v *ir.Value) []int64 { s, _ := v.Type.StaticShape(); return s }
	cur := x
	var outs []*ir.Value
	steps := 2 + r.IntN(5)
	for s := 0; s < steps; s++ {
		sh := shape(cur)
		c, h, w := sh[1], sh[2], sh[3]
		switch r.IntN(8) {
		case 0, 1, 2: // convolution
			k := int64(1 + r.IntN(3))
			if r.IntN(4) == 0 {
				k = 5
			}
			stride, dil := int64(1+r.IntN(2)), int64(1)
			if r.IntN(4) == 0 {
				dil = 2
			}
			pad := int64(r.IntN(int(k)))
			if r.IntN(5) == 0 {
				// DeepLab's atrous convolutions: dilation as large as the image, padding
				// keeping the size, so that most taps read only padding
				k, stride, dil = 3, 1, int64(2+r.IntN(12))
				pad = dil
			}
			if dil*(k-1)+1 > h+2*pad || dil*(k-1)+1 > w+2*pad {
				continue
			}
			group := int64(1)
			m := int64(1 + r.IntN(8))
			switch r.IntN(4) {
			case 0:
				group, m = c, c
			case 1:
				if c%2 == 0 {
					group, m = 2, 2*int64(1+r.IntN(3))
				}
			}
			ops := []*ir.Value{cur, cnst("w", m, c/group, k, k)}
			if r.IntN(2) == 0 {
				ops = append(ops, cnst("b", m))
			}
			cur = op("conv", ops, ir.Attrs{"strides": ir.IntsAttr(stride, stride), "dilations": ir.IntsAttr(dil, dil),
				"pads": ir.IntsAttr(pad, pad, pad, pad), "group": ir.IntAttr(group)})
		case 3:
			switch kind := []string{"relu", "sigmoid", "silu", "hard_swish"}[r.IntN(4)]; kind {
			case "silu": // x·sigmoid(x): after fuse, one op reading x twice
				cur = op("mul", []*ir.Value{cur, op("sigmoid", []*ir.Value{cur}, nil)}, nil)
			default:
				cur = op(kind, []*ir.Value{cur}, nil)
			}
		case 4: // pool
			if h < 3 || w < 3 {
				continue
			}
			kind := []string{"max_pool", "avg_pool"}[r.IntN(2)]
			p := int64(r.IntN(2))
			cur = op(kind, []*ir.Value{cur}, ir.Attrs{"kernel": ir.IntsAttr(3, 3), "strides": ir.IntsAttr(2, 2), "pads": ir.IntsAttr(p, p, p, p)})
		case 5: // residual or squeeze-excitation
			if r.IntN(2) == 0 {
				cur = op("add", []*ir.Value{cur, op("relu", []*ir.Value{cur}, nil)}, nil)
			} else {
				se := op("global_avg_pool", []*ir.Value{cur}, nil)
				se = op("sigmoid", []*ir.Value{se}, nil)
				cur = op("mul", []*ir.Value{cur, se}, nil)
			}
		case 7: // ShuffleNet's channel shuffle, then a depthwise or a 1x1 convolution
			if c%2 != 0 || c < 4 {
				continue
			}
			v := op("reshape", []*ir.Value{cur}, ir.Attrs{"shape": ir.StringAttr(fmt.Sprintf("[1, 2, %d, %d, %d]", c/2, h, w))})
			v = op("transpose", []*ir.Value{v}, ir.Attrs{"perm": ir.IntsAttr(0, 2, 1, 3, 4)})
			cur = op("reshape", []*ir.Value{v}, ir.Attrs{"shape": ir.StringAttr(fmt.Sprintf("[1, %d, %d, %d]", c, h, w))})
			if r.IntN(2) == 0 {
				cur = op("conv", []*ir.Value{cur, cnst("w", c, 1, 3, 3)}, ir.Attrs{"strides": ir.IntsAttr(2, 2),
					"pads": ir.IntsAttr(1, 1, 1, 1), "group": ir.IntAttr(c)})
			} else {
				m := int64(1 + r.IntN(8))
				cur = op("conv", []*ir.Value{cur, cnst("w", m, c, 1, 1), cnst("b", m)}, nil)
			}
		case 6: // concatenation along channels
			other := op("conv", []*ir.Value{cur, cnst("w", 2, c, 1, 1)}, nil)
			cur = op("concat", []*ir.Value{cur, other}, ir.Attrs{"axis": ir.IntAttr(1)})
		}
		if r.IntN(5) == 0 {
			outs = append(outs, cur)
		}
	}
	sh := shape(cur)
	pooled := op("global_avg_pool", []*ir.Value{cur}, nil)
	flat := op("reshape", []*ir.Value{pooled}, ir.Attrs{"shape": ir.StringAttr(fmt.Sprintf("[1, %d]", sh[1]))})
	head := op("einsum", []*ir.Value{flat, cnst("fc", 3, sh[1])}, ir.Attrs{"equation": ir.StringAttr("nk,jk->nj")})
	head = op("add", []*ir.Value{head, cnst("fcb", 3)}, nil)
	g.Outputs = append(outs, head)
	if r.IntN(3) == 0 {
		g.Outputs = append(g.Outputs, cur)
	}
	return g
}
