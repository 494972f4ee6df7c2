// This file imports TopK: for small k, k rounds that each find the extreme value of the
// elements not yet taken and its first position; otherwise the rank of every element along the
// axis (sort_rank), then the elements and their indices scattered to the first k ranks (ranks at
// or beyond k fall outside the results and contribute nothing).

package onnx

import (
	"fmt"
	"math"

	kit "github.com/graphc/graphc/frontend/importer"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

func init() {
	registerOp("TopK", 1, importTopK)
	noteOp("TopK", "constant k; largest or smallest, ties by index, always sorted; k <= 32: k rounds of extremum searches (k·n), "+
		"beyond: a rank by comparison of all pairs along the axis (n² per row)")
}

// maxTopKRounds is the largest k taken by rounds of extremum searches (k·n work) rather than
// by ranking every element (n² work).
const maxTopKRounds = 32

// topKRounds takes the k extreme elements one round at a time: the extreme value m of the
// elements not yet taken, then the first position not yet taken that holds m (ties by index,
// infinities and repeated values included).
func (e *emitter) topKRounds(c *nodeCtx, x *ir.Value, axis int, k int64, largest bool) error {
	r := x.Type.Rank()
	n := x.Type.Shape[axis]
	keep := ir.Attrs{"axes": ints([]int{axis}), "keepdims": ir.IntAttr(1)}
	sh := make([]volume.Aff, r)
	for d := range sh {
		sh[d] = volume.AffConst(1)
	}
	sh[axis] = n
	pos := e.reshape(e.Op("range", "", ir.Attrs{"elem": ir.StringAttr("i64"), "limit": ir.StringAttr(n.String())}), sh...)
	extreme, lowest := "reduce_max", ir.LowestValue(x.Type.Elem)
	if !largest {
		extreme, lowest = "reduce_min", ir.HighestValue(x.Type.Elem)
	}
	none := e.Scalar(x.Type.Elem, lowest)
	beyond := ir.NewTensor(ir.I64, nil)
	beyond.I[0] = 1 << 62 // past every position
	past := e.c.im.g.AddConst(e.Base+"_past", beyond)
	var taken *ir.Value
	var idxs []*ir.Value
	for round := int64(0); round < k; round++ {
		free := x
		if taken != nil {
			free = e.Op("where", "", nil, taken, none, x)
		}
		m := e.Op(extreme, "", keep, free)
		at := e.Op("equal", "", nil, x, m)
		if taken != nil {
			at = e.Op("and", "", nil, at, e.Op("not", "", nil, taken))
		}
		a := e.Op("reduce_min", "", keep, e.Op("where", "", nil, at, pos, past))
		idxs = append(idxs, a)
		hit := e.Op("equal", "", nil, pos, a)
		if taken == nil {
			taken = hit
		} else {
			taken = e.Op("or", "", nil, taken, hit)
		}
	}
	var ind *ir.Value
	switch len(idxs) {
	case 0:
		out := ir.TensorType{Elem: ir.I64, Shape: append([]volume.Aff(nil), x.Type.Shape...)}
		out.Shape[axis] = volume.AffConst(0)
		ind = e.Op("fill", "", ir.Attrs{"type": ir.StringAttr(out.String()), "value": ir.FloatAttr(0)})
	case 1:
		ind = idxs[0]
	default:
		ind = e.Op("concat", "", ir.Attrs{"axis": ir.IntAttr(int64(axis))}, idxs...)
	}
	e.Out(0, e.Op("gather_elements", c.Output(0), ir.Attrs{"axis": ir.IntAttr(int64(axis))}, x, ind))
	if c.Output(1) != "" {
		e.Out(1, e.Op("identity", c.Output(1), nil, ind))
	}
	return e.Done()
}

func importTopK(c *nodeCtx) error {
	e := c.emitter()
	x := e.In(0)
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
	if c.Opset() >= 10 && c.HasInput(1) {
		if _, ok := c.ConstInput(1); !ok {
			if _, sym := c.SymInts(1); !sym {
				return importTopKRuntime(c, e, x, axis) // a bounded dim (ops_bounded.go)
			}
		}
	}
	if c.Opset() < 10 {
		k = c.AttrInt("k", -1)
	} else {
		ks, err := c.RequireInts(1, "K")
		if k, err = kit.One(ks, err, 1, "K", ErrInvalid); err != nil {
			return err
		}
	}
	n, ok := x.Type.Dim(axis)
	if ok && (k < 0 || k > n) || !ok && k < 0 {
		return fmt.Errorf("%w: k = %d outside [0, %s]", ErrInvalid, k, x.Type.Shape[axis].String())
	}
	desc := c.AttrInt("largest", 1)
	if k <= maxTopKRounds {
		return e.topKRounds(c, x, axis, k, desc != 0)
	}
	v, ind := e.topKRanked(x, axis, volume.AffConst(k), desc, c.Output(0), c.Output(1))
	e.Out(0, v)
	if c.Output(1) != "" {
		e.Out(1, ind)
	}
	return e.Done()
}

// argsortMin is the longest axis TopK ranks by comparing every pair (sort_rank, n² work
// that vectorizes); longer axes are sorted by argsort.
const argsortMin = 64

// topKRanked ranks every element along axis (sort_rank) and scatters the elements and their
// positions to the first k ranks (k may be symbolic): values named vname and indices named
// iname (iname "": no indices, nil).
func (e *emitter) topKRanked(x *ir.Value, axis int, k volume.Aff, desc int64, vname, iname string) (*ir.Value, *ir.Value) {
	r := x.Type.Rank()
	if n, err := e.boundOf(x.Type.Shape[axis]); err == nil && n > argsortMin && axis == r-1 && !x.Type.Elem.IsUnsigned() {
		// a long last axis: argsort's O(n·log n) instead of sort_rank's n² comparisons
		ind := e.Op("argsort", "", ir.Attrs{"descending": ir.IntAttr(desc)}, x)
		if !k.Equal(x.Type.Shape[axis]) {
			attrs := ir.Attrs{"axes": ir.IntsAttr(int64(axis)), "starts": ir.IntsAttr(0), "ends": ir.IntsAttr(0)}
			if kc, ok := k.IsConst(); ok {
				attrs["ends"] = ir.IntsAttr(kc)
			} else {
				attrs["sym_ends"] = ir.StringsAttr(k.String())
			}
			ind = e.Op("slice", "", attrs, ind)
		}
		vals := e.Op("gather_elements", vname, ir.Attrs{"axis": ir.IntAttr(int64(axis))}, x, ind)
		if iname == "" {
			return vals, nil
		}
		return vals, e.Op("identity", iname, nil, ind)
	}
	rank := e.Op("sort_rank", "", ir.Attrs{"axis": ir.IntAttr(int64(axis)), "descending": ir.IntAttr(desc)}, x, x)
	out := ir.TensorType{Elem: x.Type.Elem, Shape: append([]volume.Aff(nil), x.Type.Shape...)}
	out.Shape[axis] = k
	fill := func(t ir.TensorType, v float64) *ir.Value {
		return e.Op("fill", "", ir.Attrs{"type": ir.StringAttr(t.String()), "value": ir.FloatAttr(v)})
	}
	zero := 0.0
	if out.Elem.IsFloat() {
		zero = math.Copysign(0, -1) // -0 + v = v
	}
	// the search form (each result element looks for its rank along the axis: k·n per row,
	// an exact element map DIE can cut) or, when that costs more, one walk that writes each
	// element to its rank (ranks at or beyond k write nothing: k + n per row)
	kind := ir.ScatterElementsOp(out, rank.Type, x.Type, int64(axis), false, e.extentBound)
	scatter := func(name string, data, upd *ir.Value) *ir.Value {
		return e.Op(kind, name, ir.Attrs{"axis": ir.IntAttr(int64(axis)), "reduction": ir.StringAttr("add")}, data, rank, upd)
	}
	vals := scatter(vname, fill(out, zero), x)
	if iname == "" {
		return vals, nil
	}
	{
		// the positions along the axis, broadcast to x's shape
		iota := e.Op("range", "", ir.Attrs{"elem": ir.StringAttr("i64"), "limit": ir.StringAttr(x.Type.Shape[axis].String())})
		sh := make([]volume.Aff, r)
		for d := range sh {
			sh[d] = volume.AffConst(1)
		}
		sh[axis] = x.Type.Shape[axis]
		pos := e.Op("expand", "", ir.Attrs{"shape": ir.StringAttr(ir.ExtentsString(x.Type.Shape))}, e.reshape(iota, sh...))
		it := out
		it.Elem = ir.I64
		return vals, scatter(iname, fill(it, 0), pos)
	}
}
