// This file imports NonMaxSuppression over run-time boxes and scores: the number of selected
// boxes is a bounded dim (at most batches × classes × min(max_output_boxes_per_class, boxes)).
//
// The steps are generic ops: each box's corners and the order of the candidates of every
// (batch, class) by decreasing score (ties by index); the suppression matrix sup[t, s] (the IoU
// of the candidates of ranks t and s exceeds the threshold) in rank order; then the greedy
// selection unrolled one rank per step: keep[t] when the candidate is valid, fewer than the
// limit are kept before it and no kept candidate before it suppresses it. The kept candidates,
// by batch, class and rank, are the selected indices, as ONNX and onnxruntime order them. The
// arithmetic is the reference's (importNMS), in float32.

package onnx

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// maxNMSRuntimeBoxes bounds the boxes of a NonMaxSuppression over run-time data (two ops per box).
const maxNMSRuntimeBoxes = 512

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
	bs, ok1 := boxes.Type.StaticShape()
	ss, ok2 := scores.Type.StaticShape()
	if !ok1 || !ok2 {
		n := boxes.Type.Shape[min(1, boxes.Type.Rank()-1)]
		what := n.String()
		if len(what) > 60 {
			what = fmt.Sprintf("an expression of %d symbolic dims", len(n.ParamNames()))
		}
		if b, err := e.boundOf(n); err == nil {
			what += fmt.Sprintf(", at most %d", b)
		}
		return fmt.Errorf("%w: NonMaxSuppression over a number of boxes decided at run time (%s): the greedy selection is unrolled "+
			"over a static number of boxes (at most %d), which bounds the selection", ErrUnsupported, what, maxNMSRuntimeBoxes)
	}
	if len(bs) != 3 || bs[2] != 4 || len(ss) != 3 || ss[0] != bs[0] || ss[2] != bs[1] {
		return fmt.Errorf("%w: boxes %v and scores %v must be [B, N, 4] and [B, C, N]", ErrInvalid, bs, ss)
	}
	if boxes.Type.Elem != ir.F32 || scores.Type.Elem != ir.F32 {
		return fmt.Errorf("%w: NonMaxSuppression of %s boxes and %s scores (float32 only)", ErrUnsupported, boxes.Type.Elem, scores.Type.Elem)
	}
	nb, nc, n := bs[0], ss[1], bs[1]
	if n > maxNMSRuntimeBoxes {
		return fmt.Errorf("%w: NonMaxSuppression over %d boxes with run-time scores: at most %d (the greedy selection is unrolled, one box per step)", ErrUnsupported, n, maxNMSRuntimeBoxes)
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
	limit := int64(min(max(maxOut, 0), float64(n))) // the most kept per (batch, class)
	f32 := func(v float64) string { return strconv.FormatFloat(float64(float32(v)), 'g', -1, 64) + ":f32" }
	par := func(k int) []string { return repeatStr(k, "parallel") }

	// corners [B, N, 4]: ymin, xmin, ymax, xmax
	var corner string
	if c.AttrInt("center_point_box", 0) != 0 {
		// x, y, w, h
		corner = "select(eq(idx(2), 0:i64), sub(in1, div(in3, 2.0:f32)), select(eq(idx(2), 1:i64), sub(in0, div(in2, 2.0:f32)), " +
			"select(eq(idx(2), 2:i64), add(in1, div(in3, 2.0:f32)), add(in0, div(in2, 2.0:f32)))))"
	} else {
		// y1, x1, y2, x2, either diagonal
		corner = "select(eq(idx(2), 0:i64), min(in0, in2), select(eq(idx(2), 1:i64), min(in1, in3), " +
			"select(eq(idx(2), 2:i64), max(in0, in2), max(in1, in3))))"
	}
	cb := e.genericOp("", fmt.Sprintf("f32[%d, %d, 4]", nb, n), []string{"b", "i", "k"},
		fmt.Sprintf("0 <= b < %d and 0 <= i < %d and 0 <= k < 4", nb, n),
		[]string{"b, i, 0", "b, i, 1", "b, i, 2", "b, i, 3"}, "b, i, k", corner, "none", 0, par(3), boxes, boxes, boxes, boxes)

	// the candidates: valid (above the score threshold) and ranked by decreasing score
	ranked := scores
	if hasScoreT {
		ranked = e.genericOp("", fmt.Sprintf("f32[%d, %d, %d]", nb, nc, n), []string{"b", "c", "i"},
			fmt.Sprintf("0 <= b < %d and 0 <= c < %d and 0 <= i < %d", nb, nc, n), []string{"b, c, i"}, "b, c, i",
			fmt.Sprintf("select(gt(in0, %s), in0, %s)", f32(scoreT), f32(math.Inf(-1))), "none", 0, par(3), scores)
	}
	rank := e.Op("sort_rank", "", ir.Attrs{"axis": ir.IntAttr(2), "descending": ir.IntAttr(1)}, ranked, ranked)
	byRank := "0 <= b < %d and 0 <= c < %d and 0 <= t < %d and 0 <= i < %d"
	byRankDom := fmt.Sprintf(byRank, nb, nc, n, n)
	red4 := []string{"parallel", "parallel", "parallel", "reduction"}
	// order[b, c, t]: the box of rank t; ok[b, c, t]: it is a candidate
	order := e.genericOp("", fmt.Sprintf("i64[%d, %d, %d]", nb, nc, n), []string{"b", "c", "t", "i"}, byRankDom,
		[]string{"b, c, i"}, "b, c, t", "select(eq(in0, idx(2)), idx(3), 0:i64)", "sum", 0, red4, rank)
	okBody := "select(eq(in0, idx(2)), 1:i64, 0:i64)"
	if hasScoreT {
		okBody = fmt.Sprintf("select(and(eq(in0, idx(2)), gt(in1, %s)), 1:i64, 0:i64)", f32(scoreT))
	}
	okOps := []*ir.Value{rank}
	okAcc := []string{"b, c, i"}
	if hasScoreT {
		okOps, okAcc = append(okOps, scores), append(okAcc, "b, c, i")
	}
	ok := e.genericOp("", fmt.Sprintf("i64[%d, %d, %d]", nb, nc, n), []string{"b", "c", "t", "i"}, byRankDom,
		okAcc, "b, c, t", okBody, "sum", 0, red4, okOps...)
	// the corners in rank order: cs[b, c, t, k]
	cs := e.genericOp("", fmt.Sprintf("f32[%d, %d, %d, 4]", nb, nc, n), []string{"b", "c", "t", "k", "i"},
		fmt.Sprintf(byRank+" and 0 <= k < 4", nb, nc, n, n), []string{"b, c, i", "b, i, k"}, "b, c, t, k",
		"select(eq(in0, idx(2)), in1, -0.0:f32)", "sum", math.Copysign(0, -1), []string{"parallel", "parallel", "parallel", "parallel", "reduction"}, rank, cb)
	// sup[b, c, t, s] for s < t: the IoU of ranks t and s exceeds the threshold (the
	// reference's tests and float32 arithmetic: areas x then y, a1 + a2 - inter)
	area := func(a int) string {
		return fmt.Sprintf("mul(sub(in%d, in%d), sub(in%d, in%d))", a+3, a+1, a+2, a)
	}
	iylo, ixlo, iyhi, ixhi := "max(in0, in4)", "max(in1, in5)", "min(in2, in6)", "min(in3, in7)"
	inter := fmt.Sprintf("mul(sub(%s, %s), sub(%s, %s))", ixhi, ixlo, iyhi, iylo)
	a1, a2 := area(0), area(4)
	union := fmt.Sprintf("sub(add(%s, %s), %s)", a1, a2, inter)
	cond := fmt.Sprintf("and(and(and(gt(%s, %s), gt(%s, %s)), and(gt(%s, 0.0:f32), gt(%s, 0.0:f32))), and(and(gt(%s, 0.0:f32), gt(%s, 0.0:f32)), gt(div(%s, %s), %s)))",
		ixhi, ixlo, iyhi, iylo, inter, a1, a2, union, inter, union, f32(iouT))
	var supAcc []string
	for k := range 4 {
		supAcc = append(supAcc, fmt.Sprintf("b, c, t, %d", k))
	}
	for k := range 4 {
		supAcc = append(supAcc, fmt.Sprintf("b, c, s, %d", k))
	}
	sup := e.genericOp("", fmt.Sprintf("i64[%d, %d, %d, %d]", nb, nc, n, n), []string{"b", "c", "t", "s"},
		fmt.Sprintf("0 <= b < %d and 0 <= c < %d and 0 <= t < %d and 0 <= s < t", nb, nc, n), supAcc, "b, c, t, s",
		fmt.Sprintf("select(%s, 1:i64, 0:i64)", cond), "none", 0, par(4), cs, cs, cs, cs, cs, cs, cs, cs)

	// the greedy selection, one rank per step: v = Σ_{s<t} keep[s]·(1 + W·sup[t, s]) counts
	// the kept (below W) and their suppressions (multiples of W)
	w := n + 1
	keep := e.Op("fill", "", ir.Attrs{"type": ir.StringAttr(fmt.Sprintf("i64[%d, %d, %d]", nb, nc, n)), "value": ir.FloatAttr(0)})
	box3 := fmt.Sprintf("0 <= b < %d and 0 <= c < %d and 0 <= s < %d", nb, nc, n)
	for t := int64(0); t < n && e.err == nil; t++ {
		v := e.genericOp("", fmt.Sprintf("i64[%d, %d]", nb, nc), []string{"b", "c", "s"},
			fmt.Sprintf("0 <= b < %d and 0 <= c < %d and 0 <= s < %d", nb, nc, t),
			[]string{"b, c, s", fmt.Sprintf("b, c, %d, s", t)}, "b, c",
			fmt.Sprintf("mul(in0, add(1:i64, mul(%d:i64, in1)))", w), "sum", 0, []string{"parallel", "parallel", "reduction"}, keep, sup)
		keep = e.genericOp("", fmt.Sprintf("i64[%d, %d, %d]", nb, nc, n), []string{"b", "c", "s"}, box3,
			[]string{"b, c, s", fmt.Sprintf("b, c, %d", t), "b, c"}, "b, c, s",
			fmt.Sprintf("select(eq(idx(2), %d:i64), select(and(ne(in1, 0:i64), lt(in2, %d:i64)), 1:i64, 0:i64), in0)", t, limit),
			"none", 0, par(3), keep, ok, v)
	}
	if e.err != nil {
		return e.err
	}
	// the kept candidates in (batch, class, rank) order: (batch, class, box)
	total := nb * nc * n
	count, pos := e.countAndRanks(keep, total)
	sel := e.boundedDim(c.Output(0)+"_n", count, nb*nc*limit)
	if e.err != nil {
		return e.err
	}
	// the flat (batch, class, rank) position of each kept candidate, and its box
	flat := e.selectedIndices(e.Reshape(keep, []volume.Aff{volume.AffConst(total)}, ""),
		e.Reshape(pos, []volume.Aff{volume.AffConst(total)}, ""), sel, total)
	box := e.Op("gather", "", ir.Attrs{"axis": ir.IntAttr(0)}, e.Reshape(order, []volume.Aff{volume.AffConst(total)}, ""), flat)
	attrs := ir.Attrs{
		"type":   ir.StringAttr(fmt.Sprintf("i64[%s, 3]", sel)),
		"domain": ir.StringAttr(fmt.Sprintf("[%s] -> { [k, d] : 0 <= k < %s and 0 <= d < 3 }", sel, sel)),
		"access": ir.StringsAttr("{ [k, d] -> [k] }", "{ [k, d] -> [k] }"),
		"out":    ir.StringAttr("{ [k, d] -> [k, d] }"),
		"body": ir.StringAttr(fmt.Sprintf("select(eq(idx(1), 0:i64), div(in0, %d:i64), select(eq(idx(1), 1:i64), rem(div(in0, %d:i64), %d:i64), in1))",
			nc*n, n, nc)),
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
