package lower

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestKernelFamiliesEndWithNest: the table's names are distinct, every row documents itself,
// and the last row is the nest, which applies to every op (so every op gets a kernel).
func TestKernelFamiliesEndWithNest(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range kernelFamilies {
		require.False(t, seen[f.name], "family %s twice", f.name)
		seen[f.name] = true
		require.NotEmpty(t, f.doc, f.name)
		require.NotNil(t, f.plan, f.name)
	}
	last := kernelFamilies[len(kernelFamilies)-1]
	require.Equal(t, "nest", last.name)
	var order []string
	for _, f := range kernelFamilies {
		order = append(order, f.name)
	}
	require.Equal(t, []string{"algorithm", "int-dot", "nbits-gemm", "nbits-gemv", "register-tiles", "guard-split", "piece-split", "nest"}, order,
		"the order is the precedence of the families (kernel_choice.go says why each stands where it does)")
}
