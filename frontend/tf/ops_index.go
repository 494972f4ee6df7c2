// This file imports the ops that select, split or repeat along axes: GatherV2 and Gather
// (the catalogue's gather, a data-dependent read with an over-approximated access), Tile,
// Split, SplitV and Unpack (one slice per output port, Unpack's then reshaped), and the
// value generators Fill, ZerosLike, OnesLike and Range.

package tf

import (
	"fmt"

	kit "github.com/graphc/graphc/frontend/importer"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

func init() {
	registerOp("GatherV2", importGather(true))
	registerOp("Gather", importGather(false))
	registerOp("Tile", importTile)
	registerOp("Split", importSplit(false))
	registerOp("SplitV", importSplit(true))
	registerOp("Unpack", importUnpack)
	registerOp("Fill", importFill)
	registerOp("ZerosLike", importFillLike(0))
	registerOp("OnesLike", importFillLike(1))
	registerOp("Range", importRange)
	noteOp("constant axis; batch_dims = 0; indices outside the axis are not checked", "GatherV2")
	noteOp("along axis 0; as GatherV2", "Gather")
	noteOp("constant multiples (1 over a symbolic extent)", "Tile")
	noteOp("constant axis; one slice per output", "Split")
	noteOp("constant size_splits (one -1 inferred) and axis; one slice per output", "SplitV")
	noteOp("one slice per output, then a reshape", "Unpack")
	noteOp("constant dims and value", "Fill")
	noteOp("a fill of the input's type (symbolic dims too)", "ZerosLike", "OnesLike")
	noteOp("constant start, limit and delta: a constant", "Range")
}

// importGather: GatherV2(params, indices, axis) or Gather(params, indices) along axis 0.
func importGather(v2 bool) func(c *nodeCtx) error {
	return func(c *nodeCtx) error {
		want := 2
		if v2 {
			want = 3
		}
		if c.NumInputs() != want {
			return fmt.Errorf("%w: expected %d inputs, got %d", ErrInvalid, want, c.NumInputs())
		}
		axis := int64(0)
		if v2 {
			var err error
			if axis, err = c.RequireInt(2, "axis"); err != nil {
				return err
			}
		}
		if bd := c.AttrInt("batch_dims", 0); bd != 0 {
			return fmt.Errorf("%w: batch_dims = %d", ErrUnsupported, bd)
		}
		e := c.emitter()
		x, idx := e.In(0), e.In(1)
		if e.err != nil {
			return e.err
		}
		if idx.Type.Elem.IsFloat() || idx.Type.Elem == ir.Bool {
			return fmt.Errorf("%w: indices must be integers, got %s", ErrInvalid, idx.Type)
		}
		ax, err := resolveAxes([]int64{axis}, x.Type.Rank())
		if err != nil {
			return err
		}
		e.Out(0, e.Op("gather", e.Base, ir.Attrs{"axis": ir.IntAttr(int64(ax[0]))}, x, idx))
		return e.Done()
	}
}

func importTile(c *nodeCtx) error {
	if c.NumInputs() != 2 {
		return fmt.Errorf("%w: expected 2 inputs (input, multiples), got %d", ErrInvalid, c.NumInputs())
	}
	reps, err := c.RequireInts(1, "multiples")
	if err != nil {
		return err
	}
	e := c.emitter()
	x := e.In(0)
	if x == nil {
		return e.Done()
	}
	if len(reps) != x.Type.Rank() {
		return fmt.Errorf("%w: %d multiples for an input of rank %d", ErrInvalid, len(reps), x.Type.Rank())
	}
	e.Out(0, e.Op("tile", e.Base, ir.Attrs{"repeats": ir.IntsAttr(reps...)}, x))
	return e.Done()
}

// importSplit: Split(axis, value) into num_split equal parts, or SplitV(value, size_splits,
// axis) into the given sizes; output port k is the k-th part.
func importSplit(v bool) func(c *nodeCtx) error {
	return func(c *nodeCtx) error {
		if want := map[bool]int{false: 2, true: 3}[v]; c.NumInputs() != want {
			return fmt.Errorf("%w: expected %d inputs, got %d", ErrInvalid, want, c.NumInputs())
		}
		axisIn, valueIn := 0, 1
		if v {
			axisIn, valueIn = 2, 0
		}
		axis, err := c.RequireInt(axisIn, "axis")
		if err != nil {
			return err
		}
		e := c.emitter()
		x := e.In(valueIn)
		if x == nil {
			return e.Done()
		}
		ax, err := resolveAxes([]int64{axis}, x.Type.Rank())
		if err != nil {
			return err
		}
		n, static := x.Type.Dim(ax[0])
		if !static {
			return fmt.Errorf("%w: splitting the symbolic extent %s of %s", ErrUnsupported, x.Type.Shape[ax[0]].String(), x.Type)
		}
		var sizes []int64
		if v {
			if sizes, err = c.RequireInts(1, "size_splits"); err != nil {
				return err
			}
			infer, sum := -1, int64(0)
			for i, s := range sizes {
				switch {
				case s == -1 && infer < 0:
					infer = i
				case s < 0:
					return fmt.Errorf("%w: size_splits %v has more than one -1 or a negative size", ErrInvalid, sizes)
				default:
					sum += s
				}
			}
			if infer >= 0 {
				sizes[infer] = n - sum
				sum = n
			}
			if sum != n || infer >= 0 && sizes[infer] < 0 {
				return fmt.Errorf("%w: size_splits %v do not add up to the extent %d of axis %d", ErrInvalid, sizes, n, ax[0])
			}
		} else {
			k := c.AttrInt("num_split", 0)
			if k <= 0 || n%k != 0 {
				return fmt.Errorf("%w: num_split %d does not divide the extent %d of axis %d", ErrInvalid, k, n, ax[0])
			}
			for i := int64(0); i < k; i++ {
				sizes = append(sizes, n/k)
			}
		}
		if len(sizes) == 1 {
			e.Out(0, e.Op("identity", e.Base, nil, x))
			return e.Done()
		}
		start := int64(0)
		for port, s := range sizes {
			e.Out(port, e.slice(x, []axisSlice{{ax[0], start, start + s, 1}}, ""))
			start += s
		}
		return e.Done()
	}
}

// importUnpack: output port k is the k-th slice along axis, without that axis.
func importUnpack(c *nodeCtx) error {
	e := c.emitter()
	x := unary(c, e)
	if x == nil {
		return e.Done()
	}
	ax, err := resolveAxes([]int64{c.AttrInt("axis", 0)}, x.Type.Rank())
	if err != nil {
		return err
	}
	n, static := x.Type.Dim(ax[0])
	if !static {
		return fmt.Errorf("%w: unpacking the symbolic extent %s of %s", ErrUnsupported, x.Type.Shape[ax[0]].String(), x.Type)
	}
	if num := c.AttrInt("num", n); num != n {
		return fmt.Errorf("%w: num %d differs from the extent %d of axis %d", ErrInvalid, num, n, ax[0])
	}
	shape := append(append([]volume.Aff(nil), x.Type.Shape[:ax[0]]...), x.Type.Shape[ax[0]+1:]...)
	for k := int64(0); k < n; k++ {
		y := e.slice(x, []axisSlice{{ax[0], k, k + 1, 1}}, "")
		e.Out(int(k), e.Reshape(y, shape, ""))
	}
	return e.Done()
}

// importFill: a tensor of shape dims whose elements are value.
func importFill(c *nodeCtx) error {
	if c.NumInputs() != 2 {
		return fmt.Errorf("%w: expected 2 inputs (dims, value), got %d", ErrInvalid, c.NumInputs())
	}
	dims, err := c.RequireInts(0, "dims")
	if err != nil {
		return err
	}
	v, ok := c.ConstInput(1)
	if !ok {
		return fmt.Errorf("%w: input #1 (value) must be a constant known at import", ErrUnsupported)
	}
	if v.Len() != 1 {
		return fmt.Errorf("%w: value must be a scalar, got %d values", ErrInvalid, v.Len())
	}
	t := ir.TensorType{Elem: v.Elem}
	for _, d := range dims {
		if d < 0 {
			return fmt.Errorf("%w: negative dims %v", ErrInvalid, dims)
		}
		t.Shape = append(t.Shape, volume.AffConst(d))
	}
	e := c.emitter()
	e.Out(0, e.Op("fill", e.Base, ir.Attrs{"type": ir.StringAttr(t.String()), "value": ir.FloatAttr(v.Float(0))}))
	return e.Done()
}

func importFillLike(value float64) func(c *nodeCtx) error {
	return func(c *nodeCtx) error {
		e := c.emitter()
		x := unary(c, e)
		if x == nil {
			return e.Done()
		}
		e.Out(0, e.Op("fill", e.Base, ir.Attrs{"type": ir.StringAttr(x.Type.String()), "value": ir.FloatAttr(value)}))
		return e.Done()
	}
}

// importRange: start, start + delta, … before limit, as a constant of the inputs' type.
func importRange(c *nodeCtx) error {
	if c.NumInputs() != 3 {
		return fmt.Errorf("%w: expected 3 inputs (start, limit, delta), got %d", ErrInvalid, c.NumInputs())
	}
	var args [3]*ir.Tensor
	for i, what := range []string{"start", "limit", "delta"} {
		if _, err := c.RequireFloats(i, what); err != nil { // the message for a missing or run-time input
			return err
		}
		args[i], _ = c.ConstInput(i)
	}
	t, err := kit.RangeTensor(args[0], args[1], args[2], ErrInvalid)
	if err != nil {
		return err
	}
	c.SetConst(0, t)
	return nil
}
