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
		x, target := e.In(0), e.In(1)
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
			d := e.Op("sub", "", nil, x, e.Op("reduce_max", "", keep, x))
			s := e.Op("reduce_sum", "", keep, e.Op("exp", "", nil, d))
			logp = e.Op("sub", c.Output(1), nil, d, e.Op("log", "", nil, s))
			e.Out(1, logp)
		}
		ops := []*ir.Value{logp, target}
		var weight *ir.Value
		if c.HasInput(2) {
			weight = e.In(2)
			ops = append(ops, weight)
		}
		name := ""
		if reduction == "none" {
			name = c.Output(0)
		}
		loss := e.Op("nll_pick", name, attrs, ops...)
		if reduction == "none" {
			e.Out(0, loss)
			return e.Done()
		}
		all := make([]int, target.Type.Rank())
		for i := range all {
			all[i] = i
		}
		sum := ir.Attrs{"axes": ints(all), "keepdims": ir.IntAttr(0)}
		if reduction == "sum" {
			e.Out(0, e.Op("reduce_sum", c.Output(0), sum, loss))
			return e.Done()
		}
		wattrs := attrs.Clone()
		wattrs["type"] = ir.StringAttr(x.Type.Elem.String())
		wops := []*ir.Value{target}
		if weight != nil {
			wops = append(wops, weight)
		}
		den := e.Op("reduce_sum", "", sum, e.Op("nll_weight", "", wattrs, wops...))
		e.Out(0, e.Op("div", c.Output(0), nil, e.Op("reduce_sum", "", sum, loss), den))
		return e.Done()
	}
}
