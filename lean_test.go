// This file checks that the repository stays lean: build outputs (a 14.8 MB graphc-bench
// executable was once committed in three versions) never belong in git.

package graphc_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// maxTrackedBinary is the largest binary file git may track outside testdata directories.
const maxTrackedBinary = 1 << 20

// isBinary reports whether data looks binary as git decides it: a NUL byte in its first 8000
// bytes.
func isBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0
}

// largeBinaries returns the files of paths (relative to root) outside testdata directories
// that are binary and larger than limit bytes. Files that are missing (deleted in the work
// tree) are ignored.
func largeBinaries(root string, paths []string, limit int64) ([]string, error) {
	var out []string
	for _, p := range paths {
		if p == "" || slices.Contains(strings.Split(filepath.ToSlash(p), "/"), "testdata") {
			continue
		}
		f, err := os.Open(filepath.Join(root, p))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		st, err := f.Stat()
		if err != nil || !st.Mode().IsRegular() || st.Size() <= limit {
			f.Close()
			if err != nil {
				return nil, err
			}
			continue
		}
		head := make([]byte, 8000)
		n, err := io.ReadFull(f, head)
		f.Close()
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, err
		}
		if isBinary(head[:n]) {
			out = append(out, p)
		}
	}
	return out, nil
}

// TestNoLargeTrackedBinaries: no file git tracks outside testdata is a binary over 1 MB.
func TestNoLargeTrackedBinaries(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	top, err := exec.Command(git, "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skipf("not a git work tree: %v", err)
	}
	root := strings.TrimSpace(string(top))
	out, err := exec.Command(git, "-C", root, "ls-files", "-z").Output()
	require.NoError(t, err)
	paths := strings.Split(string(out), "\x00")
	require.Greater(t, len(paths), 100, "git ls-files lists the repository")
	big, err := largeBinaries(root, paths, maxTrackedBinary)
	require.NoError(t, err)
	require.Empty(t, big, "binaries over 1 MB tracked outside testdata: build outputs belong in .gitignore")
}

// TestLargeBinariesCatches: the check flags a large binary outside testdata and nothing else.
func TestLargeBinariesCatches(t *testing.T) {
	dir := t.TempDir()
	write := func(p string, data []byte) {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, p), data, 0o644))
	}
	elf := append([]byte("\x7fELF\x02\x01\x01\x00"), make([]byte, 2<<20)...)
	write("graphc-bench", elf)
	write("testdata/models/big.onnx", elf)
	write("lower/testdata/big.bin", elf)
	write("docs/big.txt", bytes.Repeat([]byte("text\n"), 1<<19))
	write("small.bin", []byte{0, 1, 2})
	big, err := largeBinaries(dir, []string{"graphc-bench", "testdata/models/big.onnx", "lower/testdata/big.bin", "docs/big.txt", "small.bin", "deleted.bin"}, maxTrackedBinary)
	require.NoError(t, err)
	require.Equal(t, []string{"graphc-bench"}, big)
}
