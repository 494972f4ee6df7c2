package onnx_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/frontend/onnx"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
)

// TestCycleNamesItsNodes: a graph whose nodes feed each other is reported as a cycle, node by
// node, not as a value nobody produces; an acyclic graph out of order names both nodes.
func TestCycleNamesItsNodes(t *testing.T) {
	base := func() *onnxgen.Model {
		m := onnxgen.New("g", 17)
		m.Input("X", ir.F32, 4)
		return m
	}
	m := base()
	m.Node("Add", "a", []string{"X", "B"}, []string{"A"})
	m.Node("Relu", "b", []string{"A"}, []string{"B"})
	m.Output("B", ir.F32, 4)
	_, err := onnx.Import(m.Proto(), "cycle.onnx")
	require.ErrorIs(t, err, onnx.ErrInvalid)
	require.EqualError(t, err, `cycle.onnx: invalid model: the graph has a cycle: node "a" (Add) reads "B" from node "b" (Relu), which reads "A" from node "a" (Add)`)

	// a node reading its own output
	m = base()
	m.Node("Add", "self", []string{"X", "S"}, []string{"S"})
	m.Output("S", ir.F32, 4)
	_, err = onnx.Import(m.Proto(), "self.onnx")
	require.ErrorContains(t, err, `the graph has a cycle: node "self" (Add) reads "S" from node "self" (Add)`)

	// a cycle behind a prefix, through unnamed nodes, and a long one elided in the middle
	m = base()
	m.Node("Relu", "pre", []string{"X"}, []string{"P"})
	m.Node("Add", "", []string{"P", "C2"}, []string{"C0"})
	m.Node("Neg", "", []string{"C0"}, []string{"C1"})
	m.Node("Abs", "", []string{"C1"}, []string{"C2"})
	m.Output("C2", ir.F32, 4)
	_, err = onnx.Import(m.Proto(), "c.onnx")
	require.ErrorContains(t, err, `node 1 (Add) reads "C2" from node 3 (Abs), which reads "C1" from node 2 (Neg), which reads "C0" from node 1 (Add)`)
	m = base()
	const n = 20
	for i := 0; i < n; i++ {
		m.Node("Relu", fmt.Sprintf("r%d", i), []string{fmt.Sprintf("V%d", (i+1)%n)}, []string{fmt.Sprintf("V%d", i)})
	}
	m.Output("V0", ir.F32, 4)
	_, err = onnx.Import(m.Proto(), "long.onnx")
	require.ErrorContains(t, err, `node "r0" (Relu) reads "V1" from node "r1" (Relu), which reads "V2" from node "r2" (Relu), which reads "V3" from node "r3" (Relu), which reads "V4" from node "r4" (Relu), which reads from 12 more nodes; node "r17" (Relu) reads "V18" from node "r18" (Relu), which reads "V19" from node "r19" (Relu), which reads "V0" from node "r0" (Relu)`)

	// no cycle, but out of order
	m = base()
	m.Node("Neg", "late_reader", []string{"R"}, []string{"Y"})
	m.Node("Relu", "producer", []string{"X"}, []string{"R"})
	m.Output("Y", ir.F32, 4)
	_, err = onnx.Import(m.Proto(), "order.onnx")
	require.ErrorContains(t, err, `node "late_reader" (Neg) reads "R", which node "producer" (Relu) produces after it: the nodes are not in topological order`)
}
