package passes_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/passes"
)

// TestDIECoalesceCases runs DIE on the graphs whose required volumes are unions of many pieces
// (dieCoalesceCases; DIE took 0.6 s and 3.8 s on them before coalescing used sample points and a
// work budget) and checks on random inputs that the required elements keep their values.
func TestDIECoalesceCases(t *testing.T) {
	ps, err := passes.ParsePipeline("die,dce")
	require.NoError(t, err)
	for _, c := range dieCoalesceCases {
		t.Run(c.name, func(t *testing.T) {
			checkSemantics(t, c.name, ps, c.graph, []string{c.require}, rand.New(rand.NewPCG(1, 2)))
		})
	}
}
