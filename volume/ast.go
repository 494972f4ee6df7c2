// This file holds the loop AST that scanning produces (for loops with max/min bounds and
// strides, guards, assignments of dimensions fixed by equalities, leaf statements) and Walk, its
// interpreter.

package volume

import (
	"fmt"
	"slices"
)

// Node is a node of a loop AST: *For, *If, *Assign, *Leaf or *Block.
type Node interface{ isNode() }

// Block is a sequence of nodes executed in order.
type Block struct{ Nodes []Node }

// For scans dimension Dim from max(Lower) to min(Upper) inclusive, in steps of Stride starting
// from the first value v >= max(Lower) with v ≡ Offset (mod Stride). Bounds are quasi-affine in
// the parameters and the outer dimensions (Aff dimension i is set dimension i).
type For struct {
	Dim    int
	Lower  []Aff // Dim >= each
	Upper  []Aff // Dim <= each
	Stride int64 // >= 1
	Offset Aff   // meaningful when Stride > 1
	Body   Node
}

// If runs Then when every constraint holds (at the current values of the outer dimensions).
type If struct {
	Conds []Constraint
	Then  Node
}

// Assign sets dimension Dim to Value (dimensions fixed by an equality get no loop).
type Assign struct {
	Dim   int
	Value Aff
	Body  Node
}

// Leaf executes statement Stmt (see Set.Scan and ScanStatements) at the current values of all
// dimensions.
type Leaf struct{ Stmt int }

func (*Block) isNode()  {}
func (*For) isNode()    {}
func (*If) isNode()     {}
func (*Assign) isNode() {}
func (*Leaf) isNode()   {}

// Walk visits the points of an AST in execution order: visit receives the statement and the
// values of the dimensions (a shared slice: copy it to keep it). params binds the parameters.
// The AST is first compiled with the parameters folded in, so a walk costs a few additions per
// point; it fails when a parameter is unbound, an expression uses a dimension beyond ndim, or a
// loop lacks a bound.
func Walk(n Node, ndim int, params map[string]int64, visit func(stmt int, x []int64)) error {
	c, err := compileAST(n, ndim, params)
	if err != nil {
		return err
	}
	c.walk(make([]int64, ndim), visit)
	return nil
}

// cAff is an Aff with its parameters folded into the constant: Const + Σ Dims[i]·x[i] + Σ floors.
type cAff struct {
	c      int64
	dims   []int64
	floors []cFloor
}

type cFloor struct {
	coef, den int64
	num       cAff
}

func (a *cAff) eval(x []int64) int64 {
	v := a.c
	for i, c := range a.dims {
		v += c * x[i]
	}
	for k := range a.floors {
		f := &a.floors[k]
		v += f.coef * floorDiv(f.num.eval(x), f.den)
	}
	return v
}

// uses marks in used the dimensions a reads.
func (a *cAff) uses(used []bool) {
	for i, c := range a.dims {
		if c != 0 {
			used[i] = true
		}
	}
	for k := range a.floors {
		a.floors[k].num.uses(used)
	}
}

func compileAff(a Aff, ndim int, params map[string]int64) (cAff, error) {
	if len(a.Dims) > ndim {
		for _, c := range a.Dims[ndim:] {
			if c != 0 {
				return cAff{}, fmt.Errorf("%w: expression %s uses dimension %d of a %d-dimensional point", ErrSpaceMismatch, a.String(), len(a.Dims)-1, ndim)
			}
		}
	}
	r := cAff{c: a.Const, dims: slices.Clone(a.Dims[:min(len(a.Dims), ndim)])}
	for _, p := range a.Params {
		v, ok := params[p.Name]
		if !ok {
			return cAff{}, fmt.Errorf("%w: parameter %s is not bound", ErrSpaceMismatch, p.Name)
		}
		r.c += p.Coef * v
	}
	for _, f := range a.Floors {
		num, err := compileAff(f.Num, ndim, params)
		if err != nil {
			return cAff{}, err
		}
		r.floors = append(r.floors, cFloor{f.Coef, f.Den, num})
	}
	return r, nil
}

// cNode is a compiled AST node.
type cNode struct {
	kind         byte // 'b' block, 'f' for, 'i' if, 'a' assign, 'l' leaf
	dim          int
	lower, upper []cAff
	stride       int64
	offset       cAff
	conds        []cAff
	eqs          []bool
	kids         []*cNode // block children, or the single body
	stmt         int
	// free marks the dimensions the subtree reads before defining them (Card uses it to count
	// loops whose body does not depend on the loop dimension in one step).
	free []bool
}

func compileAST(n Node, ndim int, params map[string]int64) (*cNode, error) {
	c := &cNode{free: make([]bool, ndim)}
	body := func(b Node) error {
		k, err := compileAST(b, ndim, params)
		if err != nil {
			return err
		}
		c.kids = []*cNode{k}
		for i, u := range k.free {
			c.free[i] = c.free[i] || u
		}
		return nil
	}
	affs := func(as []Aff) ([]cAff, error) {
		out := make([]cAff, len(as))
		for i, a := range as {
			var err error
			if out[i], err = compileAff(a, ndim, params); err != nil {
				return nil, err
			}
			out[i].uses(c.free)
		}
		return out, nil
	}
	var err error
	switch n := n.(type) {
	case nil:
		c.kind = 'b'
	case *Block:
		c.kind = 'b'
		for _, k := range n.Nodes {
			kc, err := compileAST(k, ndim, params)
			if err != nil {
				return nil, err
			}
			c.kids = append(c.kids, kc)
			for i, u := range kc.free {
				c.free[i] = c.free[i] || u
			}
		}
	case *Leaf:
		c.kind, c.stmt = 'l', n.Stmt
	case *Assign:
		c.kind, c.dim = 'a', n.Dim
		if n.Dim < 0 || n.Dim >= ndim {
			return nil, fmt.Errorf("%w: assignment to dimension %d of a %d-dimensional point", ErrSpaceMismatch, n.Dim, ndim)
		}
		if err := body(n.Body); err != nil {
			return nil, err
		}
		c.free[n.Dim] = false
		var v []cAff
		if v, err = affs([]Aff{n.Value}); err != nil {
			return nil, err
		}
		c.offset = v[0]
	case *If:
		c.kind = 'i'
		if err := body(n.Then); err != nil {
			return nil, err
		}
		for _, k := range n.Conds {
			var v []cAff
			if v, err = affs([]Aff{k.Aff}); err != nil {
				return nil, err
			}
			c.conds = append(c.conds, v[0])
			c.eqs = append(c.eqs, k.Eq)
		}
	case *For:
		c.kind, c.dim, c.stride = 'f', n.Dim, max(n.Stride, 1)
		if n.Dim < 0 || n.Dim >= ndim {
			return nil, fmt.Errorf("%w: loop over dimension %d of a %d-dimensional point", ErrSpaceMismatch, n.Dim, ndim)
		}
		if len(n.Lower) == 0 || len(n.Upper) == 0 {
			side := "upper"
			if len(n.Lower) == 0 {
				side = "lower"
			}
			return nil, fmt.Errorf("%w: loop over dimension %d has no %s bound", ErrUnbounded, n.Dim, side)
		}
		if err := body(n.Body); err != nil {
			return nil, err
		}
		c.free[n.Dim] = false
		if c.lower, err = affs(n.Lower); err != nil {
			return nil, err
		}
		if c.upper, err = affs(n.Upper); err != nil {
			return nil, err
		}
		if c.stride > 1 {
			var v []cAff
			if v, err = affs([]Aff{n.Offset}); err != nil {
				return nil, err
			}
			c.offset = v[0]
		}
	default:
		return nil, fmt.Errorf("%w: unknown AST node %T", ErrInternal, n)
	}
	return c, nil
}

// bounds returns the first and last values of a for loop at x (first > last: no iteration).
func (c *cNode) bounds(x []int64) (lo, hi int64) {
	lo = c.lower[0].eval(x)
	for k := 1; k < len(c.lower); k++ {
		lo = max(lo, c.lower[k].eval(x))
	}
	hi = c.upper[0].eval(x)
	for k := 1; k < len(c.upper); k++ {
		hi = min(hi, c.upper[k].eval(x))
	}
	if c.stride > 1 {
		lo += modFloor(c.offset.eval(x)-lo, c.stride)
	}
	return lo, hi
}

// holds evaluates the conditions of an if at x.
func (c *cNode) holds(x []int64) bool {
	for k := range c.conds {
		v := c.conds[k].eval(x)
		if c.eqs[k] && v != 0 || !c.eqs[k] && v < 0 {
			return false
		}
	}
	return true
}

func (c *cNode) walk(x []int64, visit func(int, []int64)) {
	switch c.kind {
	case 'b':
		for _, k := range c.kids {
			k.walk(x, visit)
		}
	case 'l':
		visit(c.stmt, x)
	case 'a':
		x[c.dim] = c.offset.eval(x)
		c.kids[0].walk(x, visit)
	case 'i':
		if c.holds(x) {
			c.kids[0].walk(x, visit)
		}
	case 'f':
		lo, hi := c.bounds(x)
		for v := lo; v <= hi; v += c.stride {
			x[c.dim] = v
			c.kids[0].walk(x, visit)
		}
	}
}
