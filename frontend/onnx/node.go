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
	// promote computes a node with bfloat16 operands in float32: its bfloat16 inputs are
	// converted to float32 and its float32 results rounded back on store (promoted says
	// which inputs were)
	promote  bool
	promoted bool
}

// noPromotion lists the ops that handle bfloat16 themselves: conversions and shape queries.
var noPromotion = map[string]bool{"Cast": true, "CastLike": true, "BitCast": true, "Shape": true, "Size": true, "Constant": true}

// NumInputs returns the number of (possibly empty) inputs.
func (c *nodeCtx) NumInputs() int { return len(c.node.Input) }

// HasInput reports whether optional input i is given.
func (c *nodeCtx) HasInput(i int) bool { return i < len(c.node.Input) && c.node.Input[i] != "" }

// Input returns input i as an IR value.
func (c *nodeCtx) Input(i int) (*ir.Value, error) {
	if !c.HasInput(i) {
		return nil, fmt.Errorf("%w: missing input #%d", ErrInvalid, i)
	}
	v, err := c.im.value(c.node.Input[i])
	if err != nil || !c.promote || v.Type.Elem != ir.BF16 {
		return v, err
	}
	c.promoted = true
	return c.Emit("cast", []*ir.Value{v}, ir.Attrs{"to": ir.StringAttr(ir.F32.String())}, "")
}

// ConstInput returns the data of input i when it is known at import (initializer, Constant,
// folded), or ok=false.
func (c *nodeCtx) ConstInput(i int) (*ir.Tensor, bool) {
	if !c.HasInput(i) {
		return nil, false
	}
	t, ok := c.im.Consts[c.node.Input[i]]
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

// AddConst adds a constant to the graph.
func (c *nodeCtx) AddConst(name string, t *ir.Tensor) *ir.Value { return c.im.g.AddConst(name, t) }

// SetOutput binds output i of the node (a float32 result of promoted bfloat16 operands is
// rounded back to bfloat16).
func (c *nodeCtx) SetOutput(i int, v *ir.Value) {
	if c.promoted && v.Type.Elem == ir.F32 {
		if r, err := c.Emit("cast", []*ir.Value{v}, ir.Attrs{"to": ir.StringAttr(ir.BF16.String())}, ""); err == nil {
			v = r
		}
	}
	if i < len(c.node.Output) && c.node.Output[i] != "" {
		c.im.Vals[c.node.Output[i]] = v
	}
}

// Output returns the ONNX name of output i.
func (c *nodeCtx) Output(i int) string {
	if i < len(c.node.Output) {
		return c.node.Output[i]
	}
	return ""
}

// Attr returns the named attribute, or nil.
func (c *nodeCtx) Attr(name string) *onnxpb.AttributeProto { return c.attrs[name] }

// AttrInts returns integer-list attribute name or def.
func (c *nodeCtx) AttrInts(name string, def []int64) []int64 {
	if a, ok := c.attrs[name]; ok {
		return a.GetInts()
	}
	return def
}

// AttrFloat returns float attribute name or def.
func (c *nodeCtx) AttrFloat(name string, def float32) float32 {
	if a, ok := c.attrs[name]; ok {
		return a.GetF()
	}
	return def
}

// AttrFloats returns float-list attribute name or def.
func (c *nodeCtx) AttrFloats(name string, def []float32) []float32 {
	if a, ok := c.attrs[name]; ok {
		return a.GetFloats()
	}
	return def
}

// AttrString returns string attribute name or def.
func (c *nodeCtx) AttrString(name, def string) string {
	if a, ok := c.attrs[name]; ok {
		return string(a.GetS())
	}
	return def
}

// AttrStrings returns string-list attribute name or def.
func (c *nodeCtx) AttrStrings(name string, def []string) []string {
	a, ok := c.attrs[name]
	if !ok {
		return def
	}
	out := make([]string, len(a.GetStrings()))
	for i, s := range a.GetStrings() {
		out[i] = string(s)
	}
	return out
}

// AttrTensor returns tensor attribute name decoded, or ok=false.
func (c *nodeCtx) AttrTensor(name string) (*ir.Tensor, bool, error) {
	a, ok := c.attrs[name]
	if !ok || a.GetT() == nil {
		return nil, false, nil
	}
	t, err := c.im.tensor(a.GetT())
	return t, true, err
}

// ConstInts returns constant input i as a list of integers (ok=false when it is not constant
// or not an integer tensor).
func (c *nodeCtx) ConstInts(i int) ([]int64, bool) {
	t, ok := c.ConstInput(i)
	if !ok || t.Elem.IsFloat() {
		return nil, false
	}
	return append([]int64(nil), t.Decoded().I...), true
}

// ConstFloats returns constant input i as a list of floats.
func (c *nodeCtx) ConstFloats(i int) ([]float64, bool) {
	t, ok := c.ConstInput(i)
	if !ok {
		return nil, false
	}
	out := make([]float64, t.Len())
	for k := range out {
		out[k] = t.Float(k)
	}
	return out, true
}

// SetConst binds output i of the node to data known at import (folded shapes, Constant nodes).
func (c *nodeCtx) SetConst(i int, t *ir.Tensor) {
	if i < len(c.node.Output) && c.node.Output[i] != "" {
		c.im.SetConst(c.node.Output[i], t)
	}
}

// Opset returns the model's default-domain opset.
func (c *nodeCtx) Opset() int64 { return c.im.opset }

// Params returns the graph's symbolic dims.
func (c *nodeCtx) Params() []string { return c.im.g.Params }

// Errorf returns an error about the node (the caller adds the node, op and opset).
func (c *nodeCtx) Errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }
