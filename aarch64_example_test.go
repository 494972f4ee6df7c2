package graphc_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/e2e"
)

// TestCCallerExampleAArch64: the README's C caller (examples/c-caller), unchanged, builds with
// the module for cortex-a76 (clang-19 --target=aarch64-linux-gnu, static) and runs under
// qemu-aarch64. The module's fused multiply-adds (fmla) round once per term, so y[0][1] is
// compared within a float32 sum's bound.
func TestCCallerExampleAArch64(t *testing.T) {
	clang, err := e2e.Clang()
	if err != nil {
		t.Skip(err)
	}
	if why := e2e.AArch64Missing(); why != "" {
		t.Skip("AArch64 under qemu: " + why)
	}
	ctx := context.Background()
	dir := t.TempDir()
	res, err := graphc.Compile(ctx, "testdata/models/matmul_trilu.onnx", graphc.WithTarget("aarch64"), graphc.WithCPU("cortex-a76"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "model.ll"), []byte(res.LLVM), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "model.h"), []byte(res.Header), 0o644))
	src, err := filepath.Abs("examples/c-caller/main.c")
	require.NoError(t, err)
	exe := filepath.Join(dir, "caller")
	out, err := exec.Command(clang, "--target=aarch64-linux-gnu", "-mcpu=cortex-a76", "-static", "-fuse-ld=lld", "-O2", "-Wall", "-Werror",
		"-I", dir, src, filepath.Join(dir, "model.ll"), "-o", exe).CombinedOutput()
	require.NoError(t, err, string(out))
	out, err = exec.Command("qemu-aarch64", exe).CombinedOutput()
	require.NoError(t, err, string(out))
	m := regexp.MustCompile(`y\[0\]\[1\] = (\S+), y\[1\]\[0\] = 0,`).FindStringSubmatch(string(out))
	require.NotNil(t, m, string(out))
	got, err := strconv.ParseFloat(m[1], 64)
	require.NoError(t, err)
	want := 0.0
	for k := 0; k < 512; k++ {
		want += (float64(k%7) - 3) * (float64((k*512+1)%5) * 0.5)
	}
	require.InDelta(t, want, got, 1e-5*512*4.5, "y[0][1]")
}
