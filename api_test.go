package graphc_test

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/lower"
)

// cancelOnWrite is a dump writer that cancels a compilation when the pass manager first
// prints to it, so that the test cancels at a known point of the pipeline.
type cancelOnWrite struct {
	once   sync.Once
	cancel context.CancelFunc
}

func (c *cancelOnWrite) Write(p []byte) (int, error) {
	c.once.Do(c.cancel)
	return len(p), nil
}

// TestCompileCancellation: a cancelled context stops the compilation with ctx.Err(), whether
// it is cancelled before the start, between passes or before lowering.
func TestCompileCancellation(t *testing.T) {
	p := filepath.Join(t.TempDir(), "mlp.onnx")
	require.NoError(t, mlpLayers(300).Write(p))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := graphc.Compile(ctx, p)
	require.ErrorIs(t, err, context.Canceled)
	require.False(t, errors.Is(err, graphc.ErrInput), "cancellation is not bad input")

	for _, after := range []string{"remove-empty", "dce"} {
		ctx, cancel := context.WithCancel(context.Background())
		w := &cancelOnWrite{cancel: cancel}
		res, err := graphc.Compile(ctx, p, graphc.WithPrintIRAfter(after), graphc.WithDumpWriter(w))
		require.ErrorIs(t, err, context.Canceled, "cancelled after %s", after)
		require.Nil(t, res)
		cancel()
	}
}

// TestCompileConcurrently: compilations share no mutable state; concurrent ones produce the
// same module as a sequential one (run with -race to check for data races).
func TestCompileConcurrently(t *testing.T) {
	p := filepath.Join(t.TempDir(), "mlp.onnx")
	require.NoError(t, mlpLayers(30).Write(p))
	want, err := graphc.Compile(context.Background(), p, graphc.WithRequire("act9[i, j] : i = 7"))
	require.NoError(t, err)
	var wg sync.WaitGroup
	got := make([]string, 4)
	errs := make([]error, 4)
	for k := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			target := "x86-64"
			if k%2 == 1 {
				target = "hexagon"
			}
			res, err := graphc.Compile(context.Background(), p, graphc.WithTarget(target),
				graphc.WithRequire("act9[i, j] : i = 7"), graphc.WithDumpWriter(io.Discard))
			errs[k] = err
			if err == nil {
				got[k] = res.LLVM
			}
		}()
	}
	wg.Wait()
	for k := range got {
		require.NoError(t, errs[k])
		if k%2 == 0 {
			require.Equal(t, want.LLVM, got[k])
		} else {
			require.Contains(t, got[k], "hexagon")
		}
	}
}

// TestResultPlan: Result.Plan prints the lowering plan of the entry (graphc --emit=plan): one
// op block per op, the shared kernels of the repeated layers, the entry named by WithEntry.
func TestResultPlan(t *testing.T) {
	p := filepath.Join(t.TempDir(), "mlp.onnx")
	require.NoError(t, mlpLayers(12).Write(p))
	res, err := graphc.Compile(context.Background(), p, graphc.WithEntry("net"), graphc.WithCPU("skylake-avx512"))
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(res.Plan, "plan net: x86-64 cpu=skylake-avx512 "), res.Plan)
	require.Equal(t, len(res.Graph.Ops), strings.Count(res.Plan, "\nop "), res.Plan)
	require.Equal(t, res.Module.Plan(), res.Plan)
	require.Contains(t, res.Plan, "(shared with op ", "repeated layers share kernels")
	require.Len(t, res.Module.Entries[0].Plan.Ops, len(res.Graph.Ops))
}

// TestPrintLoweringAfter: lowering dumps go to the dump writer, one per stage named; a name that
// is not a stage is a usage error wrapping lower.ErrUnknownStage.
func TestPrintLoweringAfter(t *testing.T) {
	p := filepath.Join(t.TempDir(), "mlp.onnx")
	require.NoError(t, mlpLayers(3).Write(p))
	var dump strings.Builder
	res, err := graphc.Compile(context.Background(), p, graphc.WithPrintLoweringAfter("kernels"), graphc.WithPrintLoweringAfter("regions"), graphc.WithDumpWriter(&dump))
	require.NoError(t, err)
	require.Equal(t, 2, strings.Count(dump.String(), "// -----// Lowering Dump After "))
	regions := strings.Index(dump.String(), "Lowering Dump After regions")
	kernels := strings.Index(dump.String(), "Lowering Dump After kernels")
	require.True(t, regions >= 0 && regions < kernels, "in stage order: %s", dump.String())
	plain, err := graphc.Compile(context.Background(), p)
	require.NoError(t, err)
	require.Equal(t, plain.LLVM, res.LLVM)

	_, err = graphc.Compile(context.Background(), p, graphc.WithPrintLoweringAfter("kernel"))
	require.ErrorIs(t, err, graphc.ErrUsage)
	require.ErrorIs(t, err, lower.ErrUnknownStage)
	require.ErrorContains(t, err, `(did you mean "kernels"?); stages are: regions, buffers, kernels, entry (or all)`)

	// cancelled while lowering (the kernels stage checks ctx): cancellation, not bad input
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err = graphc.Compile(ctx, p, graphc.WithPrintLoweringAfter("regions"), graphc.WithDumpWriter(&cancelOnWrite{cancel: cancel}))
	require.ErrorIs(t, err, context.Canceled)
	require.False(t, errors.Is(err, graphc.ErrInput), "cancellation is not bad input")
}

// TestWithoutLLVMText: the module is lowered but not printed (Result.LLVM empty), and printing
// Result.Module gives the text Compile would have kept.
func TestWithoutLLVMText(t *testing.T) {
	p := filepath.Join(t.TempDir(), "mlp.onnx")
	require.NoError(t, mlpLayers(3).Write(p))
	want, err := graphc.Compile(context.Background(), p)
	require.NoError(t, err)
	require.NotEmpty(t, want.LLVM)
	res, err := graphc.Compile(context.Background(), p, graphc.WithoutLLVMText())
	require.NoError(t, err)
	require.Empty(t, res.LLVM)
	require.NotNil(t, res.Module)
	require.Equal(t, want.LLVM, res.Module.String())
}
