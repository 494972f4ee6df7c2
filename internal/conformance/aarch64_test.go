package conformance

import (
	"testing"

	"github.com/graphc/graphc/internal/e2e"
)

// TestConformanceCompiledAArch64 runs the node tests as AArch64 code under qemu-aarch64: a
// sampled eighth each for the baseline CPU (NEON) and for cortex-x2 (dotprod, i8mm) unless
// -conformance-full (`go run ./cmd/graphc-conformance -mode=aarch64 -mcpu=CPU` runs them all).
func TestConformanceCompiledAArch64(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs node tests under qemu-aarch64")
	}
	if why := e2e.AArch64Missing(); why != "" {
		t.Skip("AArch64 under qemu: " + why)
	}
	every := 8
	if *conformanceFull {
		every = 1
	}
	for _, cpu := range []string{"generic", "cortex-x2"} {
		t.Run(cpu, func(t *testing.T) { runCompiled(t, CompiledOptions{Machine: e2e.AArch64(cpu), Every: every}) })
	}
}
