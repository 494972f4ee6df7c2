// This file stress-tests integer division and remainder by variables, which Hexagon computes
// with graphc's soft int64 division, against the evaluator.

package lower_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/ir"
)

func divCases(t *testing.T) ([]string, []*e2e.Case) {
	vals := []int64{1, 2, 3, 5, 7, 10, 64, 255, 1000, 1 << 31, 1<<31 - 1, 1 << 40, 3 << 50, math.MaxInt64, math.MinInt64}
	var all []int64
	for _, v := range vals {
		all = append(all, v, -v, v+1, v-1)
	}
	all = append(all, 0)
	n := int64(len(all))
	var names []string
	var cases []*e2e.Case
	for _, ty := range []ir.DType{ir.I64, ir.I32, ir.I8, ir.U8} {
		for _, op := range []string{"div", "rem"} {
			g, err := genericGraph(genericSpec{
				inputs: []ir.TensorType{ir.StaticType(ty, n, n), ir.StaticType(ty, n, n)},
				domain: "{ [i, j] : 0 <= i < " + itoa(n) + " and 0 <= j < " + itoa(n) + " }",
				access: []string{"{ [i, j] -> [i, j] }", "{ [i, j] -> [i, j] }"},
				out:    "{ [i, j] -> [i, j] }",
				// the divisor is never 0: 0 maps to 1
				body: op + "(in0, select(eq(in1, 0:" + ty.String() + "), 1:" + ty.String() + ", in1))",
				typ:  ir.StaticType(ty, n, n).String(),
			})
			require.NoError(t, err)
			a, b := ir.NewTensor(ty, []int64{n, n}), ir.NewTensor(ty, []int64{n, n})
			for i := int64(0); i < n; i++ {
				for j := int64(0); j < n; j++ {
					a.I[i*n+j] = ty.WrapInt(all[i])
					b.I[i*n+j] = ty.WrapInt(all[j])
				}
			}
			names = append(names, op+"/"+ty.String())
			cases = append(cases, &e2e.Case{Graph: g, Inputs: []*ir.Tensor{a, b}})
		}
	}
	return names, cases
}

func TestIntDivision(t *testing.T) {
	names, cases := divCases(t)
	runCases(t, e2e.Host(), names, cases)
	runCases(t, e2e.HexagonScalar(), names, cases)
}
