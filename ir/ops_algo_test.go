package ir_test

// This file checks the algorithm ops' declared element maps (ops_algo.go): every result
// element that changes when one operand element changes lies in the element map's image of
// that operand element, on random data (the maps are over-approximations, so the converse is
// not asked).

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
)

func init() {
	// every access of an algorithm op is an over-approximation: TestAlgorithmMapsCoverChanges
	// checks them, TestElementMapsMatchEnumeration skips them
	elementMapCases = append(elementMapCases,
		elementMapCase{name: "argsort", kind: "argsort", operands: []ir.TensorType{ir.StaticType(ir.F32, 2, 5)}},
		elementMapCase{name: "nonzero_positions", kind: "nonzero_positions", operands: []ir.TensorType{ir.StaticType(ir.F32, 7)}},
		elementMapCase{name: "nms", kind: "nms", operands: []ir.TensorType{ir.StaticType(ir.F32, 2, 5, 4),
			ir.StaticType(ir.F32, 2, 3, 5), ir.StaticType(ir.I64, 2, 3, 5)}, attrs: ir.Attrs{"limit": ir.IntAttr(3)}},
	)
}

func TestAlgorithmMapsCoverChanges(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 11))
	for _, tc := range elementMapCases {
		if ir.AlgorithmOf(&ir.Op{Kind: tc.kind}) == nil {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			g := ir.NewGraph("t")
			var ins []*ir.Value
			for i, ty := range tc.operands {
				ins = append(ins, g.AddInput(fmt.Sprintf("x%d", i), ty))
			}
			op, err := g.NewOp(tc.kind, "", ins, tc.attrs)
			require.NoError(t, err)
			g.Outputs = []*ir.Value{op.Result}
			data := map[string]*ir.Tensor{}
			random := func() {
				for i, ty := range tc.operands {
					shape, _ := ty.StaticShape()
					x := ir.NewTensor(ty.Elem, shape)
					for j := range x.F {
						x.F[j] = float64(r.IntN(6)) / 2 // ties, overlapping boxes
					}
					for j := range x.I { // nms's order: a permutation of each row
						n := shape[len(shape)-1]
						x.I[j] = int64(j) % n
						if tc.kind == "roi_align" { // batch indices
							x.I[j] = r.Int64N(2)
						}
					}
					data[fmt.Sprintf("x%d", i)] = x
				}
			}
			covered := map[string]bool{}
			for k := range ins {
				pairs, err := op.ElementMap(g.Params, k).Wrap().Points(nil, 1<<16)
				require.NoError(t, err)
				for _, p := range pairs {
					covered[fmt.Sprint(k, p)] = true
				}
			}
			changes := 0
			for range 20 {
				random()
				base, err := eval.Run(g, data)
				require.NoError(t, err)
				for k, ty := range tc.operands {
					if ty.Elem != ir.F32 {
						continue // the order operand is kept a permutation, batch indices in range
					}
					x := data[fmt.Sprintf("x%d", k)]
					shape, _ := ty.StaticShape()
					for j := range x.F {
						old := x.F[j]
						x.F[j] = old + 1 + float64(r.IntN(3))
						got, err := eval.Run(g, data)
						require.NoError(t, err)
						x.F[j] = old
						for e := range got[0].Len() {
							if got[0].Float(e) != base[0].Float(e) {
								changes++
								p := append(unflatten(int64(e), got[0].Shape), unflatten(int64(j), shape)...)
								require.True(t, covered[fmt.Sprint(k, p)], "operand %d element %v changes result element %v outside the map", k, unflatten(int64(j), shape), unflatten(int64(e), got[0].Shape))
							}
						}
					}
				}
			}
			require.Greater(t, changes, 20, "the perturbations change the result")
		})
	}
}

// unflatten returns the row-major index of element i of shape.
func unflatten(i int64, shape []int64) []int64 {
	out := make([]int64, len(shape))
	for d := len(shape) - 1; d >= 0; d-- {
		out[d] = i % shape[d]
		i /= shape[d]
	}
	return out
}
