package e2e

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRequiredFlags: a CPU needs lower/targets' implied features and clang's -march macros,
// edited by --mattr.
func TestRequiredFlags(t *testing.T) {
	base, err := requiredFlags("", "")
	require.NoError(t, err)
	require.Empty(t, base, "baseline x86-64 needs nothing beyond SSE2")
	v3, err := requiredFlags("x86-64-v3", "")
	require.NoError(t, err)
	for _, f := range []string{"avx", "avx2", "fma", "sse4_2"} {
		require.Contains(t, v3, f)
	}
	require.NotContains(t, v3, "avx512f")
	skx, err := requiredFlags("skylake-avx512", "")
	require.NoError(t, err)
	for _, f := range []string{"avx2", "avx512f", "avx512bw", "avx512dq", "avx512vl"} {
		require.Contains(t, skx, f)
	}
	vnni, err := requiredFlags("x86-64-v4", "+avx512vnni,-evex512")
	require.NoError(t, err)
	require.Contains(t, vnni, "avx512_vnni")
	require.Contains(t, vnni, "avx512f", "-evex512 keeps AVX-512 (on 256-bit vectors)")
	noavx, err := requiredFlags("haswell", "-avx")
	require.NoError(t, err)
	require.NotContains(t, noavx, "avx")
	require.NotContains(t, noavx, "avx2", "-avx disables what extends it by name")
	_, err = requiredFlags("pentium9", "")
	require.Error(t, err)
	if _, err := Clang(); err == nil {
		spr, err := requiredFlags("sapphirerapids", "")
		require.NoError(t, err)
		require.Contains(t, spr, "avx512_fp16", "clang's -march macros: extensions lower/targets does not list")
	}
}

// TestHostCap: GRAPHC_HOST_CPU caps the host; an unknown CPU or one the host cannot run is an
// error; native resolves to the cap.
func TestHostCap(t *testing.T) {
	if len(realFlags()) == 0 || !slices.Contains(realFlags(), "avx2") {
		t.Skip("needs an x86-64 host with AVX2")
	}
	t.Setenv(HostCPUEnv, "x86-64-v3")
	cpu, err := HostCPU()
	require.NoError(t, err)
	require.Equal(t, "x86-64-v3", cpu)
	ok, why := HostCanExecute("skylake-avx512", "")
	require.False(t, ok)
	require.Equal(t, "host (GRAPHC_HOST_CPU=x86-64-v3) lacks avx512f, avx512bw, avx512dq, avx512vl, avx512cd", why)
	ok, why = HostCanExecute("x86-64-v3", "")
	require.True(t, ok, why)
	ok, _ = HostCanExecute("haswell", "")
	require.True(t, ok, "a Haswell's code runs on any x86-64-v3 host")
	ok, why = HostCanExecute("", "+avx512f")
	require.False(t, ok)
	require.Contains(t, why, "lacks avx512f")
	n := Native()
	require.Equal(t, "x86-64-v3", n.CPU)
	require.Equal(t, []string{"-march=x86-64-v3"}, n.CFlags)
	ok, _ = n.CanExecute()
	require.True(t, ok)
	ok, why = Machine{Target: "x86-64", CPU: "native", CFlags: []string{"-march=native"}}.CanExecute()
	require.True(t, ok, why)

	t.Setenv(HostCPUEnv, "pentium9")
	_, err = HostCPU()
	require.ErrorContains(t, err, "GRAPHC_HOST_CPU=pentium9: not an x86-64 CPU of lower/targets")
	ok, why = HostCanExecute("", "")
	require.False(t, ok)
	require.Contains(t, why, "pentium9")

	if !slices.Contains(realFlags(), "avx512_fp16") {
		t.Setenv(HostCPUEnv, "sapphirerapids")
		_, err = HostCPU()
		require.ErrorContains(t, err, "this host cannot run that CPU's code")
	}
}

// TestHostUncapped: without a cap the host offers its /proc/cpuinfo flags.
func TestHostUncapped(t *testing.T) {
	t.Setenv(HostCPUEnv, "")
	if len(realFlags()) == 0 {
		t.Skip("no /proc/cpuinfo")
	}
	ok, why := HostCanExecute("", "")
	require.True(t, ok, why)
	ok, why = Native().CanExecute()
	require.True(t, ok, why)
	require.Equal(t, "native", Native().CPU)
	ok, why = HostCanExecute("skylake-avx512", "")
	require.Equal(t, slices.Contains(realFlags(), "avx512f") && slices.Contains(realFlags(), "avx512cd"), ok, why)
	if !ok {
		require.True(t, strings.HasPrefix(why, "host lacks "), why)
	}
}

// fakeTB records what CanRun logs.
type fakeTB struct{ logs, fatals []string }

func (f *fakeTB) Helper()                        {}
func (f *fakeTB) Logf(format string, a ...any)   { f.logs = append(f.logs, format) }
func (f *fakeTB) Fatalf(format string, a ...any) { f.fatals = append(f.fatals, format) }

// TestCanRunLogs: a machine the capped host cannot run is refused with a logged reason, and
// a batch built for it reports ErrCannotExecute instead of running.
func TestCanRunLogs(t *testing.T) {
	if !slices.Contains(realFlags(), "avx2") {
		t.Skip("needs an x86-64 host with AVX2")
	}
	t.Setenv(HostCPUEnv, "x86-64-v3")
	tb := &fakeTB{}
	require.False(t, CanRun(tb, Machine{Target: "x86-64", CPU: "skylake-avx512"}))
	require.Len(t, tb.logs, 1)
	require.Empty(t, tb.fatals)
	require.True(t, CanRun(tb, Host()))
	p := &BatchProgram{Machine: Machine{Target: "x86-64", CPU: "skylake-avx512"}, cases: []*Case{{}}, entry: []int{0}}
	res := p.Run(t.Context())
	require.ErrorIs(t, res[0].Err, ErrCannotExecute)
	require.ErrorContains(t, res[0].Err, "lacks avx512f")
}
