package lower

// This file tests the AArch64 target data: the CPUs, their implied features against clang's own
// view of each CPU, the NEON register tiles, and --mcpu=native's reading of an AArch64
// /proc/cpuinfo.

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAArch64CPUs(t *testing.T) {
	a, err := LoadTarget("aarch64")
	require.NoError(t, err)
	require.Equal(t, "aarch64-unknown-linux-gnu", a.Triple)
	require.Equal(t, 64, a.PointerBits())
	var names []string
	for _, c := range a.CPUs() {
		names = append(names, c.CPU)
		require.Equal(t, 16, c.VectorBytes, c.CPU)
		require.True(t, featureOn(c.ImpliedFeatures, "neon"), c.CPU)
		rows, vecs := c.TileShapeFor(16)
		require.Equal(t, [2]int{8, 3}, [2]int{rows, vecs}, "%s: 24 accumulators of 32 registers", c.CPU)
	}
	require.Equal(t, []string{"generic", "apple-m1", "cortex-a55", "cortex-a76", "cortex-a78", "cortex-x1", "cortex-x2", "neoverse-n1", "neoverse-v1"}, names)
	x2, err := a.ForCPU("cortex-x2")
	require.NoError(t, err)
	require.True(t, featureOn(x2.ImpliedFeatures, "i8mm") && featureOn(x2.ImpliedFeatures, "dotprod"))
	_, err = a.ForCPU("hexagonv68")
	require.ErrorContains(t, err, `unknown CPU "hexagonv68" for target aarch64 (valid: generic, apple-m1,`)
	if runtime.GOARCH != "arm64" {
		_, err = a.ForCPU("native")
		require.ErrorContains(t, err, "--mcpu=native: the host is "+runtime.GOARCH+", not arm64")
	}
	x86, err := LoadTarget("x86-64")
	require.NoError(t, err)
	for _, c := range []struct{ bytes, rows, vecs int }{{16, 6, 2}, {32, 6, 2}, {64, 8, 3}} {
		rows, vecs := x86.TileShapeFor(c.bytes)
		require.Equal(t, [2]int{c.rows, c.vecs}, [2]int{rows, vecs}, "x86-64 tiles of %d bytes", c.bytes)
	}
}

// TestAArch64CPUInfo: --mcpu=native on an AArch64 host reads the "Features" line.
func TestAArch64CPUInfo(t *testing.T) {
	a, err := LoadTarget("aarch64")
	require.NoError(t, err)
	info := "processor\t: 0\nBogoMIPS\t: 48.00\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp\n"
	f, w := a.cpuinfoFeatures(info)
	require.Equal(t, "+neon,+dotprod,+fullfp16", f)
	require.Equal(t, 16, w)
	f, _ = a.cpuinfoFeatures("Features : fp asimd asimddp sve i8mm bf16")
	require.Equal(t, "+neon,+dotprod,+i8mm,+bf16,+sve", f)
}

// TestAArch64ImpliedFeaturesMatchClang: every feature a CPU spec says its name implies is one
// clang-19 enables for that CPU (graphc's kernel choices must not assume more than LLVM emits).
func TestAArch64ImpliedFeaturesMatchClang(t *testing.T) {
	clang, err := FindTool("GRAPHC_CLANG", "clang")
	if err != nil {
		t.Skip(err)
	}
	a, err := LoadTarget("aarch64")
	require.NoError(t, err)
	src := filepath.Join(t.TempDir(), "f.c")
	require.NoError(t, os.WriteFile(src, []byte("int f(int x) { return x; }\n"), 0o644))
	attr := regexp.MustCompile(`"target-features"="([^"]*)"`)
	for _, c := range a.CPUs() {
		out, err := exec.Command(clang, "--target="+a.Triple, "-mcpu="+c.LLVMName(), "-S", "-emit-llvm", "-o", "-", src).CombinedOutput()
		require.NoError(t, err, string(out))
		m := attr.FindStringSubmatch(string(out))
		require.NotNil(t, m, c.CPU)
		for _, f := range strings.Split(c.ImpliedFeatures, ",") {
			require.True(t, featureOn(m[1], strings.TrimPrefix(f, "+")), "%s: clang does not enable %s (%s)", c.CPU, f, m[1])
		}
	}
}
