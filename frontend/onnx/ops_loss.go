// This file imports the losses NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss: the
// per-position picks of ir's nll_pick, reduced by sum or by the weighted mean.

package onnx

import (
	"fmt"

	"github.com/graphc/graphc/ir"
)

func init() {
	registerOp("NegativeLogLikelihoodLoss", 12, importNLL(false))
	registerOp("SoftmaxCrossEntropyLoss", 12, importNLL(true))
	noteOp("NegativeLogLikelihoodLoss", "nll_pick (a data-dependent read of the target class), then sum or weighted mean")
	noteOp("SoftmaxCrossEntropyLoss", "log_softmax over axis 1, then as NegativeLogLikelihoodLoss")
}

// importNLL imports NLL, or softmax cross-entropy (log_softmax over the classes first, its
// result the optional second output).
func importNLL(softmax bool) func(c *nodeCtx) error {
	return func(c *nodeCtx) error {
		e := c.emitter()
		x, target := e.in(0), e.in(1)
		if e.err != nil {
			return e.err
		}
		if x.Type.Rank() < 2 {
			return fmt.Errorf("%w: input must have rank >= 2 (N, C, …), got %s", ErrInvalid, x.Type)
		}
		reduction := c.AttrString("reduction", "mean")
		if reduction != "none" && reduction != "sum" && reduction != "mean" {
			return fmt.Errorf("%w: reduction %q (want none, sum or mean)", ErrInvalid, reduction)
		}
		attrs := ir.Attrs{}
		if a := c.Attr("ignore_index"); a != nil {
			attrs["ignore_index"] = ir.IntAttr(a.GetI())
			attrs["has_ignore"] = ir.IntAttr(1)
		}
		logp := x
		if softmax {
			keep := ir.Attrs{"axes": ir.IntsAttr(1), "keepdims": ir.IntAttr(1)}
			d := e.op("sub", "", nil, x, e.op("reduce_max", "", keep, x))
			s := e.op("reduce_sum", "", keep, e.op("exp", "", nil, d))
			logp = e.op("sub", c.Output(1), nil, d, e.op("log", "", nil, s))
			e.out(1, logp)
		}
		ops := []*ir.Value{logp, target}
		var weight *ir.Value
		if c.HasInput(2) {
			weight = e.in(2)
			ops = append(ops, weight)
		}
		name := ""
		if reduction == "none" {
			name = c.Output(0)
		}
		loss := e.op("nll_pick", name, attrs, ops...)
		if reduction == "none" {
			e.out(0, loss)
			return e.done()
		}
		all := make([]int, target.Type.Rank())
		for i := range all {
			all[i] = i
		}
		sum := ir.Attrs{"axes": ints(all), "keepdims": ir.IntAttr(0)}
		if reduction == "sum" {
			e.out(0, e.op("reduce_sum", c.Output(0), sum, loss))
			return e.done()
		}
		wattrs := attrs.Clone()
		wattrs["type"] = ir.StringAttr(x.Type.Elem.String())
		wops := []*ir.Value{target}
		if weight != nil {
			wops = append(wops, weight)
		}
		den := e.op("reduce_sum", "", sum, e.op("nll_weight", "", wattrs, wops...))
		e.out(0, e.op("div", c.Output(0), nil, e.op("reduce_sum", "", sum, loss), den))
		return e.done()
	}
}
