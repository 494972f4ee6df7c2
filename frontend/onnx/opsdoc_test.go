package onnx_test

import (
	"flag"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/frontend/onnx"
)

var update = flag.Bool("update", false, "rewrite docs/ops.md and other golden files")

// TestOpsDocUpToDate checks that docs/ops.md is what the op table generates.
func TestOpsDocUpToDate(t *testing.T) {
	const path = "../../docs/ops.md"
	want := onnx.OpsMarkdown()
	if *update {
		require.NoError(t, os.MkdirAll("../../docs", 0o755))
		require.NoError(t, os.WriteFile(path, []byte(want), 0o644))
	}
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, want, string(got), "docs/ops.md is stale: run go test ./frontend/onnx -update")
}

func TestOpsDocListsEveryOp(t *testing.T) {
	doc := onnx.OpsMarkdown()
	for _, op := range onnx.SupportedOps() {
		require.Contains(t, doc, "| "+op+" | ")
	}
}

// TestUnsupportedOpsAreNotSupported: the list of ops graphc refuses names none it imports, in
// order, each with a reason.
func TestUnsupportedOpsAreNotSupported(t *testing.T) {
	prev := ""
	for _, o := range onnx.UnsupportedOpInfo() {
		require.False(t, onnx.SupportsOp("", o.Name) || onnx.SupportsOp("ai.onnx.ml", o.Name), "%s is supported", o.Name)
		require.NotEmpty(t, o.Note, o.Name)
		require.Less(t, prev, o.Name, "sorted")
		prev = o.Name
	}
}
