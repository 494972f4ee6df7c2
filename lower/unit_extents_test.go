// This file runs the kernels of testdata/lowering/unit_extents.graph against the evaluator.

package lower_test

import "testing"

// TestUnitExtents: accesses whose trailing extents are 1 (a [C, 1, 1] per-channel constant
// read at [c, 0, 0], a [C, 1, 1] result, a [1, H, W, 1] row statistic) run on vectors along
// their last index that counts (unit_extents.graph checks the strategies), and a [C, 1, 1]
// value is not written in place into a copy that pads its unit extents; all give the
// evaluator's values, with 256-bit and 512-bit vectors.
func TestUnitExtents(t *testing.T) {
	runFileAtWidths(t, "unit_extents.graph", 1)
}
