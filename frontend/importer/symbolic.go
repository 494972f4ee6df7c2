// This file holds symbolic shape values: small integer tensors whose elements are quasi-affine
// expressions of the symbolic dims (Shape of a tensor with a symbolic batch, and what slicing,
// gathering, concatenation, casts and integer arithmetic make of it). They let the shape
// subgraphs exporters write (Shape → Gather/StridedSlice → Concat/Pack → Reshape) resolve at
// import while a dim stays symbolic. A symbolic value that an op reads as data is
// materialised as a values op.

package importer

import (
	"fmt"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// Sym is an integer tensor of static shape whose elements are quasi-affine expressions.
type Sym struct {
	Elem  ir.DType
	Shape []int64
	Vals  []volume.Aff
}

// NewSym returns a symbolic tensor, or nil and the constant tensor when every element is a
// constant.
func NewSym(elem ir.DType, shape []int64, vals []volume.Aff) (*Sym, *ir.Tensor) {
	t := ir.NewTensor(elem, shape)
	for i, v := range vals {
		c, ok := v.IsConst()
		if !ok {
			return &Sym{Elem: elem, Shape: append([]int64(nil), shape...), Vals: vals}, nil
		}
		t.I[i] = elem.WrapInt(c)
	}
	return nil, t
}

// ConstSym returns an integer constant as a symbolic tensor (ok=false for floats).
func ConstSym(t *ir.Tensor) (*Sym, bool) {
	if t.Elem.IsFloat() {
		return nil, false
	}
	t = t.Decoded()
	vals := make([]volume.Aff, len(t.I))
	for k, v := range t.I {
		vals[k] = volume.AffConst(v)
	}
	return &Sym{Elem: t.Elem, Shape: t.Shape, Vals: vals}, true
}

// Materialize appends a values op computing s to g, its result named name.
func (s *Sym) Materialize(g *ir.Graph, name string) (*ir.Value, error) {
	texts := make([]string, len(s.Vals))
	for i, v := range s.Vals {
		texts[i] = v.String()
	}
	t := ir.StaticType(s.Elem, s.Shape...)
	op, err := g.NewOp("values", name, nil, ir.Attrs{"type": ir.StringAttr(t.String()), "values": ir.StringsAttr(texts...)})
	if err != nil {
		return nil, fmt.Errorf("materialising the symbolic value %q: %w", name, err)
	}
	return op.Result, nil
}

// Consts returns the elements of s as integers (ok=false when one is symbolic).
func (s *Sym) Consts() ([]int64, bool) {
	out := make([]int64, len(s.Vals))
	for i, a := range s.Vals {
		k, ok := a.IsConst()
		if !ok {
			return nil, false
		}
		out[i] = k
	}
	return out, true
}

// Broadcast applies f elementwise to a and b of equal sizes, or with one of them a single
// element, returning the shape of the larger. ok=false when the sizes do not fit or f fails.
func Broadcast(a, b *Sym, f func(a, b volume.Aff) (volume.Aff, bool)) (shape []int64, out []volume.Aff, ok bool) {
	if a == nil || b == nil {
		return nil, nil, false
	}
	n := max(len(a.Vals), len(b.Vals))
	if len(a.Vals) != n && len(a.Vals) != 1 || len(b.Vals) != n && len(b.Vals) != 1 {
		return nil, nil, false
	}
	shape = a.Shape
	if len(b.Vals) > len(a.Vals) || len(b.Shape) > len(a.Shape) {
		shape = b.Shape
	}
	out = make([]volume.Aff, n)
	for i := range out {
		r, ok := f(a.Vals[min(i, len(a.Vals)-1)], b.Vals[min(i, len(b.Vals)-1)])
		if !ok {
			return nil, nil, false
		}
		out[i] = r
	}
	return shape, out, true
}

// Add, Sub, Mul and FloorDiv are the integer arithmetic shape values keep quasi-affine.
func Add(a, b volume.Aff) (volume.Aff, bool) { return a.Add(b), true }

// Sub returns a - b.
func Sub(a, b volume.Aff) (volume.Aff, bool) { return a.Sub(b), true }

// Mul returns a·b when one of them is a constant (a product of symbols is not quasi-affine).
func Mul(a, b volume.Aff) (volume.Aff, bool) {
	if k, ok := b.IsConst(); ok {
		return a.Mul(k), true
	}
	if k, ok := a.IsConst(); ok {
		return b.Mul(k), true
	}
	return volume.Aff{}, false
}

// FloorDiv returns ⌊a / b⌋ for a positive constant b. It serves truncating divisions too: the
// numerators shapes are made of are never negative.
func FloorDiv(a, b volume.Aff) (volume.Aff, bool) {
	k, ok := b.IsConst()
	if !ok || k <= 0 {
		return volume.Aff{}, false
	}
	return a.FloorDiv(k), true
}

// Concat joins vectors (ok=false when one is not a vector).
func Concat(in []*Sym) ([]volume.Aff, bool) {
	var out []volume.Aff
	for _, s := range in {
		if s == nil || len(s.Shape) != 1 {
			return nil, false
		}
		out = append(out, s.Vals...)
	}
	return out, true
}
