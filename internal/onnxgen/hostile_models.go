// This file builds the large generated models of the hostile corpus: graphs whose size, not
// their weights, is what a compile must survive (hostile_test.go, graphc-bench -mem).

package onnxgen

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/proto/onnxpb"
)

// Chain returns a chain of n Relu ops on f32[2]: nothing may recurse per op.
func Chain(n int) *Model {
	m := New("chain", 17)
	m.Input("X", ir.F32, 2)
	prev := "X"
	for i := 0; i < n; i++ {
		next := fmt.Sprintf("v%d", i)
		m.Node("Relu", next, []string{prev}, []string{next})
		prev = next
	}
	m.Output(prev, ir.F32, 2)
	return m
}

// NestedIf returns n If nodes nested in each other's then branches, each on the run-time
// condition C (so both branches are imported): the innermost then branch is Relu(X), the else
// branch of level i Neg(X). Importing must not multiply the nested graphs.
func NestedIf(n int) *Model {
	m := New("nested_if", 17)
	m.Input("X", ir.F32, 4)
	m.Input("C", ir.Bool)
	graphAttr := func(name string, g *onnxpb.GraphProto) *onnxpb.AttributeProto {
		return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_GRAPH.Enum(), G: g}
	}
	out := func(name string) []*onnxpb.ValueInfoProto {
		return []*onnxpb.ValueInfoProto{ValueInfo(name, ir.F32, 4)}
	}
	branch := func(i int, op string) *onnxpb.GraphProto {
		y := fmt.Sprintf("y%s%d", op, i)
		return &onnxpb.GraphProto{Name: proto.String(fmt.Sprintf("%s%d", op, i)), Output: out(y),
			Node: []*onnxpb.NodeProto{{OpType: proto.String(op), Input: []string{"X"}, Output: []string{y}}}}
	}
	then := branch(n, "Relu")
	for i := n - 1; i >= 0; i-- {
		y := fmt.Sprintf("if%d", i)
		node := &onnxpb.NodeProto{OpType: proto.String("If"), Name: proto.String(y), Input: []string{"C"}, Output: []string{y},
			Attribute: []*onnxpb.AttributeProto{graphAttr("then_branch", then), graphAttr("else_branch", branch(i, "Neg"))}}
		if i == 0 {
			m.G.Node = append(m.G.Node, node)
			break
		}
		then = &onnxpb.GraphProto{Name: proto.String(fmt.Sprintf("g%d", i)), Node: []*onnxpb.NodeProto{node}, Output: out(y)}
	}
	m.Output("if0", ir.F32, 4)
	return m
}
