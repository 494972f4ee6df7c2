// This file imports the reductions (ReduceSum/Prod/Max/Min directly; ReduceMean, ReduceL1/L2,
// ReduceSumSquare, ReduceLogSum, ReduceLogSumExp as compositions), ArgMax/ArgMin, and
// Softmax/LogSoftmax as max-shifted exponentials normalised by a sum.

package onnx

import (
	"fmt"

	"github.com/graphc/graphc/ir"
)

// reduceForm says how a Reduce* op is built around one catalogue reduction.
type reduceForm struct {
	kind string // the catalogue reduction
	pre  string // unary op applied before ("" none, "square", "abs", "exp")
	post string // op applied after ("" none, "mean", "sqrt", "log")
	// axesInput is the first opset whose axes are an input rather than an attribute.
	axesInput int
}

func init() {
	for name, f := range map[string]reduceForm{
		"ReduceSum":       {kind: "reduce_sum", axesInput: 13},
		"ReduceProd":      {kind: "reduce_prod", axesInput: 18},
		"ReduceMax":       {kind: "reduce_max", axesInput: 18},
		"ReduceMin":       {kind: "reduce_min", axesInput: 18},
		"ReduceMean":      {kind: "reduce_sum", post: "mean", axesInput: 18},
		"ReduceL1":        {kind: "reduce_sum", pre: "abs", axesInput: 18},
		"ReduceL2":        {kind: "reduce_sum", pre: "square", post: "sqrt", axesInput: 18},
		"ReduceSumSquare": {kind: "reduce_sum", pre: "square", axesInput: 18},
		"ReduceLogSum":    {kind: "reduce_sum", post: "log", axesInput: 18},
		"ReduceLogSumExp": {kind: "reduce_sum", pre: "exp", post: "log", axesInput: 18},
	} {
		registerOp(name, 1, importReduce(f))
	}
	registerOp("ArgMax", 1, importArg("argmax"))
	registerOp("ArgMin", 1, importArg("argmin"))
	registerOp("Softmax", 1, importSoftmax(false))
	registerOp("LogSoftmax", 1, importSoftmax(true))
	registerOp("Hardmax", 1, importHardmax)
	registerOp("LpNormalization", 1, importLpNorm)
	registerOp("CumSum", 11, importCumulative("cumsum"))
	registerOp("CumProd", 26, importCumulative("cumprod"))
	noteOp("Hardmax", "argmax then one_hot; before opset 13 only with axis = rank - 1")
	noteOp("CumSum", "constant axis input; a triangular domain")
	for _, name := range []string{"ReduceSum", "ReduceProd", "ReduceMax", "ReduceMin", "ReduceMean", "ReduceL1", "ReduceL2",
		"ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp"} {
		noteOp(name, "axes attribute, or constant axes input (opset 13 for ReduceSum, 18 for the others); noop_with_empty_axes")
	}
	noteOp("Softmax", "reduce_max, exp(x - max), reduce_sum, div; before opset 13 over every axis from axis on")
	noteOp("LogSoftmax", "x - max - log(sum(exp(x - max))); before opset 13 over every axis from axis on")
}

// reduceAxes returns the normalised axes of a Reduce* node, or noop=true when the node is the
// identity (empty axes with noop_with_empty_axes).
func reduceAxes(c *nodeCtx, rank, axesInput int) (axes []int, noop bool, err error) {
	var raw []int64
	given := false
	if c.Opset() >= int64(axesInput) {
		if c.HasInput(1) {
			v, err := c.RequireInts(1, "axes")
			if err != nil {
				return nil, false, err
			}
			raw, given = v, true
		}
	} else if a := c.Attr("axes"); a != nil {
		raw, given = a.GetInts(), true
	}
	if !given || len(raw) == 0 {
		if c.AttrInt("noop_with_empty_axes", 0) != 0 {
			return nil, true, nil
		}
		all := make([]int, rank)
		for i := range all {
			all[i] = i
		}
		return all, false, nil
	}
	axes, err = resolveAxes(raw, rank)
	return axes, false, err
}

func importReduce(f reduceForm) func(c *nodeCtx) error {
	return func(c *nodeCtx) error {
		e := c.emitter()
		x := e.In(0)
		if x == nil {
			return e.Done()
		}
		axes, noop, err := reduceAxes(c, x.Type.Rank(), f.axesInput)
		if err != nil {
			return err
		}
		if noop {
			// the identity, except that the elementwise pre- and post-steps still apply
			axes = nil
		}
		elem := x.Type.Elem
		if !elem.IsFloat() && (f.pre == "exp" || f.post == "sqrt" || f.post == "log") {
			// integer tensors: computed in f64 and truncated back at the end, as numpy's astype does
			x = e.Cast(x, ir.F64, "")
		}
		switch f.pre {
		case "square":
			x = e.Op("mul", "", nil, x, x)
		case "abs":
			x = e.Op("abs", "", nil, x)
		case "exp":
			x = e.Op("exp", "", nil, x)
		}
		name := c.Output(0)
		if f.post != "" || x != nil && x.Type.Elem != elem {
			name = ""
		}
		keep := c.AttrInt("keepdims", 1)
		y := e.Op(f.kind, name, ir.Attrs{"axes": ints(axes), "keepdims": ir.IntAttr(keep)}, x)
		switch f.post {
		case "mean":
			y = e.Op("div", c.Output(0), nil, y, e.Count(x, axes, elem))
		case "sqrt", "log":
			name := c.Output(0)
			if y != nil && y.Type.Elem != elem {
				name = ""
			}
			y = e.Op(f.post, name, nil, y)
		}
		if y != nil && y.Type.Elem != elem {
			y = e.Op("cast", c.Output(0), ir.Attrs{"to": ir.StringAttr(elem.String())}, y)
		}
		e.Out(0, y)
		return e.Done()
	}
}

func importArg(kind string) func(c *nodeCtx) error {
	return func(c *nodeCtx) error {
		e := c.emitter()
		attrs := ir.Attrs{
			"axis":              ir.IntAttr(c.AttrInt("axis", 0)),
			"keepdims":          ir.IntAttr(c.AttrInt("keepdims", 1)),
			"select_last_index": ir.IntAttr(c.AttrInt("select_last_index", 0)),
		}
		e.Out(0, e.Op(kind, c.Output(0), attrs, e.In(0)))
		return e.Done()
	}
}

// importSoftmax: exp(x - max) / sum(exp(x - max)), or (x - max) - log(sum(exp(x - max))). Before
// opset 13 the input is coerced to 2-D at axis (default 1): the reduction runs over every axis
// from axis on; since, over axis alone (default -1).
func importSoftmax(logSoftmax bool) func(c *nodeCtx) error {
	return func(c *nodeCtx) error {
		e := c.emitter()
		x := e.In(0)
		if x == nil {
			return e.Done()
		}
		r := x.Type.Rank()
		if r == 0 {
			return fmt.Errorf("%w: input must have rank >= 1", ErrInvalid)
		}
		axes, err := softmaxAxes(c, r)
		if err != nil {
			return err
		}
		keep := ir.Attrs{"axes": ints(axes), "keepdims": ir.IntAttr(1)}
		m := e.Op("reduce_max", "", keep, x)
		d := e.Op("sub", "", nil, x, m)
		ex := e.Op("exp", "", nil, d)
		s := e.sumAcc(ex, keep)
		if logSoftmax {
			e.Out(0, e.Op("sub", c.Output(0), nil, d, e.Op("log", "", nil, s)))
		} else {
			e.Out(0, e.Op("div", c.Output(0), nil, ex, s))
		}
		return e.Done()
	}
}

// softmaxAxes returns the axes Softmax, LogSoftmax and Hardmax work over: before opset 13 every
// axis from axis (default 1) on, since, axis alone (default -1).
func softmaxAxes(c *nodeCtx, r int) ([]int, error) {
	if c.Opset() < 13 {
		a, err := resolveAxes([]int64{c.AttrInt("axis", 1)}, r)
		if err != nil {
			return nil, err
		}
		return rangeAxes(a[0], r), nil
	}
	return resolveAxes([]int64{c.AttrInt("axis", -1)}, r)
}

// importHardmax: one_hot(argmax(x, axis), depth = extent of axis).
func importHardmax(c *nodeCtx) error {
	e := c.emitter()
	x := e.In(0)
	if x == nil {
		return e.Done()
	}
	r := x.Type.Rank()
	if r == 0 {
		return fmt.Errorf("%w: input must have rank >= 1", ErrInvalid)
	}
	axes, err := softmaxAxes(c, r)
	if err != nil {
		return err
	}
	if len(axes) != 1 {
		return fmt.Errorf("%w: hardmax over the %d trailing axes of a 2-D coercion", ErrUnsupported, len(axes))
	}
	depth, ok := x.Type.Dim(axes[0])
	if !ok {
		return fmt.Errorf("%w: hardmax along a symbolic axis", ErrUnsupported)
	}
	am := e.Op("argmax", "", ir.Attrs{"axis": ir.IntAttr(int64(axes[0])), "keepdims": ir.IntAttr(0)}, x)
	e.Out(0, e.Op("one_hot", c.Output(0), ir.Attrs{"axis": ir.IntAttr(int64(axes[0])), "depth": ir.IntAttr(depth),
		"type": ir.StringAttr(x.Type.Elem.String())}, am))
	return e.Done()
}

// importLpNorm: x / ||x||_p along axis, p in {1, 2}.
func importLpNorm(c *nodeCtx) error {
	e := c.emitter()
	x := e.In(0)
	if x == nil {
		return e.Done()
	}
	ax, err := resolveAxes([]int64{c.AttrInt("axis", -1)}, x.Type.Rank())
	if err != nil {
		return err
	}
	keep := ir.Attrs{"axes": ints(ax), "keepdims": ir.IntAttr(1)}
	var norm *ir.Value
	switch p := c.AttrInt("p", 2); p {
	case 1:
		norm = e.Op("reduce_sum", "", keep, e.Op("abs", "", nil, x))
	case 2:
		norm = e.Op("sqrt", "", nil, e.Op("reduce_sum", "", keep, e.Op("mul", "", nil, x, x)))
	default:
		return fmt.Errorf("%w: p = %d (want 1 or 2)", ErrInvalid, p)
	}
	e.Out(0, e.Op("div", c.Output(0), nil, x, norm))
	return e.Done()
}

// importCumulative maps CumSum/CumProd; the axis input must be known at import.
func importCumulative(kind string) func(c *nodeCtx) error {
	return func(c *nodeCtx) error {
		e := c.emitter()
		x := e.In(0)
		if x == nil {
			return e.Done()
		}
		axis, err := c.RequireInts(1, "axis")
		if err != nil {
			return err
		}
		if len(axis) != 1 {
			return fmt.Errorf("%w: axis must be a scalar, got %d values", ErrInvalid, len(axis))
		}
		attrs := ir.Attrs{"axis": ir.IntAttr(axis[0]), "exclusive": ir.IntAttr(c.AttrInt("exclusive", 0)), "reverse": ir.IntAttr(c.AttrInt("reverse", 0))}
		e.Out(0, e.Op(kind, c.Output(0), attrs, x))
		return e.Done()
	}
}
