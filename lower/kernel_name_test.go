package lower_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/lower"
)

// TestKernelNamesCarryNodeNames checks that kernel symbols end with the source node's name
// (sanitized), so that a profile or a disassembly points back to the model.
func TestKernelNamesCarryNodeNames(t *testing.T) {
	g := optimized(t, mlpText(2, 16))
	names := map[string]bool{}
	for i, op := range g.Ops {
		op.Name = []string{"/layer1/fc/MatMul", "/layer1/Relu", "/layer2/fc/MatMul", "/layer2/Relu", "/Add", "/x"}[i%6]
		names[op.Name] = true
	}
	mod, err := lower.Lower(context.Background(), g, lower.Config{})
	require.NoError(t, err)
	calls := entryCalls(t, mod.String(), "main_graph")
	require.NotEmpty(t, calls)
	for _, c := range calls {
		found := false
		for n := range names {
			if strings.HasSuffix(c, "."+strings.ReplaceAll(strings.TrimPrefix(n, "/"), "/", "_")) {
				found = true
			}
		}
		require.True(t, found, "kernel %s does not name its node", c)
	}
}
