// This file checks that docs/tf-ops.md is generated from the op table.

package tf_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/frontend/tf"
)

// TestOpsMarkdown keeps docs/tf-ops.md in step with the op table (-update rewrites it).
func TestOpsMarkdown(t *testing.T) {
	const path = "../../docs/tf-ops.md"
	want := tf.OpsMarkdown()
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(want), 0o644))
	}
	have, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, want, string(have), "run go test ./frontend/tf -run TestOpsMarkdown -update")
}
