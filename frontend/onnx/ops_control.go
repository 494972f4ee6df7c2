// This file imports the control-flow ops by inlining their bodies: If takes the branch of a
// condition known at import, and otherwise computes both branches and selects between their
// results; Scan and Loop with a trip count known at import are unrolled, one copy of the body
// per iteration (scan inputs sliced, scan outputs concatenated). Unrolled loops are ordinary
// dataflow, so element maps stay exact and DIE sees through them; trip counts or loop
// conditions that depend on data are refused (their output shapes depend on data too).

package onnx

import (
	"fmt"
	"slices"

	"google.golang.org/protobuf/proto"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/proto/onnxpb"
	"github.com/graphc/graphc/volume"
)

// maxUnroll bounds the iterations of an unrolled Scan or Loop.
const maxUnroll = 1 << 12

func init() {
	registerOp("If", 1, importIf)
	registerOp("Scan", 8, importScan)
	registerOp("Loop", 1, importLoop)
	noteOp("If", "a condition known at import inlines its branch; otherwise both branches run and their results are selected, "+
		"or, when the branches' outputs differ in shape (Optimum's merged decoder), the condition must be bound at compile time (NeedConstError)")
	noteOp("Scan", "unrolled: static scan extents (at most 4096 iterations), any axes and directions; opset 8's batched form without sequence_lens")
	noteOp("Loop", "unrolled: a trip count known at import (at most 4096), or computed at run time with a bound (min(x, C), an extent of bounded dims); "+
		"a condition known at import or decided at run time (then M bounds it): the iterations past the run-time end are selected away and the scan outputs "+
		"get a bounded dim")
}

// binding is what a body input is bound to: a value, or data known at import.
type binding struct {
	v *ir.Value
	t *ir.Tensor
}

// inline imports the nodes of a subgraph with its inputs bound, and returns its outputs. The
// names the body defines get prefix, so that every copy of a body keeps SSA names unique; the
// other names it uses belong to the enclosing scopes and are renamed as the enclosing body's
// copy renamed them (outer).
//
// A nested graph (a branch of an If inside the body) is not copied: the body's copy of the node
// that holds it shares its attributes, and remembers the body's renaming (im.scopes) for when
// the nested graph is itself inlined. Copying and renaming every nested graph at every level
// made n nested Ifs cost n² node copies (2,000 nested Ifs: minutes and gigabytes).
func (im *importer) inline(body *onnxpb.GraphProto, prefix string, inputs []binding, outer func(string) string) ([]*ir.Value, error) {
	if len(inputs) != len(body.Input) {
		return nil, fmt.Errorf("%w: body %q takes %d inputs, given %d", ErrInvalid, body.GetName(), len(body.Input), len(inputs))
	}
	defined := map[string]bool{}
	for _, vi := range body.Input {
		defined[vi.GetName()] = true
	}
	for _, t := range body.Initializer {
		defined[t.GetName()] = true
	}
	for _, n := range body.Node {
		for _, o := range n.Output {
			if o != "" {
				defined[o] = true
			}
		}
	}
	rn := func(name string) string {
		switch {
		case name == "":
			return name
		case defined[name]:
			return prefix + name
		}
		return outer(name)
	}
	for i, vi := range body.Input {
		name := rn(vi.GetName())
		switch {
		case inputs[i].t != nil:
			im.Consts[name] = inputs[i].t
		case inputs[i].v.Data != nil:
			// a constant value: known at import in the body too (and found again after the
			// fold drops its unused materialisation)
			im.Consts[name] = inputs[i].v.Data
		default:
			im.Vals[name] = inputs[i].v
		}
	}
	for _, tp := range body.Initializer {
		data, err := im.tensor(tp)
		if err != nil {
			return nil, fmt.Errorf("initializer %q of body %q: %w", tp.GetName(), body.GetName(), err)
		}
		im.Consts[rn(tp.GetName())] = data
	}
	for _, n := range body.Node {
		c := &onnxpb.NodeProto{OpType: n.OpType, Domain: n.Domain, Attribute: n.Attribute, DocString: n.DocString,
			Input: make([]string, len(n.Input)), Output: make([]string, len(n.Output))}
		for i, in := range n.Input {
			c.Input[i] = rn(in)
		}
		for i, o := range n.Output {
			c.Output[i] = rn(o)
		}
		if n.Name != nil {
			c.Name = proto.String(prefix + n.GetName())
		}
		if hasGraphAttr(n) {
			im.scopes[c] = rn
		}
		if err := im.importNode(c); err != nil {
			return nil, err
		}
	}
	out := make([]*ir.Value, len(body.Output))
	for i, vi := range body.Output {
		v, err := im.value(rn(vi.GetName()))
		if err != nil {
			return nil, fmt.Errorf("output %q of body %q: %w", vi.GetName(), body.GetName(), err)
		}
		out[i] = v
	}
	return out, nil
}

// hasGraphAttr reports whether node n holds a nested graph.
func hasGraphAttr(n *onnxpb.NodeProto) bool {
	for _, a := range n.Attribute {
		if a.G != nil || len(a.Graphs) > 0 {
			return true
		}
	}
	return false
}

// inline inlines body, a graph attribute of c's node, renaming the names it does not define
// as the scope of c's node does.
func (c *nodeCtx) inline(body *onnxpb.GraphProto, prefix string, inputs []binding) ([]*ir.Value, error) {
	outer := c.im.scopes[c.node]
	if outer == nil {
		outer = func(name string) string { return name } // the main graph's names
	}
	return c.im.inline(body, prefix, inputs, outer)
}

// maxPrefix bounds the length of the prefix of an inlined body's names: a node inside n
// nested bodies would otherwise carry all n prefixes, and the names of n nested Ifs would take
// memory quadratic in n.
const maxPrefix = 160

// prefix returns a unique prefix for the names of one copy of a body of node c: the node's
// name and the copy ("If_3/then0/"), its middle replaced by a number unique in the import
// ("a/b/…~17~…/y/then0/") once it is longer than maxPrefix.
func (c *nodeCtx) prefix(what string, i int) string {
	base := c.node.GetName()
	if base == "" {
		base = c.Output(0)
	}
	p := fmt.Sprintf("%s/%s%d/", base, what, i)
	if len(p) > maxPrefix {
		c.im.shortened++
		p = fmt.Sprintf("%s~%d~%s", p[:maxPrefix/2], c.im.shortened, p[len(p)-maxPrefix/4:])
	}
	return p
}

// graphAttr returns the graph attribute name.
func (c *nodeCtx) graphAttr(name string) (*onnxpb.GraphProto, error) {
	a := c.Attr(name)
	if a == nil || a.GetG() == nil {
		return nil, fmt.Errorf("%w: missing graph attribute %q", ErrInvalid, name)
	}
	return a.GetG(), nil
}

func importIf(c *nodeCtx) error {
	thenG, err := c.graphAttr("then_branch")
	if err != nil {
		return err
	}
	elseG, err := c.graphAttr("else_branch")
	if err != nil {
		return err
	}
	if len(thenG.Output) != len(elseG.Output) || len(thenG.Output) < len(c.node.Output) {
		return fmt.Errorf("%w: the branches have %d and %d outputs for %d node outputs", ErrInvalid, len(thenG.Output), len(elseG.Output), len(c.node.Output))
	}
	if cond, ok := c.ConstInput(0); ok {
		if cond.Len() != 1 {
			return fmt.Errorf("%w: the condition must have one element, got %v", ErrInvalid, cond.Shape)
		}
		branch, name := elseG, "else"
		if cond.Float(0) != 0 {
			branch, name = thenG, "then"
		}
		outs, err := c.inline(branch, c.prefix(name, 0), nil)
		if err != nil {
			return err
		}
		return c.bindOutputs(outs)
	}
	// a condition known only at run time: both branches, then a select per output
	e := c.emitter()
	cond := e.In(0)
	if e.err != nil {
		return e.err
	}
	if cond.Type.Elem != ir.Bool {
		return fmt.Errorf("%w: the condition must be a bool tensor, got %s", ErrInvalid, cond.Type)
	}
	thenOuts, err := c.inline(thenG, c.prefix("then", 0), nil)
	if err != nil {
		return err
	}
	elseOuts, err := c.inline(elseG, c.prefix("else", 0), nil)
	if err != nil {
		return err
	}
	// a branch's output known at import (a Constant) may be a value the graph does not hold yet
	held := map[*ir.Value]bool{}
	for _, k := range c.im.g.Consts {
		held[k] = true
	}
	materialize := func(v *ir.Value, what string) *ir.Value {
		if v == nil || v.Def != nil || v.Data == nil || held[v] || slices.Contains(c.im.g.Inputs, v) {
			return v
		}
		return c.im.g.AddConst(e.Base+"_"+what, v.Data)
	}
	for i := range c.node.Output {
		a, b := materialize(thenOuts[i], fmt.Sprintf("then%d", i)), materialize(elseOuts[i], fmt.Sprintf("else%d", i))
		if !a.Type.Equal(b.Type) {
			// the branches' outputs differ in shape: with bounded extents the output gets a
			// bounded dim chosen at run time (ops_if_bounded.go); otherwise (Optimum's merged
			// decoder: present is past + new with use_cache_branch, new alone without, past
			// unbounded) a select cannot hold both, so the condition is needed at compile
			// time, one entry per branch (WithConstInput; graphc run binds it from its --input)
			v, err := e.ifDifferingExtents(c.Output(i), cond, a, b)
			if err != nil {
				return fmt.Errorf("output #%d is %s in one branch and %s in the other (%v): %w", i, a.Type, b.Type, err,
					c.needConst(0, "the condition of an If whose branches' outputs differ in shape"))
			}
			e.Out(i, v)
			continue
		}
		scalar := e.reshape(cond) // the condition as a rank-0 tensor broadcasts to any shape
		e.Out(i, e.Op("where", c.Output(i), nil, scalar, a, b))
	}
	return e.Done()
}

// bindOutputs binds the node's outputs to values, copying those already bound to another name.
func (c *nodeCtx) bindOutputs(outs []*ir.Value) error {
	e := c.emitter()
	for i := range c.node.Output {
		if c.Output(i) == "" {
			continue
		}
		if outs[i].Data != nil {
			c.SetConst(i, outs[i].Data)
			continue
		}
		e.Out(i, e.Op("identity", c.Output(i), nil, outs[i]))
	}
	return e.Done()
}

// sliceAt returns x[.., t, ..] along axis, without the axis.
func (e *emitter) sliceAt(x *ir.Value, axis int, t int64) *ir.Value {
	if e.err != nil {
		return nil
	}
	s := e.Op("slice", "", ir.Attrs{"starts": ir.IntsAttr(t), "ends": ir.IntsAttr(t + 1), "axes": ir.IntsAttr(int64(axis))}, x)
	if s == nil {
		return nil
	}
	shape := append(append([]volume.Aff(nil), x.Type.Shape[:axis]...), x.Type.Shape[axis+1:]...)
	return e.reshape(s, shape...)
}

// stack joins per-iteration values along a new axis.
func (e *emitter) stack(name string, vs []*ir.Value, axis int) *ir.Value {
	if e.err != nil {
		return nil
	}
	parts := make([]*ir.Value, len(vs))
	for i, v := range vs {
		shape := append(append(append([]volume.Aff(nil), v.Type.Shape[:axis]...), volume.AffConst(1)), v.Type.Shape[axis:]...)
		parts[i] = e.reshape(v, shape...)
	}
	if len(parts) == 1 {
		return e.Op("identity", name, nil, parts[0])
	}
	return e.Op("concat", name, ir.Attrs{"axis": ir.IntAttr(int64(axis))}, parts...)
}

// importScan unrolls a Scan (opset 9+): the first N inputs are state variables, the last
// num_scan_inputs are sliced along their scan axes (reversed where the direction is 1); the
// body's first N outputs are the next states, the rest are stacked along the scan output axes.
func importScan(c *nodeCtx) error {
	if c.Opset() < 9 {
		return importScan8(c)
	}
	body, err := c.graphAttr("body")
	if err != nil {
		return err
	}
	e := c.emitter()
	m := int(c.AttrInt("num_scan_inputs", 0))
	n := c.NumInputs() - m
	ins := make([]*ir.Value, c.NumInputs())
	for i := range ins {
		ins[i] = e.In(i)
	}
	if e.err != nil {
		return e.err
	}
	return c.unrollScan(e, body, ins, n, m, "", c.node.Output)
}

// importScan8 unrolls opset 8's Scan: every input has a leading batch dim (the scan axis is
// the next), and the body runs on each batch element; sequence_lens must be absent.
func importScan8(c *nodeCtx) error {
	if c.HasInput(0) {
		return fmt.Errorf("%w: Scan's sequence_lens (sequences shorter than the scan axis)", ErrUnsupported)
	}
	body, err := c.graphAttr("body")
	if err != nil {
		return err
	}
	e := c.emitter()
	m := int(c.AttrInt("num_scan_inputs", 0))
	n := c.NumInputs() - 1 - m
	if m < 1 || n < 0 {
		return fmt.Errorf("%w: num_scan_inputs = %d with %d inputs", ErrInvalid, m, c.NumInputs())
	}
	ins := make([]*ir.Value, n+m)
	for i := range ins {
		ins[i] = e.In(1 + i)
	}
	if e.err != nil {
		return e.err
	}
	batch, ok := ins[0].Type.Dim(0)
	if !ok {
		return fmt.Errorf("%w: a symbolic batch dim in %s", ErrUnsupported, ins[0].Type)
	}
	outs := make([][]*ir.Value, len(c.node.Output))
	for b := int64(0); b < batch; b++ {
		per := make([]*ir.Value, len(ins))
		for i, x := range ins {
			per[i] = e.sliceAt(x, 0, b)
		}
		names := make([]string, len(c.node.Output))
		for i := range names {
			names[i] = fmt.Sprintf("%s/batch%d/out%d", c.prefix("scan", 0), b, i)
		}
		if err := c.unrollScan(e, body, per, n, m, fmt.Sprintf("batch%d/", b), names); err != nil {
			return err
		}
		for i, name := range names {
			v, err := c.im.value(name)
			if err != nil {
				return err
			}
			outs[i] = append(outs[i], v)
		}
	}
	for i, vs := range outs {
		e.Out(i, e.stack(c.Output(i), vs, 0))
	}
	return e.Done()
}

// unrollScan unrolls the scan of body over ins (n states, then m scan inputs) and binds the
// results to the ONNX names outNames; copies of the body are named with tag.
func (c *nodeCtx) unrollScan(e *emitter, body *onnxpb.GraphProto, ins []*ir.Value, n, m int, tag string, outNames []string) error {
	if m < 1 || n < 0 {
		return fmt.Errorf("%w: num_scan_inputs = %d with %d inputs", ErrInvalid, m, len(ins))
	}
	k := len(body.Output) - n
	if k < 0 || len(body.Input) != n+m {
		return fmt.Errorf("%w: the body takes %d inputs and gives %d outputs for %d states and %d scan inputs", ErrInvalid, len(body.Input), len(body.Output), n, m)
	}
	attrAxes := func(name string, count int) []int64 {
		v := c.AttrInts(name, nil)
		if len(v) == 0 {
			v = make([]int64, count)
		}
		return v
	}
	inAxes, inDirs := attrAxes("scan_input_axes", m), attrAxes("scan_input_directions", m)
	if c.Opset() < 9 {
		inDirs = attrAxes("directions", m) // opset 8's name; its scan axis is the first after the batch
	}
	outAxes, outDirs := attrAxes("scan_output_axes", k), attrAxes("scan_output_directions", k)
	if len(inAxes) != m || len(inDirs) != m || len(outAxes) != k || len(outDirs) != k {
		return fmt.Errorf("%w: scan axes and directions must list one entry per scan input and output", ErrInvalid)
	}
	states := append([]*ir.Value(nil), ins[:n]...)
	scans := ins[n:]
	axes := make([]int, m)
	trip := int64(-1)
	for j := range scans {
		a, err := resolveAxes([]int64{inAxes[j]}, scans[j].Type.Rank())
		if err != nil {
			return err
		}
		axes[j] = a[0]
		t, ok := scans[j].Type.Dim(a[0])
		if !ok {
			return fmt.Errorf("%w: scan input #%d has a symbolic scan extent (%s)", ErrUnsupported, j, scans[j].Type)
		}
		if trip >= 0 && t != trip {
			return fmt.Errorf("%w: scan inputs of %d and %d iterations", ErrInvalid, trip, t)
		}
		trip = t
	}
	if trip > maxUnroll {
		return fmt.Errorf("%w: a scan of %d iterations (at most %d are unrolled)", ErrUnsupported, trip, maxUnroll)
	}
	collected := make([][]*ir.Value, k)
	for it := int64(0); it < trip; it++ {
		bs := make([]binding, 0, n+m)
		for _, s := range states {
			bs = append(bs, binding{v: s})
		}
		for j, x := range scans {
			t := it
			if inDirs[j] != 0 {
				t = trip - 1 - it
			}
			bs = append(bs, binding{v: e.sliceAt(x, axes[j], t)})
		}
		if e.err != nil {
			return e.err
		}
		outs, err := c.inline(body, c.prefix(tag+"iter", int(it)), bs)
		if err != nil {
			return err
		}
		copy(states, outs[:n])
		for j := 0; j < k; j++ {
			collected[j] = append(collected[j], outs[n+j])
		}
	}
	bind := func(i int, v *ir.Value) {
		if i < len(outNames) && outNames[i] != "" && v != nil {
			c.im.Vals[outNames[i]] = v
		}
	}
	for i := range states {
		bind(i, e.Op("identity", outNames[i], nil, states[i]))
	}
	for j := 0; j < k; j++ {
		if trip == 0 {
			return fmt.Errorf("%w: a scan of 0 iterations with scan outputs", ErrUnsupported)
		}
		vs := collected[j]
		if outDirs[j] != 0 {
			vs = reversed(vs)
		}
		r := vs[0].Type.Rank() + 1
		a, err := resolveAxes([]int64{outAxes[j]}, r)
		if err != nil {
			return err
		}
		bind(n+j, e.stack(outNames[n+j], vs, a[0]))
	}
	return e.err
}

func reversed(vs []*ir.Value) []*ir.Value {
	out := make([]*ir.Value, len(vs))
	for i, v := range vs {
		out[len(vs)-1-i] = v
	}
	return out
}

// importLoop unrolls a Loop. Iterations run while the trip count M (input 0) and the
// condition allow; while both are known at import the iterations are plain copies of the body.
// Once either is decided at run time (M computed by the graph, a condition that depends on
// data), the loop needs a bound: M when it is known, or M's bound when it is computed (a
// function of bounded dims, or min(x, C) for a constant C). The remaining iterations up to the
// bound are copies of the body whose effects are selected by a run-time flag (alive: every
// earlier condition held and i < M): the loop-carried values keep their last value once it
// drops, the scan outputs are stacked at the bound and cut to the iterations that ran, a bounded
// dim. A copy past the last iteration still computes (on the last state) and its result is
// dropped, unless M is an affine function of symbolic dims (the extent of a bounded dim: a
// loop over detections): then the copy's ops run only where it < M (guardCopy), so that a
// body reading row it of a tensor of M rows neither reads past its extent nor fails the call.
func importLoop(c *nodeCtx) error {
	body, err := c.graphAttr("body")
	if err != nil {
		return err
	}
	e := c.emitter()
	lim, err := loopLimitOf(c, e)
	if err != nil {
		return err
	}
	n := c.NumInputs() - 2
	if n < 0 || len(body.Input) != n+2 || len(body.Output) < n+1 {
		return fmt.Errorf("%w: the body takes %d inputs and gives %d outputs for %d loop-carried values", ErrInvalid, len(body.Input), len(body.Output), n)
	}
	k := len(body.Output) - 1 - n
	carried := make([]*ir.Value, n)
	for i := range carried {
		carried[i] = e.In(2 + i)
	}
	if e.err != nil {
		return e.err
	}
	// values grown by concatenation become scan outputs (loop_accumulate.go)
	kModel := k
	body, accs := accumulators(body, carried)
	k = len(body.Output) - 1 - n
	isAcc := map[int]bool{}
	for _, a := range accs {
		isAcc[a.carried] = true
	}
	// alive: whether iteration it runs (known, or the run-time flag aliveV)
	alive := flag{known: true, val: true}
	if c.HasInput(1) {
		if t, ok := c.ConstInput(1); ok {
			if t.Len() != 1 {
				return fmt.Errorf("%w: the condition must have one element, got %d", ErrInvalid, t.Len())
			}
			alive.val = t.Float(0) != 0
		} else {
			alive = flag{v: e.reshape(e.In(1))}
		}
	}
	alive = alive.and(e, lim.less(e, 0))
	collected := make([][]*ir.Value, k)
	ran := int64(0)    // iterations known to run
	var runV *ir.Value // plus the run-time ones (i64), nil when none
	for it := int64(0); it < lim.bound && !(alive.known && !alive.val); it++ {
		if !alive.known && !lim.bounded {
			return fmt.Errorf("%w: a Loop with no trip count whose condition depends on data (iteration %d): nothing bounds its "+
				"iterations; a trip count M (input 0) known at compile time, or bounded (min(x, C) for a constant C, an extent of "+
				"a tensor whose dims are bounded), would bound them", ErrUnsupported, it)
		}
		if it == maxUnroll && !lim.bounded {
			return fmt.Errorf("%w: a Loop with no trip count whose condition is still true after %d iterations (at most %d are unrolled)", ErrUnsupported, it, maxUnroll)
		}
		iter := ir.NewTensor(ir.I64, nil)
		iter.I[0] = it
		cnd := ir.NewTensor(ir.Bool, nil)
		cnd.I[0] = 1
		ins := []binding{{t: iter}, {t: cnd}}
		for _, v := range carried {
			ins = append(ins, binding{v: v})
		}
		start := len(c.im.g.Ops)
		outs, err := c.inline(body, c.prefix("iter", int(it)), ins)
		if err != nil {
			return err
		}
		if !alive.known {
			if err := lim.guardCopy(c.im.g.Ops[start:], it); err != nil {
				return err
			}
		}
		if alive.known {
			for i, v := range outs[1 : 1+n] {
				if !isAcc[i] {
					carried[i] = v
				}
			}
			ran++
		} else {
			for i, v := range outs[1 : 1+n] {
				if isAcc[i] {
					continue // an accumulator keeps its initial value
				}
				if !v.Type.Equal(carried[i].Type) {
					return fmt.Errorf("%w: loop-carried value #%d is %s before iteration %d and %s after it (an iteration decided at run time needs one type)",
						ErrUnsupported, i, carried[i].Type, it, v.Type)
				}
				carried[i] = e.Op("where", "", nil, alive.v, v, carried[i])
			}
			one := e.Cast(alive.v, ir.I64, "")
			if runV == nil {
				runV = one
			} else {
				runV = e.Op("add", "", nil, runV, one)
			}
		}
		for j := 0; j < k; j++ {
			collected[j] = append(collected[j], outs[1+n+j])
		}
		next := flag{known: true, val: true}
		if d := outs[0].Data; d != nil {
			if d.Len() != 1 {
				return fmt.Errorf("%w: the body's condition must have one element, got %d", ErrInvalid, d.Len())
			}
			next.val = d.Float(0) != 0
		} else {
			next = flag{v: e.reshape(outs[0])}
		}
		alive = alive.and(e, next).and(e, lim.less(e, it+1))
		if e.err != nil {
			return e.err
		}
	}
	scanName := func(j int) string {
		if j < kModel {
			return c.Output(n + j)
		}
		return ""
	}
	scans := make([]*ir.Value, k)
	switch {
	case k == 0:
	case len(collected[0]) == 0 && kModel > 0:
		return fmt.Errorf("%w: a Loop of 0 iterations with scan outputs", ErrUnsupported)
	case len(collected[0]) == 0:
		accs = nil // no iteration: the accumulated values are their initial values
	case runV == nil:
		for j := 0; j < k; j++ {
			scans[j] = e.stack(scanName(j), collected[j], 0)
		}
	default:
		// the scan outputs hold the iterations that ran: a bounded dim
		count := runV
		if ran > 0 {
			count = e.Op("add", "", nil, runV, e.Scalar(ir.I64, float64(ran)))
		}
		nd := e.boundedDim(e.Base+"_iterations", count, int64(len(collected[0])))
		for j := 0; j < k; j++ {
			all := e.stack("", collected[j], 0)
			scans[j] = e.Op("slice", scanName(j), ir.Attrs{"axes": ir.IntsAttr(0), "starts": ir.IntsAttr(0), "ends": ir.IntsAttr(0),
				"sym_ends": ir.StringsAttr(nd)}, all)
		}
	}
	done := map[int]bool{}
	for _, a := range accs {
		v, err := e.accumulated(c.Output(a.carried), carried[a.carried], scans[a.scan])
		if err != nil {
			return err
		}
		e.Out(a.carried, v)
		done[a.carried] = true
	}
	for i := range carried {
		if !done[i] {
			e.Out(i, e.Op("identity", c.Output(i), nil, carried[i]))
		}
	}
	for j := 0; j < kModel; j++ {
		e.Out(n+j, scans[j])
	}
	return e.Done()
}

// flag is a boolean known at import (val) or computed at run time (v, an i1 scalar).
type flag struct {
	known, val bool
	v          *ir.Value
}

// and returns f && g.
func (f flag) and(e *emitter, g flag) flag {
	switch {
	case f.known && !f.val, g.known && g.val:
		return f
	case g.known && !g.val, f.known && f.val:
		return g
	}
	return flag{v: e.Op("and", "", nil, f.v, g.v)}
}

// loopLimit is what bounds a Loop's iterations: its trip count M, known (bound = M) or
// computed at run time (v, with an upper bound), or nothing (bounded false: a while loop
// unrolled as long as its condition is known).
type loopLimit struct {
	bounded bool
	bound   int64
	v       *ir.Value // M at run time (an i64 scalar), nil when known
	// aff is M as an affine function of symbolic dims when it is one (nil otherwise)
	aff *volume.Aff
}

// guardCopy restricts the ops of the Loop body's copy for iteration it (ops) to the symbolic
// dims where it < M, when M is affine in them: a copy past the run-time trip count then runs
// no iteration, and its requirements that hold wherever it runs (row it of a tensor of M rows
// lies in it) are dropped, so the copy neither reads past an extent nor fails the call. The
// copy's results are undefined where it does not run; importLoop drops them there (the
// where on the alive flag, the scan outputs cut to the iterations that ran).
func (l loopLimit) guardCopy(ops []*ir.Op, it int64) error {
	if l.aff == nil {
		return nil
	}
	g := volume.GE(*l.aff, volume.AffConst(it+1))
	for _, op := range ops {
		params := append(op.Domain.Params(), l.aff.ParamNames()...)
		for _, c := range op.Requires {
			params = append(params, c.Aff.ParamNames()...)
		}
		slices.Sort(params)
		params = slices.Compact(params)
		runs := ir.SetFromParamConstraints(params, []volume.Constraint{g})
		op.Domain = op.Domain.IntersectParams(runs).Coalesce()
		if err := op.Domain.Err(); err != nil {
			return fmt.Errorf("restricting the Loop body's copy for iteration %d to it < %s: %w", it, l.aff.String(), err)
		}
		kept := op.Requires[:0:0]
		for _, c := range op.Requires {
			if !runs.IsSubset(ir.SetFromParamConstraints(params, []volume.Constraint{c})).Or(false) {
				kept = append(kept, c)
			}
		}
		op.Requires = kept
	}
	return nil
}

// less returns whether iteration it may run by the trip count: it < M.
func (l loopLimit) less(e *emitter, it int64) flag {
	if l.v == nil {
		return flag{known: true, val: !l.bounded || it < l.bound}
	}
	if it >= l.bound {
		return flag{known: true}
	}
	return flag{v: e.Op("less", "", nil, e.Scalar(ir.I64, float64(it)), l.v)}
}

// loopLimitOf reads the Loop's trip count M: known at import, or computed with a bound.
func loopLimitOf(c *nodeCtx, e *emitter) (loopLimit, error) {
	if !c.HasInput(0) {
		return loopLimit{bound: maxUnroll + 1}, nil
	}
	if t, ok := c.ConstInput(0); ok {
		if t.Len() != 1 {
			return loopLimit{}, fmt.Errorf("%w: the trip count must have one element, got %d", ErrInvalid, t.Len())
		}
		m := t.Int(0)
		if m > maxUnroll {
			return loopLimit{}, fmt.Errorf("%w: a Loop of %d iterations (at most %d are unrolled)", ErrUnsupported, m, maxUnroll)
		}
		return loopLimit{bounded: true, bound: max(m, 0)}, nil
	}
	mv := e.In(0)
	if e.err != nil {
		return loopLimit{}, e.err
	}
	if cnt, ok := staticCount(mv.Type); !ok || cnt != 1 || mv.Type.Elem != ir.I64 {
		return loopLimit{}, fmt.Errorf("%w: the trip count must be one int64, got %s", ErrInvalid, mv.Type)
	}
	bound, why := int64(-1), "it is neither min(x, C) for a constant C nor an extent of a tensor whose dims are bounded"
	if vals, ok := c.SymInts(0); ok && len(vals) == 1 {
		if b, err := e.boundOf(vals[0]); err == nil {
			bound = b
		} else {
			why = err.Error()
		}
	}
	if cap, ok := minCap(mv); ok && (bound < 0 || cap < bound) {
		bound = cap
	}
	if bound < 0 {
		return loopLimit{}, c.needConst(0, "trip count; it is computed at run time and nothing bounds it ("+why+
			"): the iterations and the extents of the scan outputs need a bound known at compile time")
	}
	if bound > maxUnroll {
		return loopLimit{}, fmt.Errorf("%w: a Loop of up to %d iterations (at most %d are unrolled)", ErrUnsupported, bound, maxUnroll)
	}
	lim := loopLimit{bounded: true, bound: max(bound, 0), v: e.reshape(mv)}
	if vals, ok := c.SymInts(0); ok && len(vals) == 1 && len(vals[0].Params) > 0 && len(vals[0].Dims) == 0 {
		lim.aff = &vals[0]
	}
	return lim, nil
}

func init() {
	registerOp("OptionalHasElement", 15, importOptionalHasElement)
	registerOp("OptionalGetElement", 15, importOptionalGetElement)
	noteOp("OptionalHasElement", "tensors and absent inputs (optional and sequence values are not supported)")
	noteOp("OptionalGetElement", "tensors (optional and sequence values are not supported)")
}

// importOptionalHasElement: a given tensor has an element, an absent input none.
func importOptionalHasElement(c *nodeCtx) error {
	t := ir.NewTensor(ir.Bool, nil)
	if c.HasInput(0) {
		if _, err := c.Input(0); err != nil {
			return err
		}
		t.I[0] = 1
	}
	c.SetConst(0, t)
	return nil
}

// importOptionalGetElement: the element of a tensor is the tensor.
func importOptionalGetElement(c *nodeCtx) error {
	e := c.emitter()
	e.Out(0, e.Op("identity", c.Output(0), nil, e.In(0)))
	return e.Done()
}
