// This file imports Slice (begin and size) and StridedSlice (begin, end and strides with the
// begin, end, ellipsis, new-axis and shrink-axis masks) as the catalogue's slice, with
// TensorFlow's index semantics resolved here, followed by a reshape when axes are added or
// removed.
//
// For static extents the bounds are clamped exactly as TensorFlow does. For a symbolic extent
// they are passed on relative to it (negative from the end, masks as the whole range), and are
// assumed to lie inside it, as the catalogue's slice assumes.

package tf

import (
	"fmt"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

func init() {
	registerOp("Slice", importSlice)
	registerOp("StridedSlice", importStridedSlice)
	noteOp("constant begin and size (-1: to the end)", "Slice")
	noteOp("constant begin, end and strides (negative strides too); begin, end, ellipsis, new_axis and shrink_axis masks; bounds over a symbolic extent are assumed inside it", "StridedSlice")
}

// huge stands for "to the end" (or, negated, "before the start") in slice bounds; the
// catalogue's slice clamps it to the extent.
const huge = int64(1) << 40

// axisSlice is one sliced axis in the catalogue's (ONNX) convention.
type axisSlice struct {
	axis             int
	start, end, step int64
}

func (e *emitter) slice(x *ir.Value, s []axisSlice, name string) *ir.Value {
	if x == nil || e.err != nil {
		return nil
	}
	if len(s) == 0 {
		return e.Op("identity", name, nil, x)
	}
	var starts, ends, axes, steps []int64
	for _, a := range s {
		starts, ends = append(starts, a.start), append(ends, a.end)
		axes, steps = append(axes, int64(a.axis)), append(steps, a.step)
	}
	return e.Op("slice", name, ir.Attrs{"starts": ir.IntsAttr(starts...), "ends": ir.IntsAttr(ends...),
		"axes": ir.IntsAttr(axes...), "steps": ir.IntsAttr(steps...)}, x)
}

// importSlice: size[i] elements from begin[i] (-1: all the rest).
func importSlice(c *nodeCtx) error {
	if c.NumInputs() != 3 {
		return fmt.Errorf("%w: expected 3 inputs (input, begin, size), got %d", ErrInvalid, c.NumInputs())
	}
	begin, err := c.RequireInts(1, "begin")
	if err != nil {
		return err
	}
	size, err := c.RequireInts(2, "size")
	if err != nil {
		return err
	}
	e := c.emitter()
	x := e.In(0)
	if x == nil {
		return e.Done()
	}
	r := x.Type.Rank()
	if len(begin) != r || len(size) != r {
		return fmt.Errorf("%w: begin %v and size %v for an input of rank %d", ErrInvalid, begin, size, r)
	}
	var s []axisSlice
	for d := 0; d < r; d++ {
		b, sz := begin[d], size[d]
		n, static := x.Type.Dim(d)
		if b < 0 || sz < -1 || static && (b > n || sz >= 0 && b+sz > n) {
			return fmt.Errorf("%w: begin %d and size %d out of range for dim %d of %s", ErrInvalid, b, sz, d, x.Type)
		}
		if b == 0 && (sz == -1 || static && sz == n) {
			continue // the whole dim
		}
		end := b + sz
		if sz == -1 {
			end = huge
		}
		s = append(s, axisSlice{d, b, end, 1})
	}
	e.Out(0, e.slice(x, s, e.Base))
	return e.Done()
}

// denseAxis is what StridedSlice does along one axis of the input.
type denseAxis struct {
	begin, end, stride int64
	beginAll, endAll   bool // the begin (end) mask: from the first (to the last) element
	shrink             bool
}

// importStridedSlice follows TensorFlow's BuildDenseSpec: the sparse spec (one entry per
// begin element) is expanded against the input rank (an ellipsis covers the axes the other
// entries leave, one is implied at the end when none is given; a new axis consumes no input
// axis and wins over the other masks of its entry, as an ellipsis wins over a new axis), then
// every input axis is sliced and the new and shrunk axes are applied by a reshape.
func importStridedSlice(c *nodeCtx) error {
	if c.NumInputs() != 4 {
		return fmt.Errorf("%w: expected 4 inputs (input, begin, end, strides), got %d", ErrInvalid, c.NumInputs())
	}
	var spec [3][]int64
	for i, what := range []string{"begin", "end", "strides"} {
		v, err := c.RequireInts(i+1, what)
		if err != nil {
			return err
		}
		spec[i] = v
	}
	begin, end, strides := spec[0], spec[1], spec[2]
	m := len(begin)
	if len(end) != m || len(strides) != m {
		return fmt.Errorf("%w: begin %v, end %v and strides %v differ in length", ErrInvalid, begin, end, strides)
	}
	bit := func(mask string, i int) bool { return i < 64 && c.AttrInt(mask, 0)>>uint(i)&1 != 0 }
	if el := c.AttrInt("ellipsis_mask", 0); el&(el-1) != 0 {
		return fmt.Errorf("%w: ellipsis_mask %#b has more than one bit set", ErrInvalid, el)
	}
	e := c.emitter()
	x := e.In(0)
	if x == nil {
		return e.Done()
	}
	r := x.Type.Rank()
	// the sparse entries: -1 an ellipsis, -2 a new axis, else an index into axes
	var entries []int
	var axes []denseAxis
	hasEllipsis := false
	for i := 0; i < m; i++ {
		switch {
		case bit("ellipsis_mask", i):
			entries = append(entries, -1)
			hasEllipsis = true
		case bit("new_axis_mask", i):
			entries = append(entries, -2)
		default:
			if strides[i] == 0 {
				return fmt.Errorf("%w: strides[%d] is 0", ErrInvalid, i)
			}
			entries = append(entries, len(axes))
			axes = append(axes, denseAxis{begin: begin[i], end: end[i], stride: strides[i],
				beginAll: bit("begin_mask", i), endAll: bit("end_mask", i), shrink: bit("shrink_axis_mask", i)})
		}
	}
	if !hasEllipsis {
		entries = append(entries, -1)
	}
	if len(axes) > r {
		return fmt.Errorf("%w: %d sliced axes for an input of rank %d", ErrInvalid, len(axes), r)
	}
	// expand: dense[d] is what happens to input axis d; items lists the result axes in order
	// (-1 a new axis, else an input axis)
	var dense []denseAxis
	var items []int
	reshape := false
	for _, en := range entries {
		switch en {
		case -1:
			for k := len(axes); k < r; k++ {
				items = append(items, len(dense))
				dense = append(dense, denseAxis{stride: 1, beginAll: true, endAll: true})
			}
		case -2:
			items = append(items, -1)
			reshape = true
		default:
			a := axes[en]
			if a.shrink {
				reshape = true
			} else {
				items = append(items, len(dense))
			}
			dense = append(dense, a)
		}
	}
	var s []axisSlice
	for d, a := range dense {
		sl, whole, err := resolveAxis(x.Type.Shape[d], a)
		if err != nil {
			return fmt.Errorf("axis %d of %s: %w", d, x.Type, err)
		}
		if !whole {
			sl.axis = d
			s = append(s, sl)
		}
	}
	y := e.slice(x, s, e.NameIf(!reshape))
	if !reshape || y == nil {
		e.Out(0, y)
		return e.Done()
	}
	var shape []volume.Aff
	for _, it := range items {
		if it < 0 {
			shape = append(shape, volume.AffConst(1))
		} else {
			shape = append(shape, y.Type.Shape[it])
		}
	}
	e.Out(0, e.Reshape(y, shape, e.Base))
	return e.Done()
}

// resolveAxis turns one axis of a strided slice into a slice in the catalogue's convention;
// whole reports that it keeps the axis as it is.
func resolveAxis(n volume.Aff, a denseAxis) (s axisSlice, whole bool, err error) {
	st := a.stride
	c, static := n.IsConst()
	if a.shrink {
		b := a.begin
		if static {
			b, _, err := staticRange(c, a)
			if err != nil {
				return s, false, err
			}
			return axisSlice{start: b, end: b + 1, step: 1}, c == 1, nil
		}
		e := b + 1
		if e == 0 {
			e = huge
		}
		return axisSlice{start: b, end: e, step: 1}, false, nil
	}
	if !static {
		b, e := a.begin, a.end
		if a.beginAll {
			b = 0
			if st < 0 {
				b = huge
			}
		}
		if a.endAll {
			e = huge
			if st < 0 {
				e = -huge
			}
		}
		return axisSlice{start: b, end: e, step: st}, st == 1 && b == 0 && e == huge, nil
	}
	b, ext, err := staticRange(c, a)
	if err != nil {
		return s, false, err
	}
	switch {
	case ext == 0:
		return axisSlice{start: 0, end: 0, step: 1}, c == 0, nil
	case st > 0:
		return axisSlice{start: b, end: b + (ext-1)*st + 1, step: st}, st == 1 && b == 0 && ext == c, nil
	}
	last := b + (ext-1)*st
	if last == 0 {
		return axisSlice{start: b, end: -huge, step: st}, false, nil
	}
	return axisSlice{start: b, end: last - 1, step: st}, false, nil
}

// staticRange resolves one axis of a strided slice over a static extent n as TensorFlow does:
// the first index and the number of elements (1 for a shrunk axis, whose index must lie
// inside). Bounds are clamped to [0, n] going forward and [-1, n - 1] going backward.
func staticRange(n int64, a denseAxis) (first, ext int64, err error) {
	st := a.stride
	if a.shrink {
		b := a.begin
		if b < 0 {
			b += n
		}
		if b < 0 || b >= n {
			return 0, 0, fmt.Errorf("%w: index %d out of range for extent %d", ErrInvalid, a.begin, n)
		}
		return b, 1, nil
	}
	canon := func(v int64, all bool, isEnd bool) int64 {
		lo, hi := int64(0), n
		if st < 0 {
			lo, hi = -1, n-1
		}
		if all {
			if (st > 0) == isEnd {
				return hi
			}
			return lo
		}
		if v < 0 {
			v += n
		}
		return min(max(v, lo), hi)
	}
	b, e := canon(a.begin, a.beginAll, false), canon(a.end, a.endAll, true)
	if st > 0 {
		ext = max(0, (e-b+st-1)/st)
	} else {
		ext = max(0, (b-e-st-1)/-st)
	}
	return b, ext, nil
}
