package realmodel_test

// This file runs the committed onnxruntime-genai-style decoder (llama_nbits_tiny) compiled
// for x86-64-v3 (AVX2): its sequence length is symbolic, so every MatMulNBits counts its rows
// and runs the nbits-gemm form (lower/nbits_gemm.go) for a prefill (set 0, 64 rows) and the
// nibble-lane form of nbits-gemv (lower/nbits_lanes.go) for a decode step (set 1, one row).
// Its data sets are checked as TestTinyModels checks.

import (
	"context"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/internal/realmodel"
)

func TestNBitsDecoderAVX2(t *testing.T) {
	ctx := context.Background()
	m, res := compileTinyV3(t, "llama_nbits_tiny")
	require.Contains(t, res.Module.String(), "nbits.group.body", "the nibble-lane form")
	require.Contains(t, res.Module.String(), "nbits.tk.body", "the GEMM form's register tiles")
	prog, err := e2e.Build(ctx, t.TempDir(), res.Graph, res.Module)
	require.NoError(t, err)
	_, err = realmodel.CheckSets(ctx, m, res.Graph, prog, m.Tolerance())
	require.NoError(t, err)
}

// TestNBitsDecoderAVX2Level4 runs the same decoder at accuracy_level 4 (llama_nbits_tiny_acc4,
// as onnxruntime-genai's builder writes 4-bit models for the CPU provider) compiled for
// x86-64-v3: every MatMulNBits is matmul_nbits_q8 in the integer form (lower/nbits_q8.go),
// in groups of rows for the prefill and one row for the decode step, one build for both sets.
func TestNBitsDecoderAVX2Level4(t *testing.T) {
	ctx := context.Background()
	m, res := compileTinyV3(t, "llama_nbits_tiny_acc4")
	ll := res.Module.String()
	require.Contains(t, ll, "nbits.q8pair", "the integer form")
	require.NotContains(t, ll, "nbits.group.body", "no float nibble lanes at level 4")
	prog, err := e2e.Build(ctx, t.TempDir(), res.Graph, res.Module)
	require.NoError(t, err)
	_, err = realmodel.CheckSets(ctx, m, res.Graph, prog, m.Tolerance())
	require.NoError(t, err)
}

// compileTinyV3 loads the committed tiny model name and compiles it for x86-64-v3, skipping
// where clang-19 is missing or the host cannot run AVX2 code.
func compileTinyV3(t *testing.T, name string) (*realmodel.Model, *graphc.Result) {
	t.Helper()
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	if _, err := exec.LookPath("clang-19"); err != nil {
		t.Skip("clang-19 not installed")
	}
	if ok, why := e2e.HostCanExecute("x86-64-v3", ""); !ok {
		t.Skip(why)
	}
	m, err := realmodel.Load(tinyDir, name)
	require.NoError(t, err)
	res, err := graphc.Compile(context.Background(), m.Path, graphc.WithCPU("x86-64-v3"))
	require.NoError(t, err)
	return m, res
}
