// This file imports Pad, PadV2 (constant_values) and MirrorPad: constant and REFLECT padding
// are the catalogue's pad; SYMMETRIC (the edge element repeated) is, per padded axis, a concat
// of the reversed leading slice, the input and the reversed trailing slice.

package tf

import (
	"fmt"

	"github.com/graphc/graphc/ir"
)

func init() {
	registerOp("Pad", importPad)
	registerOp("PadV2", importPad)
	registerOp("MirrorPad", importPad)
	noteOp("constant paddings", "Pad")
	noteOp("constant paddings and constant_values", "PadV2")
	noteOp("REFLECT as pad; SYMMETRIC as reversed slices and concat", "MirrorPad")
}

func importPad(c *nodeCtx) error {
	want := 2
	if c.node.Op == "PadV2" {
		want = 3
	}
	if c.NumInputs() != want {
		return fmt.Errorf("%w: expected %d inputs, got %d", ErrInvalid, want, c.NumInputs())
	}
	paddings, err := c.RequireInts(1, "paddings")
	if err != nil {
		return err
	}
	value := 0.0
	if want == 3 {
		v, err := c.RequireFloat(2, "constant_values")
		if err != nil {
			return err
		}
		value = v
	}
	e := c.emitter()
	x := e.In(0)
	if x == nil {
		return e.Done()
	}
	r := x.Type.Rank()
	if len(paddings) != 2*r {
		return fmt.Errorf("%w: paddings has %d values for an input of rank %d (want [%d, 2])", ErrInvalid, len(paddings), r, r)
	}
	pads := make([]int64, 2*r) // the catalogue's order: every begin, then every end
	for d := 0; d < r; d++ {
		pads[d], pads[r+d] = paddings[2*d], paddings[2*d+1]
		if pads[d] < 0 || pads[r+d] < 0 {
			return fmt.Errorf("%w: negative paddings %d and %d of dim %d", ErrInvalid, pads[d], pads[r+d], d)
		}
	}
	mode := "constant"
	if c.node.Op == "MirrorPad" {
		switch m := c.AttrString("mode", ""); m {
		case "REFLECT":
			mode = "reflect"
		case "SYMMETRIC":
			e.Out(0, e.symmetricPad(x, pads))
			return e.Done()
		default:
			return fmt.Errorf("%w: mode %q (want REFLECT or SYMMETRIC)", ErrInvalid, m)
		}
		// TensorFlow's bounds: REFLECT pads below the extent, SYMMETRIC up to it
		for d := 0; d < r; d++ {
			if n, ok := x.Type.Dim(d); ok && (pads[d] >= n || pads[r+d] >= n) {
				return fmt.Errorf("%w: REFLECT paddings %d and %d of dim %d must be below its extent %d", ErrInvalid, pads[d], pads[r+d], d, n)
			}
		}
	}
	e.Out(0, e.Op("pad", e.Base, ir.Attrs{"pads": ir.IntsAttr(pads...), "mode": ir.StringAttr(mode), "value": ir.FloatAttr(value)}, x))
	return e.Done()
}

// symmetricPad mirrors x including the edge elements: along each padded axis d,
// concat(reverse(x[0:lo]), x, reverse(x[n-hi:n])).
func (e *emitter) symmetricPad(x *ir.Value, pads []int64) *ir.Value {
	r := x.Type.Rank()
	last := -1
	for d := 0; d < r; d++ {
		if pads[d] > 0 || pads[r+d] > 0 {
			last = d
		}
	}
	if last < 0 {
		return e.Op("identity", e.Base, nil, x)
	}
	y := x
	for d := 0; d <= last; d++ {
		lo, hi := pads[d], pads[r+d]
		if lo == 0 && hi == 0 {
			continue
		}
		if n, ok := x.Type.Dim(d); ok && (lo > n || hi > n) {
			e.Fail(fmt.Errorf("%w: SYMMETRIC paddings %d and %d of dim %d exceed its extent %d", ErrInvalid, lo, hi, d, n))
			return nil
		}
		parts := []*ir.Value{}
		if lo > 0 {
			// x[lo-1], …, x[0]
			parts = append(parts, e.slice(y, []axisSlice{{d, lo - 1, -huge, -1}}, ""))
		}
		parts = append(parts, y)
		if hi > 0 {
			// x[n-1], …, x[n-hi] (relative to the end, so that symbolic extents work)
			end := -hi - 1
			parts = append(parts, e.slice(y, []axisSlice{{d, -1, end, -1}}, ""))
		}
		y = e.Op("concat", e.NameIf(d == last), ir.Attrs{"axis": ir.IntAttr(int64(d))}, parts...)
	}
	return y
}
