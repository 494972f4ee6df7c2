package conformance

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/frontend/onnx"
)

// TestSuiteOpsAreListed: every op of the node tests is either imported or in the list of
// unsupported ops that docs/ops.md and `graphc ops` print.
func TestSuiteOpsAreListed(t *testing.T) {
	needSuite(t)
	listed := map[string]bool{}
	for _, o := range onnx.UnsupportedOpInfo() {
		listed[o.Name] = true
	}
	dirs, err := filepath.Glob(filepath.Join(suite, "test_*", "model.onnx"))
	require.NoError(t, err)
	require.NotEmpty(t, dirs)
	for _, p := range dirs {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		m, err := onnx.Unmarshal(data)
		require.NoError(t, err, p)
		for _, n := range m.Graph.Node {
			if !onnx.SupportsOp(n.GetDomain(), n.GetOpType()) {
				require.True(t, listed[n.GetOpType()], "%s: op %s is neither supported nor listed as unsupported", filepath.Base(filepath.Dir(p)), n.GetOpType())
			}
		}
	}
}
