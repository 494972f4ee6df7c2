package conformance

// This file runs graphc's tests of onnxruntime's com.microsoft operators and of ONNX Attention
// with past state (testdata/msft, written by models/export_msft.py with onnxruntime-node's
// outputs) in the evaluator after the default pipeline, and as x86-64 code for the host.

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/e2e"
)

const msftSuite = "../../testdata/msft"

// TestMsftOpsEvaluator: every case passes in the evaluator, none is skipped.
func TestMsftOpsEvaluator(t *testing.T) {
	rs, err := RunAll(context.Background(), msftSuite, "", defaultPrep(t), EvalExecutor)
	require.NoError(t, err)
	require.NotEmpty(t, rs)
	p, f, s := Summary(rs)
	t.Logf("%d passed, %d failed, %d skipped", p, f, s)
	require.Zero(t, f+s, "\n%s", Table(rs, true))
}

// TestMsftOpsCompiled: every case passes as x86-64 code for the host's CPU.
func TestMsftOpsCompiled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds native code")
	}
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	rs, err := RunAllCompiled(context.Background(), msftSuite, "", defaultPrep(t), CompiledOptions{Machine: e2e.Native()})
	require.NoError(t, err)
	p, f, s := Summary(rs)
	t.Logf("%d passed, %d failed, %d skipped", p, f, s)
	require.Zero(t, f+s, "\n%s", Table(rs, true))
}
