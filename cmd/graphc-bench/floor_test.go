package main

import (
	"context"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/internal/onnxgen"
)

// TestParseFloor: minimum and median per column (ns to ms), and the median of the per-call
// ratios, which differs from the ratio of the medians.
func TestParseFloor(t *testing.T) {
	out := "4000000 3900000 1000000 1000000 2000000 2000000\n" +
		"3000000 3000000 2000000 1900000 2500000 2400000\n" +
		"9000000 4100000 1500000 1500000 3000000 2900000\n"
	s, err := parseFloor(out)
	require.NoError(t, err)
	require.InDelta(t, 3.0, s.kernel.min, 1e-9)
	require.InDelta(t, 4.0, s.kernel.med, 1e-9)
	require.InDelta(t, 3.9, s.kernel.cpuMed, 1e-9)
	require.InDelta(t, 1.0, s.packed.min, 1e-9)
	require.InDelta(t, 1.5, s.packed.med, 1e-9)
	require.InDelta(t, 2.5, s.all.med, 1e-9)
	require.InDelta(t, 4.0, s.ratioPacked, 1e-9) // per call 4, 1.5, 6
	require.InDelta(t, 3.0, s.minRatioP, 1e-9)
	require.InDelta(t, 4.1/2.9, s.cpuRatioAll, 1e-9) // per call 1.95, 1.25, 1.41
	_, err = parseFloor("1 2 3\n")
	require.Error(t, err)
}

// TestFloorRun builds a small MatMulNBits GEMV with its weights in a file and times it beside
// the reads of its weights (baseline x86-64 code, three calls each): both modes report, the
// kernel's time is positive and the reads' are not negative (2 MB of packed weights).
func TestFloorRun(t *testing.T) {
	if !e2e.CanRun(t, e2e.Host()) {
		return
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "model.onnx")
	require.NoError(t, onnxgen.MatMulNBits(1, 4096, 1024, 32, true).Write(path))
	cpu, calls := benchCPU, floorCalls
	benchCPU, floorCalls = "x86-64", 3
	defer func() { benchCPU, floorCalls = cpu, calls }()
	out, err := floorRun(context.Background(), path, dir, 1)
	require.NoError(t, err)
	for _, mode := range []string{"warm", "cold"} {
		m := regexp.MustCompile(mode + `: graphc min ([0-9.]+) med [0-9.]+ \(cpu [0-9.]+\) ms \| packed read min ([0-9.]+)`).FindStringSubmatch(out)
		require.NotNil(t, m, out)
		k, err := strconv.ParseFloat(m[1], 64)
		require.NoError(t, err)
		require.Greater(t, k, 0.0, out)
		r, err := strconv.ParseFloat(m[2], 64)
		require.NoError(t, err)
		require.GreaterOrEqual(t, r, 0.0, out)
	}
}
