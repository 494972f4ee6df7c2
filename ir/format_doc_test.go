package ir_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/ir"
)

// TestIRFormatExample: the first example of docs/ir-format.md is what graphc prints for it
// (attributes at their defaults are not printed, so the example shows none), comment aside.
func TestIRFormatExample(t *testing.T) {
	data, err := os.ReadFile("../docs/ir-format.md")
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(data), "\n```\n")
	require.True(t, ok)
	block, _, ok := strings.Cut(rest, "\n```\n")
	require.True(t, ok)
	var lines []string
	for _, l := range strings.Split(block, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "//") {
			lines = append(lines, l)
		}
	}
	text := strings.Join(lines, "\n") + "\n"
	g, err := ir.Parse(block)
	require.NoError(t, err)
	require.Equal(t, text, g.String(), "docs/ir-format.md's example does not print back as written")
}
