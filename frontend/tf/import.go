// This file walks a GraphDef in dependency order and imports its nodes through the op table.

package tf

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/proto/tfpb"
)

type importer struct {
	cfg  *config
	file string
	g    *ir.Graph
	// vals maps "node:port" to its value; consts holds data known at import, syms integer
	// values known as expressions of the symbolic dims (symbolic.go).
	vals   map[string]*ir.Value
	consts map[string]*ir.Tensor
	syms   map[string]*symTensor
	nodes  map[string]*tfpb.NodeDef
	// dimsSeen and dimOrder are the symbolic dims of the placeholders, bound or not
	dimsSeen map[string]bool
	dimOrder []string
}

// noteDim records a symbolic dim of a placeholder (bound or not).
func (im *importer) noteDim(name string) {
	if im.dimsSeen == nil {
		im.dimsSeen = map[string]bool{}
	}
	if !im.dimsSeen[name] {
		im.dimsSeen[name] = true
		im.dimOrder = append(im.dimOrder, name)
	}
}

// NodeError is an import error attached to one node.
type NodeError struct {
	File, Node, Op string
	Err            error
}

func (e *NodeError) Error() string {
	return fmt.Sprintf("%s: node %q (%s): %v", e.File, e.Node, e.Op, e.Err)
}

func (e *NodeError) Unwrap() error { return e.Err }

// splitName splits "name:port" (and "^name" control inputs) into name and port.
func splitName(s string) (name string, port int, control bool) {
	if strings.HasPrefix(s, "^") {
		return s[1:], 0, true
	}
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		if p, err := strconv.Atoi(s[i+1:]); err == nil {
			return s[:i], p, false
		}
	}
	return s, 0, false
}

func key(name string, port int) string { return name + ":" + strconv.Itoa(port) }

func importGraph(gd *tfpb.GraphDef, file string, cfg *config) (*ir.Graph, error) {
	im := &importer{cfg: cfg, file: file, g: ir.NewGraph("main_graph"), vals: map[string]*ir.Value{},
		consts: map[string]*ir.Tensor{}, nodes: map[string]*tfpb.NodeDef{}}
	if err := checkGraphLimits(gd, cfg.limits); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	for _, n := range gd.Node {
		if n.Name == "" {
			return nil, fmt.Errorf("%s: %w: a node has no name", file, ErrInvalid)
		}
		if _, dup := im.nodes[n.Name]; dup {
			return nil, fmt.Errorf("%s: %w: two nodes are named %q", file, ErrInvalid, n.Name)
		}
		im.nodes[n.Name] = n
	}
	outs := cfg.outputs
	if len(outs) == 0 {
		outs = im.defaultOutputs(gd)
	}
	// only the nodes the outputs depend on are imported: a frozen graph may hold others (its
	// training or saving part) that graphc does not support
	roots := gd.Node
	if len(outs) > 0 {
		roots = nil
	}
	for _, o := range outs {
		name, _, _ := splitName(o)
		n, ok := im.nodes[name]
		if !ok {
			return nil, fmt.Errorf("%s: --outputs: no node named %q", file, name)
		}
		roots = append(roots, n)
	}
	order, err := im.topoOrder(roots)
	if err != nil {
		return nil, err
	}
	for _, n := range order {
		if err := im.importNode(n); err != nil {
			return nil, err
		}
	}
	for _, o := range outs {
		name, port, _ := splitName(o)
		v, err := im.value(key(name, port))
		if err != nil {
			return nil, fmt.Errorf("%s: output %s: %w", file, o, err)
		}
		im.g.Outputs = append(im.g.Outputs, v)
	}
	if len(im.g.Outputs) == 0 {
		return nil, fmt.Errorf("%s: %w: the graph has no outputs (give them with --outputs)", file, ErrInvalid)
	}
	im.dropUnusedConsts()
	if err := ir.UnknownDimError(im.cfg.dims, im.dimsSeen, im.dimOrder); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return im.g, nil
}

// topoOrder sorts roots and the nodes their data inputs depend on so that every node comes
// after its inputs (control inputs order nothing graphc computes); cycles are errors.
func (im *importer) topoOrder(roots []*tfpb.NodeDef) ([]*tfpb.NodeDef, error) {
	state := map[string]int{} // 0 new, 1 on stack, 2 done
	var order []*tfpb.NodeDef
	for _, root := range roots {
		if state[root.Name] != 0 {
			continue
		}
		// iterative DFS: deep chains must not overflow the stack
		type frame struct {
			n *tfpb.NodeDef
			i int
		}
		stack := []frame{{root, 0}}
		state[root.Name] = 1
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.i < len(top.n.Input) {
				in := top.n.Input[top.i]
				top.i++
				name, _, control := splitName(in)
				if control {
					continue
				}
				dep, ok := im.nodes[name]
				if !ok {
					return nil, &NodeError{im.file, top.n.Name, top.n.Op, fmt.Errorf("%w: input %q names no node", ErrInvalid, in)}
				}
				switch state[name] {
				case 1:
					return nil, &NodeError{im.file, top.n.Name, top.n.Op, fmt.Errorf("%w: the graph has a cycle through %q", ErrInvalid, name)}
				case 0:
					state[name] = 1
					stack = append(stack, frame{dep, 0})
				}
				continue
			}
			state[top.n.Name] = 2
			order = append(order, top.n)
			stack = stack[:len(stack)-1]
		}
	}
	return order, nil
}

// defaultOutputs returns port 0 of the nodes no node names as an input, data or control
// (placeholders, constants and NoOps excluded), in graph order.
func (im *importer) defaultOutputs(gd *tfpb.GraphDef) []string {
	used := map[string]bool{}
	for _, n := range gd.Node {
		for _, in := range n.Input {
			name, _, _ := splitName(in)
			used[name] = true
		}
	}
	var out []string
	for _, n := range gd.Node {
		switch n.Op {
		case "NoOp", "Placeholder", "Const", "PlaceholderWithDefault":
			continue
		}
		if !used[n.Name] {
			out = append(out, n.Name)
		}
	}
	return out
}

// value returns the value of "node:port", materialising known constants.
func (im *importer) value(k string) (*ir.Value, error) {
	if v, ok := im.vals[k]; ok {
		return v, nil
	}
	if t, ok := im.consts[k]; ok {
		name, _, _ := splitName(k)
		v := im.g.AddConst(name, t)
		im.vals[k] = v
		return v, nil
	}
	if s, ok := im.syms[k]; ok {
		return im.materializeSym(k, s)
	}
	return nil, fmt.Errorf("%w: %s has no value (an unsupported output port?)", ErrInvalid, k)
}

func (im *importer) importNode(n *tfpb.NodeDef) error {
	def, ok := opTable[n.Op]
	if !ok {
		return &NodeError{im.file, n.Name, n.Op, fmt.Errorf("%w: op %s; supported ops: %s", ErrUnsupported, n.Op, strings.Join(SupportedOps(), ", "))}
	}
	c := &nodeCtx{im: im, node: n}
	for _, in := range n.Input {
		if _, _, control := splitName(in); !control {
			c.inputs = append(c.inputs, in)
		}
	}
	if im.trySymbolic(c) {
		return nil
	}
	before := len(im.g.Ops)
	if err := def(c); err != nil {
		return &NodeError{im.file, n.Name, n.Op, err}
	}
	for _, op := range im.g.Ops[before:] {
		if err := ir.CheckTypeLimits(op.Result.Type, im.cfg.limits); err != nil {
			return &NodeError{im.file, n.Name, n.Op, fmt.Errorf("%w: result of %s: %w", ErrInvalid, op.Kind, err)}
		}
	}
	return nil
}

// SupportedOps returns the TensorFlow ops the importer handles, sorted.
func SupportedOps() []string {
	var out []string
	for k := range opTable {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
