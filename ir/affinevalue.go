// This file finds integer tensors whose elements are known quasi-affine functions of their
// index: constants that fit such a function (verified element by element), range ops, and
// views of them (slices, reshapes, expands of a constant buffer or of arange(T)). Gathers
// indexed by them read known elements: exact element maps instead of the data-dependent
// over-approximation.

package ir

import (
	"github.com/graphc/graphc/volume"
)

// AffinePiece says that where Guard holds (a conjunction over the tensor's index dims, empty
// for everywhere) the element at index x equals Value(x) (dims = index dims, parameters =
// symbolic dims).
type AffinePiece struct {
	Guard []volume.Constraint
	Value volume.Aff
}

// maxAffinePieces bounds the pieces of a constant that fits no single affine function (one
// piece per element): small index lists such as [0, 2, 5].
const maxAffinePieces = 16

// maxAffineDepth bounds how many views AffineValue looks through.
const maxAffineDepth = 8

// AffineValue returns pieces covering every element of the integer tensor v when its elements
// are known quasi-affine functions of their index, and false otherwise.
func AffineValue(v *Value) ([]AffinePiece, bool) {
	return affineValue(v, 0)
}

func affineValue(v *Value, depth int) ([]AffinePiece, bool) {
	if v.Type.Elem.IsFloat() || v.Type.Elem == Bool || depth > maxAffineDepth {
		return nil, false
	}
	if v.Data != nil {
		return fitConstant(v.Data)
	}
	op := v.Def
	if op == nil || op.Reduce != ReduceNone || op.Body == nil || len(op.Out.Pieces) != 1 || len(op.Out.Pieces[0].Guard) != 0 {
		return nil, false
	}
	// every result element written once, at the iteration point of the same index
	idx := op.Out.Pieces[0].Index
	if len(idx) != op.NDim() || v.Type.Rank() != op.NDim() {
		return nil, false
	}
	for d, a := range idx {
		if !a.Equal(volume.AffDim(d)) {
			return nil, false
		}
	}
	if op.IsRestricted() {
		return nil, false
	}
	body := op.Body
	for body.Op == SCast && body.Type.IsInt() && body.Args[0].Type.IsInt() && body.Type != Bool {
		body = body.Args[0]
	}
	if a, ok := scalarAff(body); ok {
		return []AffinePiece{{Value: a}}, true
	}
	if body.Op != SRead {
		return nil, false
	}
	acc := op.Access[body.Arg]
	if acc.Approx || len(acc.Pieces) != 1 || len(acc.Pieces[0].Guard) != 0 {
		return nil, false
	}
	in, ok := affineValue(op.Operands[body.Arg], depth+1)
	if !ok {
		return nil, false
	}
	sub := acc.Pieces[0].Index
	out := make([]AffinePiece, len(in))
	for i, p := range in {
		out[i].Value = p.Value.SubstDims(sub)
		for _, c := range p.Guard {
			out[i].Guard = append(out[i].Guard, volume.Constraint{Aff: c.Aff.SubstDims(sub), Eq: c.Eq})
		}
	}
	return out, true
}

// scalarAff returns the body s as a quasi-affine expression of the iteration dims and the
// symbolic dims, when it is one (sums, differences, negations and constant multiples of
// indices, parameters and integer constants).
func scalarAff(s *Scalar) (volume.Aff, bool) {
	if s.Type.IsFloat() {
		return volume.Aff{}, false
	}
	switch s.Op {
	case SIndex:
		return volume.AffDim(s.Arg), true
	case SParam:
		return volume.AffParam(s.Name), true
	case SConst:
		return volume.AffConst(s.I), true
	case SCast:
		if s.Type == Bool || !s.Args[0].Type.IsInt() {
			return volume.Aff{}, false
		}
		return scalarAff(s.Args[0])
	}
	// the table's operations on affine values: negation, sums, differences, constant multiples
	d := s.Op.Def()
	if d == nil || d.Affine == nil {
		return volume.Aff{}, false
	}
	var args [2]volume.Aff
	for i, a := range s.Args {
		v, ok := scalarAff(a)
		if !ok {
			return v, false
		}
		args[i] = v
	}
	return d.Affine(args[0], args[1])
}

// fitConstant fits t's elements with one affine function of the index (checked on every
// element), or, for small tensors, gives one piece per element.
func fitConstant(t *Tensor) ([]AffinePiece, bool) {
	n := t.Len()
	if n == 0 {
		return []AffinePiece{{Value: volume.AffConst(0)}}, true
	}
	shape := t.Shape
	str := strides(shape)
	a := volume.AffConst(t.Int(0))
	for d, e := range shape {
		if e > 1 {
			a = a.Add(volume.AffDim(d).Mul(t.Int(int(str[d])) - t.Int(0)))
		}
	}
	coef := make([]int64, len(shape))
	for d := range shape {
		if d < len(a.Dims) {
			coef[d] = a.Dims[d]
		}
	}
	fits := true
	idx := make([]int64, len(shape))
	for i := 0; i < n && fits; i++ {
		v := a.Const
		for d := range idx {
			v += coef[d] * idx[d]
		}
		fits = v == t.Int(i)
		for d := len(idx) - 1; d >= 0; d-- {
			if idx[d]++; idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
	}
	if fits {
		return []AffinePiece{{Value: a}}, true
	}
	if n > maxAffinePieces {
		return nil, false
	}
	out := make([]AffinePiece, n)
	for i := range out {
		rem := int64(i)
		var g []volume.Constraint
		for d := range shape {
			c := rem / str[d]
			rem %= str[d]
			g = append(g, volume.Constraint{Aff: volume.AffDim(d).AddConst(-c), Eq: true})
		}
		out[i] = AffinePiece{Guard: g, Value: volume.AffConst(t.Int(i))}
	}
	return out, true
}

// strides returns the row-major strides of shape.
func strides(shape []int64) []int64 {
	s := make([]int64, len(shape))
	acc := int64(1)
	for i := len(shape) - 1; i >= 0; i-- {
		s[i] = acc
		acc *= max(shape[i], 1)
	}
	return s
}
