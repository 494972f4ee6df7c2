// This file walks the ONNX graph: inputs, initializers, nodes through the op table, outputs.

package onnx

import (
	"fmt"
	"strings"

	kit "github.com/graphc/graphc/frontend/importer"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/proto/onnxpb"
	"github.com/graphc/graphc/volume"
)

// Supported opset range of the default domain and IR versions. Each op states the oldest opset
// whose semantics it implements; MinOpset is the oldest the core ops all handle.
const (
	MinOpset     = 7
	MaxOpset     = 28
	MinIRVersion = 3
	MaxIRVersion = 13
)

type importer struct {
	cfg   *config
	file  string
	dir   string
	opset int64
	g     *ir.Graph
	// Values holds the IR values, the data known at import and the symbolic values, by
	// ONNX name
	*kit.Values
	inputs map[string]bool // ONNX names of the runtime graph inputs
	// lastOutputs are the outputs of the node being imported, nodeStart the index of its first
	// op in g.Ops; folded maps the ops folded away to their results.
	lastOutputs []string
	nodeStart   int
	folded      map[*ir.Op]*ir.Tensor
	unfoldable  map[*ir.Value]bool
	// outputs are the ONNX names of the graph outputs.
	outputs map[string]bool
	// declDims are the declared dims of the graph's inputs and outputs, by ONNX name: a
	// dim_param's name, a dim_value in decimal, "" when neither
	declDims map[string][]string
	// dims binds the symbolic dims of the graph inputs (WithDim)
	dims *kit.Dims
	// rows holds the products of symbolic dims and the merged rows of multi-head attention
	// (mergedrows.go)
	rows rowState
	// scopes maps the copy of an inlined node that holds nested graphs to the renaming of the
	// body it was copied from (see inline)
	scopes map[*onnxpb.NodeProto]func(string) string
	// shortened counts the inlined bodies whose prefix was shortened (ops_control.go's prefix)
	shortened int
	// bounded are the bounded dims declared by the nodes, attached to the outputs at the end
	// (ops_bounded.go)
	bounded []boundedDecl
	// ranges and symVals memoise the value ranges (valuerange.go) and the symbolic elements
	// of run-time integers (boundedints.go) of IR values
	ranges  map[*ir.Value]interval
	symVals map[*ir.Value][]volume.Aff
}

func importModel(m *onnxpb.ModelProto, file, dir string, cfg *config) (*ir.Graph, error) {
	im := &importer{cfg: cfg, file: file, dir: dir, Values: kit.NewValues(), inputs: map[string]bool{}, folded: map[*ir.Op]*ir.Tensor{}, unfoldable: map[*ir.Value]bool{}, dims: kit.NewDims(cfg.Dims),
		rows: rowState{prods: map[string]*prodVec{}, merged: map[string]*mergedRows{}}, scopes: map[*onnxpb.NodeProto]func(string) string{}}
	im.opset = -1
	for _, os := range m.OpsetImport {
		if os.GetDomain() == "" || os.GetDomain() == "ai.onnx" {
			im.opset = os.GetVersion()
		}
	}
	onlyPreview := len(m.OpsetImport) > 0
	for _, os := range m.OpsetImport {
		onlyPreview = onlyPreview && previewOps[os.GetDomain()] != nil
	}
	if im.opset < 0 {
		switch {
		case len(m.OpsetImport) == 0:
			im.opset = 1 // IR version 2 models without opset_import are opset 1
		case onlyPreview:
			im.opset = MaxOpset // only ops of other domains: the default opset decides nothing
		default:
			return nil, fmt.Errorf("%s: %w: no opset import for the default ONNX domain", file, ErrUnsupported)
		}
	}
	if im.opset > MaxOpset {
		return nil, fmt.Errorf("%s: %w: opset %d is newer than the newest supported (%d)", file, ErrUnsupported, im.opset, MaxOpset)
	}
	if v := m.GetIrVersion(); v != 0 && (v < MinIRVersion || v > MaxIRVersion) {
		return nil, fmt.Errorf("%s: %w: IR version %d (supported: %d to %d)", file, ErrUnsupported, v, MinIRVersion, MaxIRVersion)
	}
	gp := m.Graph
	im.g = ir.NewGraph("main_graph") // the entry is named by the caller, not after the graph
	if err := im.importGraph(gp); err != nil {
		return nil, err
	}
	if err := im.dims.Check(); err != nil {
		return nil, im.errf("%w", err)
	}
	return im.g, nil
}

// errf returns an error about the model, prefixed with its file; %w wraps as in fmt.Errorf.
func (im *importer) errf(format string, args ...any) error {
	return fmt.Errorf("%s: "+format, append([]any{im.file}, args...)...)
}

func (im *importer) importGraph(gp *onnxpb.GraphProto) error {
	if err := im.checkGraphLimits(gp); err != nil {
		return err
	}
	if err := checkOrder(gp); err != nil {
		return im.errf("%w", err)
	}
	if err := im.checkSupported(gp); err != nil {
		return err
	}
	inits := map[string]*onnxpb.TensorProto{}
	for _, t := range gp.Initializer {
		inits[t.GetName()] = t
	}
	// graph inputs: runtime inputs, except initializers (constants unless the caller makes them
	// inputs with WithInitializerInputs) and inputs the caller binds with WithConstInput
	listed := map[string]bool{}
	for _, vi := range gp.Input {
		name := vi.GetName()
		listed[name] = true
		if data, ok := im.cfg.constInputs[name]; ok {
			if err := im.checkConstInput(vi, data); err != nil {
				return err
			}
			im.Consts[name] = data // bound at compile time (WithConstInput)
			continue
		}
		if _, ok := inits[name]; ok && !im.cfg.initInputs {
			continue
		}
		t, err := im.valueType(vi)
		if err != nil {
			return im.errf("input %q: %w", name, err)
		}
		v := im.g.AddInput(name, t)
		im.Vals[name] = v
		im.inputs[name] = true
	}
	for name := range im.cfg.constInputs {
		if !listed[name] {
			return im.errf("%w: no graph input %q to bind to a constant (inputs: %s)", ErrInvalid, name, inputNames(gp))
		}
	}
	for _, tp := range gp.Initializer {
		name := tp.GetName()
		if im.inputs[name] || im.cfg.constInputs[name] != nil {
			continue // overridden by the caller
		}
		data, err := im.tensor(tp)
		if err != nil {
			return im.errf("initializer %q: %w", name, err)
		}
		im.Consts[name] = data
	}
	im.outputs = map[string]bool{}
	for _, o := range gp.Output {
		im.outputs[o.GetName()] = true
	}
	im.declDims = map[string][]string{}
	for _, vi := range append(append([]*onnxpb.ValueInfoProto(nil), gp.Input...), gp.Output...) {
		var ds []string
		for _, d := range vi.GetType().GetTensorType().GetShape().GetDim() {
			switch {
			case d.GetDimParam() != "":
				ds = append(ds, d.GetDimParam())
			case d.GetValue() != nil:
				ds = append(ds, fmt.Sprint(d.GetDimValue()))
			default:
				ds = append(ds, "")
			}
		}
		im.declDims[vi.GetName()] = ds
	}
	plan := &qdqPlan{}
	if !im.cfg.floatQDQ {
		plan = planQDQ(gp)
	}
	for _, n := range gp.Node {
		before := len(im.g.Ops)
		if plan.skip[n] {
			continue // imported by its group's QuantizeLinear
		}
		if g := plan.groups[n]; g != nil {
			if err := im.importQDQ(g); err != nil {
				return err
			}
		} else if err := im.importNode(n); err != nil {
			return err
		}
		if err := im.checkOpLimits(im.g.Ops[before:]); err != nil {
			return &NodeError{File: im.file, Node: n.GetName(), Op: n.GetOpType(), Opset: im.opset, Err: err}
		}
	}
	if err := im.checkValueInfo(gp); err != nil {
		return err
	}
	for _, vi := range gp.Output {
		v, err := im.value(vi.GetName())
		if err != nil {
			return im.errf("output %q: %w", vi.GetName(), err)
		}
		im.g.Outputs = append(im.g.Outputs, v)
	}
	if len(im.g.Outputs) == 0 {
		return im.errf("%w: the graph has no outputs", ErrInvalid)
	}
	if err := im.attachBounded(); err != nil {
		return err
	}
	return nil
}

// value returns the IR value of an ONNX name, materialising known constants on first use.
func (im *importer) value(name string) (*ir.Value, error) {
	if _, ok := im.Vals[name]; !ok {
		if err := im.deferredErr(name); err != nil {
			return nil, err // merged rows or a product read as data (mergedrows.go)
		}
	}
	if v, ok, err := im.Lookup(im.g, name, name); ok {
		return v, err
	}
	return nil, fmt.Errorf("%w: value %q is not produced by any node, input or initializer", ErrInvalid, name)
}

func (im *importer) tensor(tp *onnxpb.TensorProto) (*ir.Tensor, error) {
	if tp.GetDataLocation() == onnxpb.TensorProto_EXTERNAL {
		return im.externalTensor(tp)
	}
	return tensorFromProto(tp, im.cfg.Limits.MaxConstantElements)
}

// valueType converts a ValueInfo's tensor type; dim_param names become symbolic dims.
func (im *importer) valueType(vi *onnxpb.ValueInfoProto) (ir.TensorType, error) {
	tt := vi.GetType().GetTensorType()
	if tt == nil {
		return ir.TensorType{}, fmt.Errorf("%w: only tensor inputs are supported", ErrUnsupported)
	}
	elem, err := DType(tt.GetElemType())
	if err != nil {
		return ir.TensorType{}, err
	}
	if tt.Shape == nil {
		return ir.TensorType{}, fmt.Errorf("%w: input without a shape", ErrUnsupported)
	}
	t := ir.TensorType{Elem: elem}
	for i, d := range tt.Shape.Dim {
		switch {
		case d.GetDimParam() != "":
			t.Shape = append(t.Shape, im.dims.Extent(d.GetDimParam(), kit.Ident(d.GetDimParam())))
		case hasDimValue(d) && d.GetDimValue() < 0:
			return ir.TensorType{}, fmt.Errorf("%w: negative dimension %d", ErrInvalid, d.GetDimValue())
		case d.GetDimValue() > 0 || d.GetDimValue() == 0 && hasDimValue(d):
			t.Shape = append(t.Shape, volume.AffConst(d.GetDimValue()))
		default:
			p := fmt.Sprintf("%s_d%d", kit.Ident(vi.GetName()), i)
			t.Shape = append(t.Shape, im.dims.Extent(p, p))
		}
	}
	if err := ir.CheckTypeLimits(t, im.cfg.Limits); err != nil {
		return ir.TensorType{}, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return t, nil
}

func hasDimValue(d *onnxpb.TensorShapeProto_Dimension) bool {
	_, ok := d.Value.(*onnxpb.TensorShapeProto_Dimension_DimValue)
	return ok
}

// unsupportedReason says why graphc cannot import node n ("" when it can, as far as its op
// type, domain and the model's opset tell).
func (im *importer) unsupportedReason(n *onnxpb.NodeProto) string {
	if d := n.GetDomain(); d != "" && d != "ai.onnx" {
		if _, ok := lookupDomainOp(d, n.GetOpType()); ok {
			return "" // versioned by its own domain's opset, which has one version
		}
		if !previewOps[d][n.GetOpType()] {
			return fmt.Sprintf("op domain %q", d)
		}
		return "" // versioned by its own domain's opset, which has one version
	}
	def, ok := opTable[n.GetOpType()]
	if !ok {
		return fmt.Sprintf("op %s is not supported", n.GetOpType())
	}
	if im.opset < int64(def.Since) {
		return fmt.Sprintf("%s is supported from opset %d", n.GetOpType(), def.Since)
	}
	return ""
}

// checkSupported reports every node graphc cannot import at once, grouped by op with the
// nodes' names, rather than the first one only: a user sees all that a model needs.
func (im *importer) checkSupported(gp *onnxpb.GraphProto) error {
	type group struct {
		reason string
		nodes  []string
	}
	var order []string
	groups := map[string]*group{}
	var first *onnxpb.NodeProto
	for _, n := range gp.Node {
		r := im.unsupportedReason(n)
		if r == "" {
			continue
		}
		if first == nil {
			first = n
		}
		key := n.GetDomain() + "/" + n.GetOpType()
		g, ok := groups[key]
		if !ok {
			g = &group{reason: r}
			groups[key] = g
			order = append(order, key)
		}
		g.nodes = append(g.nodes, fmt.Sprintf("%q", n.GetName()))
	}
	const hint = "graphc ops lists the supported ops"
	switch {
	case len(order) == 0:
		return nil
	case len(order) == 1 && len(groups[order[0]].nodes) == 1:
		return im.importNode(first) // the message of the node itself
	}
	var parts []string
	count := 0
	for _, k := range order {
		g := groups[k]
		count += len(g.nodes)
		names := g.nodes
		if len(names) > 5 {
			names = append(names[:5:5], fmt.Sprintf("and %d more", len(g.nodes)-5))
		}
		what := "node"
		if len(g.nodes) > 1 {
			what = "nodes"
		}
		parts = append(parts, fmt.Sprintf("%s (%s %s)", g.reason, what, strings.Join(names, ", ")))
	}
	return im.errf("%w: %d nodes use what graphc does not support: %s; %s", ErrUnsupported, count, strings.Join(parts, "; "), hint)
}

func (im *importer) importNode(n *onnxpb.NodeProto) error {
	nerr := func(err error) error {
		return &NodeError{File: im.file, Node: n.GetName(), Op: n.GetOpType(), Opset: im.opset, Err: err}
	}
	if r := im.unsupportedReason(n); r != "" {
		if _, known := opTable[n.GetOpType()]; !known {
			r += " (graphc ops lists the supported ops)"
		}
		return nerr(fmt.Errorf("%w: %s", ErrUnsupported, r))
	}
	def := opTable[n.GetOpType()]
	if fn, ok := lookupDomainOp(n.GetDomain(), n.GetOpType()); ok {
		def = opDef{Since: 1, Import: fn}
	}
	for _, o := range n.Output {
		if o == "" {
			continue
		}
		_, isVal := im.Vals[o]
		_, isConst := im.Consts[o]
		if isVal || isConst {
			return nerr(fmt.Errorf("%w: value %q is produced twice (SSA: every value has one producer)", ErrInvalid, o))
		}
	}
	c := &nodeCtx{im: im, node: n, attrs: map[string]*onnxpb.AttributeProto{}, promote: !noPromotion[n.GetOpType()]}
	for _, a := range n.Attribute {
		c.attrs[a.GetName()] = a
	}
	// (a control-flow node imports its body's nodes in between: they set nodeStart too)
	start := len(im.g.Ops)
	if done, err := im.tryRows(c); done {
		if err != nil {
			if _, deferred := err.(*NodeError); deferred {
				return err // the merging Reshape's own error
			}
			return nerr(err)
		}
	} else if !im.trySymbolic(c) {
		if err := def.Import(c); err != nil {
			return nerr(err)
		}
		im.noteProducts(c)
	}
	im.nodeStart = start
	im.lastOutputs = n.Output
	im.foldOutputs(len(n.Output))
	for i, o := range n.Output {
		if o == "" {
			continue
		}
		if _, ok := im.Vals[o]; !ok {
			if _, ok := im.Consts[o]; !ok && im.Syms[o] == nil && im.rows.prods[o] == nil && im.rows.merged[o] == nil {
				return nerr(fmt.Errorf("internal error: output #%d %q was not produced", i, o))
			}
		}
	}
	return nil
}

// SupportedOps returns the ONNX op types the importer handles, sorted.
func SupportedOps() []string { return kit.SortedKeys(opTable) }

// OpRange returns the opset range of a supported op.
func OpRange(op string) (since, until int, ok bool) {
	d, ok := opTable[op]
	if !ok {
		return 0, 0, false
	}
	return d.Since, MaxOpset, true
}
