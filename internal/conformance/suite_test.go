package conformance

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/e2e"
)

// fakeSuite makes a directory holding one node test's model.onnx (empty: discovery only looks).
func fakeSuite(t *testing.T, dir string) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "test_abs"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "test_abs", "model.onnx"), nil, 0o644))
	return dir
}

// fakeRepo makes a repository root (graphc's go.mod) under a fresh directory.
func fakeRepo(t *testing.T) (parent, root string) {
	t.Helper()
	parent = t.TempDir()
	root = filepath.Join(parent, "graphc")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "cmd", "x"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "go.mod"), []byte("module github.com/graphc/graphc\n\ngo 1.26\n"), 0o644))
	return parent, root
}

func TestFindCurrentSuite(t *testing.T) {
	t.Setenv(EnvSuite, "")
	parent, root := fakeRepo(t)
	sub := filepath.Join(root, "cmd", "x")

	_, err := FindCurrentSuite(sub)
	require.ErrorIs(t, err, ErrNoSuite)
	require.ErrorContains(t, err, "make onnx-tests", "the message names the command that provides the suite")
	require.ErrorContains(t, err, EnvSuite)

	// make onnx-tests' checkout inside the repository
	co := fakeSuite(t, filepath.Join(root, CheckoutDir))
	s, err := FindCurrentSuite(sub)
	require.NoError(t, err)
	require.Equal(t, co, s.Dir)
	require.Equal(t, "make onnx-tests", s.From)

	// the suite beside the repository comes first
	beside := fakeSuite(t, filepath.Join(parent, "shared", "onnx-node-tests"))
	s, err = FindCurrentSuite(sub)
	require.NoError(t, err)
	require.Equal(t, filepath.Clean(beside), filepath.Clean(s.Dir))

	// the environment variable overrides both; a wrong one is an error, not a fallback
	env := fakeSuite(t, t.TempDir())
	t.Setenv(EnvSuite, env)
	s, err = FindCurrentSuite(sub)
	require.NoError(t, err)
	require.Equal(t, env, s.Dir)
	t.Setenv(EnvSuite, filepath.Join(env, "nope"))
	_, err = FindCurrentSuite(sub)
	require.ErrorContains(t, err, "no node tests")
	_, err = FindSuite(sub)
	require.ErrorContains(t, err, "no node tests", "FindSuite does not fall back past a wrong variable")
}

func TestFindDebianSuite(t *testing.T) {
	env := fakeSuite(t, t.TempDir())
	t.Setenv(EnvDebianSuite, env)
	s, err := FindDebianSuite()
	require.NoError(t, err)
	require.Equal(t, env, s.Dir)
	t.Setenv(EnvDebianSuite, t.TempDir())
	_, err = FindDebianSuite()
	require.ErrorContains(t, err, "no node tests")
}

// TestFindSuiteFallsBackToDebian: outside any repository and without the variable, the default
// search of graphc-conformance ends at Debian's suite, or says how to get one.
func TestFindSuiteFallsBackToDebian(t *testing.T) {
	t.Setenv(EnvSuite, "")
	t.Setenv(EnvDebianSuite, "")
	s, err := FindSuite(t.TempDir())
	if _, derr := os.Stat(DebianSuiteDir); derr == nil {
		require.NoError(t, err)
		require.Equal(t, DebianSuiteDir, s.Dir)
		return
	}
	require.ErrorContains(t, err, "make onnx-tests")
	require.ErrorContains(t, err, "libonnx-testdata")
}

// TestConformanceCompiledDebian runs a sampled quarter of Debian's suite as compiled code for
// the host (every test passing in the evaluator must pass compiled): the older opsets' variants
// of the ops reach the lowering too. -conformance-full runs them all.
func TestConformanceCompiledDebian(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs node tests")
	}
	s, err := FindDebianSuite()
	if err != nil {
		t.Skip(err)
	}
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	every := 4
	if *conformanceFull {
		every = 1
	}
	rs, err := RunAllCompiled(context.Background(), s.Dir, "", defaultPrep(t), CompiledOptions{Machine: e2e.Host(), Every: every})
	require.NoError(t, err)
	p, f, sk := Summary(rs)
	t.Logf("debian node tests as %s code (every %d): %d passed, %d failed, %d skipped", e2e.Host(), every, p, f, sk)
	require.Zero(t, f, "tests pass in the evaluator but fail as compiled code:\n%s", Table(rs, true))
	require.NotZero(t, p)
}
