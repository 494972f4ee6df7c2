// This file holds what ONNX nodes do to symbolic shape values (kit.Sym: small integer tensors
// whose elements are quasi-affine expressions of the symbolic dims, such as the result of
// Shape on a tensor of shape [N, 3]): Gather, Slice, Concat, Unsqueeze, Squeeze, Cast and
// integer arithmetic keep them symbolic. They let shape subgraphs fold at import even when a
// batch dim stays symbolic, so that Reshape, Expand, ConstantOfShape, Tile … see their target
// shapes. A symbolic value that an op needs as data is materialised as a values op.

package onnx

import (
	kit "github.com/graphc/graphc/frontend/importer"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// symTensor is an integer tensor of static shape whose elements are quasi-affine expressions.
type symTensor = kit.Sym

// known returns input i as quasi-affine elements (constant integers or symbolic), with its
// element type and shape.
func (c *nodeCtx) known(i int) (*symTensor, bool) {
	if !c.HasInput(i) {
		return nil, false
	}
	return c.im.Known(c.node.Input[i])
}

// SymInts returns input i as a list of quasi-affine integers when it is known at import
// (constant, or computed from symbolic dims).
func (c *nodeCtx) SymInts(i int) ([]volume.Aff, bool) {
	s, ok := c.known(i)
	if !ok {
		return nil, false
	}
	return s.Vals, true
}

// SetSym binds output i to a symbolic tensor (or to a constant when it has no symbol).
func (c *nodeCtx) SetSym(i int, elem ir.DType, shape []int64, vals []volume.Aff) {
	if i < len(c.node.Output) && c.node.Output[i] != "" {
		c.im.SetSym(c.node.Output[i], elem, shape, vals)
	}
}

// symbolicOps evaluate a node on symbolic inputs. They return ok=false when the node does
// not fit (the importer then imports it as ops on materialised values).
var symbolicOps = map[string]func(c *nodeCtx, in []*symTensor) bool{
	"Identity":  kit.SymUnary[*nodeCtx](func(a volume.Aff) (volume.Aff, bool) { return a, true }),
	"Neg":       kit.SymUnary[*nodeCtx](func(a volume.Aff) (volume.Aff, bool) { return a.Neg(), true }),
	"Cast":      symCast,
	"Add":       kit.SymBinary[*nodeCtx](kit.Add),
	"Sub":       kit.SymBinary[*nodeCtx](kit.Sub),
	"Mul":       kit.SymBinary[*nodeCtx](kit.Mul),
	"Div":       kit.SymBinary[*nodeCtx](kit.FloorDiv),
	"Gather":    symGather,
	"Concat":    kit.SymConcat[*nodeCtx],
	"Slice":     symSlice,
	"Squeeze":   symReshapeLike,
	"Unsqueeze": symReshapeLike,
	"Reshape":   symReshapeLike,
	"Flatten":   symReshapeLike,
	"Equal":     symEqual,
	"Where":     symWhere,
}

// symbolicInputs is the number of leading inputs a handler of symbolicOps reads unconditionally
// (1 when not listed). A node with fewer is left to the regular importer, which reports it.
var symbolicInputs = map[string]int{"Add": 2, "Sub": 2, "Mul": 2, "Div": 2, "Gather": 2, "Equal": 2, "Where": 3}

// trySymbolic evaluates n symbolically when some input is symbolic and all are known.
func (im *importer) trySymbolic(c *nodeCtx) bool {
	f, ok := symbolicOps[c.node.GetOpType()]
	if !ok || len(im.Syms) == 0 {
		return false
	}
	need := max(symbolicInputs[c.node.GetOpType()], 1)
	if len(c.node.Input) < need {
		return false
	}
	for i := range need {
		if !c.HasInput(i) {
			return false
		}
	}
	in, anySym, ok := im.KnownInputs(c.node.Input)
	return ok && anySym && f(c, in)
}

func symCast(c *nodeCtx, in []*symTensor) bool {
	to, err := DType(int32(c.AttrInt("to", 0)))
	return err == nil && kit.SymCast(c, in, to)
}

// symEqual compares shape values. Two expressions are equal when their difference is 0, and
// different when the difference has one sign for every value of the symbolic dims (which are
// never negative): the exporters' Expand(x, Where(Equal(shape, -1), 1, shape)) idiom.
func symEqual(c *nodeCtx, in []*symTensor) bool {
	return kit.SymBroadcast(c, in, func(a, b volume.Aff) (volume.Aff, bool) {
		d := a.Sub(b)
		switch {
		case isZeroAff(d):
			return volume.AffConst(1), true
		case signDefinite(d):
			return volume.AffConst(0), true
		}
		return volume.Aff{}, false
	}, ir.Bool)
}

// signDefinite reports whether a is non-zero for every non-negative value of its parameters:
// a constant term and parameter coefficients of one sign, the constant non-zero.
func signDefinite(a volume.Aff) bool {
	if len(a.Dims) > 0 || len(a.Floors) > 0 || a.Const == 0 {
		return false
	}
	for _, p := range a.Params {
		if (p.Coef > 0) != (a.Const > 0) {
			return false
		}
	}
	return true
}

// symWhere selects between shape values by a condition known at import.
func symWhere(c *nodeCtx, in []*symTensor) bool {
	if len(in) != 3 || in[0] == nil || in[1] == nil || in[2] == nil {
		return false
	}
	cond, x, y := in[0], in[1], in[2]
	n := max(len(cond.Vals), len(x.Vals), len(y.Vals))
	shape := cond.Shape
	for _, t := range []*symTensor{cond, x, y} {
		if len(t.Vals) != n && len(t.Vals) != 1 {
			return false
		}
		if len(t.Vals) == n && len(t.Shape) >= len(shape) {
			shape = t.Shape
		}
	}
	out := make([]volume.Aff, n)
	for i := range out {
		k, ok := cond.Vals[min(i, len(cond.Vals)-1)].IsConst()
		if !ok {
			return false
		}
		if k != 0 {
			out[i] = x.Vals[min(i, len(x.Vals)-1)]
		} else {
			out[i] = y.Vals[min(i, len(y.Vals)-1)]
		}
	}
	c.SetSym(0, x.Elem, shape, out)
	return true
}

func symGather(c *nodeCtx, in []*symTensor) bool {
	data, idx := in[0], in[1]
	if len(data.Shape) != 1 || c.AttrInt("axis", 0) != 0 {
		return false
	}
	n := int64(len(data.Vals))
	out := make([]volume.Aff, len(idx.Vals))
	for i, v := range idx.Vals {
		k, ok := v.IsConst()
		if !ok {
			return false
		}
		if k < 0 {
			k += n
		}
		if k < 0 || k >= n {
			return false
		}
		out[i] = data.Vals[k]
	}
	c.SetSym(0, data.Elem, idx.Shape, out)
	return true
}

func symSlice(c *nodeCtx, in []*symTensor) bool {
	data := in[0]
	if len(data.Shape) != 1 {
		return false
	}
	n := int64(len(data.Vals))
	var starts, ends, steps []int64
	if c.Opset() < 10 {
		starts, ends = c.AttrInts("starts", nil), c.AttrInts("ends", nil)
	} else {
		get := func(i int) []int64 {
			if i >= len(in) || in[i] == nil {
				return nil
			}
			var v []int64
			for _, a := range in[i].Vals {
				k, ok := a.IsConst()
				if !ok {
					return nil
				}
				v = append(v, k)
			}
			return v
		}
		starts, ends, steps = get(1), get(2), get(4)
		if axes := get(3); len(axes) > 0 && !(len(axes) == 1 && (axes[0] == 0 || axes[0] == -1)) {
			return false
		}
	}
	if len(starts) != 1 || len(ends) != 1 {
		return false
	}
	step := int64(1)
	if len(steps) == 1 {
		step = steps[0]
	}
	if step == 0 {
		return false
	}
	s, e := starts[0], ends[0]
	if s < 0 {
		s += n
	}
	if e < 0 {
		e += n
	}
	var out []volume.Aff
	// the loops stop before k + step could overflow (steps come from the model)
	if step > 0 {
		s, e = min(max(s, 0), n), min(max(e, 0), n)
		for k := s; k < e; k += step {
			out = append(out, data.Vals[k])
			if step >= e-k {
				break
			}
		}
	} else {
		s, e = min(max(s, 0), n-1), min(max(e, -1), n-1)
		for k := s; k > e; k += step {
			out = append(out, data.Vals[k])
			if step <= e-k {
				break
			}
		}
	}
	c.SetSym(0, data.Elem, []int64{int64(len(out))}, out)
	return true
}

// symReshapeLike handles Squeeze, Unsqueeze, Reshape and Flatten of small integer tensors: the
// elements keep their order, only the (static) shape changes, which the regular importer
// computes; here it is enough to know the element count is kept and scalars become vectors.
func symReshapeLike(c *nodeCtx, in []*symTensor) bool {
	data := in[0]
	n := int64(len(data.Vals))
	var shape []int64
	switch c.node.GetOpType() {
	case "Unsqueeze":
		if len(data.Shape) > 1 {
			return false
		}
		shape = []int64{n} // [] -> [1] and [k] -> [1, k] are both handled as vectors below
		axes := c.AttrInts("axes", nil)
		if c.Opset() >= 13 && len(in) > 1 && in[1] != nil {
			axes = nil
			for _, a := range in[1].Vals {
				k, ok := a.IsConst()
				if !ok {
					return false
				}
				axes = append(axes, k)
			}
		}
		if len(data.Shape) == 0 && len(axes) == 1 {
			shape = []int64{1}
		} else if len(data.Shape) == 1 && len(axes) == 1 && (axes[0] == 0 || axes[0] == -2) {
			shape = []int64{1, n}
		} else if len(data.Shape) == 1 && len(axes) == 1 && (axes[0] == 1 || axes[0] == -1) {
			shape = []int64{n, 1}
		} else {
			return false
		}
	case "Squeeze":
		if n != 1 {
			return false
		}
		shape = []int64{}
	case "Flatten":
		axis := c.AttrInt("axis", 1)
		if axis < 0 {
			axis += int64(len(data.Shape))
		}
		if axis < 0 || axis > int64(len(data.Shape)) {
			return false
		}
		shape = []int64{ir.NumElements(data.Shape[:axis]), ir.NumElements(data.Shape[axis:])}
	case "Reshape":
		if len(in) < 2 || in[1] == nil {
			return false
		}
		for _, a := range in[1].Vals {
			k, ok := a.IsConst()
			if !ok {
				return false
			}
			shape = append(shape, k)
		}
		known := int64(1)
		neg := -1
		for i, k := range shape {
			switch {
			case k == -1:
				neg = i
			case k == 0 && i < len(data.Shape):
				shape[i] = data.Shape[i]
				known *= shape[i]
			default:
				known *= k
			}
		}
		if neg >= 0 {
			if known == 0 || n%known != 0 {
				return false
			}
			shape[neg] = n / known
		}
		if ir.NumElements(shape) != n {
			return false
		}
	}
	c.SetSym(0, data.Elem, shape, data.Vals)
	return true
}

func isZeroAff(a volume.Aff) bool {
	k, ok := a.IsConst()
	return ok && k == 0
}
