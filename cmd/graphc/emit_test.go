package main

// This file tests --emit=asm|obj|lib|header: the LLVM tools run with the target's flags, and a
// clear error names the tool and the variable to set when they are missing.

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEmitBuildKinds(t *testing.T) {
	if _, err := exec.LookPath("clang-19"); err != nil {
		t.Skip("clang-19 not installed")
	}
	model, err := filepath.Abs("../../testdata/models/matmul_trilu.onnx")
	require.NoError(t, err)
	dir := t.TempDir()
	for _, target := range []string{"x86-64", "hexagon"} {
		for _, kind := range []string{"asm", "obj", "lib", "header"} {
			out := filepath.Join(dir, target+"."+kind)
			_, stderr, code := runCLI(t, dir, model, "--target="+target, "--emit="+kind, "-o", out)
			require.Equal(t, 0, code, "%s %s: %s", target, kind, stderr)
			data, err := os.ReadFile(out)
			require.NoError(t, err)
			switch kind {
			case "asm":
				require.Contains(t, string(data), "main_graph")
				if target == "hexagon" {
					require.Regexp(t, `vmem|qf32`, string(data), "HVX code for hexagonv68")
				}
			case "obj", "lib":
				require.True(t, bytes.HasPrefix(data, []byte("\x7fELF")), "%s %s is an ELF file", target, kind)
			case "header":
				require.Contains(t, string(data), "int32_t main_graph(const float *A, const float *B, float *Y, void *workspace);")
				require.Contains(t, string(data), "#define MAIN_GRAPH_OUT0_ELEMENTS ((512) * (512))")
				require.Contains(t, string(data), "f32[512, 512]")
			}
		}
	}
}

func TestEmitMissingTools(t *testing.T) {
	model, err := filepath.Abs("../../testdata/models/matmul_trilu.onnx")
	require.NoError(t, err)
	dir := t.TempDir()
	cmd := exec.Command(graphcBin, model, "--emit=obj", "-o", filepath.Join(dir, "m.o"))
	cmd.Env = append(os.Environ(), "GRAPHC_CLANG=/nonexistent/clang")
	var e bytes.Buffer
	cmd.Stderr = &e
	err = cmd.Run()
	require.Error(t, err)
	require.Equal(t, 1, cmd.ProcessState.ExitCode())
	require.Contains(t, e.String(), "GRAPHC_CLANG=/nonexistent/clang")

	cmd = exec.Command(graphcBin, model, "--emit=lib", "-o", filepath.Join(dir, "m.so"))
	cmd.Env = append(os.Environ(), "PATH="+dir) // no LLVM tools at all
	e.Reset()
	cmd.Stderr = &e
	require.Error(t, cmd.Run())
	require.True(t, strings.Contains(e.String(), "clang-19") && strings.Contains(e.String(), "GRAPHC_CLANG"), e.String())
}
