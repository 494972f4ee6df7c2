// This file holds nodeCtx, what an op importer sees of a node: inputs, attributes, and ways to
// emit IR ops and bind the node's outputs.

package tf

import (
	"fmt"

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
	t, ok := c.im.consts[c.inputKey(i)]
	return t, ok
}

// ConstInts returns constant input i as integers.
func (c *nodeCtx) ConstInts(i int) ([]int64, bool) {
	t, ok := c.ConstInput(i)
	if !ok || t.Elem.IsFloat() {
		return nil, false
	}
	return append([]int64(nil), t.I...), true
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

// Emit appends a catalogue op named after the node.
func (c *nodeCtx) Emit(kind string, operands []*ir.Value, attrs ir.Attrs) (*ir.Value, error) {
	op, err := c.im.g.NewOp(kind, c.node.Name, operands, attrs)
	if err != nil {
		return nil, err
	}
	return op.Result, nil
}

// SetOutput binds output port of the node.
func (c *nodeCtx) SetOutput(port int, v *ir.Value) { c.im.vals[key(c.node.Name, port)] = v }

// SetConst binds output port to data known at import.
func (c *nodeCtx) SetConst(port int, t *ir.Tensor) { c.im.consts[key(c.node.Name, port)] = t }

// Name returns the node name.
func (c *nodeCtx) Name() string { return c.node.Name }
