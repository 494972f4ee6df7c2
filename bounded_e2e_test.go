package graphc_test

// This file runs the data-dependent ops over run-time data as compiled x86-64 code (bounded
// dims, ir.BoundedDim): NonZero, Compress and TopK with a computed k, on random inputs, inputs
// where nothing is selected (count 0) and inputs where everything is (the bound reached),
// against the reference evaluator on the imported graph.

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
)

// selection returns a tensor whose elements are all zero (mode 0), all non-zero (1) or about
// half zero (2); non-zero values are random, of either sign.
func selection(r *rand.Rand, elem ir.DType, shape []int64, mode int) *ir.Tensor {
	t := e2e.RandomTensor(r, elem, shape)
	for i := 0; i < t.Len(); i++ {
		zero := mode == 0 || mode == 2 && r.IntN(2) == 0
		switch {
		case elem == ir.Bool:
			t.I[i] = 1
			if zero {
				t.I[i] = 0
			}
		case elem.IsFloat():
			if zero {
				t.F[i] = 0
			} else if t.F[i] == 0 {
				t.F[i] = 1
			}
		default:
			if zero {
				t.I[i] = 0
			} else if t.I[i] == 0 {
				t.I[i] = 1
			}
		}
	}
	return t
}

func TestBoundedDimsCompiled(t *testing.T) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	nz := onnxgen.New("nz", 13)
	nz.Input("X", ir.F32, 3, 5, 4)
	nz.Node("NonZero", "nz", []string{"X"}, []string{"Y"})
	nz.Output("Y", ir.I64, 3, "n")
	cp := onnxgen.New("c", 13)
	cp.Input("X", ir.F32, 4, 7)
	cp.Input("C", ir.Bool, 6)
	cp.Node("Compress", "c", []string{"X", "C"}, []string{"Y"}, onnxgen.IntAttr("axis", 1))
	cp.Node("Relu", "r", []string{"Y"}, []string{"Z"})
	cp.Output("Z", ir.F32, 4, "n")
	tk := onnxgen.New("t", 13)
	tk.Input("X", ir.F32, 3, 9)
	tk.Input("K", ir.I64, 1)
	tk.Node("TopK", "t", []string{"X", "K"}, []string{"V", "I"}, onnxgen.IntAttr("axis", 1), onnxgen.IntAttr("largest", 0))
	tk.Output("V", ir.F32, 3, "k")
	tk.Output("I", ir.I64, 3, "k")
	r := rand.New(rand.NewPCG(35, 1))
	cases := []struct {
		name   string
		model  *onnxgen.Model
		inputs func(mode, trial int) []*ir.Tensor
	}{
		{"nonzero", nz, func(mode, _ int) []*ir.Tensor { return []*ir.Tensor{selection(r, ir.F32, []int64{3, 5, 4}, mode)} }},
		{"compress", cp, func(mode, _ int) []*ir.Tensor {
			return []*ir.Tensor{e2e.RandomTensor(r, ir.F32, []int64{4, 7}), selection(r, ir.Bool, []int64{6}, mode)}
		}},
		{"topk", tk, func(mode, trial int) []*ir.Tensor {
			k := ir.NewTensor(ir.I64, []int64{1})
			k.I[0] = []int64{0, 9, int64(trial)}[mode]
			return []*ir.Tensor{e2e.RandomTensor(r, ir.F32, []int64{3, 9}), k}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "m.onnx")
			require.NoError(t, tc.model.Write(path))
			ref, err := graphc.Load(ctx, path)
			require.NoError(t, err)
			require.Len(t, ref.Bounded, 1)
			res, err := graphc.Compile(ctx, path, graphc.WithVerifyEach(true))
			require.NoError(t, err)
			require.Empty(t, res.Module.Params, "a bounded dim is no argument")
			prog, err := e2e.Build(ctx, dir, res.Graph, res.Module)
			require.NoError(t, err)
			b := res.Graph.Bounded[0]
			for trial := range 9 {
				ins := tc.inputs(trial%3, trial)
				named := map[string]*ir.Tensor{}
				for i, in := range ref.Inputs {
					named[in.Name] = ins[i]
				}
				want, err := eval.Run(ref, named)
				require.NoError(t, err)
				// outputs are allocated at the bound, the extents come back in the count output
				got, _, err := prog.Run(ctx, ins, map[string]int64{b.Param: b.Bound}, 1)
				require.NoError(t, err)
				n := got[b.Output].I[0]
				require.Equal(t, want[b.Output].I[0], n, "trial %d: the count", trial)
				for i, w := range want {
					require.Equal(t, w.Elem, got[i].Elem)
					if w.Elem.IsFloat() {
						require.Equal(t, w.F, got[i].F[:len(w.F)], "trial %d, output %d (n = %d)", trial, i, n)
					} else {
						require.Equal(t, w.I, got[i].I[:len(w.I)], "trial %d, output %d (n = %d)", trial, i, n)
					}
				}
			}
			if tc.name == "topk" {
				// k beyond the axis: the entry checks the computed value against the bound
				k := ir.NewTensor(ir.I64, []int64{1})
				k.I[0] = 10
				_, _, err := prog.Run(ctx, []*ir.Tensor{e2e.RandomTensor(r, ir.F32, []int64{3, 9}), k}, map[string]int64{b.Param: b.Bound}, 1)
				require.ErrorContains(t, err, "entry returned 1")
				require.Contains(t, res.Header, "#define MAIN_GRAPH_OUT0_MAX_ELEMENTS ((3) * (9))")
				require.Contains(t, res.Header, "int32_t main_graph(const float *X, const int64_t *K, float *V, int64_t *I, int64_t *V_k, void *workspace);")
			}
		})
	}
}
