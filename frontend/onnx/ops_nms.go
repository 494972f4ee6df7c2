// This file imports NonMaxSuppression over run-time boxes and scores: the number of selected
// boxes is a bounded dim (at most batches × classes × min(max_output_boxes_per_class, boxes)).
//
// The greedy selection is the algorithm op nms (ir/ops_nms.go) over the candidates of every
// (batch, class) in the order of argsort (decreasing score, ties by index): O(N·log N + N·k)
// for N boxes and k kept, over any number of boxes with a bound (a static count, or one the
// graph computes, as torchvision's batched NMS over the boxes of every class). Its result
// lists the kept boxes of each (batch, class), then -1; the selected (batch, class, box)
// triples are those slots in order, as ONNX and onnxruntime order them.

package onnx

import (
	"fmt"
	"strings"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// nmsScalar returns input i of NonMaxSuppression (a limit or threshold, which must be known at
// compile time), or def when it is not given.
func nmsScalar(c *nodeCtx, i int, def float64, role string) (float64, bool, error) {
	if !c.HasInput(i) {
		return def, false, nil
	}
	t, err := c.RequireConst(i, role)
	if err != nil {
		return 0, false, err
	}
	if t.Len() == 0 {
		return def, false, nil
	}
	return t.Float(0), true, nil
}

// genericOp emits a generic op: dims and its domain constraints, one access map per operand
// (index expressions over dims), the result's index expressions, body, reduction and type.
func (e *emitter) genericOp(name, typ string, dims []string, dom string, acc []string, out, body, reduce string, init float64, iters []string, ops ...*ir.Value) *ir.Value {
	tup := "[" + strings.Join(dims, ", ") + "]"
	access := make([]string, len(acc))
	for k, a := range acc {
		access[k] = fmt.Sprintf("{ %s -> [%s] }", tup, a)
	}
	attrs := ir.Attrs{
		"type":      ir.StringAttr(typ),
		"domain":    ir.StringAttr(fmt.Sprintf("{ %s : %s }", tup, dom)),
		"access":    ir.StringsAttr(access...),
		"out":       ir.StringAttr(fmt.Sprintf("{ %s -> [%s] }", tup, out)),
		"body":      ir.StringAttr(body),
		"iterators": ir.StringsAttr(iters...),
		"reduce":    ir.StringAttr(reduce),
		"init":      ir.FloatAttr(init),
	}
	return e.Op("generic", name, attrs, ops...)
}

func importNMSRuntime(c *nodeCtx) error {
	e := c.emitter()
	boxes, scores := e.In(0), e.In(1)
	if e.err != nil {
		return e.err
	}
	bt, st := boxes.Type, scores.Type
	if bt.Rank() != 3 || st.Rank() != 3 {
		return fmt.Errorf("%w: boxes %s and scores %s must be [B, N, 4] and [B, C, N]", ErrInvalid, bt, st)
	}
	four, ok4 := bt.Shape[2].IsConst()
	nb, okB := bt.Shape[0].IsConst()
	nc, okC := st.Shape[1].IsConst()
	if !ok4 || four != 4 || !st.Shape[0].Equal(bt.Shape[0]) || !st.Shape[2].Equal(bt.Shape[1]) {
		return fmt.Errorf("%w: boxes %s and scores %s must be [B, N, 4] and [B, C, N]", ErrInvalid, bt, st)
	}
	if !okB || !okC {
		return fmt.Errorf("%w: NonMaxSuppression over %s boxes and %s scores: the batches and classes must be static", ErrUnsupported, bt, st)
	}
	if bt.Elem != ir.F32 || st.Elem != ir.F32 {
		return fmt.Errorf("%w: NonMaxSuppression of %s boxes and %s scores (float32 only)", ErrUnsupported, bt.Elem, st.Elem)
	}
	n := bt.Shape[1]
	nBound, err := e.boundOf(n)
	if err != nil {
		return fmt.Errorf("%w: NonMaxSuppression over %s boxes: %v", ErrUnsupported, n.String(), err)
	}
	maxOut, _, err := nmsScalar(c, 2, 0, "max_output_boxes_per_class: it bounds the output")
	if err != nil {
		return err
	}
	iouT, _, err := nmsScalar(c, 3, 0, "iou_threshold")
	if err != nil {
		return err
	}
	scoreT, hasScoreT, err := nmsScalar(c, 4, 0, "score_threshold")
	if err != nil {
		return err
	}
	// the most kept per (batch, class): every box, or max_output_boxes_per_class slots when
	// that can be fewer
	limit := int64(-1)
	slots := nBound
	if maxOut < float64(nBound) {
		limit = int64(max(maxOut, 0))
		slots = limit
	}
	if slots == 0 {
		// max_output_boxes_per_class 0: nothing is selected
		c.SetConst(0, ir.NewTensor(ir.I64, []int64{0, 3}))
		return nil
	}
	hasST := int64(0)
	if hasScoreT {
		hasST = 1
	}
	order := e.Op("argsort", "", ir.Attrs{"descending": ir.IntAttr(1)}, scores)
	kept := e.Op("nms", e.Base+"_kept", ir.Attrs{
		"iou_threshold":       ir.FloatAttr(float64(float32(iouT))),
		"score_threshold":     ir.FloatAttr(float64(float32(scoreT))),
		"has_score_threshold": ir.IntAttr(hasST),
		"limit":               ir.IntAttr(limit),
		"center_point_box":    ir.IntAttr(c.AttrInt("center_point_box", 0)),
	}, boxes, scores, order)
	if e.err != nil {
		return e.err
	}
	l := kept.Type.Shape[2]
	m := e.Cast(e.Op("greater_equal", "", nil, kept, e.Scalar(ir.I64, 0)), ir.I64, "")
	if nb*nc == 1 {
		// one (batch, class): the kept boxes are the first count slots
		count := e.Op("reduce_sum", e.Base+"_count", ir.Attrs{"axes": ints([]int{0, 1, 2}), "keepdims": ir.IntAttr(0)}, m)
		sel := e.boundedDim(c.Output(0)+"_n", count, slots)
		if e.err != nil {
			return e.err
		}
		attrs := ir.Attrs{
			"type":   ir.StringAttr(fmt.Sprintf("i64[%s, 3]", sel)),
			"domain": ir.StringAttr(fmt.Sprintf("[%s] -> { [k, d] : 0 <= k < %s and 0 <= d < 3 }", sel, sel)),
			"access": ir.StringsAttr("{ [k, d] -> [0, 0, k] }"),
			"out":    ir.StringAttr("{ [k, d] -> [k, d] }"),
			"body":   ir.StringAttr("select(eq(idx(1), 2:i64), in0, 0:i64)"),
		}
		if len(l.Params) > 0 {
			// at most every slot is kept: stated, so that DIE sees the reads of kept inside
			// its extent when that is itself a bounded dim (the boxes of a selection)
			attrs["requires"] = ir.StringsAttr(ir.RequirementString(volume.GE(l, volume.AffParam(sel))))
		}
		e.Out(0, e.Op("generic", c.Output(0), attrs, kept))
		return e.Done()
	}
	per, ok := l.IsConst()
	if !ok {
		return fmt.Errorf("%w: NonMaxSuppression of %d batches and %d classes over %s boxes: with several (batch, class) pairs "+
			"the boxes' count must be static or max_output_boxes_per_class below its bound (%d)", ErrUnsupported, nb, nc, n.String(), nBound)
	}
	// the kept boxes in (batch, class, slot) order: (batch, class, box)
	total := nb * nc * per
	sel := e.boundedDim(c.Output(0)+"_n", e.countOf(m), total)
	if e.err != nil {
		return e.err
	}
	flat := e.selectedIndices(e.Reshape(m, []volume.Aff{volume.AffConst(total)}, ""), nil, sel, total)
	box := e.Op("gather", "", ir.Attrs{"axis": ir.IntAttr(0)}, e.Reshape(kept, []volume.Aff{volume.AffConst(total)}, ""), flat)
	attrs := ir.Attrs{
		"type":   ir.StringAttr(fmt.Sprintf("i64[%s, 3]", sel)),
		"domain": ir.StringAttr(fmt.Sprintf("[%s] -> { [k, d] : 0 <= k < %s and 0 <= d < 3 }", sel, sel)),
		"access": ir.StringsAttr("{ [k, d] -> [k] }", "{ [k, d] -> [k] }"),
		"out":    ir.StringAttr("{ [k, d] -> [k, d] }"),
		"body": ir.StringAttr(fmt.Sprintf("select(eq(idx(1), 0:i64), div(in0, %d:i64), select(eq(idx(1), 1:i64), rem(div(in0, %d:i64), %d:i64), in1))",
			nc*per, per, nc)),
	}
	e.Out(0, e.Op("generic", c.Output(0), attrs, flat, box))
	return e.Done()
}

// repeatStr returns n copies of s.
func repeatStr(n int, s string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}
