// This file imports the ops that compute on shapes: Shape and Size (constants, or symbolic
// values when dims are symbolic), ConstantOfShape (a fill of a known shape) and Range (folded
// at import: its length must be known at compile time).

package onnx

import (
	"fmt"

	kit "github.com/graphc/graphc/frontend/importer"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

func init() {
	registerOp("Shape", 1, importShape)
	registerOp("Size", 1, importSize)
	registerOp("ConstantOfShape", 9, importConstantOfShape)
	registerOp("Range", 11, importRange)
}

// inputShape returns the shape of input i (its type; the data need not be known).
func inputShape(c *nodeCtx, i int) ([]volume.Aff, error) {
	if !c.HasInput(i) {
		return nil, fmt.Errorf("%w: missing input #%d", ErrInvalid, i)
	}
	if t, ok := c.ConstInput(i); ok {
		out := make([]volume.Aff, len(t.Shape))
		for k, d := range t.Shape {
			out[k] = volume.AffConst(d)
		}
		return out, nil
	}
	if s, ok := c.im.Syms[c.node.Input[i]]; ok {
		out := make([]volume.Aff, len(s.Shape))
		for k, d := range s.Shape {
			out[k] = volume.AffConst(d)
		}
		return out, nil
	}
	v, err := c.Input(i)
	if err != nil {
		return nil, err
	}
	return v.Type.Shape, nil
}

func importShape(c *nodeCtx) error {
	shape, err := inputShape(c, 0)
	if err != nil {
		return err
	}
	r := int64(len(shape))
	start, end := int64(0), r
	if c.Opset() >= 15 {
		start, end = c.AttrInt("start", 0), c.AttrInt("end", r)
		if start < 0 {
			start += r
		}
		if end < 0 {
			end += r
		}
		start, end = min(max(start, 0), r), min(max(end, 0), r)
	}
	vals := []volume.Aff{}
	if start < end {
		vals = shape[start:end]
	}
	c.SetSym(0, ir.I64, []int64{int64(len(vals))}, vals)
	return nil
}

func importSize(c *nodeCtx) error {
	shape, err := inputShape(c, 0)
	if err != nil {
		return err
	}
	n, err := kit.ExtentProduct(shape)
	if err != nil {
		return err
	}
	c.SetSym(0, ir.I64, []int64{}, []volume.Aff{n})
	return nil
}

func importConstantOfShape(c *nodeCtx) error {
	shape, err := c.RequireBoundedInts(0, "shape")
	if err != nil {
		return err
	}
	elem, value := ir.F32, 0.0
	if t, ok, err := c.AttrTensor("value"); err != nil {
		return err
	} else if ok {
		if t.Len() != 1 {
			return fmt.Errorf("%w: value must have one element, got %d", ErrInvalid, t.Len())
		}
		elem, value = t.Elem, t.Float(0)
	}
	for i, d := range shape {
		if k, ok := d.IsConst(); ok && k < 0 {
			return fmt.Errorf("%w: negative extent %d at dimension %d", ErrInvalid, k, i)
		}
	}
	op, err := ir.NewFill(c.Params(), ir.TensorType{Elem: elem, Shape: shape}, value, c.node.GetName())
	if err != nil {
		return err
	}
	c.im.g.Append(op, c.Output(0))
	c.SetOutput(0, op.Result)
	return nil
}

func importRange(c *nodeCtx) error {
	if done, err := importSymbolicRange(c); done || err != nil {
		return err
	}
	var args [3]*ir.Tensor
	for i, role := range []string{"start", "limit", "delta"} {
		t, err := c.RequireConst(i, role)
		if err != nil {
			return err
		}
		args[i] = t
	}
	out, err := kit.RangeTensor(args[0], args[1], args[2], ErrInvalid)
	if err != nil {
		return err
	}
	c.SetConst(0, out)
	return nil
}

// importSymbolicRange imports a Range whose integer bounds are computed from the symbolic
// dims (torch.arange(T) with T from Shape → Gather → Cast) as a range op: an affine tensor of
// symbolic length. It reports done=false when every bound is a constant (folded instead).
func importSymbolicRange(c *nodeCtx) (done bool, err error) {
	var ex [3]volume.Aff
	symbolic := false
	for i := range ex {
		v, ok := c.SymInts(i)
		if !ok || len(v) != 1 {
			return false, nil
		}
		ex[i] = v[0]
		if _, ok := v[0].IsConst(); !ok {
			symbolic = true
		}
	}
	if !symbolic {
		return false, nil
	}
	s, _ := c.known(0)
	return true, emit1(c, "range", nil, ir.Attrs{"elem": ir.StringAttr(s.Elem.String()),
		"start": ir.StringAttr(ex[0].String()), "limit": ir.StringAttr(ex[1].String()), "delta": ir.StringAttr(ex[2].String())})
}
