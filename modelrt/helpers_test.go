// This file builds the shared libraries the tests load: graphc IR text compiled with its
// signature and built with clang-19.

package modelrt_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/lower"
)

// buildLib compiles the graph text src to dir/name.so (with the given options) and returns its
// path; it skips the test when clang is not installed.
func buildLib(t testing.TB, dir, name, src string, opts ...graphc.Option) string {
	t.Helper()
	if _, err := lower.FindTool("GRAPHC_CLANG", "clang"); err != nil {
		t.Skipf("no clang to build shared libraries: %v", err)
	}
	gpath := filepath.Join(dir, name+".graph")
	require.NoError(t, os.WriteFile(gpath, []byte(src), 0o644))
	opts = append([]graphc.Option{graphc.WithSignature()}, opts...)
	res, err := graphc.Compile(context.Background(), gpath, opts...)
	require.NoError(t, err)
	so, err := lower.Build(context.Background(), res.Module, "lib")
	require.NoError(t, err)
	path := filepath.Join(dir, name+".so")
	require.NoError(t, os.WriteFile(path, so, 0o755))
	return path
}
