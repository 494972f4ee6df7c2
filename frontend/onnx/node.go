// This file holds nodeCtx, what an op importer sees: the node's inputs, attributes and ways to
// emit IR ops and bind the node's outputs.

package onnx

import (
	"fmt"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/proto/onnxpb"
)

type nodeCtx struct {
	im    *importer
	node  *onnxpb.NodeProto
	attrs map[string]*onnxpb.AttributeProto
}

// NumInputs returns the number of (possibly empty) inputs.
func (c *nodeCtx) NumInputs() int { return len(c.node.Input) }

// HasInput reports whether optional input i is given.
func (c *nodeCtx) HasInput(i int) bool { return i < len(c.node.Input) && c.node.Input[i] != "" }

// Input returns input i as an IR value.
func (c *nodeCtx) Input(i int) (*ir.Value, error) {
	if !c.HasInput(i) {
		return nil, fmt.Errorf("%w: missing input #%d", ErrInvalid, i)
	}
	return c.im.value(c.node.Input[i])
}

// ConstInput returns the data of input i when it is known at import (initializer, Constant,
// folded), or ok=false.
func (c *nodeCtx) ConstInput(i int) (*ir.Tensor, bool) {
	if !c.HasInput(i) {
		return nil, false
	}
	t, ok := c.im.consts[c.node.Input[i]]
	return t, ok
}

// AttrInt returns integer attribute name or def.
func (c *nodeCtx) AttrInt(name string, def int64) int64 {
	if a, ok := c.attrs[name]; ok {
		return a.GetI()
	}
	return def
}

// Emit appends an op and returns its result.
func (c *nodeCtx) Emit(kind string, operands []*ir.Value, attrs ir.Attrs, name string) (*ir.Value, error) {
	op, err := c.im.g.NewOp(kind, c.node.GetName(), operands, attrs)
	if err != nil {
		return nil, err
	}
	if name != "" {
		c.im.g.RenameValue(op.Result, name)
	}
	return op.Result, nil
}

// SetOutput binds output i of the node.
func (c *nodeCtx) SetOutput(i int, v *ir.Value) {
	if i < len(c.node.Output) && c.node.Output[i] != "" {
		c.im.vals[c.node.Output[i]] = v
	}
}

// Output returns the ONNX name of output i.
func (c *nodeCtx) Output(i int) string {
	if i < len(c.node.Output) {
		return c.node.Output[i]
	}
	return ""
}
