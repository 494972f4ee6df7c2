// This file imports OneHot: the depth and values inputs must be known at import; the result is
// the catalogue's one_hot.

package onnx

import (
	"fmt"

	"github.com/graphc/graphc/ir"
)

func init() {
	registerOp("OneHot", 9, importOneHot)
	noteOp("OneHot", "constant depth and values inputs; negative indices count from depth")
}

func importOneHot(c *nodeCtx) error {
	e := c.emitter()
	idx := e.In(0)
	if idx == nil {
		return e.Done()
	}
	depth, err := c.RequireFloats(1, "depth")
	if err != nil {
		return err
	}
	if len(depth) != 1 {
		return fmt.Errorf("%w: depth must be a scalar, got %d values", ErrInvalid, len(depth))
	}
	values, err := c.RequireConst(2, "values")
	if err != nil {
		return err
	}
	if values.Len() != 2 {
		return fmt.Errorf("%w: values must hold [off, on], got %d values", ErrInvalid, values.Len())
	}
	attrs := ir.Attrs{"axis": ir.IntAttr(c.AttrInt("axis", -1)), "depth": ir.IntAttr(int64(depth[0])),
		"type": ir.StringAttr(values.Elem.String()), "off": ir.FloatAttr(values.Float(0)), "on": ir.FloatAttr(values.Float(1))}
	e.Out(0, e.Op("one_hot", c.Output(0), attrs, idx))
	return e.Done()
}
