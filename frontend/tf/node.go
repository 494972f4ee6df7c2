// This file holds nodeCtx, what an op importer sees of a node: inputs, attributes, and ways to
// emit IR ops and bind the node's outputs.

package tf

import (
	"fmt"

	kit "github.com/graphc/graphc/frontend/importer"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/proto/tfpb"
)

type nodeCtx struct {
	im     *importer
	node   *tfpb.NodeDef
	inputs []string // data inputs ("name:port" or "name")
}

func (c *nodeCtx) inputKey(i int) string {
	name, port, _ := splitName(c.inputs[i])
	return key(name, port)
}

// NumInputs returns the number of data inputs.
func (c *nodeCtx) NumInputs() int { return len(c.inputs) }

// Input returns data input i.
func (c *nodeCtx) Input(i int) (*ir.Value, error) {
	if i >= len(c.inputs) {
		return nil, fmt.Errorf("%w: missing input #%d", ErrInvalid, i)
	}
	return c.im.value(c.inputKey(i))
}

// ConstInput returns the data of input i when it is known at import.
func (c *nodeCtx) ConstInput(i int) (*ir.Tensor, bool) {
	if i >= len(c.inputs) {
		return nil, false
	}
	t, ok := c.im.Consts[c.inputKey(i)]
	return t, ok
}

// ConstInts returns constant input i as integers.
func (c *nodeCtx) ConstInts(i int) ([]int64, bool) {
	t, ok := c.ConstInput(i)
	if !ok || t.Elem.IsFloat() {
		return nil, false
	}
	return append([]int64(nil), t.Decoded().I...), true
}

// RequireInts returns constant input i as integers, or an error saying that input (what) must
// be known at import.
func (c *nodeCtx) RequireInts(i int, what string) ([]int64, error) {
	if i >= len(c.inputs) {
		return nil, fmt.Errorf("%w: missing input #%d (%s)", ErrInvalid, i, what)
	}
	t, ok := c.ConstInput(i)
	if !ok {
		return nil, fmt.Errorf("%w: input #%d (%s) must be a constant known at import", ErrUnsupported, i, what)
	}
	if t.Elem.IsFloat() {
		return nil, fmt.Errorf("%w: input #%d (%s) must hold integers, got %s", ErrInvalid, i, what, t.Elem)
	}
	return append([]int64(nil), t.Decoded().I...), nil
}

// RequireInt returns constant input i as one integer (a scalar or a 1-element vector).
func (c *nodeCtx) RequireInt(i int, what string) (int64, error) {
	v, err := c.RequireInts(i, what)
	return kit.One(v, err, i, what, ErrInvalid)
}

// RequireFloat returns constant input i as one float (a scalar or a 1-element vector).
func (c *nodeCtx) RequireFloat(i int, what string) (float64, error) {
	v, err := c.RequireFloats(i, what)
	return kit.One(v, err, i, what, ErrInvalid)
}

// RequireFloats returns constant input i as floats.
func (c *nodeCtx) RequireFloats(i int, what string) ([]float64, error) {
	if i >= len(c.inputs) {
		return nil, fmt.Errorf("%w: missing input #%d (%s)", ErrInvalid, i, what)
	}
	t, ok := c.ConstInput(i)
	if !ok {
		return nil, fmt.Errorf("%w: input #%d (%s) must be a constant known at import", ErrUnsupported, i, what)
	}
	out := make([]float64, t.Len())
	for k := range out {
		out[k] = t.Float(k)
	}
	return out, nil
}

// Attr returns attribute name, or nil.
func (c *nodeCtx) Attr(name string) *tfpb.AttrValue { return c.node.Attr[name] }

// AttrInt returns integer attribute name or def.
func (c *nodeCtx) AttrInt(name string, def int64) int64 {
	if a := c.Attr(name); a != nil {
		return a.GetI()
	}
	return def
}

// AttrBool returns boolean attribute name or def.
func (c *nodeCtx) AttrBool(name string, def bool) bool {
	if a := c.Attr(name); a != nil {
		return a.GetB()
	}
	return def
}

// AttrFloat returns float attribute name or def.
func (c *nodeCtx) AttrFloat(name string, def float32) float32 {
	if a := c.Attr(name); a != nil {
		return a.GetF()
	}
	return def
}

// AttrType returns element-type attribute name (ok=false when absent).
func (c *nodeCtx) AttrType(name string) (ir.DType, bool, error) {
	a := c.Attr(name)
	if a == nil {
		return ir.Invalid, false, nil
	}
	t, err := DType(a.GetType())
	if err != nil {
		return ir.Invalid, true, fmt.Errorf("attribute %s: %w", name, err)
	}
	return t, true, nil
}

// AttrString returns string attribute name or def.
func (c *nodeCtx) AttrString(name, def string) string {
	if a := c.Attr(name); a != nil {
		return string(a.GetS())
	}
	return def
}

// AttrInts returns integer-list attribute name or def.
func (c *nodeCtx) AttrInts(name string, def []int64) []int64 {
	if a := c.Attr(name); a != nil && a.GetList() != nil {
		return a.GetList().GetI()
	}
	return def
}

// SetOutput binds output port of the node; a constant (folded) value is also known as data.
func (c *nodeCtx) SetOutput(port int, v *ir.Value) {
	k := key(c.node.Name, port)
	c.im.Vals[k] = v
	if v.Data != nil {
		c.im.Consts[k] = v.Data
	}
}

// Emit adds the catalogue op kind (folded into a constant when its operands are constants
// and it is small, kit.Fold) and returns its result, named name.
func (c *nodeCtx) Emit(kind string, operands []*ir.Value, attrs ir.Attrs, name string) (*ir.Value, error) {
	g := c.im.g
	op, err := ir.MakeOp(g.Params, kind, c.Name(), operands, attrs)
	if err != nil {
		return nil, err
	}
	if t, ok := kit.Fold(op); ok {
		return g.AddConst(name, t), nil
	}
	g.Append(op, name)
	return op.Result, nil
}

// AddConst adds a constant to the graph.
func (c *nodeCtx) AddConst(name string, t *ir.Tensor) *ir.Value { return c.im.g.AddConst(name, t) }

// SetConst binds output port to data known at import.
func (c *nodeCtx) SetConst(port int, t *ir.Tensor) { c.im.Consts[key(c.node.Name, port)] = t }

// Name returns the node name.
func (c *nodeCtx) Name() string { return c.node.Name }
