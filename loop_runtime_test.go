package graphc_test

// This file checks Loops whose iterations are decided at run time (frontend/onnx's importLoop):
// a trip count computed by the graph and bounded (min(m, 6); the count of a NonZero selection),
// and a condition that depends on data. Their scan outputs take a bounded dim. The compiled
// code is compared with the evaluator and with onnxruntime on inputs that run no iteration,
// some, and every one the bound allows.

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/internal/ortref"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
	"github.com/graphc/graphc/proto/onnxpb"
)

// loopRuntimeModel is a Loop over s (f32[3]): s ← s + i·X, scan output 2·s, continuing while
// sum(s) < limit. Its trip count is min(m, 6) when byMin, else the number of positive
// elements of mask (a NonZero selection of at most 8).
func loopRuntimeModel(t *testing.T, byMin bool) string {
	m := onnxgen.New("loop_runtime", 16)
	m.Input("X", ir.F32, 3)
	m.Input("S", ir.F32, 3)
	scalar := func(name string, elem ir.DType, v float64) {
		x := ir.NewTensor(elem, []int64{})
		if elem.IsFloat() {
			x.F[0] = v
		} else {
			x.I[0] = int64(v)
		}
		m.Init(name, x)
	}
	scalar("limit", ir.F32, 40)
	scalar("true", ir.Bool, 1)
	if byMin {
		m.Input("m", ir.I64)
		scalar("six", ir.I64, 6)
		m.Node("Min", "min", []string{"m", "six"}, []string{"M"})
	} else {
		m.Input("mask", ir.F32, 8)
		scalar("zero", ir.F32, 0)
		one := ir.NewTensor(ir.I64, []int64{1})
		one.I[0] = 1
		m.Init("one", one)
		m.Node("Greater", "gt", []string{"mask", "zero"}, []string{"pos"})
		m.Node("NonZero", "nz", []string{"pos"}, []string{"nz"})
		m.Node("Shape", "shape", []string{"nz"}, []string{"nzshape"})
		m.Node("Gather", "count", []string{"nzshape", "one"}, []string{"M1"})
		m.Node("Squeeze", "sq", []string{"M1"}, []string{"M"})
	}
	vi := func(name string, elem ir.DType, dims ...any) *onnxpb.ValueInfoProto {
		return onnxgen.ValueInfo(name, elem, dims...)
	}
	body := &onnxpb.GraphProto{
		Name:   strp("body"),
		Input:  []*onnxpb.ValueInfoProto{vi("i", ir.I64), vi("c_in", ir.Bool), vi("s_in", ir.F32, 3)},
		Output: []*onnxpb.ValueInfoProto{vi("c_out", ir.Bool), vi("s_out", ir.F32, 3), vi("y", ir.F32, 3)},
	}
	bn := func(op string, ins, outs []string, attrs ...onnxgen.Attr) {
		sub := onnxgen.New("b", 16)
		sub.Node(op, "", ins, outs, attrs...)
		body.Node = append(body.Node, sub.G.Node...)
	}
	bn("Cast", []string{"i"}, []string{"fi"}, onnxgen.IntAttr("to", 1))
	bn("Mul", []string{"X", "fi"}, []string{"ix"})
	bn("Add", []string{"s_in", "ix"}, []string{"s_out"})
	bn("Add", []string{"s_out", "s_out"}, []string{"y"})
	bn("ReduceSum", []string{"s_out"}, []string{"sum"}, onnxgen.IntAttr("keepdims", 0))
	bn("Less", []string{"sum", "limit"}, []string{"c_out"})
	m.Node("Loop", "loop", []string{"M", "true", "S"}, []string{"S_out", "Y"},
		&onnxpb.AttributeProto{Name: strp("body"), Type: onnxpb.AttributeProto_GRAPH.Enum(), G: body})
	m.Output("S_out", ir.F32, 3)
	m.Output("Y", ir.F32, "n", 3)
	path := filepath.Join(t.TempDir(), "loop.onnx")
	require.NoError(t, m.Write(path))
	return path
}

func strp(s string) *string { return &s }

func TestLoopRuntimeTripCount(t *testing.T) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	f32 := func(v ...float64) *ir.Tensor {
		x := ir.NewTensor(ir.F32, []int64{int64(len(v))})
		copy(x.F, v)
		return x
	}
	for _, byMin := range []bool{true, false} {
		path := loopRuntimeModel(t, byMin)
		ref, err := graphc.Load(ctx, path)
		require.NoError(t, err)
		res, err := graphc.Compile(ctx, path, graphc.WithVerifyEach(true))
		require.NoError(t, err)
		require.NotEmpty(t, res.Graph.Bounded, "the scan output's extent is a bounded dim")
		prog, err := e2e.Build(ctx, t.TempDir(), res.Graph, res.Module)
		require.NoError(t, err)
		names := []string{"X", "S", "m"}
		var sets [][]*ir.Tensor
		for _, x := range []*ir.Tensor{f32(1, 2, 3), f32(0.1, 0.1, 0.2), f32(10, 0, 5)} {
			s := f32(0, 1, 2)
			if byMin {
				for _, mv := range []int64{0, 3, 10} {
					m := ir.NewTensor(ir.I64, []int64{})
					m.I[0] = mv
					sets = append(sets, []*ir.Tensor{x, s, m})
				}
			} else {
				names[2] = "mask"
				for _, k := range []int{0, 4, 8} {
					mask := ir.NewTensor(ir.F32, []int64{8})
					for i := range k {
						mask.F[(i*3)%8] = 1
					}
					sets = append(sets, []*ir.Tensor{x, s, mask})
				}
			}
		}
		iters := map[int64]bool{}
		for _, ins := range sets {
			want, err := eval.Run(ref, map[string]*ir.Tensor{names[0]: ins[0], names[1]: ins[1], names[2]: ins[2]})
			require.NoError(t, err)
			iters[want[1].Shape[0]] = true
			if why := ortref.Missing(); why == "" {
				ort, err := ortref.Run(ctx, path, names, ins)
				require.NoError(t, err)
				for k := range 2 {
					require.Equal(t, ort[k].Shape, want[k].Shape, "output %d: the evaluator against onnxruntime (%v)", k, ins[0].F)
					require.NoError(t, e2e.Compare(want[k], ort[k], 1e-6, 1e-6, nil), "output %d: the evaluator against onnxruntime", k)
				}
			}
			got, _, err := prog.Run(ctx, ins, e2e.AtBounds(res.Graph, nil), 1)
			require.NoError(t, err)
			for k := range 2 {
				require.Equal(t, want[k].Shape, got[k].Shape, "output %d: compiled", k)
				require.Equal(t, want[k].F, got[k].F, "output %d: compiled", k)
			}
		}
		// no iteration, some stopped by the condition or the count, the whole bound
		require.True(t, iters[0] && len(iters) >= 3, "iteration counts seen: %v", iters)
	}
}
