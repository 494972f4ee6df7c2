package realmodel_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/internal/realmodel"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
	"github.com/graphc/graphc/passes"
)

// tinyDir holds the committed tiny exports (models/export.py --set tiny).
var tinyDir = filepath.Join("..", "..", "testdata", "realmodels")

// evalRunner runs a graph in the reference evaluator.
type evalRunner struct{ g *ir.Graph }

func (r evalRunner) Run(ctx context.Context, inputs []*ir.Tensor, params map[string]int64, _ int) ([]*ir.Tensor, float64, error) {
	in := map[string]*ir.Tensor{}
	for k, v := range r.g.Inputs {
		in[v.Name] = inputs[k]
	}
	out, err := eval.Run(r.g, in, eval.WithParams(params), eval.WithContext(ctx))
	return out, 0, err
}

// TestTinyModels compiles every committed PyTorch export with the default pipeline and with
// none, runs each data set (the dynamic-axes exports: compiled once, two sequence lengths)
// as x86-64 code and in the evaluator, and compares with PyTorch's outputs.
func TestTinyModels(t *testing.T) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	if _, err := exec.LookPath("clang-19"); err != nil {
		t.Skip("clang-19 not installed")
	}
	names, err := realmodel.List(tinyDir)
	require.NoError(t, err)
	require.NotEmpty(t, names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			m, err := realmodel.Load(tinyDir, name)
			require.NoError(t, err)
			for _, pl := range []struct{ name, pipeline string }{{"default", passes.DefaultPipeline}, {"none", ""}} {
				res, err := graphc.Compile(ctx, m.Path, graphc.WithPipeline(pl.pipeline))
				require.NoError(t, err, pl.name)
				_, err = realmodel.CheckSets(ctx, m, res.Graph, evalRunner{res.Graph}, m.Tolerance())
				require.NoError(t, err, "evaluator, pipeline %s", pl.name)
				prog, err := e2e.Build(ctx, t.TempDir(), res.Graph, res.Module)
				require.NoError(t, err, pl.name)
				tol := m.Tolerance()
				if pl.pipeline == "" && m.QDQ && m.QuantStep > 0 {
					// without the passes a QDQ model runs dequantize -> float op -> quantize, and
					// compiled float sums accumulate in vector lanes (reassociated): a value on a
					// rounding boundary of one layer moves by a step, which the next layers
					// amplify; the integer kernels of the default pipeline keep one step.
					// Models without QuantizeLinear (4-bit weights, level-4 MatMulNBits)
					// keep their one-step tolerance in both pipelines.
					tol.Abs = 4 * m.QuantStep
				}
				_, err = realmodel.CheckSets(ctx, m, res.Graph, prog, tol)
				require.NoError(t, err, "compiled, pipeline %s", pl.name)
			}
		})
	}
}

// TestLoadSeesQDQ checks that Load tells a model that quantizes activations from one whose
// only quantization is in its weights: TestTinyModels widens the no-pass tolerance for the
// first kind only.
func TestLoadSeesQDQ(t *testing.T) {
	for name, want := range map[string]bool{"qcnn_tiny": true, "llama_nbits_tiny_acc4": false, "cnn_tiny": false} {
		m, err := realmodel.Load(tinyDir, name)
		require.NoError(t, err)
		assert.Equal(t, want, m.QDQ, name)
	}
}
