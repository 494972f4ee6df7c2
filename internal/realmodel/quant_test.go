// This file checks the committed quantized models (models/export_quant.py --set tiny): a QDQ
// CNN with per-channel int8 weights, a transformer block with QDQ-quantized linear layers and a
// dynamically quantized linear layer, against onnxruntime's outputs to one quantization step,
// in the evaluator, as x86-64 code and as hexagonv67 code with integer HVX under qemu-hexagon.

package realmodel_test

import (
	"context"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/internal/realmodel"
)

// quantModels are the committed quantized models and the integer kernels their import must
// contain (the QDQ groups become conv_integer / matmul_integer, not float contractions).
var quantModels = map[string][]string{
	"qcnn_tiny":        {"conv_integer(", "matmul_integer(", "requantize("},
	"qxf_tiny":         {"matmul_integer(", "requantize("},
	"qlinear_dyn_tiny": {"matmul_integer("},
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
		text := res.Graph.String()
		for _, k := range kernels {
			require.Contains(t, text, k, "%s: integer kernel %s", name, k)
		}
		if name != "qlinear_dyn_tiny" {
			require.NotContains(t, text, " conv(", "%s: no float convolution is left", name)
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
