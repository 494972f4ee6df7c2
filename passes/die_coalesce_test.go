package passes_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
	"github.com/graphc/graphc/passes"
	"github.com/graphc/graphc/volume"
	"github.com/stretchr/testify/require"
)

// TestDIECoalesceCases runs DIE on the graphs whose required volumes are unions of many pieces
// (dieCoalesceCases; DIE took 0.6 s and 3.8 s on them before coalescing used sample points and a
// work budget) and checks on random inputs that the required elements keep their values.
func TestDIECoalesceCases(t *testing.T) {
	ps, err := passes.ParsePipeline("die,dce")
	require.NoError(t, err)
	for _, c := range dieCoalesceCases {
		t.Run(c.name, func(t *testing.T) {
			orig, err := ir.Parse(c.graph)
			require.NoError(t, err)
			opt, err := ir.Parse(c.graph)
			require.NoError(t, err)
			rq, err := passes.ParseRequirement(opt, c.require)
			require.NoError(t, err)
			_, err = passes.Run(context.Background(), opt, ps, &passes.Options{VerifyEach: true, Require: []passes.Requirement{rq}})
			require.NoError(t, err)
			r := rand.New(rand.NewPCG(1, 2))
			inputs := map[string]*ir.Tensor{}
			for _, in := range orig.Inputs {
				s, _ := in.Type.StaticShape()
				tt := ir.NewTensor(in.Type.Elem, s)
				for i := range tt.F {
					tt.F[i] = ir.RoundFloat(in.Type.Elem, r.Float64()*4-2)
				}
				inputs[in.Name] = tt
			}
			want, err := eval.Run(orig, inputs)
			require.NoError(t, err)
			got, err := eval.Run(opt, inputs)
			require.NoError(t, err)
			o := orig.Outputs[0]
			region := rq.Set.Intersect(volume.Box(nil, "", nil, o.Type.Shape))
			pts, err := region.Points(nil, 0)
			require.NoError(t, err)
			require.NotEmpty(t, pts)
			shape, _ := o.Type.StaticShape()
			for _, p := range pts {
				off := int64(0)
				for d, x := range p {
					off = off*shape[d] + x
				}
				require.True(t, sameBits(got[0].F[off], want[0].F[off]), "element %v: optimized %v, original %v", p, got[0].F[off], want[0].F[off])
			}
		})
	}
}
