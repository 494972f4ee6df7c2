// This file imports the layout ops: Transpose, Reshape, Flatten, Squeeze, Unsqueeze, Concat,
// Split, Slice, Expand, Tile, DepthToSpace and SpaceToDepth, with the attribute-versus-input
// changes of each opset. Shapes may be symbolic: target shapes computed from Shape are
// quasi-affine in the symbolic dims (symbolic.go).

package onnx

import (
	"fmt"

	kit "github.com/graphc/graphc/frontend/importer"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

func init() {
	registerOp("Transpose", 1, importTranspose)
	registerOp("Reshape", 5, importReshape)
	noteOp("Reshape", "a shape known at compile time, computed from shapes (symbolic or bounded dims), or computed at run time "+
		"from bounded values that give the data's own extents (a count clipped to constants that also ends a Slice)")
	registerOp("Flatten", 1, importFlatten)
	registerOp("Squeeze", 1, importSqueeze)
	registerOp("Unsqueeze", 1, importUnsqueeze)
	registerOp("Concat", 4, importConcat)
	registerOp("Split", 2, importSplit)
	registerOp("Slice", 1, importSlice)
	registerOp("Expand", 8, importExpand)
	registerOp("Tile", 6, importTile)
	registerOp("DepthToSpace", 1, importDepthToSpace)
	registerOp("SpaceToDepth", 1, importSpaceToDepth)
}

// emit1 emits one op for the node and binds it to output 0.
func emit1(c *nodeCtx, kind string, ins []*ir.Value, attrs ir.Attrs) error {
	v, err := c.Emit(kind, ins, attrs, c.Output(0))
	if err != nil {
		return err
	}
	c.SetOutput(0, v)
	return nil
}

// reshapeTo emits a reshape of x to shape (or binds x itself when the shape is unchanged).
func reshapeTo(c *nodeCtx, x *ir.Value, shape []volume.Aff) error {
	return emit1(c, "reshape", []*ir.Value{x}, ir.Attrs{"shape": ir.StringAttr(ir.ExtentsString(shape))})
}

// normAxes maps possibly negative axes into [0, rank), rejecting repeats.
func normAxes(axes []int64, rank int) ([]int, error) { return resolveAxes(axes, rank) }

func importTranspose(c *nodeCtx) error {
	x, err := c.Input(0)
	if err != nil {
		return err
	}
	return emit1(c, "transpose", []*ir.Value{x}, ir.Attrs{"perm": ir.IntsAttr(c.AttrInts("perm", nil)...)})
}

func importReshape(c *nodeCtx) error {
	x, err := c.Input(0)
	if err != nil {
		return err
	}
	nodeErr := func(err error) error {
		return &NodeError{File: c.im.file, Node: c.node.GetName(), Op: c.node.GetOpType(), Opset: c.im.opset, Err: err}
	}
	target, err := c.RequireSymInts(1, "shape")
	if err != nil {
		if mergingReshape(c, nodeErr(err)) {
			return nil // merged rows, held unmerged (mergedrows.go)
		}
		// a shape computed at run time from bounded values (a count clipped to constants, the
		// sizes a Resize took): the same expressions of bounded dims as the data's extents
		// when they come from the same values (boundedints.go), so that the element counts
		// agree for every value within the bounds
		bounded, berr := c.RequireBoundedInts(1, "shape")
		if berr != nil {
			return err
		}
		target = bounded
	}
	allowZero := c.Opset() >= 14 && c.AttrInt("allowzero", 0) != 0
	shape := make([]volume.Aff, len(target))
	neg := -1
	var knownDims []volume.Aff
	for i, t := range target {
		k, isConst := t.IsConst()
		switch {
		case isConst && k == -1:
			if neg >= 0 {
				return fmt.Errorf("%w: more than one -1 in the shape %s", ErrInvalid, ir.ExtentsString(target))
			}
			neg = i
			continue
		case isConst && k == 0 && !allowZero:
			if i >= x.Type.Rank() {
				return fmt.Errorf("%w: shape entry %d is 0 (copy) beyond the input's rank %d", ErrInvalid, i, x.Type.Rank())
			}
			shape[i] = x.Type.Shape[i]
		case isConst && k < 0:
			return fmt.Errorf("%w: negative extent %d in the shape", ErrInvalid, k)
		default:
			shape[i] = t
		}
		knownDims = append(knownDims, shape[i])
	}
	if neg >= 0 {
		if shape[neg], err = kit.InferExtent(x.Type.Shape, knownDims, ErrInvalid); err != nil {
			return err
		}
	}
	if x.Def != nil && x.Def.Kind == "reshape" && len(x.Def.Operands) == 1 {
		// a reshape of a reshape is one reshape of the first one's operand (both keep the
		// row-major order of the elements): a round trip (GroupNorm's [N, C, S] to [N, G, ·]
		// and back) reads its source in place instead of through the flat index of the view
		if err := reshapeTo(c, x.Def.Operands[0], shape); err == nil {
			return nil
		}
	}
	err = reshapeTo(c, x, shape)
	if err != nil && len(shape) >= 2 && len(prodOf(shape[0]).f) > 0 && mergeRows(c, x, prodOf(shape[0]), shape[1:], nodeErr(err)) {
		return nil // rows whose access would not be quasi-affine, held unmerged (mergedrows.go)
	}
	return err
}

func importFlatten(c *nodeCtx) error {
	x, err := c.Input(0)
	if err != nil {
		return err
	}
	r := x.Type.Rank()
	axis := c.AttrInt("axis", 1)
	if axis < 0 {
		axis += int64(r)
	}
	if axis < 0 || axis > int64(r) {
		return fmt.Errorf("%w: axis %d out of range for rank %d", ErrInvalid, c.AttrInt("axis", 1), r)
	}
	left, err := kit.ExtentProduct(x.Type.Shape[:axis])
	if err != nil {
		return err
	}
	right, err := kit.ExtentProduct(x.Type.Shape[axis:])
	if err != nil {
		return err
	}
	return reshapeTo(c, x, []volume.Aff{left, right})
}

// axesInput returns the axes of Squeeze/Unsqueeze/ReduceX: an attribute before opset 13, the
// optional input #1 from 13 on.
func axesArg(c *nodeCtx, since int64) ([]int64, bool, error) {
	if c.Opset() < since {
		a := c.Attr("axes")
		return c.AttrInts("axes", nil), a != nil, nil
	}
	if !c.HasInput(1) {
		return nil, false, nil
	}
	v, err := c.RequireInts(1, "axes")
	return v, true, err
}

func importSqueeze(c *nodeCtx) error {
	x, err := c.Input(0)
	if err != nil {
		return err
	}
	axes, given, err := axesArg(c, 13)
	if err != nil {
		return err
	}
	r := x.Type.Rank()
	drop := map[int]bool{}
	if given {
		ax, err := normAxes(axes, r)
		if err != nil {
			return err
		}
		for _, a := range ax {
			if k, ok := x.Type.Shape[a].IsConst(); ok && k != 1 {
				return fmt.Errorf("%w: cannot squeeze axis %d of extent %d", ErrInvalid, a, k)
			}
			drop[a] = true
		}
	} else {
		for a, d := range x.Type.Shape {
			if k, ok := d.IsConst(); ok && k == 1 {
				drop[a] = true // symbolic extents are assumed not to be 1
			}
		}
	}
	var shape []volume.Aff
	for a, d := range x.Type.Shape {
		if !drop[a] {
			shape = append(shape, d)
		}
	}
	return reshapeTo(c, x, shape)
}

func importUnsqueeze(c *nodeCtx) error {
	x, err := c.Input(0)
	if err != nil {
		return err
	}
	axes, given, err := axesArg(c, 13)
	if err != nil {
		return err
	}
	if !given {
		return fmt.Errorf("%w: Unsqueeze needs axes", ErrInvalid)
	}
	r := x.Type.Rank() + len(axes)
	ax, err := normAxes(axes, r)
	if err != nil {
		return err
	}
	ins := map[int]bool{}
	for _, a := range ax {
		ins[a] = true
	}
	shape := make([]volume.Aff, 0, r)
	k := 0
	for i := 0; i < r; i++ {
		if ins[i] {
			shape = append(shape, volume.AffConst(1))
		} else {
			shape = append(shape, x.Type.Shape[k])
			k++
		}
	}
	return reshapeTo(c, x, shape)
}

func importConcat(c *nodeCtx) error {
	var ins []*ir.Value
	for i := 0; i < c.NumInputs(); i++ {
		if !c.HasInput(i) {
			continue
		}
		v, err := c.Input(i)
		if err != nil {
			return err
		}
		ins = append(ins, v)
	}
	if c.Attr("axis") == nil {
		return fmt.Errorf("%w: Concat needs the axis attribute", ErrInvalid)
	}
	return emit1(c, "concat", ins, ir.Attrs{"axis": ir.IntAttr(c.AttrInt("axis", 0))})
}

func importSplit(c *nodeCtx) error {
	x, err := c.Input(0)
	if err != nil {
		return err
	}
	r := x.Type.Rank()
	axis, err := normAxes([]int64{c.AttrInt("axis", 0)}, r)
	if err != nil {
		return err
	}
	a := axis[0]
	nOut := len(c.node.Output)
	var split []int64
	switch {
	case c.Opset() < 13 && c.Attr("split") != nil:
		split = c.AttrInts("split", nil)
	case c.Opset() >= 13 && c.HasInput(1):
		if split, err = c.RequireInts(1, "split"); err != nil {
			return err
		}
	}
	if split == nil {
		n, ok := x.Type.Shape[a].IsConst()
		if !ok {
			return fmt.Errorf("%w: splitting the symbolic extent %s into equal parts", ErrUnsupported, x.Type.Shape[a].String())
		}
		parts := int64(nOut)
		if c.Opset() >= 18 && c.Attr("num_outputs") != nil {
			parts = c.AttrInt("num_outputs", 0)
		}
		if parts <= 0 {
			return fmt.Errorf("%w: %d parts", ErrInvalid, parts)
		}
		size := n / parts
		if n%parts != 0 {
			if c.Opset() < 18 {
				return fmt.Errorf("%w: extent %d does not split into %d equal parts", ErrInvalid, n, parts)
			}
			size = (n + parts - 1) / parts // the last part is smaller
		}
		for i := int64(0); i < parts; i++ {
			split = append(split, max(0, min(size, n-i*size)))
		}
	}
	if len(split) != nOut {
		return fmt.Errorf("%w: %d split sizes for %d outputs", ErrInvalid, len(split), nOut)
	}
	start := int64(0)
	for i, s := range split {
		if s < 0 {
			return fmt.Errorf("%w: negative split size %d", ErrInvalid, s)
		}
		attrs := ir.Attrs{"starts": ir.IntsAttr(start), "ends": ir.IntsAttr(start + s), "axes": ir.IntsAttr(int64(a))}
		start += s
		if c.Output(i) == "" {
			continue
		}
		v, err := c.Emit("slice", []*ir.Value{x}, attrs, c.Output(i))
		if err != nil {
			return err
		}
		c.SetOutput(i, v)
	}
	if n, ok := x.Type.Shape[a].IsConst(); ok && start != n {
		return fmt.Errorf("%w: split sizes %v sum to %d, the extent is %d", ErrInvalid, split, start, n)
	}
	return nil
}

func importSlice(c *nodeCtx) error {
	x, err := c.Input(0)
	if err != nil {
		return err
	}
	var starts, ends, axes, steps []int64
	attrs := ir.Attrs{}
	if c.Opset() < 10 {
		starts, ends, axes = c.AttrInts("starts", nil), c.AttrInts("ends", nil), c.AttrInts("axes", nil)
	} else {
		// starts and ends may be computed from the symbolic dims (x[:T] with T from Shape)
		// or from run-time values whose ranges are bounded (bounded dims: one that may be
		// negative or past the extent is normalized at run time, normalizeRuntimeBounds)
		symStarts, err := c.RequireBoundedInts(1, "starts")
		if err != nil {
			return err
		}
		symEnds, err := c.RequireBoundedInts(2, "ends")
		if err != nil {
			return err
		}
		if c.HasInput(3) {
			if axes, err = c.RequireInts(3, "axes"); err != nil {
				return err
			}
		}
		if c.HasInput(4) {
			if steps, err = c.RequireInts(4, "steps"); err != nil {
				return err
			}
		}
		if symStarts, symEnds, err = normalizeRuntimeBounds(c, x, symStarts, symEnds, axes, steps); err != nil {
			return err
		}
		if symEnds, err = clampBoundedEnds(c, x, symStarts, symEnds, axes, steps); err != nil {
			return err
		}
		var symStart, symEnd bool
		starts, symStart = splitSym(symStarts)
		ends, symEnd = splitSym(symEnds)
		if symStart || symEnd {
			fillSym(attrs, "sym_starts", symStarts)
			fillSym(attrs, "sym_ends", symEnds)
		}
	}
	attrs["starts"], attrs["ends"] = ir.IntsAttr(starts...), ir.IntsAttr(ends...)
	attrs["axes"], attrs["steps"] = ir.IntsAttr(axes...), ir.IntsAttr(steps...)
	return emit1(c, "slice", []*ir.Value{x}, attrs)
}

// splitSym returns the constant parts of slice bounds (0 where a bound is symbolic) and
// whether some bound is symbolic.
func splitSym(vals []volume.Aff) ([]int64, bool) {
	out := make([]int64, len(vals))
	sym := false
	for i, v := range vals {
		if k, ok := v.IsConst(); ok {
			out[i] = k
		} else {
			sym = true
		}
	}
	return out, sym
}

// fillSym sets the symbolic-bounds attribute of a slice: every bound as an expression.
func fillSym(attrs ir.Attrs, name string, vals []volume.Aff) {
	texts := make([]string, len(vals))
	for i, v := range vals {
		texts[i] = v.String()
	}
	attrs[name] = ir.StringsAttr(texts...)
}

func importExpand(c *nodeCtx) error {
	x, err := c.Input(0)
	if err != nil {
		return err
	}
	shape, err := c.RequireSymInts(1, "shape")
	if err != nil {
		return err
	}
	return emit1(c, "expand", []*ir.Value{x}, ir.Attrs{"shape": ir.StringAttr(ir.ExtentsString(shape))})
}

func importTile(c *nodeCtx) error {
	x, err := c.Input(0)
	if err != nil {
		return err
	}
	reps, err := c.RequireInts(1, "repeats")
	if err != nil {
		return err
	}
	return emit1(c, "tile", []*ir.Value{x}, ir.Attrs{"repeats": ir.IntsAttr(reps...)})
}

func importDepthToSpace(c *nodeCtx) error {
	x, err := c.Input(0)
	if err != nil {
		return err
	}
	mode := "DCR"
	if c.Opset() >= 11 {
		mode = c.AttrString("mode", "DCR")
	}
	return emit1(c, "depth_to_space", []*ir.Value{x}, ir.Attrs{"blocksize": ir.IntAttr(c.AttrInt("blocksize", 0)), "mode": ir.StringAttr(mode)})
}

func importSpaceToDepth(c *nodeCtx) error {
	x, err := c.Input(0)
	if err != nil {
		return err
	}
	return emit1(c, "space_to_depth", []*ir.Value{x}, ir.Attrs{"blocksize": ir.IntAttr(c.AttrInt("blocksize", 0))})
}
