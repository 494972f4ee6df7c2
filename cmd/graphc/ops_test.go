package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/frontend/onnx"
)

// TestOpsListsTheTable checks that `graphc ops` prints one line per supported op, with the opset
// range and note of the importer's table (the table docs/ops.md is generated from).
func TestOpsListsTheTable(t *testing.T) {
	out, _, code := runCLI(t, t.TempDir(), "ops")
	require.Equal(t, 0, code)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	infos := onnx.SupportedOpInfo()
	require.Len(t, lines, len(infos)+1, "a header and one line per op")
	for i, o := range infos {
		fields := strings.Fields(lines[i+1])
		require.Equal(t, o.Name, fields[0])
		require.Equal(t, fmt.Sprintf("%d-%d", o.Since, o.Until), fields[1])
		if o.Note != "" {
			require.True(t, strings.HasSuffix(lines[i+1], "  "+o.Note), "line %q", lines[i+1])
		}
	}
}
