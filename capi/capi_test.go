package main

// The C API is tested from outside, as its users call it: a C program and a Python ctypes
// script against libgraphc.so, built once per test binary with go build -buildmode=c-shared.

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/onnxgen"
)

var (
	libOnce sync.Once
	libDir  string
	libErr  error
)

// buildLib builds libgraphc.so (and the MatMul+Trilu model the tests compile) once.
func buildLib(t *testing.T) string {
	t.Helper()
	libOnce.Do(func() {
		libDir, libErr = os.MkdirTemp("", "libgraphc-test")
		if libErr != nil {
			return
		}
		cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", filepath.Join(libDir, "libgraphc.so"), ".")
		if out, err := cmd.CombinedOutput(); err != nil {
			libErr = &buildError{err, string(out)}
			return
		}
		libErr = onnxgen.MatMulTrilu(16, true).Write(filepath.Join(libDir, "mt.onnx"))
	})
	require.NoError(t, libErr)
	return libDir
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string {
	return "go build -buildmode=c-shared: " + e.err.Error() + "\n" + e.out
}

func TestMain(m *testing.M) {
	code := m.Run()
	if libDir != "" {
		os.RemoveAll(libDir)
	}
	os.Exit(code)
}

// TestFromC compiles testdata/capi_test.c against graphc.h and runs it.
func TestFromC(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		if cc, err = exec.LookPath("clang-19"); err != nil {
			t.Skip("SKIP: no C compiler (cc or clang-19) to test the C API from C")
		}
	}
	dir := buildLib(t)
	exe := filepath.Join(dir, "capi_test")
	out, err := exec.Command(cc, "-Wall", "-Werror", "-I.", "-o", exe, "testdata/capi_test.c", "-L"+dir, "-lgraphc", "-Wl,-rpath,"+dir).CombinedOutput()
	require.NoError(t, err, "%s", out)
	cmd := exec.Command(exe, filepath.Join(dir, "mt.onnx"))
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "ok\n")
}

// TestFromPythonCtypes runs testdata/capi_test.py with Debian's python3.
func TestFromPythonCtypes(t *testing.T) {
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		t.Skipf("SKIP: no %s to test the C API from Python ctypes", py)
	}
	dir := buildLib(t)
	out, err := exec.Command(py, "testdata/capi_test.py", filepath.Join(dir, "libgraphc.so"), filepath.Join(dir, "mt.onnx")).CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "ok\n")
}

// TestProtectRecoversPanics: a panic inside a compile becomes GRAPHC_ERR_INTERNAL with its
// message, not a crash of the host.
func TestProtectRecoversPanics(t *testing.T) {
	res := protect(func() compiled { panic("boom") })
	require.Equal(t, statusInternal, res.status)
	require.Contains(t, res.err, "graphc: internal error: boom")
}
