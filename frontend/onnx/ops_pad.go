// This file imports Pad: pads and the constant from attributes (opsets 2–10) or inputs (11+),
// the axes input (18+) and the wrap mode (19+).

package onnx

import (
	"fmt"

	kit "github.com/graphc/graphc/frontend/importer"
	"github.com/graphc/graphc/ir"
)

func init() {
	registerOp("Pad", 2, importPad)
}

func importPad(c *nodeCtx) error {
	x, err := c.Input(0)
	if err != nil {
		return err
	}
	r := x.Type.Rank()
	mode := c.AttrString("mode", "constant")
	var pads []int64
	value := 0.0
	if c.Opset() < 11 {
		pads = c.AttrInts("pads", nil)
		value = float64(c.AttrFloat("value", 0))
	} else {
		if pads, err = c.RequireInts(1, "pads"); err != nil {
			return err
		}
		if c.HasInput(2) {
			v, err := c.RequireFloats(2, "constant_value")
			if value, err = kit.One(v, err, 2, "constant_value", ErrInvalid); err != nil {
				return err
			}
		}
	}
	if c.Opset() >= 18 && c.HasInput(3) {
		axes, err := c.RequireInts(3, "axes")
		if err != nil {
			return err
		}
		ax, err := normAxes(axes, r)
		if err != nil {
			return err
		}
		if len(pads) != 2*len(ax) {
			return fmt.Errorf("%w: %d pads for %d axes", ErrInvalid, len(pads), len(ax))
		}
		full := make([]int64, 2*r)
		for i, a := range ax {
			full[a], full[r+a] = pads[i], pads[len(ax)+i]
		}
		pads = full
	}
	if len(pads) != 2*r {
		return fmt.Errorf("%w: %d pads for rank %d", ErrInvalid, len(pads), r)
	}
	if mode == "wrap" && c.Opset() < 19 {
		return fmt.Errorf("%w: mode wrap needs opset 19", ErrInvalid)
	}
	return emit1(c, "pad", []*ir.Value{x}, ir.Attrs{"pads": ir.IntsAttr(pads...), "mode": ir.StringAttr(mode), "value": ir.FloatAttr(value)})
}
