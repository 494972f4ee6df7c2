// This file walks a GraphDef in dependency order and imports its nodes through the op table.

package tf

import (
	"fmt"
	"strconv"
	"strings"

	kit "github.com/graphc/graphc/frontend/importer"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/proto/tfpb"
)

type importer struct {
	cfg  *config
	file string
	g    *ir.Graph
	// Values holds the IR values, the data known at import and the symbolic values, by
	// "node:port"
	*kit.Values
	nodes map[string]*tfpb.NodeDef
	// dims binds the symbolic dims of the placeholders (WithDim)
	dims *kit.Dims
}

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
	im := &importer{cfg: cfg, file: file, g: ir.NewGraph("main_graph"), Values: kit.NewValues(),
		nodes: map[string]*tfpb.NodeDef{}, dims: kit.NewDims(cfg.Dims)}
	if err := checkGraphLimits(gd, cfg.Limits); err != nil {
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
	if err := im.dims.Check(); err != nil {
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
					return nil, &NodeError{File: im.file, Node: top.n.Name, Op: top.n.Op, Err: fmt.Errorf("%w: input %q names no node", ErrInvalid, in)}
				}
				switch state[name] {
				case 1:
					return nil, &NodeError{File: im.file, Node: top.n.Name, Op: top.n.Op, Err: fmt.Errorf("%w: the graph has a cycle through %q", ErrInvalid, name)}
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
	name, _, _ := splitName(k)
	if v, ok, err := im.Lookup(im.g, k, name); ok {
		return v, err
	}
	return nil, fmt.Errorf("%w: %s has no value (an unsupported output port?)", ErrInvalid, k)
}

func (im *importer) importNode(n *tfpb.NodeDef) error {
	def, ok := opTable[n.Op]
	if !ok {
		return &NodeError{File: im.file, Node: n.Name, Op: n.Op, Err: fmt.Errorf("%w: op %s; supported ops: %s", ErrUnsupported, n.Op, strings.Join(SupportedOps(), ", "))}
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
		return &NodeError{File: im.file, Node: n.Name, Op: n.Op, Err: err}
	}
	if err := kit.CheckResults(im.g.Ops[before:], im.cfg.Limits, ErrInvalid); err != nil {
		return &NodeError{File: im.file, Node: n.Name, Op: n.Op, Err: err}
	}
	return nil
}

// SupportedOps returns the TensorFlow ops the importer handles, sorted.
func SupportedOps() []string { return kit.SortedKeys(opTable) }
