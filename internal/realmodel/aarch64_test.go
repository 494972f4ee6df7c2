package realmodel_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/internal/realmodel"
)

// skipWithoutAArch64 skips t unless AArch64 programs can be built and run under qemu.
func skipWithoutAArch64(t *testing.T) {
	t.Helper()
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	if why := e2e.AArch64Missing(); why != "" {
		t.Skip("AArch64 under qemu: " + why)
	}
}

// runAArch64 compiles m with the default pipeline as AArch64 code for cpu, runs its data sets
// under qemu-aarch64 (one program) and compares with the reference outputs.
func runAArch64(t *testing.T, m *realmodel.Model, cpu string) {
	ctx := context.Background()
	res, err := graphc.Compile(ctx, m.Path, graphc.WithTarget("aarch64"), graphc.WithCPU(cpu))
	require.NoError(t, err)
	var cases []*e2e.Case
	for _, s := range m.Sets {
		params, err := realmodel.Params(res.Graph, s.Inputs)
		require.NoError(t, err, s.Name)
		cases = append(cases, &e2e.Case{Graph: res.Graph, Inputs: s.Inputs, Params: params})
	}
	p, err := e2e.BuildBatch(ctx, t.TempDir(), e2e.AArch64(cpu), cases)
	require.NoError(t, err)
	for i, r := range p.Run(ctx) {
		s := m.Sets[i]
		require.NoError(t, r.Err, s.Name)
		require.Zero(t, r.Status, s.Name)
		require.Len(t, r.Outputs, len(s.Outputs), s.Name)
		for k := range r.Outputs {
			_, err := realmodel.Compare(r.Outputs[k], s.Outputs[k], m.Tolerance())
			require.NoError(t, err, "%s output %d", s.Name, k)
		}
	}
}

// TestTinyModelsAArch64 runs every committed export as AArch64 code for the baseline CPU
// (NEON) and for cortex-x2 (dotprod, i8mm: the integer kernels use usdot) under qemu-aarch64.
func TestTinyModelsAArch64(t *testing.T) {
	skipWithoutAArch64(t)
	names, err := realmodel.List(tinyDir)
	require.NoError(t, err)
	require.NotEmpty(t, names)
	for _, cpu := range []string{"generic", "cortex-x2"} {
		for _, name := range names {
			t.Run(cpu+"/"+name, func(t *testing.T) {
				m, err := realmodel.Load(tinyDir, name)
				require.NoError(t, err)
				runAArch64(t, m, cpu)
			})
		}
	}
}

// cachedAArch64Models are the full-size exports run as cortex-a76 code (sdot): ResNet-18,
// MobileNetV2, the GPT-2 decoder and the quantized ResNet-18, where exported.
var cachedAArch64Models = []string{"resnet18", "mobilenet_v2", "gpt2", "qresnet18", "qcnn"}

// TestCachedModelsAArch64 runs the full-size models of cachedAArch64Models under qemu-aarch64
// as cortex-a76 code, the quantized ones as cortex-x2 code too; models that are not exported
// are skipped.
func TestCachedModelsAArch64(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ResNet-18 and MobileNetV2 under qemu-aarch64")
	}
	skipWithoutAArch64(t)
	dir := realmodel.DefaultDir()
	for _, name := range cachedAArch64Models {
		t.Run(name, func(t *testing.T) {
			if _, err := os.Stat(filepath.Join(dir, name, "model.onnx")); err != nil {
				t.Skipf("%s is not exported in %s (make models, make models-quant)", name, dir)
			}
			m, err := realmodel.Load(dir, name)
			require.NoError(t, err)
			runAArch64(t, m, "cortex-a76")
			if m.QuantStep > 0 {
				runAArch64(t, m, "cortex-x2") // usmmla matrix products, usdot convolutions
			}
		})
	}
}
