package graphc_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
)

// TestEndToEndRepeatedLayers compiles models of repeated layers (MLP, transformer): the ops
// of identical layers share their kernels, so doubling the layers adds no kernel, and the
// compiled code computes what the evaluator does.
func TestEndToEndRepeatedLayers(t *testing.T) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	families := []struct {
		name  string
		build func(layers int) *onnxgen.Model
	}{
		{"mlp", func(l int) *onnxgen.Model { return mlpLayers(3 * l) }},
		{"transformer", func(l int) *onnxgen.Model { return onnxgen.TransformerLayers(l, 8, 16) }},
	}
	r := rand.New(rand.NewPCG(3, 4))
	for _, fam := range families {
		kernels := map[int]int{}
		for _, layers := range []int{3, 6} {
			t.Run(fmt.Sprintf("%s-%d", fam.name, layers), func(t *testing.T) {
				dir := t.TempDir()
				path := filepath.Join(dir, "m.onnx")
				require.NoError(t, fam.build(layers).Write(path))
				res, err := graphc.Compile(ctx, path)
				require.NoError(t, err)
				ll := filepath.Join(dir, "m.ll")
				require.NoError(t, os.WriteFile(ll, []byte(res.LLVM), 0o644))
				if err := e2e.Verify(ctx, ll); err != nil && !strings.Contains(err.Error(), "not found") {
					t.Fatal(err)
				}
				kernels[layers] = strings.Count(res.LLVM, "\ndefine internal i32 @main_graph.k")
				require.Len(t, res.Module.Entries[0].Strategies, len(res.Graph.Ops))
				x := res.Graph.Inputs[0]
				shape, ok := x.Type.StaticShape()
				require.True(t, ok)
				in := e2e.RandomTensor(r, ir.F32, shape)
				prog, err := e2e.Build(ctx, dir, res.Graph, res.Module)
				require.NoError(t, err)
				got, _, err := prog.Run(ctx, []*ir.Tensor{in}, nil, 1)
				require.NoError(t, err)
				want, err := eval.Run(res.Graph, map[string]*ir.Tensor{x.Name: in})
				require.NoError(t, err)
				require.NoError(t, e2e.Compare(got[0], want[0], 1e-5, 1e-6, nil))
			})
		}
		require.Equal(t, kernels[3], kernels[6], "%s: 6 layers need no kernel that 3 layers lack", fam.name)
		t.Logf("%s: %d kernels", fam.name, kernels[6])
	}
}
