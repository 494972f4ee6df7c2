package realmodel_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/internal/realmodel"
)

// TestTinyModelsAArch64 compiles every committed export with the default pipeline as AArch64
// code, for the baseline CPU (NEON) and for cortex-x2 (dotprod, i8mm: the integer kernels use
// usdot), runs its data sets under qemu-aarch64 (one program per model) and compares with the
// reference outputs.
func TestTinyModelsAArch64(t *testing.T) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	if why := e2e.AArch64Missing(); why != "" {
		t.Skip("AArch64 under qemu: " + why)
	}
	names, err := realmodel.List(tinyDir)
	require.NoError(t, err)
	require.NotEmpty(t, names)
	for _, cpu := range []string{"generic", "cortex-x2"} {
		for _, name := range names {
			t.Run(cpu+"/"+name, func(t *testing.T) {
				ctx := context.Background()
				m, err := realmodel.Load(tinyDir, name)
				require.NoError(t, err)
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
			})
		}
	}
}
