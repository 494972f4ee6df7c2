// This file holds the value-range analysis that bounds run-time integers feeding shapes: an
// interval [lo, hi] containing every element of an IR value, computed from the ops that produce
// it by evaluating their bodies over intervals (constants give their extremes; Min, Max, Clip,
// Cast, + − ×, selects and data movement pass ranges on; a reduction by max or min keeps its
// body's). What nothing bounds is (−∞, +∞); Clip or Min/Max against constants (box coordinates
// clipped to the image) bound it again. The ranges are sound over the reals for what they
// cover; the value of a bounded dim is checked against its bound at run time in any case.

package onnx

import (
	"math"

	"github.com/graphc/graphc/ir"
)

// interval is a closed range of values, with ±Inf where unbounded.
type interval struct{ lo, hi float64 }

var fullRange = interval{math.Inf(-1), math.Inf(1)}

// finite reports whether both ends are finite.
func (r interval) finite() bool { return !math.IsInf(r.lo, 0) && !math.IsInf(r.hi, 0) }

func (r interval) union(s interval) interval {
	return interval{math.Min(r.lo, s.lo), math.Max(r.hi, s.hi)}
}

// corners returns the interval of f over the corners of r × s (f monotone in each argument on
// the box, as +, −, × are); NaN corners (∞ − ∞, 0 · ∞) make it full.
func corners(r, s interval, f func(a, b float64) float64) interval {
	out := interval{math.Inf(1), math.Inf(-1)}
	for _, a := range []float64{r.lo, r.hi} {
		for _, b := range []float64{s.lo, s.hi} {
			v := f(a, b)
			if math.IsNaN(v) {
				return fullRange
			}
			out.lo, out.hi = math.Min(out.lo, v), math.Max(out.hi, v)
		}
	}
	return out
}

// maxRangeDepth bounds how far rangeOf looks back through producers.
const maxRangeDepth = 64

// rangeOf returns an interval containing every element of v.
func (im *importer) rangeOf(v *ir.Value) interval {
	if im.ranges == nil {
		im.ranges = map[*ir.Value]interval{}
	}
	return im.rangeAt(v, 0)
}

func (im *importer) rangeAt(v *ir.Value, depth int) interval {
	if r, ok := im.ranges[v]; ok {
		return r
	}
	r := im.computeRange(v, depth)
	if math.IsNaN(r.lo) || math.IsNaN(r.hi) {
		r = fullRange
	}
	if v.Type.Elem == ir.Bool {
		r = interval{math.Max(r.lo, 0), math.Min(r.hi, 1)}
		if r.lo > r.hi {
			r = interval{0, 1}
		}
	}
	im.ranges[v] = r
	return r
}

func (im *importer) computeRange(v *ir.Value, depth int) interval {
	if v.Data != nil {
		if v.Data.Len() == 0 {
			return fullRange
		}
		r := interval{math.Inf(1), math.Inf(-1)}
		for i := 0; i < v.Data.Len(); i++ {
			x := v.Data.Float(i)
			if math.IsNaN(x) {
				return fullRange
			}
			r.lo, r.hi = math.Min(r.lo, x), math.Max(r.hi, x)
		}
		return r
	}
	op := v.Def
	if op == nil || op.Body == nil || depth > maxRangeDepth {
		return fullRange
	}
	switch op.Reduce {
	case ir.ReduceNone, ir.ReduceMax, ir.ReduceMin:
	default:
		return fullRange
	}
	if r, ok := im.reducedConcat(op, depth); ok {
		return r
	}
	ev := rangeEval{im: im, op: op, depth: depth}
	return ev.eval(op.Body)
}

// reducedConcat is the range of the max (or min) of all elements of a concatenation, such as
// torch's max(w, 1) exported as ReduceMax(Concat(w, [1])): at least the largest of the parts'
// lower bounds (at most the smallest upper bound for a min), which the union of the parts'
// ranges forgets.
func (im *importer) reducedConcat(op *ir.Op, depth int) (interval, bool) {
	if op.Reduce != ir.ReduceMax && op.Reduce != ir.ReduceMin || op.Body.Op != ir.SRead || len(op.Operands) != 1 {
		return interval{}, false
	}
	if n, ok := staticCount(op.Result.Type); !ok || n != 1 {
		return interval{}, false
	}
	cat := op.Operands[0].Def
	if cat == nil || cat.Kind != "concat" {
		return interval{}, false
	}
	var r interval
	first := true
	for _, p := range cat.Operands {
		if n, ok := staticCount(p.Type); !ok || n == 0 {
			return interval{}, false // a part that may be empty bounds nothing
		}
		pr := im.rangeAt(p, depth+1)
		switch {
		case first:
			r, first = pr, false
		case op.Reduce == ir.ReduceMax:
			r = interval{math.Max(r.lo, pr.lo), math.Max(r.hi, pr.hi)}
		default:
			r = interval{math.Min(r.lo, pr.lo), math.Min(r.hi, pr.hi)}
		}
	}
	return r, !first
}

// rangeEval evaluates an op body over intervals.
type rangeEval struct {
	im    *importer
	op    *ir.Op
	depth int
}

func (ev rangeEval) eval(s *ir.Scalar) interval {
	arg := func(k int) interval { return ev.eval(s.Args[k]) }
	switch s.Op {
	case ir.SRead, ir.SDynRead:
		return ev.im.rangeAt(ev.op.Operands[s.Arg], ev.depth+1)
	case ir.SAvail:
		return interval{0, 1}
	case ir.SConst:
		if s.Type.IsFloat() {
			return interval{s.F, s.F}
		}
		return interval{float64(s.I), float64(s.I)}
	case ir.SIndex:
		return interval{0, math.Inf(1)}
	case ir.SParam:
		if b, ok := ev.im.boundOfParam(s.Name); ok {
			return interval{0, float64(b)}
		}
		return interval{0, math.Inf(1)}
	case ir.SNeg:
		a := arg(0)
		return interval{-a.hi, -a.lo}
	case ir.SAbs:
		a := arg(0)
		switch {
		case a.lo >= 0:
			return a
		case a.hi <= 0:
			return interval{-a.hi, -a.lo}
		}
		return interval{0, math.Max(-a.lo, a.hi)}
	case ir.SFloor, ir.SCeil, ir.SRound, ir.STrunc, ir.SSqrt, ir.SExp, ir.STanh, ir.SSigmoid, ir.SErf, ir.SLog, ir.SAtan:
		a := arg(0)
		f := scalarMonotone[s.Op]
		return interval{f(a.lo), f(a.hi)}
	case ir.SAdd:
		return corners(arg(0), arg(1), func(a, b float64) float64 { return a + b })
	case ir.SSub:
		return corners(arg(0), arg(1), func(a, b float64) float64 { return a - b })
	case ir.SMul:
		return corners(arg(0), arg(1), func(a, b float64) float64 { return a * b })
	case ir.SDiv:
		d := arg(1)
		if d.lo <= 0 && d.hi >= 0 {
			return fullRange
		}
		r := corners(arg(0), d, func(a, b float64) float64 { return a / b })
		if s.Type.IsInt() { // truncated: toward zero, within the real range's integer hull
			r = interval{math.Trunc(r.lo), math.Trunc(r.hi)}
		}
		return r
	case ir.SMax:
		a, b := arg(0), arg(1)
		return interval{math.Max(a.lo, b.lo), math.Max(a.hi, b.hi)}
	case ir.SMin:
		a, b := arg(0), arg(1)
		return interval{math.Min(a.lo, b.lo), math.Min(a.hi, b.hi)}
	case ir.SSelect:
		return arg(1).union(arg(2))
	case ir.SEq, ir.SNe, ir.SLt, ir.SLe, ir.SGt, ir.SGe, ir.SNot, ir.SIsNaN, ir.SIsInf:
		return interval{0, 1}
	case ir.SCast:
		a := arg(0)
		switch {
		case s.Type == ir.Bool:
			return interval{0, 1}
		case s.Type.IsInt() && s.Args[0].Type.IsFloat():
			return interval{math.Trunc(a.lo), math.Trunc(a.hi)} // ONNX Cast truncates
		case s.Type.IsInt() && s.Args[0].Type.IsInt() && s.Type.Size() < s.Args[0].Type.Size():
			return fullRange // may wrap
		}
		return a
	}
	return fullRange
}

// scalarMonotone lists the non-decreasing unary body ops.
var scalarMonotone = map[ir.ScalarOp]func(float64) float64{
	ir.SFloor: math.Floor, ir.SCeil: math.Ceil, ir.SRound: math.RoundToEven, ir.STrunc: math.Trunc,
	ir.SSqrt: math.Sqrt, ir.SExp: math.Exp, ir.STanh: math.Tanh, ir.SLog: math.Log, ir.SAtan: math.Atan,
	ir.SSigmoid: func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }, ir.SErf: math.Erf,
}

// boundOfParam returns the bound of bounded dim p, declared by an earlier node.
func (im *importer) boundOfParam(p string) (int64, bool) {
	for _, b := range im.bounded {
		if b.param == p {
			return b.bound, true
		}
	}
	return 0, false
}
