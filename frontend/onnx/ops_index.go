// This file imports the ops that select elements by index: Gather and GatherElements
// (data-dependent reads, over-approximated element maps) and Trilu (a constant diagonal offset,
// or one known only at run time).

package onnx

import (
	"fmt"

	"github.com/graphc/graphc/ir"
)

func init() {
	registerOp("Gather", 1, importGather("gather"))
	registerOp("GatherElements", 11, importGather("gather_elements"))
	registerOp("Trilu", 14, importTrilu)
}

func importGather(kind string) func(c *nodeCtx) error {
	return func(c *nodeCtx) error {
		data, err := c.Input(0)
		if err != nil {
			return err
		}
		idx, err := c.Input(1)
		if err != nil {
			return err
		}
		return emit1(c, kind, []*ir.Value{data, idx}, ir.Attrs{"axis": ir.IntAttr(c.AttrInt("axis", 0))})
	}
}

func importTrilu(c *nodeCtx) error {
	x, err := c.Input(0)
	if err != nil {
		return err
	}
	attrs := ir.Attrs{"upper": ir.BoolAttr(c.AttrInt("upper", 1) != 0)}
	ins := []*ir.Value{x}
	if c.HasInput(1) {
		if t, ok := c.ConstInput(1); ok {
			if t.Len() != 1 || t.Elem.IsFloat() {
				return fmt.Errorf("%w: k must be an integer scalar, got %s%v", ErrInvalid, t.Elem, t.Shape)
			}
			attrs["k"] = ir.IntAttr(t.Int(0))
		} else {
			// k known only at run time: an index-dependent select (over-approximated reads)
			k, err := c.Input(1)
			if err != nil {
				return err
			}
			ins = append(ins, k)
		}
	}
	return emit1(c, "trilu", ins, attrs)
}
