package conformance

// This file finds the ONNX backend node tests on disk. Two suites are known:
//
//   - the current suite, onnx/backend/test/data/node of a recent onnx release (about 1,800
//     tests, opsets up to the newest): the directory named by $GRAPHC_ONNX_TESTS, else
//     ../shared/onnx-node-tests beside the repository (graphc's CI), else the checkout
//     `make onnx-tests` writes into the repository (.onnx-tests/node, git-ignored);
//   - Debian's libonnx-testdata (`apt-get install libonnx-testdata`): the node tests of onnx
//     1.12 (932 tests, opsets up to 17), at /usr/share/libonnx-testdata/data/node, or the
//     directory named by $GRAPHC_ONNX_DEBIAN_TESTS.
//
// The tests run both when present; a missing one is skipped with the command that provides it.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Environment variables that name the suites' directories, overriding the default search.
const (
	EnvSuite       = "GRAPHC_ONNX_TESTS"
	EnvDebianSuite = "GRAPHC_ONNX_DEBIAN_TESTS"
)

// DebianSuiteDir is where Debian's libonnx-testdata installs the node tests.
const DebianSuiteDir = "/usr/share/libonnx-testdata/data/node"

// CheckoutDir is where `make onnx-tests` checks out the current suite, relative to the
// repository root.
const CheckoutDir = ".onnx-tests/node"

// besideDir is the suite beside the repository (graphc's CI), relative to the repository root.
const besideDir = "../shared/onnx-node-tests"

// Hints name the commands that provide each suite, for the messages about a missing one.
const (
	SuiteHint       = "set " + EnvSuite + "=DIR, or run `make onnx-tests` (clones onnx's node tests at a pinned release; needs network)"
	DebianSuiteHint = "run `apt-get install libonnx-testdata` (Debian's onnx 1.12 node tests), or set " + EnvDebianSuite + "=DIR"
)

// ErrNoSuite is returned (wrapped) when no node-test suite is found.
var ErrNoSuite = errors.New("no ONNX node tests found")

// Suite is one node-test suite found on disk.
type Suite struct {
	Name string // "current" or "debian"
	Dir  string
	From string // how it was found: the environment variable, "beside the repository", …
}

// RepoRoot returns the directory of graphc's go.mod at or above dir ("" when there is none).
func RepoRoot(dir string) string {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.HasPrefix(string(data), "module github.com/graphc/graphc\n") {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// isSuite reports whether dir holds node tests (test_*/model.onnx).
func isSuite(dir string) bool {
	m, _ := filepath.Glob(filepath.Join(dir, "test_*", "model.onnx"))
	return len(m) > 0
}

// FindCurrentSuite finds the current suite for a process working in dir: $GRAPHC_ONNX_TESTS,
// then ../shared/onnx-node-tests beside the repository, then the repository's .onnx-tests/node.
// A variable naming a directory without node tests is an error, not a fallback.
func FindCurrentSuite(dir string) (Suite, error) {
	if env := os.Getenv(EnvSuite); env != "" {
		if !isSuite(env) {
			return Suite{}, fmt.Errorf("%s=%s: no node tests (test_*/model.onnx) there", EnvSuite, env)
		}
		return Suite{Name: "current", Dir: env, From: "$" + EnvSuite}, nil
	}
	if root := RepoRoot(dir); root != "" {
		for _, c := range []struct{ rel, from string }{
			{besideDir, "beside the repository"},
			{CheckoutDir, "make onnx-tests"},
		} {
			if d := filepath.Join(root, c.rel); isSuite(d) {
				return Suite{Name: "current", Dir: d, From: c.from}, nil
			}
		}
	}
	return Suite{}, fmt.Errorf("%w (current suite): %s", ErrNoSuite, SuiteHint)
}

// FindDebianSuite finds Debian's libonnx-testdata node tests: $GRAPHC_ONNX_DEBIAN_TESTS, then
// /usr/share/libonnx-testdata/data/node.
func FindDebianSuite() (Suite, error) {
	if env := os.Getenv(EnvDebianSuite); env != "" {
		if !isSuite(env) {
			return Suite{}, fmt.Errorf("%s=%s: no node tests (test_*/model.onnx) there", EnvDebianSuite, env)
		}
		return Suite{Name: "debian", Dir: env, From: "$" + EnvDebianSuite}, nil
	}
	if isSuite(DebianSuiteDir) {
		return Suite{Name: "debian", Dir: DebianSuiteDir, From: "libonnx-testdata"}, nil
	}
	return Suite{}, fmt.Errorf("%w (Debian suite): %s", ErrNoSuite, DebianSuiteHint)
}

// FindSuite is the default search of graphc-conformance: the current suite, else the Debian one.
// The error names the commands that provide either.
func FindSuite(dir string) (Suite, error) {
	s, err := FindCurrentSuite(dir)
	if err == nil || os.Getenv(EnvSuite) != "" {
		return s, err
	}
	if d, derr := FindDebianSuite(); derr == nil {
		return d, nil
	}
	return Suite{}, fmt.Errorf("%w: %s; or %s", ErrNoSuite, SuiteHint, DebianSuiteHint)
}
