package ir_test

import (
	"testing"

	"github.com/graphc/graphc/ir"
)

func init() {
	elementMapCases = append(elementMapCases,
		// the data operand's access is data-dependent (checked by TestApproxAccessesOverApproximate);
		// the index operand's is exact and checked here
		elementMapCase{name: "gather_elements", kind: "gather_elements",
			operands: []ir.TensorType{ir.StaticType(ir.F32, 3, 4), ir.StaticType(ir.I64, 3, 2)},
			attrs:    ir.Attrs{"axis": ir.IntAttr(1)}},
		elementMapCase{name: "generic_roberts", kind: "generic",
			operands: []ir.TensorType{ir.StaticType(ir.F32, 6, 7), ir.StaticType(ir.F32, 6, 7)},
			attrs: ir.Attrs{
				"access": ir.StringsAttr("{ [i, j] -> [i + 1, j + 2] }", "{ [i, j] -> [i + 2, j + 1] }"),
				"body":   ir.StringAttr("abs(sub(in0, in1))"),
				"domain": ir.StringAttr("{ [i, j] : 0 <= i < 3 and 0 <= j < 4 }"),
				"out":    ir.StringAttr("{ [i, j] -> [i + 1, j + 2] }"),
				"type":   ir.StringAttr("f32[6, 7]"),
			}},
	)
}

// TestEveryOpHasAnElementMapCase keeps TestElementMapsMatchEnumeration complete: a new catalogue
// op must come with a case whose element maps are checked against enumeration.
func TestEveryOpHasAnElementMapCase(t *testing.T) {
	have := map[string]bool{}
	for _, c := range elementMapCases {
		have[c.kind] = true
	}
	for _, d := range ir.Ops() {
		if !have[d.Name] {
			t.Errorf("op %q has no elementMapCases entry (add one in elementmap_<family>_test.go)", d.Name)
		}
	}
}
