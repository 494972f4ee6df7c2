package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/frontend/onnx"
	"github.com/graphc/graphc/frontend/tf"
)

// TestOpsListsTheTable checks that `graphc ops` prints one line per supported op, with the opset
// range and note of the importer's table (the table docs/ops.md is generated from), then the
// TensorFlow ops with their notes (docs/tf-ops.md).
func TestOpsListsTheTable(t *testing.T) {
	out, _, code := runCLI(t, t.TempDir(), "ops")
	require.Equal(t, 0, code)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	infos := onnx.SupportedOpInfo()
	for _, o := range onnx.DomainOpInfo() { // com.microsoft's, qualified, after the default domain's
		o.OpInfo.Name = o.Domain + "." + o.Name
		infos = append(infos, o.OpInfo)
	}
	tfInfos := tf.SupportedOpInfo()
	unsupported := onnx.UnsupportedOpInfo()
	require.Len(t, lines, len(infos)+len(tfInfos)+len(unsupported)+3, "a header and one line per op, for each importer and the unsupported ONNX ops")
	require.Equal(t, "TensorFlow ops:", lines[len(infos)+1])
	require.Equal(t, "ONNX ops not supported:", lines[len(infos)+len(tfInfos)+2])
	for i, o := range unsupported {
		line := lines[len(infos)+len(tfInfos)+3+i]
		require.Equal(t, o.Name, strings.Fields(line)[0])
		require.True(t, strings.HasSuffix(line, "  "+o.Note), "line %q", line)
	}
	for i, o := range tfInfos {
		line := lines[len(infos)+2+i]
		require.Equal(t, o.Name, strings.Fields(line)[0])
		if o.Note != "" {
			require.True(t, strings.HasSuffix(line, "  "+o.Note), "line %q", line)
		}
	}
	for i, o := range infos {
		fields := strings.Fields(lines[i+1])
		require.Equal(t, o.Name, fields[0])
		require.Equal(t, fmt.Sprintf("%d-%d", o.Since, o.Until), fields[1])
		if o.Note != "" {
			require.True(t, strings.HasSuffix(lines[i+1], "  "+o.Note), "line %q", lines[i+1])
		}
	}
}
