package e2e_test

import (
	"testing"

	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/passes"
)

// TestRandomGraphsAArch64 runs the random-graph check as AArch64 code under qemu-aarch64, for
// the baseline CPU and for cortex-x2 (dotprod, i8mm), on every graph.
func TestRandomGraphsAArch64(t *testing.T) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	if why := e2e.AArch64Missing(); why != "" {
		t.Skip("AArch64 under qemu: " + why)
	}
	for _, cpu := range []string{"generic", "cortex-x2"} {
		t.Run(cpu, func(t *testing.T) {
			checkCompiled(t, e2e.AArch64(cpu), passes.DefaultPipeline, *compiledGraphs)
		})
	}
}
