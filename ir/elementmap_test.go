package ir_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// elementMapCase is an op instance whose symbolic element maps are checked against the
// dependence relation enumerated point by point. Families add cases in their own test files
// (elementmap_<family>_test.go) by appending to elementMapCases in an init function.
type elementMapCase struct {
	name     string
	kind     string
	operands []ir.TensorType
	attrs    ir.Attrs
	consts   map[int]*ir.Tensor // operands that must be constants (by index)
}

var elementMapCases = []elementMapCase{
	{name: "matmul", kind: "matmul", operands: []ir.TensorType{ir.StaticType(ir.F32, 3, 4), ir.StaticType(ir.F32, 4, 2)}},
	{name: "matmul_batch_bcast", kind: "matmul", operands: []ir.TensorType{ir.StaticType(ir.F32, 2, 1, 3, 4), ir.StaticType(ir.F32, 3, 4, 2)}},
	{name: "matmul_vec", kind: "matmul", operands: []ir.TensorType{ir.StaticType(ir.F32, 4), ir.StaticType(ir.F32, 4, 2)}},
	{name: "trilu_upper", kind: "trilu", operands: []ir.TensorType{ir.StaticType(ir.F32, 4, 5)}, attrs: ir.Attrs{"upper": ir.IntAttr(1), "k": ir.IntAttr(1)}},
	{name: "trilu_lower", kind: "trilu", operands: []ir.TensorType{ir.StaticType(ir.F32, 2, 4, 3)}, attrs: ir.Attrs{"upper": ir.IntAttr(0), "k": ir.IntAttr(-1)}},
	{name: "add_bcast", kind: "add", operands: []ir.TensorType{ir.StaticType(ir.F32, 3, 1), ir.StaticType(ir.F32, 4)}},
	{name: "relu", kind: "relu", operands: []ir.TensorType{ir.StaticType(ir.F32, 2, 3)}},
}

// bruteForce enumerates { (Out(x), Access_k(x)) : x ∈ Domain, guard of the piece holds }.
func bruteForce(t *testing.T, op *ir.Op, k int) [][]int64 {
	t.Helper()
	pts, err := op.Domain.Points(nil, 1<<20)
	require.NoError(t, err)
	var pairs [][]int64
	seen := map[string]bool{}
	eval := func(a volume.Aff, x []int64) int64 {
		v, err := a.Eval(x, func(string) (int64, bool) { return 0, false })
		require.NoError(t, err)
		return v
	}
	for _, x := range pts {
		var out []int64
		for _, a := range op.Out.Pieces[0].Index {
			out = append(out, eval(a, x))
		}
		if op.Access[k].Approx {
			t.Fatalf("approximate access: check it with a dedicated test")
		}
		for _, p := range op.Access[k].Pieces {
			ok := true
			for _, c := range p.Guard {
				v := eval(c.Aff, x)
				if c.Eq && v != 0 || !c.Eq && v < 0 {
					ok = false
				}
			}
			if !ok {
				continue
			}
			pair := slices.Clone(out)
			for _, a := range p.Index {
				pair = append(pair, eval(a, x))
			}
			if key := fmt.Sprint(pair); !seen[key] {
				seen[key] = true
				pairs = append(pairs, pair)
			}
			break // the first piece whose guard holds is the one read
		}
	}
	slices.SortFunc(pairs, slices.Compare[[]int64])
	return pairs
}

func TestElementMapsMatchEnumeration(t *testing.T) {
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
			op, err := g.NewOp(tc.kind, "", ops, tc.attrs)
			require.NoError(t, err)
			for k := range op.Operands {
				if op.Access[k].Approx {
					continue
				}
				em := op.ElementMap(g.Params, k)
				got, err := em.Wrap().Points(nil, 1<<20)
				require.NoError(t, err)
				want := bruteForce(t, op, k)
				require.Equal(t, want, got, "operand %d: element map %s", k, em)
			}
		})
	}
}

func init() {
	elementMapCases = append(elementMapCases,
		elementMapCase{name: "diag_part", kind: "diag_part", operands: []ir.TensorType{ir.StaticType(ir.F32, 2, 3, 4)}},
		elementMapCase{name: "fill", kind: "fill", attrs: ir.Attrs{"type": ir.StringAttr("f32[2, 3]"), "value": ir.FloatAttr(1.5)}},
	)
}

func init() {
	elementMapCases = append(elementMapCases,
		elementMapCase{name: "band_part", kind: "band_part", operands: []ir.TensorType{ir.StaticType(ir.F32, 5, 6)}, attrs: ir.Attrs{"lower": ir.IntAttr(1), "upper": ir.IntAttr(2)}},
		elementMapCase{name: "band_part_upper", kind: "band_part", operands: []ir.TensorType{ir.StaticType(ir.F32, 2, 4, 4)}, attrs: ir.Attrs{"lower": ir.IntAttr(0)}},
	)
}
