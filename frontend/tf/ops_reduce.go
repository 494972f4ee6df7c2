// This file imports the reductions Sum, Prod, Max, Min (one catalogue reduction each), Mean (a
// sum divided by the element count), All and Any (min and max over booleans), and ArgMax and
// ArgMin. The axes are a constant input (a scalar or a vector; negative counts from the end;
// empty reduces nothing), keep_dims an attribute.

package tf

import (
	"fmt"

	"github.com/graphc/graphc/ir"
)

func init() {
	registerOp("Sum", importReduce("reduce_sum", false))
	registerOp("Prod", importReduce("reduce_prod", false))
	registerOp("Max", importReduce("reduce_max", false))
	registerOp("Min", importReduce("reduce_min", false))
	registerOp("Mean", importReduce("reduce_sum", true))
	registerOp("All", importReduce("reduce_min", false))
	registerOp("Any", importReduce("reduce_max", false))
	registerOp("ArgMax", importArg("argmax"))
	registerOp("ArgMin", importArg("argmin"))
	noteOp("constant reduction_indices (scalar or vector; empty reduces nothing); keep_dims", "Sum", "Prod", "Max", "Min", "All", "Any")
	noteOp("constant reduction_indices; keep_dims; the sum divided by the count (integers truncate)", "Mean")
	noteOp("constant dimension; output_type int32 or int64; the first extremum", "ArgMax", "ArgMin")
}

func importReduce(kind string, mean bool) func(c *nodeCtx) error {
	return func(c *nodeCtx) error {
		if c.NumInputs() != 2 {
			return fmt.Errorf("%w: expected 2 inputs (input, reduction_indices), got %d", ErrInvalid, c.NumInputs())
		}
		raw, err := c.RequireInts(1, "reduction_indices")
		if err != nil {
			return err
		}
		e := c.emitter()
		x := e.In(0)
		if x == nil {
			return e.Done()
		}
		if (c.node.Op == "All" || c.node.Op == "Any") != (x.Type.Elem == ir.Bool) {
			return fmt.Errorf("%w: %s of %s", ErrInvalid, c.node.Op, x.Type)
		}
		axes, err := resolveAxes(raw, x.Type.Rank())
		if err != nil {
			return err
		}
		keep := int64(0)
		if c.AttrBool("keep_dims", false) {
			keep = 1
		}
		y := e.Op(kind, e.NameIf(!mean), ir.Attrs{"axes": ints(axes), "keepdims": ir.IntAttr(keep)}, x)
		if mean {
			// integer means divide with truncation, as TensorFlow's mean reducer does
			y = e.Op("div", e.Base, nil, y, e.Count(x, axes, x.Type.Elem))
		}
		e.Out(0, y)
		return e.Done()
	}
}

// importArg: the index of the first extremum along the constant axis input, as output_type
// (int64 by default).
func importArg(kind string) func(c *nodeCtx) error {
	return func(c *nodeCtx) error {
		if c.NumInputs() != 2 {
			return fmt.Errorf("%w: expected 2 inputs (input, dimension), got %d", ErrInvalid, c.NumInputs())
		}
		axis, err := c.RequireInt(1, "dimension")
		if err != nil {
			return err
		}
		to := ir.I64
		if t, ok, err := c.AttrType("output_type"); err != nil {
			return err
		} else if ok {
			to = t
		}
		if to != ir.I64 && to != ir.I32 {
			return fmt.Errorf("%w: output_type %s (want int32 or int64)", ErrInvalid, to)
		}
		e := c.emitter()
		x := e.In(0)
		if x == nil {
			return e.Done()
		}
		ax, err := resolveAxes([]int64{axis}, x.Type.Rank())
		if err != nil {
			return err
		}
		y := e.Op(kind, e.NameIf(to == ir.I64), ir.Attrs{"axis": ir.IntAttr(int64(ax[0])), "keepdims": ir.IntAttr(0)}, x)
		if to != ir.I64 {
			y = e.Cast(y, to, e.Base)
		}
		e.Out(0, y)
		return e.Done()
	}
}
