package ir_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
	"github.com/graphc/graphc/volume"
)

// convTCase is one transposed convolution: spatial extents, kernel, strides, dilations, pads
// (begins then ends), output padding, channels and groups.
type convTCase struct {
	in, k, s, d, pads, opad []int64
	c, m, group             int64
	bias                    bool
}

// TestConvTransposePhases: the phase convolutions and their interleave compute what
// conv_transpose computes (the reference evaluator on random inputs), over 1-D and 2-D
// shapes with strides, dilations, pads (negative phase pads among them), output padding,
// groups and biases; a symbolic length gives the same values as its static counterpart.
func TestConvTransposePhases(t *testing.T) {
	cases := []convTCase{
		{in: []int64{9}, k: []int64{8}, s: []int64{4}, d: []int64{1}, pads: []int64{2, 2}, opad: []int64{0}, c: 3, m: 2, group: 1, bias: true},
		{in: []int64{7}, k: []int64{16}, s: []int64{8}, d: []int64{1}, pads: []int64{4, 4}, opad: []int64{0}, c: 4, m: 1, group: 1},
		{in: []int64{6}, k: []int64{3}, s: []int64{1}, d: []int64{1}, pads: []int64{1, 1}, opad: []int64{0}, c: 2, m: 3, group: 1, bias: true},
		{in: []int64{5}, k: []int64{5}, s: []int64{3}, d: []int64{2}, pads: []int64{1, 3}, opad: []int64{2}, c: 4, m: 4, group: 2, bias: true},
		{in: []int64{6}, k: []int64{4}, s: []int64{2}, d: []int64{1}, pads: []int64{0, 0}, opad: []int64{1}, c: 6, m: 6, group: 6},
		{in: []int64{5, 4}, k: []int64{5, 3}, s: []int64{2, 2}, d: []int64{1, 1}, pads: []int64{2, 1, 2, 1}, opad: []int64{1, 1}, c: 3, m: 2, group: 1, bias: true},
		{in: []int64{4, 3}, k: []int64{4, 4}, s: []int64{2, 3}, d: []int64{1, 1}, pads: []int64{1, 0, 1, 2}, opad: []int64{0, 0}, c: 4, m: 2, group: 2},
	}
	rng := rand.New(rand.NewPCG(32, 7))
	for n, tc := range cases {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			ns := len(tc.in)
			xs := append([]int64{1, tc.c}, tc.in...)
			wsh := append([]int64{tc.c, tc.m / tc.group}, tc.k...)
			attrs := ir.Attrs{"strides": ir.IntsAttr(tc.s...), "dilations": ir.IntsAttr(tc.d...), "pads": ir.IntsAttr(tc.pads...),
				"output_padding": ir.IntsAttr(tc.opad...), "group": ir.IntAttr(tc.group)}
			build := func(phases bool, sym bool) *ir.Graph {
				g := ir.NewGraph("t")
				shape := make([]volume.Aff, len(xs))
				for i, e := range xs {
					shape[i] = volume.AffConst(e)
				}
				if sym {
					g.AddParam("S")
					shape[2] = volume.AffParam("S")
				}
				x := g.AddInput("x", ir.TensorType{Elem: ir.F32, Shape: shape})
				w := g.AddInput("w", ir.StaticType(ir.F32, wsh...))
				ops := []*ir.Value{x, w}
				if tc.bias {
					ops = append(ops, g.AddInput("b", ir.StaticType(ir.F32, tc.m)))
				}
				var y *ir.Value
				if phases {
					v, err := ir.ConvTransposePhases(g, "y", "ct", ops, attrs)
					require.NoError(t, err)
					require.NotNil(t, v, "the case decomposes")
					y = v
				} else {
					op, err := g.NewOp("conv_transpose", "ct", ops, attrs)
					require.NoError(t, err)
					y = op.Result
				}
				g.Outputs = []*ir.Value{y}
				require.NoError(t, ir.Verify(g))
				return g
			}
			in := map[string]*ir.Tensor{"x": randT(rng, xs), "w": randT(rng, wsh)}
			if tc.bias {
				in["b"] = randT(rng, []int64{tc.m})
			}
			want, err := eval.Run(build(false, false), in)
			require.NoError(t, err)
			got, err := eval.Run(build(true, false), in)
			require.NoError(t, err)
			require.Equal(t, want[0].Shape, got[0].Shape)
			for i := range want[0].F {
				require.InDelta(t, want[0].F[i], got[0].F[i], 1e-5*math.Max(1, math.Abs(want[0].F[i])), "element %d", i)
			}
			if ns == 1 {
				sym, err := eval.Run(build(true, true), in, eval.WithParams(map[string]int64{"S": tc.in[0]}))
				require.NoError(t, err)
				require.Equal(t, got[0].F, sym[0].F, "a symbolic length computes the same phases")
			}
		})
	}
}

// TestConvTransposePhasesFallBack: a kernel shorter than the stride leaves a phase without
// taps: the decomposition declines and leaves the graph alone.
func TestConvTransposePhasesFallBack(t *testing.T) {
	g := ir.NewGraph("t")
	x := g.AddInput("x", ir.StaticType(ir.F32, 1, 2, 5))
	w := g.AddInput("w", ir.StaticType(ir.F32, 2, 2, 2))
	v, err := ir.ConvTransposePhases(g, "y", "ct", []*ir.Value{x, w}, ir.Attrs{"strides": ir.IntsAttr(3)})
	require.NoError(t, err)
	require.Nil(t, v)
	require.Empty(t, g.Ops)
}

func randT(r *rand.Rand, shape []int64) *ir.Tensor {
	t := ir.NewTensor(ir.F32, shape)
	for i := range t.F {
		t.F[i] = float64(float32(r.Float64()*2 - 1))
	}
	return t
}
