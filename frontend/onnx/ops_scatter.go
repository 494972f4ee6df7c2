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
	"github.com/graphc/graphc/volume"
)

func init() {
	registerOp("GatherND", 11, importGatherND)
	registerOp("ScatterND", 11, importScatterND)
	registerOp("ScatterElements", 11, importScatterElements)
	registerOp("Scatter", 9, importScatterElements)
	noteOp("GatherND", "batch_dims; static index depth (the indices' last dim)")
	noteOp("ScatterND", "reduction none, add, mul, max, min; a search of the updates per element (cost: elements × updates; out-of-range indices are ignored), "+
		"or one walk of the updates when the indices are run-time data and the search would cost far more; "+
		"constant indices without reduction: a gather selected by a constant mask (exact)")
	noteOp("ScatterElements", "reduction none, add, mul, max, min; a search along the axis per element (out-of-range indices are ignored), "+
		"or one walk of the updates when the indices are run-time data and the search would cost far more; "+
		"constant indices without reduction: a gather selected by a constant mask (exact)")
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
	data, ind := e.In(0), e.In(1)
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
	e.Out(0, e.Op("gather_nd", c.Output(0), ir.Attrs{"batch_dims": ir.IntAttr(c.AttrInt("batch_dims", 0))}, ops...))
	return e.Done()
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
		return e.Op("fill", "", ir.Attrs{"type": ir.StringAttr(t.String()), "value": ir.FloatAttr(v)})
	}
	var val *ir.Value
	switch t := data.Type.Elem; {
	case t == ir.Bool:
		val = scatter(fill(data.Type, t, 0), upd, "max")
	case t.IsFloat():
		val = scatter(fill(data.Type, t, math.Copysign(0, -1)), upd, "add") // -0 + u = u, signs included
	default:
		val = scatter(fill(data.Type, t, 0), upd, "add")
	}
	hit := scatter(fill(data.Type, ir.Bool, 0), fill(upd.Type, ir.Bool, 1), "max")
	return e.Op("where", name, nil, hit, val, data)
}

// extentBound is the largest value of extent a (boundOf), when it has one.
func (e *emitter) extentBound(a volume.Aff) (int64, bool) {
	v, err := e.boundOf(a)
	return v, err == nil
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

// maxConstScatter bounds the data of a scatter with constant indices that becomes a gather
// (an int64 index per element).
const maxConstScatter = 1 << 22

// constScatter is a scatter without reduction whose indices are constants: src[f] is the flat
// position in upd of the update that reaches data element f (the last one, as sequential
// assignment leaves it), or -1. The result selects, by a constant mask, between a gather of the
// updates at constant indices and data: both exact element maps, so DIE sees which update each
// element comes from.
func (e *emitter) constScatter(name string, data, upd *ir.Value, src []int64) *ir.Value {
	n := int64(len(src))
	un, _ := staticCount(upd.Type)
	idx := ir.NewTensor(ir.I64, []int64{n})
	mask := ir.NewTensor(ir.Bool, []int64{n})
	for f, u := range src {
		if u >= 0 {
			idx.I[f], mask.I[f] = u, 1
		}
	}
	g := e.c.im.g
	got := e.Op("gather", "", ir.Attrs{"axis": ir.IntAttr(0)}, e.reshape(upd, volume.AffConst(un)), g.AddConst(e.Base+"_src", idx))
	flat := e.Op("where", "", nil, g.AddConst(e.Base+"_hit", mask), got, e.reshape(data, volume.AffConst(n)))
	return e.Op("reshape", name, ir.Attrs{"shape": ir.StringAttr(ir.ExtentsString(data.Type.Shape))}, flat)
}

// constScatterShapes returns the static shapes of a scatter's data and updates when its indices
// are constants and the data small enough for constScatter.
func constScatterShapes(c *nodeCtx, data, upd *ir.Value) (ds, us []int64, ind *ir.Tensor, ok bool) {
	ind, known := c.ConstInput(1)
	if known {
		ind = ind.Decoded()
	}
	ds, ok1 := data.Type.StaticShape()
	us, ok2 := upd.Type.StaticShape()
	if !known || !ok1 || !ok2 || ir.NumElements(ds) > maxConstScatter || ind.Elem.IsFloat() {
		return nil, nil, nil, false
	}
	return ds, us, ind, true
}

// wrapIndexOK normalises a possibly negative index into [0, n).
func wrapIndexOK(i, n int64) (int64, bool) {
	if i < 0 {
		i += n
	}
	return i, i >= 0 && i < n
}

func importScatterND(c *nodeCtx) error {
	e := c.emitter()
	data, upd := e.In(0), e.In(2)
	if e.err != nil {
		return e.err
	}
	red, err := scatterReduction(c)
	if err != nil {
		return err
	}
	if ds, us, it, ok := constScatterShapes(c, data, upd); ok && red == "" && len(it.Shape) >= 1 {
		k := int(it.Shape[len(it.Shape)-1])
		if k <= len(ds) {
			rest := ir.NumElements(ds[k:])
			nupd := ir.NumElements(it.Shape[:len(it.Shape)-1])
			if ir.NumElements(us) == nupd*rest {
				src := make([]int64, ir.NumElements(ds))
				for i := range src {
					src[i] = -1
				}
				for u := int64(0); u < nupd; u++ {
					pre := int64(0)
					for j := 0; j < k; j++ {
						v, okj := wrapIndexOK(it.I[u*int64(k)+int64(j)], ds[j])
						if !okj {
							return fmt.Errorf("%w: index %d of update %d is outside dim %d of %v", ErrInvalid, it.I[u*int64(k)+int64(j)], u, j, ds)
						}
						pre = pre*ds[j] + v
					}
					for r := int64(0); r < rest; r++ {
						src[pre*rest+r] = u*rest + r
					}
				}
				e.Out(0, e.constScatter(c.Output(0), data, upd, src))
				return e.Done()
			}
		}
	}
	ind := e.In(1)
	if e.err != nil {
		return e.err
	}
	parts, err := e.splitIndexDepth(ind)
	if err != nil {
		return err
	}
	// run-time indices over many updates: one walk of the updates instead of a search per element
	_, constInd := c.ConstInput(1)
	kind := "scatter_nd"
	if len(parts) > 0 {
		kind = ir.ScatterNDOp(data.Type, upd.Type, parts[0].Type, constInd, e.extentBound)
	}
	scatter := func(name string) func(d, u *ir.Value, r string) *ir.Value {
		return func(d, u *ir.Value, r string) *ir.Value {
			return e.Op(kind, name, ir.Attrs{"reduction": ir.StringAttr(r)}, append([]*ir.Value{d, u}, parts...)...)
		}
	}
	if red == "" {
		e.Out(0, e.scatterNone(c.Output(0), data, upd, scatter("")))
	} else {
		e.Out(0, scatter(c.Output(0))(data, upd, red))
	}
	return e.Done()
}

func importScatterElements(c *nodeCtx) error {
	e := c.emitter()
	data, upd := e.In(0), e.In(2)
	if e.err != nil {
		return e.err
	}
	red, err := scatterReduction(c)
	if err != nil {
		return err
	}
	if ds, us, it, ok := constScatterShapes(c, data, upd); ok && red == "" && len(it.Shape) == len(ds) && len(us) == len(ds) {
		ax, err := resolveAxes([]int64{c.AttrInt("axis", 0)}, len(ds))
		if err != nil {
			return err
		}
		axis := ax[0]
		src := make([]int64, ir.NumElements(ds))
		for i := range src {
			src[i] = -1
		}
		// every update element u (at coordinates x) goes to x with x[axis] = indices[u]
		coord := make([]int64, len(us))
		for u := int64(0); u < ir.NumElements(us); u++ {
			rem := u
			for d := len(us) - 1; d >= 0; d-- {
				coord[d] = rem % us[d]
				rem /= us[d]
			}
			f := int64(0)
			for d := range ds {
				v := coord[d]
				if d == axis {
					var okv bool
					if v, okv = wrapIndexOK(it.I[u], ds[d]); !okv {
						return fmt.Errorf("%w: index %d of update %d is outside axis %d of %v", ErrInvalid, it.I[u], u, axis, ds)
					}
				}
				if v >= ds[d] {
					return fmt.Errorf("%w: updates %v do not fit data %v", ErrInvalid, us, ds)
				}
				f = f*ds[d] + v
			}
			src[f] = u
		}
		e.Out(0, e.constScatter(c.Output(0), data, upd, src))
		return e.Done()
	}
	ind := e.In(1)
	if e.err != nil {
		return e.err
	}
	axis := ir.IntAttr(c.AttrInt("axis", 0))
	// run-time indices over many updates: one walk of the updates instead of a search per element
	_, constInd := c.ConstInput(1)
	kind := ir.ScatterElementsOp(data.Type, ind.Type, upd.Type, c.AttrInt("axis", 0), constInd, e.extentBound)
	scatter := func(name string) func(d, u *ir.Value, r string) *ir.Value {
		return func(d, u *ir.Value, r string) *ir.Value {
			return e.Op(kind, name, ir.Attrs{"axis": axis, "reduction": ir.StringAttr(r)}, d, ind, u)
		}
	}
	if red == "" {
		e.Out(0, e.scatterNone(c.Output(0), data, upd, scatter("")))
	} else {
		e.Out(0, scatter(c.Output(0))(data, upd, red))
	}
	return e.Done()
}

func init() {
	registerOp("TensorScatter", 24, importTensorScatter)
	noteOp("TensorScatter", "linear and circular; write_indices data (the update's read is over-approximated along the axis)")
}

// importTensorScatter writes each batch's update into the cache at its write index
// (tensor_scatter; write indices default to 0).
func importTensorScatter(c *nodeCtx) error {
	e := c.emitter()
	cache, upd := e.In(0), e.In(1)
	if e.err != nil {
		return e.err
	}
	var w *ir.Value
	if c.HasInput(2) {
		w = e.In(2)
	} else {
		n, ok := cache.Type.Dim(0)
		if !ok {
			return fmt.Errorf("%w: default write indices for a symbolic batch", ErrUnsupported)
		}
		w = c.im.g.AddConst(e.Base+"_w", ir.NewTensor(ir.I64, []int64{n}))
	}
	attrs := ir.Attrs{"axis": ir.IntAttr(c.AttrInt("axis", -2)), "mode": ir.StringAttr(c.AttrString("mode", "linear"))}
	e.Out(0, e.Op("tensor_scatter", c.Output(0), attrs, cache, upd, w))
	return e.Done()
}

func init() {
	registerOp("ReverseSequence", 10, importReverseSequence)
}

func importReverseSequence(c *nodeCtx) error {
	e := c.emitter()
	attrs := ir.Attrs{"batch_axis": ir.IntAttr(c.AttrInt("batch_axis", 1)), "time_axis": ir.IntAttr(c.AttrInt("time_axis", 0))}
	e.Out(0, e.Op("reverse_sequence", c.Output(0), attrs, e.In(0), e.In(1)))
	return e.Done()
}

func init() {
	registerOp("MaxUnpool", 9, importMaxUnpool)
	noteOp("MaxUnpool", "the values scattered at their flat indices into zeros of the (given or computed) output shape (run-time indices: one walk of the values)")
}

// importMaxUnpool scatters the pooled values at the flat indices MaxPool gave them into zeros
// of the unpooled shape (output_shape, or (in - 1)·stride - pads + kernel per spatial dim).
func importMaxUnpool(c *nodeCtx) error {
	e := c.emitter()
	x, ind := e.In(0), e.In(1)
	if e.err != nil {
		return e.err
	}
	xs, ok := x.Type.StaticShape()
	if !ok || len(xs) < 3 {
		return fmt.Errorf("%w: MaxUnpool needs a static [N, C, …] input, got %s", ErrUnsupported, x.Type)
	}
	r := len(xs) - 2
	// the default shape, where the indices point; a given output_shape pads it with zeros
	kernel := c.AttrInts("kernel_shape", nil)
	strides, pads := c.AttrInts("strides", nil), c.AttrInts("pads", nil)
	if len(kernel) != r {
		return fmt.Errorf("%w: kernel_shape must have %d entries", ErrInvalid, r)
	}
	def := []int64{xs[0], xs[1]}
	for d := 0; d < r; d++ {
		s, pb, pe := int64(1), int64(0), int64(0)
		if len(strides) == r {
			s = strides[d]
		}
		if len(pads) == 2*r {
			pb, pe = pads[d], pads[r+d]
		}
		def = append(def, (xs[2+d]-1)*s-pb-pe+kernel[d])
	}
	out := def
	if c.HasInput(2) {
		v, err := c.RequireInts(2, "output_shape")
		if err != nil {
			return err
		}
		out = v
	}
	if len(out) != len(xs) {
		return fmt.Errorf("%w: output_shape %v for an input %v", ErrInvalid, out, xs)
	}
	for i := range out {
		if i >= len(def) || out[i] < def[i] {
			return fmt.Errorf("%w: output_shape %v is smaller than the unpooled shape %v", ErrInvalid, out, def)
		}
	}
	total := ir.NumElements(def)
	n := ir.NumElements(xs)
	flat := func(v *ir.Value) *ir.Value { return e.reshape(v, volume.AffConst(n)) }
	data := ir.TensorType{Elem: x.Type.Elem, Shape: []volume.Aff{volume.AffConst(total)}}
	zeros := e.Op("fill", "", ir.Attrs{"type": ir.StringAttr(data.String()), "value": ir.FloatAttr(0)})
	fi := flat(ind)
	if e.err != nil {
		return e.err
	}
	_, constInd := c.ConstInput(1)
	kind := ir.ScatterElementsOp(data, fi.Type, ir.TensorType{Elem: x.Type.Elem, Shape: fi.Type.Shape}, 0, constInd, e.extentBound)
	scatter := func(d, u *ir.Value, red string) *ir.Value {
		return e.Op(kind, "", ir.Attrs{"axis": ir.IntAttr(0), "reduction": ir.StringAttr(red)}, d, fi, u)
	}
	y := e.scatterNone("", zeros, flat(x), scatter)
	shape := make([]volume.Aff, len(def))
	padding := make([]int64, 2*len(def))
	for i, v := range def {
		shape[i] = volume.AffConst(v)
		padding[len(def)+i] = out[i] - v
	}
	y = e.reshape(y, shape...)
	e.Out(0, e.Op("pad", c.Output(0), ir.Attrs{"pads": ir.IntsAttr(padding...)}, y))
	return e.Done()
}
