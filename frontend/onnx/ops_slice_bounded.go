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
