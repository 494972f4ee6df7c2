package graphc_test

import (
	"context"
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
	"github.com/graphc/graphc/passes"
)

// skeletonModel builds Y = Relu(Trilu(A·B, k) + C) variants.
func skeletonModel(n int, upper bool, k *int64, addRelu bool) *onnxgen.Model {
	m := onnxgen.New("skeleton", 14)
	m.Input("A", ir.F32, n, n)
	m.Input("B", ir.F32, n, n)
	m.Node("MatMul", "mm", []string{"A", "B"}, []string{"P"})
	u := int64(0)
	if upper {
		u = 1
	}
	ins := []string{"P"}
	if k != nil {
		kt := ir.NewTensor(ir.I64, nil)
		kt.I[0] = *k
		m.Init("k", kt)
		ins = append(ins, "k")
	}
	out := "Y"
	if addRelu {
		out = "T"
	}
	m.Node("Trilu", "tri", ins, []string{out}, onnxgen.IntAttr("upper", u))
	if addRelu {
		m.Input("C", ir.F32, 1, n)
		m.Node("Add", "add", []string{"T", "C"}, []string{"S"})
		m.Node("Relu", "relu", []string{"S"}, []string{"Y"})
	}
	m.Output("Y", ir.F32, n, n)
	return m
}

// reference computes the skeleton model in float32 with the same summation order.
func reference(n int, upper bool, k int64, addRelu bool, a, b, c *ir.Tensor) *ir.Tensor {
	y := ir.NewTensor(ir.F32, []int64{int64(n), int64(n)})
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			keep := int64(j-i) >= k
			if !upper {
				keep = int64(j-i) <= k
			}
			var s float32
			if keep {
				for kk := 0; kk < n; kk++ {
					s += float32(a.F[i*n+kk]) * float32(b.F[kk*n+j])
				}
			}
			if addRelu {
				s += float32(c.F[j])
				if s < 0 {
					s = 0
				}
			}
			y.F[i*n+j] = float64(s)
		}
	}
	return y
}

func TestEndToEndSkeleton(t *testing.T) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	const n = 48
	neg, pos := int64(-3), int64(5)
	cases := []struct {
		name    string
		upper   bool
		k       *int64
		addRelu bool
	}{
		{"upper", true, nil, false},
		{"lower", false, nil, false},
		{"upper_k5", true, &pos, false},
		{"lower_k-3", false, &neg, false},
		{"upper_add_relu", true, nil, true},
	}
	r := rand.New(rand.NewPCG(7, 7))
	for _, tc := range cases {
		for _, pipeline := range []string{passes.DefaultPipeline, ""} {
			t.Run(tc.name+"/pipeline="+pipeline, func(t *testing.T) {
				dir := t.TempDir()
				path := filepath.Join(dir, "m.onnx")
				require.NoError(t, skeletonModel(n, tc.upper, tc.k, tc.addRelu).Write(path))
				res, err := graphc.Compile(ctx, path, graphc.WithPipeline(pipeline), graphc.WithVerifyEach(true))
				require.NoError(t, err)
				ll := filepath.Join(dir, "m.ll")
				require.NoError(t, os.WriteFile(ll, []byte(res.LLVM), 0o644))
				if err := e2e.Verify(ctx, ll); err != nil && !strings.Contains(err.Error(), "not found") {
					t.Fatal(err)
				}
				mm := res.Graph.Ops[0]
				require.Equal(t, "matmul", mm.Kind)
				if pipeline == "" {
					require.False(t, mm.IsRestricted(), "without die the matmul keeps its full box domain")
				} else {
					require.True(t, mm.IsRestricted(), "die must restrict the matmul to a triangle")
				}
				a := e2e.RandomTensor(r, ir.F32, []int64{n, n})
				b := e2e.RandomTensor(r, ir.F32, []int64{n, n})
				ins := []*ir.Tensor{a, b}
				var c *ir.Tensor
				if tc.addRelu {
					c = e2e.RandomTensor(r, ir.F32, []int64{1, n})
					ins = append(ins, c)
				}
				kk := int64(0)
				if tc.k != nil {
					kk = *tc.k
				}
				want := reference(n, tc.upper, kk, tc.addRelu, a, b, c)
				prog, err := e2e.Build(ctx, dir, res.Graph, res.Module)
				require.NoError(t, err)
				got, _, err := prog.Run(ctx, ins, nil, 1)
				require.NoError(t, err)
				// Same float32 operations in the same order: equal up to 1e-6 (no fast-math).
				require.NoError(t, e2e.Compare(got[0], want, 1e-6, 1e-6, nil))
				// and the reference evaluator agrees on the optimized graph
				in := map[string]*ir.Tensor{"A": a, "B": b}
				if c != nil {
					in["C"] = c
				}
				ev, err := eval.Run(res.Graph, in)
				require.NoError(t, err)
				require.NoError(t, e2e.Compare(ev[0], want, 1e-6, 1e-6, nil))
			})
		}
	}
}

func mkdir(p string) error { return os.MkdirAll(p, 0o755) }
