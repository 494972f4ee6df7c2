// This file turns small integer tensors computed at run time into expressions of bounded
// dims, for the inputs that decide a shape (Resize's sizes; Mask R-CNN resizes each mask to
// its box, whose coordinates the graph computes and clips to the image). The tensor's elements
// are followed back through the ops that compute them affinely (+, −, × by a constant,
// concatenations, reshapes, slices and gathers at known positions, integer casts), evaluated
// on the ops' generic form point by point, so that relations survive: y1 − y0 stays the
// difference of two dims. Where an element is computed otherwise (a max, a gather at a run-time
// index, a float cast) the value becomes a leaf: each of its elements a new bounded dim
// n = element − lo, at most hi − lo, [lo, hi] the value range (valuerange.go) of the value.
// A value that nothing bounds is an error naming it.

package onnx

import (
	"fmt"
	"math"
	"strings"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// maxBoundedInts bounds the elements of a run-time tensor made bounded dims (shape vectors).
const maxBoundedInts = 16

// maxSymDepth bounds how far symbolize follows producers.
const maxSymDepth = 32

// RequireBoundedInts returns integer input i as quasi-affine values, like RequireSymInts; an
// input computed at run time, of at most maxBoundedInts elements whose values are bounded,
// becomes expressions of new bounded dims (see the file comment).
func (c *nodeCtx) RequireBoundedInts(i int, role string) ([]volume.Aff, error) {
	if v, ok := c.SymInts(i); ok {
		return v, nil
	}
	if _, ok := c.ConstInput(i); ok || !c.HasInput(i) {
		return c.RequireSymInts(i, role)
	}
	x, err := c.Input(i)
	if err != nil {
		return nil, err
	}
	n, static := staticCount(x.Type)
	if !static || n > maxBoundedInts || !x.Type.Elem.IsInt() {
		return c.RequireSymInts(i, role)
	}
	e := c.emitter()
	vals, err := e.symbolize(x, 0)
	if err != nil {
		return nil, fmt.Errorf("%w (it is computed at run time: a bounded dim needs a bound on its values, but %v)", c.needConst(i, role), err)
	}
	if e.err != nil {
		return nil, e.err
	}
	return vals, nil
}

// symbolize returns the elements of the small integer tensor v (row-major) as quasi-affine
// expressions of symbolic dims, declaring bounded dims for its leaves.
func (e *emitter) symbolize(v *ir.Value, depth int) ([]volume.Aff, error) {
	im := e.c.im
	if im.symVals == nil {
		im.symVals = map[*ir.Value][]volume.Aff{}
	}
	if s, ok := im.symVals[v]; ok {
		return s, nil
	}
	var out []volume.Aff
	if v.Data != nil {
		out = make([]volume.Aff, v.Data.Len())
		for k := range out {
			out[k] = volume.AffConst(v.Data.Int(k))
		}
	} else if s, ok := e.structural(v, depth); ok {
		out = s
	} else {
		leaf, err := e.boundedLeaf(v)
		if err != nil {
			return nil, err
		}
		out = leaf
	}
	im.symVals[v] = out
	return out, nil
}

// smallInts returns the element count of v when it is a small static integer tensor.
func smallInts(v *ir.Value) (int64, bool) {
	n, ok := staticCount(v.Type)
	return n, ok && n <= maxBoundedInts && (v.Type.Elem.IsInt() || v.Type.Elem == ir.Bool)
}

// structural evaluates v's op point by point over its generic form when every element is an
// affine function of small integer operands' elements; ok is false otherwise.
func (e *emitter) structural(v *ir.Value, depth int) ([]volume.Aff, bool) {
	op := v.Def
	n, small := smallInts(v)
	if op == nil || !small || op.Body == nil || op.Reduce != ir.ReduceNone || depth > maxSymDepth || len(op.Out.Pieces) != 1 {
		return nil, false
	}
	for _, a := range op.Access {
		if a.Approx {
			return nil, false
		}
	}
	shape, _ := v.Type.StaticShape()
	pts, err := op.Full.Points(nil, int(n)+1)
	if err != nil || int64(len(pts)) != n {
		return nil, false
	}
	out := make([]volume.Aff, n)
	set := make([]bool, n)
	ev := symEval{e: e, op: op, depth: depth}
	for _, p := range pts {
		idx, ok := evalIndex(op.Out.Pieces[0].Index, p)
		if !ok {
			return nil, false
		}
		off, ok := flatOffset(idx, shape)
		if !ok || set[off] {
			return nil, false
		}
		a, ok := ev.eval(op.Body, p)
		if !ok {
			return nil, false
		}
		out[off], set[off] = a, true
	}
	return out, true
}

// evalIndex evaluates index expressions (no symbolic dims) at point p.
func evalIndex(index []volume.Aff, p []int64) ([]int64, bool) {
	out := make([]int64, len(index))
	for d, a := range index {
		x, err := a.Eval(p, func(string) (int64, bool) { return 0, false })
		if err != nil {
			return nil, false
		}
		out[d] = x
	}
	return out, true
}

func flatOffset(idx, shape []int64) (int64, bool) {
	off := int64(0)
	for d, x := range idx {
		if x < 0 || x >= shape[d] {
			return 0, false
		}
		off = off*shape[d] + x
	}
	return off, true
}

// symEval evaluates an op body at one point over quasi-affine values.
type symEval struct {
	e     *emitter
	op    *ir.Op
	depth int
}

// read returns operand k's element at point p: ok is false where it cannot say, avail false
// where the access is undefined.
func (ev symEval) read(k int, p []int64) (a volume.Aff, avail, ok bool) {
	x := ev.op.Operands[k]
	shape, static := x.Type.StaticShape()
	if _, small := smallInts(x); !small || !static {
		return volume.Aff{}, false, false
	}
	for _, pc := range ev.op.Access[k].Pieces {
		holds := true
		for _, c := range pc.Guard {
			g, err := c.Aff.Eval(p, func(string) (int64, bool) { return 0, false })
			if err != nil {
				return volume.Aff{}, false, false
			}
			holds = holds && (c.Eq && g == 0 || !c.Eq && g >= 0)
		}
		if !holds {
			continue
		}
		idx, ok := evalIndex(pc.Index, p)
		if !ok {
			return volume.Aff{}, false, false
		}
		off, ok := flatOffset(idx, shape)
		if !ok {
			return volume.Aff{}, false, false
		}
		vals, err := ev.e.symbolize(x, ev.depth+1)
		if err != nil {
			return volume.Aff{}, false, false
		}
		return vals[off], true, true
	}
	return volume.Aff{}, false, true
}

func (ev symEval) eval(s *ir.Scalar, p []int64) (volume.Aff, bool) {
	if s.Type.IsFloat() {
		return volume.Aff{}, false
	}
	args := make([]volume.Aff, 0, len(s.Args))
	evalArgs := func() bool {
		for _, a := range s.Args {
			v, ok := ev.eval(a, p)
			if !ok {
				return false
			}
			args = append(args, v)
		}
		return true
	}
	boolOf := func(ok bool) volume.Aff {
		if ok {
			return volume.AffConst(1)
		}
		return volume.AffConst(0)
	}
	switch s.Op {
	case ir.SRead:
		a, avail, ok := ev.read(s.Arg, p)
		return a, ok && avail
	case ir.SAvail:
		_, avail, ok := ev.read(s.Arg, p)
		return boolOf(avail), ok
	case ir.SConst:
		return volume.AffConst(s.I), true
	case ir.SIndex:
		return volume.AffConst(p[s.Arg]), s.Arg < len(p)
	case ir.SParam:
		return volume.AffParam(s.Name), true
	case ir.SSelect:
		c, ok := ev.eval(s.Args[0], p)
		k, isConst := c.IsConst()
		if !ok || !isConst {
			return volume.Aff{}, false
		}
		if k != 0 {
			return ev.eval(s.Args[1], p)
		}
		return ev.eval(s.Args[2], p)
	case ir.SCast:
		from := s.Args[0].Type
		if from.IsFloat() || s.Type == ir.Bool || s.Type.Size() < from.Size() || s.Type.IsUnsigned() != from.IsUnsigned() && from != ir.Bool {
			return volume.Aff{}, false
		}
		return ev.eval(s.Args[0], p)
	}
	if !evalArgs() {
		return volume.Aff{}, false
	}
	switch s.Op {
	case ir.SNeg:
		return args[0].Neg(), true
	case ir.SAdd:
		return args[0].Add(args[1]), true
	case ir.SSub:
		return args[0].Sub(args[1]), true
	case ir.SMul:
		if k, ok := args[0].IsConst(); ok {
			return args[1].Mul(k), true
		}
		if k, ok := args[1].IsConst(); ok {
			return args[0].Mul(k), true
		}
		return volume.Aff{}, false
	}
	// the rest only on constants
	ks := make([]int64, len(args))
	for i, a := range args {
		k, ok := a.IsConst()
		if !ok {
			return volume.Aff{}, false
		}
		ks[i] = k
	}
	switch s.Op {
	case ir.SMax:
		return volume.AffConst(max(ks[0], ks[1])), true
	case ir.SMin:
		return volume.AffConst(min(ks[0], ks[1])), true
	case ir.SEq:
		return boolOf(ks[0] == ks[1]), true
	case ir.SNe:
		return boolOf(ks[0] != ks[1]), true
	case ir.SLt:
		return boolOf(ks[0] < ks[1]), true
	case ir.SLe:
		return boolOf(ks[0] <= ks[1]), true
	case ir.SGt:
		return boolOf(ks[0] > ks[1]), true
	case ir.SGe:
		return boolOf(ks[0] >= ks[1]), true
	case ir.SNot:
		return boolOf(ks[0] == 0), true
	case ir.SAnd:
		return volume.AffConst(ks[0] & ks[1]), true
	case ir.SOr:
		return volume.AffConst(ks[0] | ks[1]), true
	}
	return volume.Aff{}, false
}

// boundedLeaf declares a bounded dim per element of v: element k is lo + n_k with
// 0 <= n_k <= hi - lo, [lo, hi] the value range of v.
func (e *emitter) boundedLeaf(v *ir.Value) ([]volume.Aff, error) {
	n, small := smallInts(v)
	what := "%" + v.Name
	if v.Def != nil {
		what = fmt.Sprintf("%%%s (%s)", v.Name, v.Def.Kind)
	}
	if !small {
		return nil, fmt.Errorf("%s is not a small integer tensor", what)
	}
	r := e.c.im.rangeOf(v)
	if !r.finite() {
		return nil, fmt.Errorf("nothing bounds the values of %s (its value range is [%g, %g]; clipping it to constants, Min/Max or Clip, would)", what, r.lo, r.hi)
	}
	lo, hi := int64(math.Ceil(r.lo)), int64(math.Floor(r.hi))
	if hi < lo {
		return nil, fmt.Errorf("%s has an empty value range [%g, %g]", what, r.lo, r.hi)
	}
	shape, _ := v.Type.StaticShape()
	out := make([]volume.Aff, n)
	for k := range out {
		if lo == hi {
			out[k] = volume.AffConst(lo)
			continue
		}
		idx := make([]string, len(shape))
		rem := int64(k)
		for d := len(shape) - 1; d >= 0; d-- {
			idx[d] = fmt.Sprint(rem % shape[d])
			rem /= shape[d]
		}
		body := "in0"
		if v.Type.Elem != ir.I64 {
			body = "cast<i64>(in0)"
		}
		name := fmt.Sprintf("%s_v%d", v.Name, k)
		val := e.Op("generic", name+"_value", ir.Attrs{
			"type":   ir.StringAttr("i64[]"),
			"domain": ir.StringAttr("{ [] }"),
			"access": ir.StringsAttr(fmt.Sprintf("{ [] -> [%s] }", strings.Join(idx, ", "))),
			"out":    ir.StringAttr("{ [] -> [] }"),
			"body":   ir.StringAttr(fmt.Sprintf("sub(%s, %d:i64)", body, lo)),
		}, v)
		out[k] = volume.AffParam(e.boundedDim(name, val, hi-lo)).AddConst(lo)
	}
	return out, e.err
}
