package ir_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// TestApproxAccessesOverApproximate checks the data-dependent accesses: for random index data,
// every (result element, data element) pair the op really uses lies in its over-approximated
// element map, and the approximation is no coarser than "any element along the axis"; with
// a constant index tensor the map is exact: the pairs it uses and nothing else.
func TestApproxAccessesOverApproximate(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	type tc struct {
		kind  string
		data  []int64
		index []int64
		axis  int64
		// real returns the data index read for result index r given the index tensor value v
		real func(r []int64, v int64) []int64
	}
	cases := []tc{
		{"gather", []int64{4, 3}, []int64{2, 2}, 1, func(r []int64, v int64) []int64 { return []int64{r[0], v} }},
		{"gather", []int64{5, 2}, []int64{3}, 0, func(r []int64, v int64) []int64 { return []int64{v, r[1]} }},
		{"gather", []int64{2, 3, 2}, []int64{}, 1, func(r []int64, v int64) []int64 { return []int64{r[0], v, r[1]} }},
		{"gather_elements", []int64{3, 4}, []int64{3, 2}, 1, func(r []int64, v int64) []int64 { return []int64{r[0], v} }},
	}
	for n, c := range cases {
		for _, constant := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s_%d_const=%v", c.kind, n, constant), func(t *testing.T) {
				g := ir.NewGraph("t")
				data := g.AddInput("data", ir.StaticType(ir.F32, c.data...))
				idx := ir.NewTensor(ir.I64, c.index)
				extent := c.data[c.axis]
				for i := range idx.I {
					idx.I[i] = rng.Int64N(2*extent) - extent // negative indices count from the end
				}
				// a constant index tensor makes the access exact; a run-time one over-approximated
				ind := g.AddInput("idx", ir.StaticType(ir.I64, c.index...))
				if constant {
					ind = g.AddConst("idx", idx)
				}
				op, err := g.NewOp(c.kind, "", []*ir.Value{data, ind}, ir.Attrs{"axis": ir.IntAttr(c.axis)})
				require.NoError(t, err)
				require.Equal(t, !constant, op.Access[0].Approx)
				require.False(t, op.Access[1].Approx, "the index tensor is read exactly")
				em := op.ElementMap(g.Params, 0)
				pairs, err := em.Wrap().Points(nil, 1<<16)
				require.NoError(t, err)
				in := map[string]bool{}
				for _, p := range pairs {
					in[fmt.Sprint(p)] = true
				}
				pts, err := op.Domain.Points(nil, 1<<16)
				require.NoError(t, err)
				shape, _ := op.Result.Type.StaticShape()
				require.Equal(t, int(ir.NumElements(shape)), len(pts))
				for _, x := range pts {
					// the index element this iteration reads, through its exact access
					var at []int64
					for _, a := range op.Access[1].Pieces[0].Index {
						v, err := a.Eval(x, func(string) (int64, bool) { return 0, false })
						require.NoError(t, err)
						at = append(at, v)
					}
					off := int64(0)
					for d, v := range at {
						off = off*c.index[d] + v
					}
					v := idx.I[off]
					if v < 0 {
						v += extent
					}
					pair := append(append([]int64(nil), x...), c.real(x, v)...)
					require.True(t, in[fmt.Sprint(pair)], "real dependence %v is outside the approximation %s", pair, em)
				}
				// the approximation: every element along the axis, nothing else; the exact map:
				// one element per result element
				want := len(pts) * int(extent)
				if constant {
					want = len(pts)
				}
				require.Equal(t, want, len(pairs))
			})
		}
	}
}

// TestTriluRuntimeKApprox: with k known only at run time, trilu's access to x is the identity,
// marked as an over-approximation (it reads only the kept triangle).
func TestTriluRuntimeKApprox(t *testing.T) {
	g := ir.NewGraph("t")
	x := g.AddInput("x", ir.StaticType(ir.F32, 3, 4))
	k := g.AddInput("k", ir.StaticType(ir.I64))
	op, err := g.NewOp("trilu", "", []*ir.Value{x, k}, nil)
	require.NoError(t, err)
	require.True(t, op.Access[0].Approx)
	em := op.ElementMap(g.Params, 0)
	require.True(t, em.IsEqual(volume.MustParseMap("{ [i, j] -> [i, j] : 0 <= i < 3 and 0 <= j < 4 }")) == volume.Yes, "%s", em)
}

// TestWhereConstantMaskExact: a where whose condition is a constant mask with a known
// structure reads x only where the mask holds and y only where it does not; the element maps
// are exactly those, and the evaluator gives the same values as with a run-time mask.
func TestWhereConstantMaskExact(t *testing.T) {
	const causal = `graph @g(%x: f32[], %y: f32[4, 4]) {
  %m = constant dense<[0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0]> : i1[4, 4]
  %w = where(%m, %x, %y) : f32[4, 4]
  return %w
}`
	g, err := ir.Parse(causal)
	require.NoError(t, err)
	op := g.Ops[0]
	em := op.ElementMap(g.Params, 2)
	require.True(t, em.IsEqual(volume.MustParseMap("{ [i, j] -> [i, j] : 0 <= j <= i < 4 }")) == volume.Yes, "%s", em)
	em = op.ElementMap(g.Params, 1)
	require.True(t, em.IsEqual(volume.MustParseMap("{ [i, j] -> [] : 0 <= i < j < 4 }")) == volume.Yes, "%s", em)
	// a mask without structure keeps the plain select
	g2, err := ir.Parse(`graph @g(%x: f32[], %y: f32[3, 3]) {
  %m = constant dense<[1, 0, 1, 0, 1, 0, 1, 0, 0]> : i1[3, 3]
  %w = where(%m, %x, %y) : f32[3, 3]
  return %w
}`)
	require.NoError(t, err)
	require.Equal(t, "select(in0, in1, in2)", g2.Ops[0].Body.String())
}
