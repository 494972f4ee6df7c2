// This file runs the kernel of testdata/lowering/batchnorm_constants.graph against the
// evaluator.

package lower_test

import "testing"

// TestBatchNormConstants: a BatchNorm with trained statistics over concatenated features,
// then a ReLU, compiled through the default pipeline (its square root folded into a
// per-channel constant: batchnorm_constants.graph checks the kernel), gives the evaluator's
// values on random inputs, with 256-bit and 512-bit vectors.
func TestBatchNormConstants(t *testing.T) {
	runFileAtWidths(t, "batchnorm_constants.graph", 3)
}
