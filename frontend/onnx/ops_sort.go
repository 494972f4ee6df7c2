// This file imports TopK: the rank of every element along the axis (sort_rank), then the
// elements and their indices scattered to the first k ranks. Ranks at or beyond k are out of
// the results' range and contribute nothing.

package onnx

import (
	"fmt"
	"math"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

func init() {
	registerOp("TopK", 1, importTopK)
	noteOp("TopK", "constant k; largest or smallest, ties by index, always sorted; a rank by comparison of all pairs along the axis (cost: n² per row)")
}

func importTopK(c *nodeCtx) error {
	e := c.emitter()
	x := e.in(0)
	if e.err != nil {
		return e.err
	}
	r := x.Type.Rank()
	if r == 0 {
		return fmt.Errorf("%w: input must have rank >= 1", ErrInvalid)
	}
	ax, err := resolveAxes([]int64{c.AttrInt("axis", -1)}, r)
	if err != nil {
		return err
	}
	axis := ax[0]
	var k int64
	if c.Opset() < 10 {
		k = c.AttrInt("k", -1)
	} else {
		ks, err := c.RequireInts(1, "K")
		if err != nil {
			return err
		}
		if len(ks) != 1 {
			return fmt.Errorf("%w: K must hold one value, got %d", ErrInvalid, len(ks))
		}
		k = ks[0]
	}
	n, ok := x.Type.Dim(axis)
	if ok && (k < 0 || k > n) || !ok && k < 0 {
		return fmt.Errorf("%w: k = %d outside [0, %s]", ErrInvalid, k, x.Type.Shape[axis].String())
	}
	desc := c.AttrInt("largest", 1)
	rank := e.op("sort_rank", "", ir.Attrs{"axis": ir.IntAttr(int64(axis)), "descending": ir.IntAttr(desc)}, x, x)
	out := ir.TensorType{Elem: x.Type.Elem, Shape: append([]volume.Aff(nil), x.Type.Shape...)}
	out.Shape[axis] = volume.AffConst(k)
	fill := func(t ir.TensorType, v float64) *ir.Value {
		return e.op("fill", "", ir.Attrs{"type": ir.StringAttr(t.String()), "value": ir.FloatAttr(v)})
	}
	zero := 0.0
	if out.Elem.IsFloat() {
		zero = math.Copysign(0, -1) // -0 + v = v
	}
	scatter := func(name string, data, upd *ir.Value) *ir.Value {
		return e.op("scatter_elements", name, ir.Attrs{"axis": ir.IntAttr(int64(axis)), "reduction": ir.StringAttr("add")}, data, rank, upd)
	}
	e.out(0, scatter(c.Output(0), fill(out, zero), x))
	if c.Output(1) != "" {
		// the positions along the axis, broadcast to x's shape
		iota := e.op("range", "", ir.Attrs{"elem": ir.StringAttr("i64"), "limit": ir.StringAttr(x.Type.Shape[axis].String())})
		sh := make([]volume.Aff, r)
		for d := range sh {
			sh[d] = volume.AffConst(1)
		}
		sh[axis] = x.Type.Shape[axis]
		pos := e.op("expand", "", ir.Attrs{"shape": ir.StringAttr(ir.ExtentsString(x.Type.Shape))}, e.reshape(iota, sh...))
		it := out
		it.Elem = ir.I64
		e.out(1, scatter(c.Output(1), fill(it, 0), pos))
	}
	return e.done()
}
