// This file imports Det for small static matrices (n <= 4) by cofactor expansion along the
// first row: the minors are slices of the operand, so every term is an exact affine read.

package onnx

import (
	"fmt"

	"github.com/graphc/graphc/ir"
)

// maxDetOrder bounds the matrices Det expands (n! products).
const maxDetOrder = 4

func init() {
	registerOp("Det", 11, importDet)
	noteOp("Det", "static matrices up to 4×4, by cofactor expansion")
}

func importDet(c *nodeCtx) error {
	e := c.emitter()
	x := e.In(0)
	if e.err != nil {
		return e.err
	}
	r := x.Type.Rank()
	if r < 2 || !x.Type.Elem.IsFloat() {
		return fmt.Errorf("%w: input must be a float tensor [*, n, n], got %s", ErrInvalid, x.Type)
	}
	n, ok1 := x.Type.Dim(r - 1)
	m, ok2 := x.Type.Dim(r - 2)
	if !ok1 || !ok2 || n != m {
		return fmt.Errorf("%w: matrices must be square and static, got %s", ErrInvalid, x.Type)
	}
	if n > maxDetOrder || n < 1 {
		return fmt.Errorf("%w: a determinant of order %d (at most %d)", ErrUnsupported, n, maxDetOrder)
	}
	// elem(i, j) is x[..., i, j] as a [*] tensor
	elem := func(i, j int64) *ir.Value {
		s := e.Op("slice", "", ir.Attrs{"starts": ir.IntsAttr(i, j), "ends": ir.IntsAttr(i+1, j+1), "axes": ir.IntsAttr(int64(r-2), int64(r-1))}, x)
		if s == nil {
			return nil
		}
		return e.reshape(s, x.Type.Shape[:r-2]...)
	}
	var det func(rows, cols []int64) *ir.Value
	det = func(rows, cols []int64) *ir.Value {
		if len(rows) == 1 {
			return elem(rows[0], cols[0])
		}
		var acc *ir.Value
		for k, j := range cols {
			rest := append(append([]int64(nil), cols[:k]...), cols[k+1:]...)
			term := e.Op("mul", "", nil, elem(rows[0], j), det(rows[1:], rest))
			switch {
			case acc == nil:
				acc = term
			case k%2 == 1:
				acc = e.Op("sub", "", nil, acc, term)
			default:
				acc = e.Op("add", "", nil, acc, term)
			}
		}
		return acc
	}
	idx := make([]int64, n)
	for i := range idx {
		idx[i] = int64(i)
	}
	e.Out(0, e.Op("identity", c.Output(0), nil, det(idx, idx)))
	return e.Done()
}
