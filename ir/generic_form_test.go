package ir_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// TestToGenericPreservesElementMaps converts every element-map case to a generic op and checks
// that the generic op has the same element maps and round-trips.
func TestToGenericPreservesElementMaps(t *testing.T) {
	for _, tc := range elementMapCases {
		t.Run(tc.name, func(t *testing.T) {
			g := ir.NewGraph("t")
			var ops []*ir.Value
			for i, ty := range tc.operands {
				if c, ok := tc.consts[i]; ok {
					ops = append(ops, g.AddConst(fmt.Sprintf("c%d", i), c))
				} else {
					ops = append(ops, g.AddInput(fmt.Sprintf("x%d", i), ty))
				}
			}
			op, err := ir.MakeOp(g.Params, tc.kind, "", ops, tc.attrs)
			require.NoError(t, err)
			gen, err := ir.ToGeneric(g.Params, op)
			if err != nil {
				t.Skip(err)
			}
			for k := range op.Operands {
				if op.Access[k].Approx {
					continue
				}
				require.True(t, op.ElementMap(g.Params, k).IsEqual(gen.ElementMap(g.Params, k)) == volume.Yes, "operand %d", k)
			}
			g.Append(gen, "r")
			g.Outputs = []*ir.Value{gen.Result}
			roundTrip(t, g)
		})
	}
}
