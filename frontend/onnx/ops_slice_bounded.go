// This file clamps Slice ends on axes of bounded extent (torchvision's keep[:detections_per_img]
// after NMS): ONNX clamps an end to the extent, and an extent n decided at run time makes the
// result's extent min(n, end), which is not affine. An end at or above n's bound is the whole
// axis; a smaller one becomes a new bounded dim, min(n, end), at most end.

package onnx

import (
	"fmt"
	"math"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// clampBoundedEnds returns the slice ends with those that clamp on a bounded extent replaced
// (see the file comment). Other ends are returned as they are.
func clampBoundedEnds(c *nodeCtx, x *ir.Value, starts, ends []volume.Aff, axes, steps []int64) ([]volume.Aff, error) {
	e := c.emitter()
	out := append([]volume.Aff(nil), ends...)
	for k, end := range ends {
		d := int64(k)
		if axes != nil {
			if k >= len(axes) {
				return ends, nil
			}
			d = axes[k]
		}
		if d < 0 {
			d += int64(x.Type.Rank())
		}
		if d < 0 || d >= int64(x.Type.Rank()) || steps != nil && k < len(steps) && steps[k] != 1 {
			continue
		}
		n := x.Type.Shape[d]
		if shrinks(n) {
			// an extent that shrinks as a dim grows (end − start, a canvas minus a box's
			// offset) keeps its end: its bound over the dims' ranges may exceed every value it
			// takes, and min(n, end) as a new dim would lose its relations with the others
			// (Mask R-CNN's paste concatenates such slices to the canvas's 320)
			continue
		}
		bound, err := e.boundOf(n)
		ev, isConst := end.IsConst()
		sv, startConst := volume.AffConst(0), true
		if k < len(starts) {
			_, startConst = starts[k].IsConst()
			sv = starts[k]
		}
		if _, static := n.IsConst(); static || err != nil || !isConst || !startConst || ev < 0 {
			continue
		}
		if s, _ := sv.IsConst(); s < 0 {
			continue
		}
		if ev >= bound {
			out[k] = volume.AffConst(math.MaxInt64) // the whole axis
			continue
		}
		body, err := affBody(n)
		if err != nil {
			continue
		}
		attrs := ir.Attrs{
			"type":   ir.StringAttr("i64[]"),
			"domain": ir.StringAttr(fmt.Sprintf("[%s] -> { [] }", paramList(n))),
			"access": ir.StringsAttr(),
			"out":    ir.StringAttr("{ [] -> [] }"),
			"body":   ir.StringAttr(fmt.Sprintf("min(%s, %d:i64)", body, ev)),
		}
		v := e.Op("generic", fmt.Sprintf("%s_end%d", e.Base, k), attrs)
		out[k] = volume.AffParam(e.boundedDim(fmt.Sprintf("%s_n%d", c.Output(0), k), v, ev))
	}
	return out, e.err
}

// shrinks reports whether extent a has a term that decreases as a dim grows.
func shrinks(a volume.Aff) bool {
	for _, p := range a.Params {
		if p.Coef < 0 {
			return true
		}
	}
	return false
}

// affRange returns the least and greatest values of a, an affine expression of bounded dims
// (each in [0, its bound]); ok is false when a has other terms.
func (e *emitter) affRange(a volume.Aff) (lo, hi int64, ok bool) {
	if len(a.Dims) > 0 || len(a.Floors) > 0 {
		return 0, 0, false
	}
	bounds := map[string]int64{}
	for _, b := range e.c.im.bounded {
		bounds[b.param] = b.bound
	}
	lo, hi = a.Const, a.Const
	for _, p := range a.Params {
		b, found := bounds[p.Name]
		if !found {
			return 0, 0, false
		}
		if p.Coef < 0 {
			lo += p.Coef * b
		} else {
			hi += p.Coef * b
		}
	}
	return lo, hi, true
}

// normalizeRuntimeBounds returns the slice starts and ends with those computed at run time
// (bounded values) that may be negative or beyond the extent replaced by their ONNX meaning: a
// negative index counts from the end, and both are clamped to [0, extent] (and the end to at
// least the start: an empty slice). Each replaced bound becomes a new bounded dim, computed by
// a scalar op at run time, at most the extent's bound. Constant bounds, steps other than 1 and
// run-time bounds valid for every value they may take are left as they are.
func normalizeRuntimeBounds(c *nodeCtx, x *ir.Value, starts, ends []volume.Aff, axes, steps []int64) ([]volume.Aff, []volume.Aff, error) {
	e := c.emitter()
	outS := append([]volume.Aff(nil), starts...)
	outE := append([]volume.Aff(nil), ends...)
	for k := range min(len(starts), len(ends)) {
		d := int64(k)
		if axes != nil {
			if k >= len(axes) {
				break
			}
			d = axes[k]
		}
		if d < 0 {
			d += int64(x.Type.Rank())
		}
		if d < 0 || d >= int64(x.Type.Rank()) || steps != nil && k < len(steps) && steps[k] != 1 {
			continue
		}
		_, sConst := starts[k].IsConst()
		_, eConst := ends[k].IsConst()
		if sConst && eConst {
			continue
		}
		n := x.Type.Shape[d]
		nLo, nHi, ok := e.affRange(n)
		if !ok {
			continue
		}
		sLo, sHi, okS := e.affRange(starts[k])
		eLo, eHi, okE := e.affRange(ends[k])
		if !okS || !okE {
			continue
		}
		// valid for every value as it is: 0 <= start <= end, start <= extent, and a run-time end
		// at most the extent (a constant end past it is clamped by the slice itself)
		if sLo >= 0 && eLo >= 0 && sHi <= nLo && (eConst || eHi <= nLo) && sHi <= eLo {
			continue
		}
		// bounds that cannot be negative keep their expressions, checked by the entry at run
		// time (within the extent, the end at least the start; an end past a bounded extent is
		// clamped by clampBoundedEnds): new dims would lose their relations with the other
		// dims, which Mask R-CNN's paste needs (slices of a box's mask whose extents add up to
		// the canvas: its Concat no longer imported) and Faster R-CNN's split of the boxes by
		// image (its opt-in test gave other boxes for the same scores, not yet explained)
		if sLo >= 0 && eLo >= 0 {
			continue
		}
		nBody, err := affBody(n)
		if err != nil {
			continue
		}
		norm := func(a volume.Aff) (string, error) {
			b, err := affBody(a)
			if err != nil {
				return "", err
			}
			// a negative index counts from the end; then clamped to [0, extent]
			return fmt.Sprintf("min(max(select(lt(%[1]s, 0:i64), add(%[1]s, %[2]s), %[1]s), 0:i64), %[2]s)", b, nBody), nil
		}
		sBody, err := norm(starts[k])
		if err != nil {
			continue
		}
		eBody, err := norm(ends[k])
		if err != nil {
			continue
		}
		op := func(what, body string, as ...volume.Aff) string {
			v := e.Op("generic", fmt.Sprintf("%s_%s%d", e.Base, what, k), ir.Attrs{
				"type":   ir.StringAttr("i64[]"),
				"domain": ir.StringAttr(fmt.Sprintf("[%s] -> { [] }", paramList(as...))),
				"access": ir.StringsAttr(),
				"out":    ir.StringAttr("{ [] -> [] }"),
				"body":   ir.StringAttr(body),
			})
			return e.boundedDim(fmt.Sprintf("%s_%s%d", c.Output(0), what, k), v, nHi)
		}
		s := op("start", sBody, starts[k], n)
		outS[k] = volume.AffParam(s)
		// the end is at least the start (an end before the start is an empty slice)
		outE[k] = volume.AffParam(op("end", fmt.Sprintf("max(%s, param(%s))", eBody, s), ends[k], n, outS[k]))
	}
	return outS, outE, e.err
}
