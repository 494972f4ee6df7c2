// This file checks the committed quantized models (models/export_quant.py --set tiny): a QDQ
// CNN with per-channel int8 weights, a transformer block with QDQ-quantized linear layers and a
// dynamically quantized linear layer, against onnxruntime's outputs to one quantization step,
// in the evaluator, as x86-64 code and as hexagonv67 code with integer HVX under qemu-hexagon.

package realmodel_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/internal/realmodel"
	"github.com/graphc/graphc/ir"
)

// quantModels are the committed quantized models and the integer kernels their compiled x86-64
// code must run (the QDQ groups become integer contractions, on dot-product kernels).
var quantModels = map[string][]string{
	"qcnn_tiny":        {"int-dot sse2-pmaddwd conv-nhwc", "int-dot sse2-pmaddwd gemm"},
	"qxf_tiny":         {"int-dot sse2-pmaddwd gemm"},
	"qlinear_dyn_tiny": {"int-dot sse2-pmaddwd gemm"},
}

func TestQuantModels(t *testing.T) {
	ctx := context.Background()
	var cases []*e2e.Case
	var models []*realmodel.Model
	for name, kernels := range quantModels {
		m, err := realmodel.Load(tinyDir, name)
		require.NoError(t, err)
		require.Equal(t, "onnxruntime-node", m.Reference, "%s: the reference of a quantized model is onnxruntime", name)
		res, err := graphc.Compile(ctx, m.Path)
		require.NoError(t, err, name)
		strats := strings.Join(res.Module.Entries[0].Strategies, "\n")
		for _, k := range kernels {
			require.Contains(t, strats, k, "%s: integer kernel %s", name, k)
		}
		for i, op := range res.Graph.Ops {
			if op.Reduce == ir.ReduceSum && op.Result.Type.Elem == ir.I32 {
				require.Contains(t, res.Module.Entries[0].Strategies[i], "int-dot", "%s: every integer contraction", name)
			}
			if op.Reduce == ir.ReduceSum && op.Result.Type.Elem == ir.F32 && op.NDim() == 7 {
				t.Errorf("%s: a float convolution is left: %s", name, op.Result.Name)
			}
		}
		_, err = realmodel.CheckSets(ctx, m, res.Graph, evalRunner{res.Graph}, m.Tolerance())
		require.NoError(t, err, "%s: evaluator", name)
		models = append(models, m)
		cases = append(cases, &e2e.Case{Graph: res.Graph, Inputs: m.Sets[0].Inputs})
	}
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	machines := []e2e.Machine{e2e.Host()}
	if _, err := exec.LookPath("qemu-hexagon"); err == nil {
		machines = append(machines, e2e.HexagonHVX())
	} else {
		t.Log("qemu-hexagon not installed: x86-64 only")
	}
	for _, mach := range machines {
		p, err := e2e.BuildBatch(ctx, t.TempDir(), mach, cases)
		require.NoError(t, err, mach.String())
		if mach.Target == "hexagon" {
			require.Contains(t, p.Mod.String(), "@llvm.hexagon.V6.vrmpybusv.acc.128B", "HVX vrmpy integer kernels")
		}
		for i, r := range p.Run(ctx) {
			m := models[i]
			require.NoError(t, r.Err, "%s on %s", m.Name, mach)
			require.Zero(t, r.Status, "%s on %s", m.Name, mach)
			for k, w := range m.Sets[0].Outputs {
				_, err := realmodel.Compare(r.Outputs[k], w, m.Tolerance())
				require.NoError(t, err, "%s on %s, output %d", m.Name, mach, k)
			}
		}
	}
}
