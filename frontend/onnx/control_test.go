package onnx_test

// This file tests the inlining of control flow: If with a constant and a run-time condition,
// a Loop unrolled with a body that reads an outer value and nests an If reading the body's
// own values (renamed per iteration), and the refusals of loops that depend on data.

import (
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/graphc/graphc/frontend/onnx"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/proto/onnxpb"
)

// subgraph builds a body graph of nodes with the given inputs and outputs (types omitted).
func subgraph(name string, inputs, outputs []string, nodes ...*onnxpb.NodeProto) *onnxpb.GraphProto {
	g := &onnxpb.GraphProto{Name: proto.String(name), Node: nodes}
	for _, in := range inputs {
		g.Input = append(g.Input, &onnxpb.ValueInfoProto{Name: proto.String(in)})
	}
	for _, out := range outputs {
		g.Output = append(g.Output, &onnxpb.ValueInfoProto{Name: proto.String(out)})
	}
	return g
}

func node(op string, inputs, outputs []string, attrs ...*onnxpb.AttributeProto) *onnxpb.NodeProto {
	return &onnxpb.NodeProto{OpType: proto.String(op), Input: inputs, Output: outputs, Attribute: attrs}
}

func graphAttr(name string, g *onnxpb.GraphProto) *onnxpb.AttributeProto {
	t := onnxpb.AttributeProto_GRAPH
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: &t, G: g}
}

// ifModel: Y = If(C) then X + 1 else X * 2; C is an input (or bound at import).
func ifModel() *onnxgen.Model {
	m := onnxgen.New("if", 13)
	m.Input("C", ir.Bool)
	m.Input("X", ir.F32, 3)
	m.Init("one", tensor(ir.F32, []int64{}, 1))
	m.Init("two", tensor(ir.F32, []int64{}, 2))
	then := subgraph("then", nil, []string{"t"}, node("Add", []string{"X", "one"}, []string{"t"}))
	els := subgraph("else", nil, []string{"e"}, node("Mul", []string{"X", "two"}, []string{"e"}))
	m.G.Node = append(m.G.Node, node("If", []string{"C"}, []string{"Y"}, graphAttr("then_branch", then), graphAttr("else_branch", els)))
	m.Output("Y", ir.F32, 3)
	return m
}

func TestIfConditions(t *testing.T) {
	x := tensor(ir.F32, []int64{3}, 1, 2, 3)
	for _, c := range []struct {
		cond float64
		want []float64
	}{{1, []float64{2, 3, 4}}, {0, []float64{2, 4, 6}}} {
		cond := tensor(ir.Bool, []int64{}, c.cond)
		// run-time condition: both branches and a select
		got := runModel(t, ifModel().Proto(), map[string]*ir.Tensor{"C": cond, "X": x})
		require.Equal(t, c.want, got[0].F)
		// bound at import: the branch is inlined alone
		g, err := onnx.Import(ifModel().Proto(), "if.onnx", onnx.WithConstInput("C", cond))
		require.NoError(t, err)
		var kinds []string
		for _, op := range g.Ops {
			kinds = append(kinds, op.Kind)
		}
		require.NotContains(t, kinds, "where", "%s", g)
		got = runModel(t, ifModel().Proto(), map[string]*ir.Tensor{"X": x}, onnx.WithConstInput("C", cond))
		require.Equal(t, c.want, got[0].F)
	}
}

// loopModel: a Loop of trip count N over S (carried), adding the outer X scaled by the
// iteration number, with a nested If that reads the body's own value s1 (renamed in every
// copy): s ← s + i·X; scan output k = If(true) then s1 else s.
func loopModel(bodyCond string) *onnxgen.Model {
	m := onnxgen.New("loop", 13)
	m.Input("N", ir.I64)
	m.Input("X", ir.F32, 2)
	m.Input("S", ir.F32, 2)
	m.Init("true", tensor(ir.Bool, []int64{}, 1))
	m.Init("limit", tensor(ir.F32, []int64{}, 20))
	nested := subgraph("nested", nil, []string{"k"}, node("Identity", []string{"s1"}, []string{"k"}))
	other := subgraph("other", nil, []string{"k2"}, node("Identity", []string{"s_in"}, []string{"k2"}))
	body := subgraph("body", []string{"i", "c_in", "s_in"}, []string{bodyCond, "s1", "scan"},
		node("Identity", []string{"c_in"}, []string{"c_out"}),
		node("Cast", []string{"i"}, []string{"fi"}, onnxgen.IntAttr("to", 1)),
		node("Mul", []string{"X", "fi"}, []string{"ix"}),
		node("Add", []string{"s_in", "ix"}, []string{"s1"}),
		node("ReduceSum", []string{"s1"}, []string{"sum"}, onnxgen.IntAttr("keepdims", 0)),
		node("Less", []string{"sum", "limit"}, []string{"c_data"}),
		node("If", []string{"true"}, []string{"scan"}, graphAttr("then_branch", nested), graphAttr("else_branch", other)))
	m.G.Node = append(m.G.Node, node("Loop", []string{"N", "true", "S"}, []string{"S_out", "K"}, graphAttr("body", body)))
	m.Output("S_out", ir.F32, 2)
	m.Output("K", ir.F32, 3, 2)
	return m
}

func TestLoopUnrolled(t *testing.T) {
	n := tensor(ir.I64, []int64{}, 3)
	x, s := tensor(ir.F32, []int64{2}, 1, 10), tensor(ir.F32, []int64{2}, 0, 5)
	got := runModel(t, loopModel("c_out").Proto(), map[string]*ir.Tensor{"X": x, "S": s}, onnx.WithConstInput("N", n))
	// s: (0, 5) → (0, 5) → (1, 15) → (3, 35)
	require.Equal(t, []float64{3, 35}, got[0].F)
	require.Equal(t, []float64{0, 5, 1, 15, 3, 35}, got[1].F)

	_, err := onnx.Import(loopModel("c_out").Proto(), "loop.onnx")
	var nc *onnx.NeedConstError
	require.ErrorAs(t, err, &nc, "a trip count only known at run time")
	require.Equal(t, []string{"N"}, nc.Inputs())

	require.ErrorContains(t, err, "nothing bounds it")

	// a condition decided by the data, bounded by N: the iterations stop once sum(s) >= 20
	for _, x := range []*ir.Tensor{x, tensor(ir.F32, []int64{2}, 30, 1), tensor(ir.F32, []int64{2}, 2, 3)} {
		got := runModel(t, loopModel("c_data").Proto(), map[string]*ir.Tensor{"X": x, "S": s}, onnx.WithConstInput("N", n))
		st, k := append([]float64{}, s.F...), []float64{}
		for i := range 3 {
			for j := range st {
				st[j] += float64(i) * x.F[j]
			}
			k = append(k, st...)
			if st[0]+st[1] >= 20 {
				break
			}
		}
		require.Equal(t, st, got[0].F, "X = %v: the state", x.F)
		require.Equal(t, k, got[1].F, "X = %v: the scan output of the iterations that ran", x.F)
		require.Equal(t, []int64{int64(len(k) / 2)}, got[2].I, "X = %v: the iteration count (a bounded dim)", x.F)
	}

	// no trip count and a data condition: nothing bounds it, and the error says what would
	m := loopModel("c_data")
	for _, nd := range m.G.Node {
		if nd.GetOpType() == "Loop" {
			nd.Input[0] = ""
		}
	}
	_, err = onnx.Import(m.Proto(), "loop.onnx")
	require.ErrorContains(t, err, "with no trip count whose condition depends on data (iteration 1): nothing bounds its iterations; a trip count M (input 0) known at compile time, or bounded")
	require.ErrorContains(t, err, `node "`, "the error names the node")
}
