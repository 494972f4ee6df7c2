package lower

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestVectorBytesEdits: the x86-64 spec's edits give the widths llc gives the same -mcpu and
// -mattr: AVX-512 64 bytes, AVX 32, SSE2 16; -evex512 keeps AVX-512 on 256-bit vectors.
func TestVectorBytesEdits(t *testing.T) {
	x86, err := LoadTarget("x86-64")
	require.NoError(t, err)
	for _, c := range []struct {
		base     int
		features string
		want     int
	}{
		{0, "", 16},
		{16, "+avx2", 32},
		{16, "+avx512f", 64},
		{64, "-evex512", 32},
		{64, "-avx512f", 32},
		{32, "-avx2", 16},
		{64, "-avx", 16},
		{32, "+fma,+avx512f,-avx512f", 32},
		{16, "+avx,-avx,+avx2", 32},
	} {
		require.Equal(t, c.want, x86.vectorBytesFor(c.base, c.features), "%d bytes edited by %q", c.base, c.features)
	}
}

// TestCPUInfoFeatures: --mcpu=native maps /proc/cpuinfo flags to LLVM features through the
// spec's host-cpu-flags and takes the width they give; a target without them has no native CPU.
func TestCPUInfoFeatures(t *testing.T) {
	x86, err := LoadTarget("x86-64")
	require.NoError(t, err)
	info := "processor\t: 0\nflags\t\t: fpu sse2 sse4_2 avx avx2 fma avx_vnni\n\nprocessor\t: 1\nflags\t\t: avx512f\n"
	f, w := x86.cpuinfoFeatures(info)
	require.Equal(t, "+sse4.2,+avx,+avx2,+fma,+avxvnni", f)
	require.Equal(t, 32, w)
	f, w = x86.cpuinfoFeatures("flags : avx avx512f avx512_vnni")
	require.Equal(t, "+avx,+avx512f,+avx512vnni", f)
	require.Equal(t, 64, w)
	f, w = x86.cpuinfoFeatures("no flags here")
	require.Equal(t, "", f)
	require.Equal(t, 16, w)

	hex, err := LoadTarget("hexagon")
	require.NoError(t, err)
	require.Empty(t, hex.HostFlags)
	require.Empty(t, hex.ClangCPUFlag, "clang takes -mcpu for Hexagon")
	require.Equal(t, "-march", x86.ClangCPUFlag)
}
