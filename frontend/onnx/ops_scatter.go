// This file imports GatherND, ScatterND, ScatterElements and the deprecated Scatter. The
// trailing dim of GatherND's and ScatterND's index tensor is split into one index tensor per
// addressed dim (exact slices), which the catalogue's gather_nd and scatter_nd take as
// operands. Scatters without a reduction (unique indices, as ONNX requires) select between
// data and the sum of the updates that reach each element.

package onnx

import (
	"fmt"
	"math"

	"github.com/graphc/graphc/ir"
)

func init() {
	registerOp("GatherND", 11, importGatherND)
	registerOp("ScatterND", 11, importScatterND)
	registerOp("ScatterElements", 11, importScatterElements)
	registerOp("Scatter", 9, importScatterElements)
	noteOp("GatherND", "batch_dims; static index depth (the indices' last dim)")
	noteOp("ScatterND", "reduction none, add, mul, max, min; a search of the updates per element (cost: elements × updates); out-of-range indices are ignored")
	noteOp("ScatterElements", "reduction none, add, mul, max, min; a search along the axis per element; out-of-range indices are ignored")
	noteOp("Scatter", "as ScatterElements without reduction (deprecated since opset 11)")
}

// splitIndexDepth splits an index tensor [p.., k] (k static) into k tensors [p..].
func (e *emitter) splitIndexDepth(ind *ir.Value) ([]*ir.Value, error) {
	q := ind.Type.Rank()
	if q < 1 {
		return nil, fmt.Errorf("%w: indices must have rank >= 1, got %s", ErrInvalid, ind.Type)
	}
	k, ok := ind.Type.Dim(q - 1)
	if !ok {
		return nil, fmt.Errorf("%w: symbolic index depth (last dim of %s)", ErrUnsupported, ind.Type)
	}
	lead := ind.Type.Shape[:q-1]
	var out []*ir.Value
	for j := int64(0); j < k; j++ {
		s := e.sliceLast(ind, j, j+1, 1)
		out = append(out, e.reshape(s, lead...))
	}
	return out, e.err
}

func importGatherND(c *nodeCtx) error {
	e := c.emitter()
	data, ind := e.in(0), e.in(1)
	if e.err != nil {
		return e.err
	}
	parts, err := e.splitIndexDepth(ind)
	if err != nil {
		return err
	}
	if len(parts) == 0 {
		return fmt.Errorf("%w: an index depth of 0 (whole slices of data) is not supported", ErrUnsupported)
	}
	ops := append([]*ir.Value{data}, parts...)
	e.out(0, e.op("gather_nd", c.Output(0), ir.Attrs{"batch_dims": ir.IntAttr(c.AttrInt("batch_dims", 0))}, ops...))
	return e.done()
}

// scatterNone is the scatter without reduction: where some update reaches an element, the
// (single) update; elsewhere data. scatter builds the catalogue scatter of its three
// arguments with the given reduction.
func (e *emitter) scatterNone(name string, data, upd *ir.Value, scatter func(d, u *ir.Value, red string) *ir.Value) *ir.Value {
	if e.err != nil {
		return nil
	}
	fill := func(t ir.TensorType, elem ir.DType, v float64) *ir.Value {
		t.Elem = elem
		return e.op("fill", "", ir.Attrs{"type": ir.StringAttr(t.String()), "value": ir.FloatAttr(v)})
	}
	hit := scatter(fill(data.Type, ir.Bool, 0), fill(upd.Type, ir.Bool, 1), "max")
	var val *ir.Value
	switch t := data.Type.Elem; {
	case t == ir.Bool:
		val = scatter(fill(data.Type, t, 0), upd, "max")
	case t.IsFloat():
		val = scatter(fill(data.Type, t, math.Copysign(0, -1)), upd, "add") // -0 + u = u, signs included
	default:
		val = scatter(fill(data.Type, t, 0), upd, "add")
	}
	return e.op("where", name, nil, hit, val, data)
}

// scatterReduction returns the catalogue reduction of a Scatter* node ("" for none).
func scatterReduction(c *nodeCtx) (string, error) {
	switch r := c.AttrString("reduction", "none"); r {
	case "none":
		return "", nil
	case "add", "mul", "max", "min":
		return r, nil
	default:
		return "", fmt.Errorf("%w: reduction %q (want none, add, mul, max or min)", ErrInvalid, r)
	}
}

func importScatterND(c *nodeCtx) error {
	e := c.emitter()
	data, ind, upd := e.in(0), e.in(1), e.in(2)
	if e.err != nil {
		return e.err
	}
	red, err := scatterReduction(c)
	if err != nil {
		return err
	}
	parts, err := e.splitIndexDepth(ind)
	if err != nil {
		return err
	}
	scatter := func(name string) func(d, u *ir.Value, r string) *ir.Value {
		return func(d, u *ir.Value, r string) *ir.Value {
			return e.op("scatter_nd", name, ir.Attrs{"reduction": ir.StringAttr(r)}, append([]*ir.Value{d, u}, parts...)...)
		}
	}
	if red == "" {
		e.out(0, e.scatterNone(c.Output(0), data, upd, scatter("")))
	} else {
		e.out(0, scatter(c.Output(0))(data, upd, red))
	}
	return e.done()
}

func importScatterElements(c *nodeCtx) error {
	e := c.emitter()
	data, ind, upd := e.in(0), e.in(1), e.in(2)
	if e.err != nil {
		return e.err
	}
	red, err := scatterReduction(c)
	if err != nil {
		return err
	}
	axis := ir.IntAttr(c.AttrInt("axis", 0))
	scatter := func(name string) func(d, u *ir.Value, r string) *ir.Value {
		return func(d, u *ir.Value, r string) *ir.Value {
			return e.op("scatter_elements", name, ir.Attrs{"axis": axis, "reduction": ir.StringAttr(r)}, d, ind, u)
		}
	}
	if red == "" {
		e.out(0, e.scatterNone(c.Output(0), data, upd, scatter("")))
	} else {
		e.out(0, scatter(c.Output(0))(data, upd, red))
	}
	return e.done()
}
