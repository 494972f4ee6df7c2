// This file checks the order of a graph's nodes before they are imported. ONNX requires the
// nodes in topological order; a node that reads a value a later node produces is either a cycle
// (reported with the nodes around it) or an unsorted graph (reported with both nodes), rather
// than "not produced by any node".

package onnx

import (
	"fmt"
	"strings"

	"github.com/graphc/graphc/proto/onnxpb"
)

// nodeLabel names node i for messages: its name, or its index when it has none, and its op.
func nodeLabel(gp *onnxpb.GraphProto, i int) string {
	n := gp.Node[i]
	if n.GetName() != "" {
		return fmt.Sprintf("node %q (%s)", n.GetName(), n.GetOpType())
	}
	return fmt.Sprintf("node %d (%s)", i, n.GetOpType())
}

// checkOrder returns an error when a node reads a value that the same or a later node
// produces: a cycle, named node by node, or nodes out of topological order.
func checkOrder(gp *onnxpb.GraphProto) error {
	producer := make(map[string]int, len(gp.Node))
	for i, n := range gp.Node {
		for _, o := range n.Output {
			if _, dup := producer[o]; o != "" && !dup {
				producer[o] = i
			}
		}
	}
	for _, vi := range gp.Input {
		delete(producer, vi.GetName()) // a graph input of the same name shadows nothing: reads see the input
	}
	for _, t := range gp.Initializer {
		delete(producer, t.GetName())
	}
	for i, n := range gp.Node {
		for _, in := range n.Input {
			p, ok := producer[in]
			if !ok || p < i {
				continue
			}
			if cyc := findCycle(gp, producer, i); cyc != nil {
				return fmt.Errorf("%w: the graph has a cycle: %s", ErrInvalid, describeCycle(gp, cyc))
			}
			return fmt.Errorf("%w: %s reads %q, which %s produces after it: the nodes are not in topological order, as ONNX requires",
				ErrInvalid, nodeLabel(gp, i), in, nodeLabel(gp, p))
		}
	}
	return nil
}

// cycleStep is one edge of a cycle: node reads value from the next step's node.
type cycleStep struct {
	node  int
	value string
}

// findCycle returns a cycle through node start (start reads from the first step's node …, the
// last step's node reads from start), or nil. Iterative depth-first search over the producers
// of the nodes' inputs: every node is visited once.
func findCycle(gp *onnxpb.GraphProto, producer map[string]int, start int) []cycleStep {
	type frame struct{ node, next int }
	visited := map[int]bool{start: true}
	via := map[int]cycleStep{} // how the search reached a node: from which node, reading which value
	stack := []frame{{start, 0}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		ins := gp.Node[top.node].Input
		if top.next >= len(ins) {
			stack = stack[:len(stack)-1]
			continue
		}
		in := ins[top.next]
		top.next++
		p, ok := producer[in]
		if !ok {
			continue
		}
		if p == start {
			// walk back from top.node to start
			steps := []cycleStep{{top.node, in}}
			for k := top.node; k != start; {
				s := via[k]
				steps = append(steps, s)
				k = s.node
			}
			// steps run backwards: reverse them so that each node reads from the next
			for a, b := 0, len(steps)-1; a < b; a, b = a+1, b-1 {
				steps[a], steps[b] = steps[b], steps[a]
			}
			return steps
		}
		if !visited[p] {
			visited[p] = true
			via[p] = cycleStep{top.node, in}
			stack = append(stack, frame{p, 0})
		}
	}
	return nil
}

// describeCycle spells out a cycle: `node "a" (Add) reads "B" from node "b" (Relu), which
// reads "A" from node "a" (Add)`, eliding the middle of long ones.
func describeCycle(gp *onnxpb.GraphProto, steps []cycleStep) string {
	var sb strings.Builder
	sb.WriteString(nodeLabel(gp, steps[0].node))
	for k, s := range steps {
		long := len(steps) > 8
		if long && k >= 4 && k < len(steps)-3 {
			if k == 4 {
				fmt.Fprintf(&sb, ", which reads from %d more nodes; %s", len(steps)-8, nodeLabel(gp, steps[len(steps)-3].node))
			}
			continue
		}
		if k > 0 && !(long && k == len(steps)-3) {
			sb.WriteString(", which")
		}
		fmt.Fprintf(&sb, " reads %q from %s", s.value, nodeLabel(gp, steps[(k+1)%len(steps)].node))
	}
	return sb.String()
}
