// This file checks the committed quantized models (models/export_quant.py --set tiny): a QDQ
// CNN with per-channel int8 weights, a transformer block with QDQ-quantized linear layers and a
// dynamically quantized linear layer, against onnxruntime's outputs to one quantization step,
// in the evaluator, as x86-64 code and as hexagonv67 code with integer HVX under qemu-hexagon.

package realmodel_test

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
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
		// recorded with exact u8×s8 sums (a VNNI host; the outputs equal graphc's exact
		// integer arithmetic), so the comparison does not depend on any host's ISA
		require.Equal(t, "exact", m.ReferenceU8S8, "%s: committed references must not saturate", name)
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
	runQuantModels(t, models, cases, true)
}

// runQuantModels runs the cases as x86-64 code and, where qemu-hexagon is installed, as
// hexagonv67 code with integer HVX (whose integer kernels must be vrmpy code), and compares the
// outputs with onnxruntime's (quantReference: exact ones) to the models' tolerance (one
// quantization step).
func runQuantModels(t *testing.T, models []*realmodel.Model, cases []*e2e.Case, hexagon bool) {
	t.Helper()
	ctx := context.Background()
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	want := make([][]*ir.Tensor, len(models))
	for i, m := range models {
		want[i] = quantReference(ctx, t, m, cases[i])
	}
	machines := []e2e.Machine{e2e.Host()}
	if _, err := exec.LookPath("qemu-hexagon"); err != nil {
		t.Log("qemu-hexagon not installed: x86-64 only")
	} else if hexagon {
		machines = append(machines, e2e.HexagonHVX())
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
			for k, w := range want[i] {
				e, err := realmodel.Compare(r.Outputs[k], w, m.Tolerance())
				require.NoError(t, err, "%s on %s, output %d", m.Name, mach, k)
				t.Logf("%s on %s, output %d: largest error %.2g of the output's scale (quantization step %.3g)", m.Name, mach, k, e, m.QuantStep)
			}
		}
	}
}

// quantReference returns the outputs m's compiled code must match: onnxruntime's, unless it
// recorded them summing u8×s8 products with vpmaddubsw (x86 without VNNI), which saturates a
// pair of products at 2^15 where full-range int8 weights reach it (an AVX2 host gave -203631
// for an exact -204241); then the evaluator's exact integer arithmetic, which graphc's
// kernels (pmaddwd on widened bytes, VNNI, HVX vrmpy) compute on every host. An export that
// does not say (before meta.json's reference_u8s8) was made on this host.
func quantReference(ctx context.Context, t *testing.T, m *realmodel.Model, c *e2e.Case) []*ir.Tensor {
	t.Helper()
	saturating := m.ReferenceU8S8 == "saturating"
	if m.ReferenceU8S8 == "" {
		vnni512, _ := e2e.HostCanExecute("", "+avx512vnni")
		vnni256, _ := e2e.HostCanExecute("", "+avxvnni")
		saturating = runtime.GOARCH == "amd64" && !vnni512 && !vnni256
	}
	if !saturating {
		return m.Sets[0].Outputs
	}
	t.Logf("%s: onnxruntime's reference saturates u8×s8 sums (x86 without VNNI): compared with the exact evaluator", m.Name)
	out, _, err := evalRunner{c.Graph}.Run(ctx, c.Inputs, c.Params, 1)
	require.NoError(t, err, "%s: evaluator", m.Name)
	return out
}

var quantHexagon = flag.Bool("quant-hexagon", false, "TestCachedQuantModels: also run the full-size quantized models as hexagonv67 HVX under qemu-hexagon (about 30 minutes: MobileNetV2's Hexagon build takes most)")

// cachedQuantModels are the full-size quantized models of the real-model set
// (models/export_quant.py, cached outside git).
var cachedQuantModels = []string{"qcnn", "qresnet18", "qmobilenet_v2", "qxf", "qlinear_dyn"}

// TestCachedQuantModels runs the full-size quantized models (a QDQ CNN, ResNet-18 and
// MobileNetV2 with per-channel int8 weights, two QDQ transformer blocks, a dynamically
// quantized linear layer) as x86-64 code and, with -quant-hexagon, as hexagonv67 code with
// integer HVX under qemu-hexagon, against onnxruntime's outputs to one quantization step.
// Every integer contraction must run on a dot-product kernel. Models that are not exported
// are skipped.
func TestCachedQuantModels(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ResNet-18 and MobileNetV2 under qemu-hexagon")
	}
	dir := realmodel.DefaultDir()
	for _, name := range cachedQuantModels {
		t.Run(name, func(t *testing.T) {
			if _, err := os.Stat(filepath.Join(dir, name, "model.onnx")); err != nil {
				t.Skipf("%s is not exported in %s (python3 models/export_quant.py)", name, dir)
			}
			m, err := realmodel.Load(dir, name)
			require.NoError(t, err)
			require.Equal(t, "onnxruntime-node", m.Reference)
			res, err := graphc.Compile(context.Background(), m.Path)
			require.NoError(t, err)
			n := 0
			for i, op := range res.Graph.Ops {
				if op.Reduce == ir.ReduceSum && op.Result.Type.Elem == ir.I32 {
					require.Contains(t, res.Module.Entries[0].Strategies[i], "int-dot", "every integer contraction: %s", op.Result.Name)
					n++
				}
			}
			require.NotZero(t, n, "no integer contraction")
			runQuantModels(t, []*realmodel.Model{m}, []*e2e.Case{{Graph: res.Graph, Inputs: m.Sets[0].Inputs}}, *quantHexagon)
		})
	}
}

// TestQuantReferenceSaturating: a reference recorded where onnxruntime saturates is replaced
// by the evaluator's exact outputs, which equal the committed exact reference.
func TestQuantReferenceSaturating(t *testing.T) {
	ctx := context.Background()
	m, err := realmodel.Load(tinyDir, "qlinear_dyn_tiny")
	require.NoError(t, err)
	res, err := graphc.Compile(ctx, m.Path)
	require.NoError(t, err)
	c := &e2e.Case{Graph: res.Graph, Inputs: m.Sets[0].Inputs}
	require.Same(t, m.Sets[0].Outputs[0], quantReference(ctx, t, m, c)[0], "an exact reference is used as it is")
	m.ReferenceU8S8 = "saturating"
	got := quantReference(ctx, t, m, c)
	require.NotSame(t, m.Sets[0].Outputs[0], got[0])
	_, err = realmodel.Compare(got[0], m.Sets[0].Outputs[0], m.Tolerance())
	require.NoError(t, err)
}
