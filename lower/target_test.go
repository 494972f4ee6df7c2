package lower_test

import (
	"context"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/lower"
)

func TestPointerBits(t *testing.T) {
	x86, err := lower.LoadTarget("x86-64")
	require.NoError(t, err)
	require.Equal(t, 64, x86.PointerBits())
	require.Equal(t, int64(math.MaxInt64), x86.MaxObjectBytes())
	hex, err := lower.LoadTarget("hexagon")
	require.NoError(t, err)
	require.Equal(t, 32, hex.PointerBits())
	require.Equal(t, int64(math.MaxInt32), hex.MaxObjectBytes())
}

// TestObjectTooLarge: a 2 GiB tensor lowers for x86-64 and is rejected for Hexagon, whose
// 32-bit byte offsets would wrap.
func TestObjectTooLarge(t *testing.T) {
	parse := func() *ir.Graph {
		g, err := ir.Parse(`graph @main_graph(%x: f32[65536, 8192]) {
  %y = neg(%x) : f32[65536, 8192]
  return %y
}`)
		require.NoError(t, err)
		return g
	}
	x86, err := lower.LoadTarget("x86-64")
	require.NoError(t, err)
	_, err = lower.Lower(context.Background(), parse(), lower.Config{Target: x86})
	require.NoError(t, err)
	hex, err := lower.LoadTarget("hexagon")
	require.NoError(t, err)
	_, err = lower.Lower(context.Background(), parse(), lower.Config{Target: hex})
	require.ErrorContains(t, err, "input %x of type f32[65536, 8192]: more than 2147483647 bytes")
}

// TestCPUSpecs: every CPU spec loads, names itself, has a vector width that matches its
// features, and the x86 register tiles follow it and --mattr.
func TestCPUSpecs(t *testing.T) {
	n := 0
	for _, fam := range []string{"x86-64", "hexagon"} {
		tgt, err := lower.LoadTarget(fam)
		require.NoError(t, err)
		for _, c := range tgt.CPUs() {
			n++
			require.Equal(t, c.Name, c.CPU)
			require.Equal(t, tgt.Triple, c.Triple)
			require.NotEmpty(t, c.DataLayout)
			got, err := tgt.ForCPU(c.CPU)
			require.NoError(t, err)
			require.Equal(t, c.CPU, got.CPU)
			all := c.ImpliedFeatures + "," + c.Features
			want := 16
			switch {
			case fam == "hexagon":
				want = 128
				require.Contains(t, c.Features, "+hvx-length128b", c.CPU)
			case strings.Contains(all, "+avx512f"):
				want = 64
			case strings.Contains(all, "+avx"):
				want = 32
			}
			require.Equal(t, want, c.VectorBytes, c.CPU)
		}
	}
	require.GreaterOrEqual(t, n, 20)
	_, err := lower.LoadTarget("hexagon-common")
	require.ErrorContains(t, err, "shared fields")
	x86, err := lower.LoadTarget("x86-64")
	require.NoError(t, err)
	_, err = x86.ForCPU("hexagonv67")
	require.ErrorContains(t, err, `unknown CPU "hexagonv67" for target x86-64 (valid: alderlake,`)
	hex, err := lower.LoadTarget("hexagon")
	require.NoError(t, err)
	_, err = hex.ForCPU("hexagonv60")
	require.ErrorContains(t, err, "valid: hexagonv66, hexagonv67, hexagonv68, hexagonv69, hexagonv73, hexagonv75")
	_, err = hex.ForCPU("native")
	require.ErrorContains(t, err, "only for x86-64")
}

func TestMergeFeatures(t *testing.T) {
	for _, c := range [][3]string{
		{"+hvxv68,+hvx-length128b", "", "+hvxv68,+hvx-length128b"},
		{"+hvxv68,+hvx-length128b", "-hvx", "-hvx"},
		{"+hvxv68,+hvx-length128b", "-hvxv68,+hvxv67", "+hvx-length128b,-hvxv68,+hvxv67"},
		{"", "+avx2", "+avx2"},
		{"+a,+b", "+a", "+b,+a"},
		{"+a,-b", "+b", "+a,+b"},
	} {
		require.Equal(t, c[2], lower.MergeFeatures(c[0], c[1]), "%q + %q", c[0], c[1])
	}
}

// TestReadmeCPUTable: the README's table is CPUTable's.
func TestReadmeCPUTable(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	require.Contains(t, string(readme), lower.CPUTable(), "README.md: paste lower.CPUTable() under \"Targets and CPUs\"")
}
