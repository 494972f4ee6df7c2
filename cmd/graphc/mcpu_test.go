package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/onnxgen"
)

// TestMCPUAloneTakesTheCPUDefaults: `--mcpu=hexagonv67` alone emits hexagonv67 with its own
// features (+hvxv67,+hvx-length128b), not the default CPU's v68 HVX (issue 22: qemu-hexagon
// -cpu v67 aborted decoding v68 HVX float); `--mattr` edits them. The same configuration runs
// under qemu in lower's TestHexagonV67Runs and the quantized-model tests.
func TestMCPUAloneTakesTheCPUDefaults(t *testing.T) {
	dir := t.TempDir()
	writeModel(t, dir, "q.onnx", onnxgen.QLinearMatMul(8, 16, 32))
	for _, c := range []struct {
		args     []string
		cpu, has string
		hasNot   []string
	}{
		{[]string{"--target=hexagon", "--mcpu=hexagonv67"}, "hexagonv67", `"target-features"="+hvxv67,+hvx-length128b"`, []string{"hvxv68", "<32 x float>"}},
		{[]string{"--target=hexagon", "--mcpu=hexagonv67", "--mattr=-hvx"}, "hexagonv67", `"target-features"="-hvx"`, []string{"hvxv6", "<128 x i8>"}},
		{[]string{"--target=hexagon"}, "hexagonv68", `"target-features"="+hvxv68,+hvx-length128b"`, nil},
		{[]string{"--mcpu=haswell"}, "haswell", "@llvm.x86.avx2.pmadd.wd", []string{"vpdpbusd"}},
		{[]string{"--mcpu=znver4"}, "znver4", "@llvm.x86.avx512.vpdpbusd.512", nil},
	} {
		args := append([]string{"q.onnx", "-o", "q.ll"}, c.args...)
		_, stderr, code := runCLI(t, dir, args...)
		require.Zero(t, code, "%v: %s", c.args, stderr)
		data, err := os.ReadFile(filepath.Join(dir, "q.ll"))
		require.NoError(t, err)
		ll := string(data)
		require.True(t, strings.Contains(ll, `"target-cpu"="`+c.cpu+`"`), "%v: target-cpu %s", c.args, c.cpu)
		require.True(t, strings.Contains(ll, c.has), "%v: %s", c.args, c.has)
		for _, s := range c.hasNot {
			require.False(t, strings.Contains(ll, s), "%v: %s", c.args, s)
		}
	}
}
