// This file holds TensorType: an element type and a shape whose extents may be symbolic.

package ir

import (
	"fmt"
	"strings"

	"github.com/graphc/graphc/volume"
)

// TensorType is the type of a value: element type and shape. Each extent is a quasi-affine
// expression of the graph's symbolic dimensions (a constant for static shapes).
type TensorType struct {
	Elem  DType
	Shape []volume.Aff
}

// StaticType returns the type with the given constant extents.
func StaticType(elem DType, shape ...int64) TensorType {
	t := TensorType{Elem: elem, Shape: make([]volume.Aff, len(shape))}
	for i, d := range shape {
		t.Shape[i] = volume.AffConst(d)
	}
	return t
}

// Rank returns the number of dimensions.
func (t TensorType) Rank() int { return len(t.Shape) }

// StaticShape returns the extents when they are all constant.
func (t TensorType) StaticShape() ([]int64, bool) {
	s := make([]int64, len(t.Shape))
	for i, d := range t.Shape {
		c, ok := d.IsConst()
		if !ok {
			return nil, false
		}
		s[i] = c
	}
	return s, true
}

// Dim returns extent i as a constant when it is one.
func (t TensorType) Dim(i int) (int64, bool) { return t.Shape[i].IsConst() }

// Equal reports whether t and u are the same type.
func (t TensorType) Equal(u TensorType) bool {
	if t.Elem != u.Elem || len(t.Shape) != len(u.Shape) {
		return false
	}
	for i := range t.Shape {
		if !t.Shape[i].Equal(u.Shape[i]) {
			return false
		}
	}
	return true
}

// Params returns the symbolic dimensions the shape uses.
func (t TensorType) Params() []string {
	var out []string
	seen := map[string]bool{}
	for _, d := range t.Shape {
		for _, p := range d.ParamNames() {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// EvalShape returns the concrete extents for the given symbolic dimension values.
func (t TensorType) EvalShape(params map[string]int64) ([]int64, error) {
	s := make([]int64, len(t.Shape))
	for i, d := range t.Shape {
		v, err := d.Eval(nil, func(n string) (int64, bool) { v, ok := params[n]; return v, ok })
		if err != nil {
			return nil, err
		}
		if v < 0 {
			return nil, fmt.Errorf("extent %s evaluates to %d", d.String(), v)
		}
		s[i] = v
	}
	return s, nil
}

// String prints the type as elem[d0, d1, ...], e.g. f32[N, 512].
func (t TensorType) String() string {
	var sb strings.Builder
	sb.WriteString(t.Elem.String())
	sb.WriteString("[")
	for i, d := range t.Shape {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(d.String())
	}
	sb.WriteString("]")
	return sb.String()
}

// NumElements returns the product of the static extents.
func NumElements(shape []int64) int64 {
	n := int64(1)
	for _, d := range shape {
		n *= d
	}
	return n
}
