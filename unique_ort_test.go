package graphc_test

// This file compares Unique over run-time data (frontend/onnx's uniqueSorted: argsort, runs
// and a bounded count) with onnxruntime: sorted and in order of first appearance, all four
// outputs, on inputs with one value, all distinct and a few repeated.

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/internal/ortref"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
)

func TestUniqueMatchesORT(t *testing.T) {
	if why := ortref.Missing(); why != "" {
		t.Skip(why)
	}
	ctx := context.Background()
	r := rand.New(rand.NewPCG(35, 4))
	for _, sorted := range []int64{1, 0} {
		u := onnxgen.New("u", 13)
		u.Input("X", ir.F32, 10, 20)
		u.Node("Unique", "u", []string{"X"}, []string{"Y", "I", "V", "C"}, onnxgen.IntAttr("sorted", sorted))
		u.Output("Y", ir.F32, "n")
		u.Output("I", ir.I64, "n")
		u.Output("V", ir.I64, 200)
		u.Output("C", ir.I64, "n")
		path := filepath.Join(t.TempDir(), "u.onnx")
		require.NoError(t, u.Write(path))
		g, err := graphc.Load(ctx, path)
		require.NoError(t, err)
		for mode := range 3 {
			x := ir.NewTensor(ir.F32, []int64{10, 20})
			for i := range x.F {
				x.F[i] = []float64{1.5, float64((i * 7) % 200), float64(r.IntN(30)) - 10}[mode]
			}
			want, err := ortref.Run(ctx, path, []string{"X"}, []*ir.Tensor{x})
			require.NoError(t, err)
			got, err := eval.Run(g, map[string]*ir.Tensor{"X": x})
			require.NoError(t, err)
			for o := range 4 {
				require.Equal(t, want[o].Shape, got[o].Shape, "sorted %d mode %d output %d", sorted, mode, o)
				require.Equal(t, want[o].F, got[o].F, "sorted %d mode %d output %d", sorted, mode, o)
				require.Equal(t, want[o].I, got[o].I, "sorted %d mode %d output %d", sorted, mode, o)
			}
		}
	}
}
