// This file imports the ops whose output shapes depend on the values of their data: NonZero,
// Unique, NonMaxSuppression and Compress. graphc's ABI has caller-allocated outputs of shapes
// known when the module is built, so these ops need the values that decide the shape at
// compile time: they are computed at import when their data is (constants, or graph inputs
// bound with WithConstInput / --const), and refused otherwise with a NeedConstError naming the
// inputs to bind. Compress needs only its condition: the selection then is a gather with
// constant indices (an exact element map) over data known at run time.

package onnx

import (
	"fmt"
	"slices"
	"sort"

	"github.com/graphc/graphc/ir"
)

func init() {
	registerOp("NonZero", 9, importNonZero)
	registerOp("Unique", 11, importUnique)
	registerOp("NonMaxSuppression", 10, importNMS)
	registerOp("Compress", 9, importCompress)
	const dd = "data-dependent output shape: "
	noteOp("NonZero", dd+"computed at import when its input is known at compile time; else a bounded dim (at most the element count) returned as an extra output")
	noteOp("Unique", dd+"computed at import when its input is known at compile time (sorted or in order of appearance, with axis); "+
		"else, without axis, a bounded dim (at most the element count) returned as an extra output: pairwise comparisons up to 64 elements, "+
		"beyond them N·log N (argsort, the sorted runs, their starts in one pass, an inverse permutation); NaNs sort last, each its own value")
	noteOp("NonMaxSuppression", dd+"computed at import when boxes and scores are known at compile time; else a bounded dim "+
		"(at most batches × classes × min(max_output_boxes_per_class, boxes)) returned as an extra output, the greedy selection by "+
		"the algorithm ops argsort and nms (any bounded number of boxes, O(N·log N + N·k)); the limits and thresholds must be known at compile time")
	noteOp("Compress", dd+"a gather with constant indices when the condition is known at compile time; else a bounded dim (at most its length) returned as an extra output")
}

// shapeRole names what a data-dependent op needs an input for.
const shapeRole = "its values decide the output's shape"

func importNonZero(c *nodeCtx) error {
	if _, ok := c.ConstInput(0); !ok && c.HasInput(0) {
		return importNonZeroRuntime(c) // a bounded dim (ops_bounded.go)
	}
	x, err := c.RequireConst(0, shapeRole)
	if err != nil {
		return err
	}
	var hits []int64
	for i := 0; i < x.Len(); i++ {
		if x.Float(i) != 0 {
			hits = append(hits, int64(i))
		}
	}
	r := len(x.Shape)
	out := ir.NewTensor(ir.I64, []int64{int64(r), int64(len(hits))})
	for k, flat := range hits {
		for d := r - 1; d >= 0; d-- {
			out.I[int64(d)*int64(len(hits))+int64(k)] = flat % x.Shape[d]
			flat /= x.Shape[d]
		}
	}
	c.SetConst(0, out)
	return nil
}

// compressAxis returns Compress's operand and the axis it selects along: the attribute's, or
// axis 0 of the operand flattened when the node has none.
func compressAxis(c *nodeCtx, e *emitter, x *ir.Value) (*ir.Value, int, error) {
	if c.Attr("axis") == nil {
		n, ok := staticCount(x.Type)
		if !ok {
			return nil, 0, fmt.Errorf("%w: Compress without axis of a symbolic shape %s", ErrUnsupported, x.Type)
		}
		return e.Op("reshape", "", ir.Attrs{"shape": ir.StringAttr(fmt.Sprintf("[%d]", n))}, x), 0, nil
	}
	ax, err := resolveAxes([]int64{c.AttrInt("axis", 0)}, x.Type.Rank())
	if err != nil {
		return nil, 0, err
	}
	return x, ax[0], nil
}

func importCompress(c *nodeCtx) error {
	e := c.emitter()
	x := e.In(0)
	if e.err != nil {
		return e.err
	}
	if _, ok := c.ConstInput(1); !ok && c.HasInput(1) {
		return importCompressRuntime(c) // a bounded dim (ops_bounded.go)
	}
	cond, err := c.RequireConst(1, shapeRole)
	if err != nil {
		return err
	}
	x, axis, err := compressAxis(c, e, x)
	if err != nil {
		return err
	}
	n, ok := x.Type.Dim(axis)
	if !ok {
		return fmt.Errorf("%w: Compress along a symbolic axis of %s", ErrUnsupported, x.Type)
	}
	if int64(cond.Len()) > n {
		return fmt.Errorf("%w: a condition of %d elements for an axis of %d", ErrInvalid, cond.Len(), n)
	}
	var idx []int64
	for i := 0; i < cond.Len(); i++ {
		if cond.Float(i) != 0 {
			idx = append(idx, int64(i))
		}
	}
	it := ir.NewTensor(ir.I64, []int64{int64(len(idx))})
	copy(it.I, idx)
	ind := c.im.g.AddConst(e.Base+"_indices", it)
	e.Out(0, e.Op("gather", c.Output(0), ir.Attrs{"axis": ir.IntAttr(int64(axis))}, x, ind))
	return e.Done()
}

// staticCount returns the number of elements of a static type.
func staticCount(t ir.TensorType) (int64, bool) {
	s, ok := t.StaticShape()
	if !ok {
		return 0, false
	}
	return ir.NumElements(s), true
}

// importUnique follows numpy's unique with return_index, return_inverse and return_counts:
// over the flattened input, or over the slices along axis (compared element by element).
func importUnique(c *nodeCtx) error {
	if _, ok := c.ConstInput(0); !ok && c.HasInput(0) && c.Attr("axis") == nil {
		return importUniqueRuntime(c) // a bounded dim (ops_bounded.go)
	}
	x, err := c.RequireConst(0, shapeRole)
	if err != nil {
		return err
	}
	shape := x.Shape
	axis := -1
	if c.Attr("axis") != nil {
		ax, err := resolveAxes([]int64{c.AttrInt("axis", 0)}, len(shape))
		if err != nil {
			return err
		}
		axis = ax[0]
	}
	// the items compared: single elements, or the slices along axis
	outer, n, inner := int64(1), int64(x.Len()), int64(1)
	if axis >= 0 {
		n = shape[axis]
		for _, d := range shape[:axis] {
			outer *= d
		}
		for _, d := range shape[axis+1:] {
			inner *= d
		}
	}
	item := func(i int64) []float64 {
		v := make([]float64, 0, outer*inner)
		for o := int64(0); o < outer; o++ {
			for k := int64(0); k < inner; k++ {
				v = append(v, x.Float(int((o*n+i)*inner+k)))
			}
		}
		return v
	}
	var firsts []int64      // first occurrence of each distinct item, in order of appearance
	inv := make([]int64, n) // index of each item's distinct value (in order of appearance)
	var counts []int64
	var items [][]float64
	for i := int64(0); i < n; i++ {
		v := item(i)
		k := slices.IndexFunc(items, func(u []float64) bool { return slices.Equal(u, v) })
		if k < 0 {
			k = len(items)
			items, firsts, counts = append(items, v), append(firsts, i), append(counts, 0)
		}
		inv[i] = int64(k)
		counts[k]++
	}
	order := make([]int, len(items)) // output position -> distinct value
	for i := range order {
		order[i] = i
	}
	if c.AttrInt("sorted", 1) != 0 {
		sort.SliceStable(order, func(a, b int) bool { return slices.Compare(items[order[a]], items[order[b]]) < 0 })
	}
	pos := make([]int64, len(items))
	for p, k := range order {
		pos[k] = int64(p)
	}
	u := int64(len(items))
	yShape := []int64{u}
	if axis >= 0 {
		yShape = append([]int64(nil), shape...)
		yShape[axis] = u
	}
	y := ir.NewTensor(x.Elem, yShape)
	for p, k := range order {
		src := firsts[k]
		for o := int64(0); o < outer; o++ {
			for j := int64(0); j < inner; j++ {
				from, to := int((o*n+src)*inner+j), int((o*u+int64(p))*inner+j)
				if x.Elem.IsFloat() {
					y.F[to] = x.F[from]
				} else {
					y.I[to] = x.I[from]
				}
			}
		}
	}
	vec := func(vals []int64) *ir.Tensor {
		t := ir.NewTensor(ir.I64, []int64{int64(len(vals))})
		copy(t.I, vals)
		return t
	}
	idx, cnt, invOut := make([]int64, u), make([]int64, u), make([]int64, n)
	for p, k := range order {
		idx[p], cnt[p] = firsts[k], counts[k]
	}
	for i := range invOut {
		invOut[i] = pos[inv[i]]
	}
	c.SetConst(0, y)
	c.SetConst(1, vec(idx))
	c.SetConst(2, vec(invOut))
	c.SetConst(3, vec(cnt))
	return nil
}

// importNMS follows the ONNX reference: per batch and class, the boxes above score_threshold
// by decreasing score (ties by index), each kept unless its IoU with a kept one exceeds
// iou_threshold, at most max_output_boxes_per_class; computed in float32.
func importNMS(c *nodeCtx) error {
	_, b := c.ConstInput(0)
	_, s := c.ConstInput(1)
	if !b || !s {
		return importNMSRuntime(c) // a bounded dim (ops_nms.go)
	}
	boxes, err := c.RequireConst(0, shapeRole)
	if err != nil {
		return err
	}
	scores, err := c.RequireConst(1, shapeRole)
	if err != nil {
		return err
	}
	if len(boxes.Shape) != 3 || boxes.Shape[2] != 4 || len(scores.Shape) != 3 || scores.Shape[0] != boxes.Shape[0] || scores.Shape[2] != boxes.Shape[1] {
		return fmt.Errorf("%w: boxes %v and scores %v must be [B, N, 4] and [B, C, N]", ErrInvalid, boxes.Shape, scores.Shape)
	}
	scalar := func(i int, def float64) (float64, bool, error) {
		if !c.HasInput(i) {
			return def, false, nil
		}
		t, err := c.RequireConst(i, shapeRole)
		if err != nil || t.Len() == 0 {
			return def, false, err
		}
		return t.Float(0), true, nil
	}
	maxOut, _, err := scalar(2, 0)
	if err != nil {
		return err
	}
	iouT, _, err := scalar(3, 0)
	if err != nil {
		return err
	}
	scoreT, hasScoreT, err := scalar(4, 0)
	if err != nil {
		return err
	}
	center := c.AttrInt("center_point_box", 0) != 0
	nb, nc, nbox := boxes.Shape[0], scores.Shape[1], boxes.Shape[1]
	box := func(b, i int64) [4]float32 {
		var v [4]float32
		for k := range v {
			v[k] = float32(boxes.F[(b*nbox+i)*4+int64(k)])
		}
		return v
	}
	minmax := func(a, b float32) (float32, float32) {
		if a >= b {
			return b, a
		}
		return a, b
	}
	suppress := func(p, q [4]float32) bool {
		var x1lo, x1hi, x2lo, x2hi, y1lo, y1hi, y2lo, y2hi float32
		if center {
			x1lo, x1hi = p[0]-p[2]/2, p[0]+p[2]/2
			x2lo, x2hi = q[0]-q[2]/2, q[0]+q[2]/2
			y1lo, y1hi = p[1]-p[3]/2, p[1]+p[3]/2
			y2lo, y2hi = q[1]-q[3]/2, q[1]+q[3]/2
		} else {
			x1lo, x1hi = minmax(p[1], p[3])
			x2lo, x2hi = minmax(q[1], q[3])
			y1lo, y1hi = minmax(p[0], p[2])
			y2lo, y2hi = minmax(q[0], q[2])
		}
		ixlo, ixhi := max(x1lo, x2lo), min(x1hi, x2hi)
		iylo, iyhi := max(y1lo, y2lo), min(y1hi, y2hi)
		if ixhi <= ixlo || iyhi <= iylo {
			return false
		}
		inter := (ixhi - ixlo) * (iyhi - iylo)
		a1, a2 := (x1hi-x1lo)*(y1hi-y1lo), (x2hi-x2lo)*(y2hi-y2lo)
		union := a1 + a2 - inter
		if inter <= 0 || a1 <= 0 || a2 <= 0 || union <= 0 {
			return false
		}
		return float64(inter/union) > float64(float32(iouT))
	}
	var sel []int64
	for b := int64(0); b < nb; b++ {
		for cl := int64(0); cl < nc; cl++ {
			var cand []int64
			sc := func(i int64) float32 { return float32(scores.F[(b*nc+cl)*nbox+i]) }
			for i := int64(0); i < nbox; i++ {
				if !hasScoreT || sc(i) > float32(scoreT) {
					cand = append(cand, i)
				}
			}
			sort.SliceStable(cand, func(x, y int) bool { return sc(cand[x]) > sc(cand[y]) })
			var kept []int64
			for _, i := range cand {
				if float64(len(kept)) >= maxOut {
					break
				}
				ok := true
				for _, k := range kept {
					if suppress(box(b, i), box(b, k)) {
						ok = false
						break
					}
				}
				if ok {
					kept = append(kept, i)
					sel = append(sel, b, cl, i)
				}
			}
		}
	}
	out := ir.NewTensor(ir.I64, []int64{int64(len(sel) / 3), 3})
	copy(out.I, sel)
	c.SetConst(0, out)
	return nil
}
