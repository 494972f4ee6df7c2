// This file holds the loop AST that scanning produces: for loops with max/min bounds and
// strides, guards, assignments of dimensions fixed by equalities, and leaf statements.

package volume

import (
	"fmt"
	"strings"
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

// Leaf executes statement Stmt (the index of the piece or statement being scanned) at the
// current values of all dimensions.
type Leaf struct{ Stmt int }

func (*Block) isNode()  {}
func (*For) isNode()    {}
func (*If) isNode()     {}
func (*Assign) isNode() {}
func (*Leaf) isNode()   {}

// Walk visits the points of an AST in execution order: visit receives the statement and the
// values of the dimensions (a shared slice: copy it to keep it). params binds the parameters.
func Walk(n Node, ndim int, params map[string]int64, visit func(stmt int, x []int64)) error {
	x := make([]int64, ndim)
	return walk(n, x, params, visit)
}

func walk(n Node, x []int64, params map[string]int64, visit func(int, []int64)) error {
	pv := func(name string) (int64, bool) { v, ok := params[name]; return v, ok }
	switch n := n.(type) {
	case nil:
		return nil
	case *Block:
		for _, c := range n.Nodes {
			if err := walk(c, x, params, visit); err != nil {
				return err
			}
		}
	case *Leaf:
		visit(n.Stmt, x)
	case *Assign:
		v, err := n.Value.Eval(x, pv)
		if err != nil {
			return err
		}
		x[n.Dim] = v
		return walk(n.Body, x, params, visit)
	case *If:
		for _, c := range n.Conds {
			v, err := c.Aff.Eval(x, pv)
			if err != nil {
				return err
			}
			if c.Eq && v != 0 || !c.Eq && v < 0 {
				return nil
			}
		}
		return walk(n.Then, x, params, visit)
	case *For:
		lo, hi := int64(-1<<62), int64(1<<62)
		for _, b := range n.Lower {
			v, err := b.Eval(x, pv)
			if err != nil {
				return err
			}
			lo = max(lo, v)
		}
		for _, b := range n.Upper {
			v, err := b.Eval(x, pv)
			if err != nil {
				return err
			}
			hi = min(hi, v)
		}
		if len(n.Lower) == 0 || len(n.Upper) == 0 {
			return fmt.Errorf("%w: loop over dimension %d has no %s bound", ErrUnbounded, n.Dim, map[bool]string{true: "lower", false: "upper"}[len(n.Lower) == 0])
		}
		step := max(n.Stride, 1)
		if step > 1 {
			off, err := n.Offset.Eval(x, pv)
			if err != nil {
				return err
			}
			lo += modFloor(off-lo, step)
		}
		for v := lo; v <= hi; v += step {
			x[n.Dim] = v
			if err := walk(n.Body, x, params, visit); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("%w: unknown AST node %T", ErrInternal, n)
	}
	return nil
}

// C prints the AST as C statements, calling stmtName(e1, ..., en) at each leaf as isl's codegen
// does. names gives the dimension names.
func C(n Node, names []string, stmtName func(int) string) string {
	var sb strings.Builder
	printC(&sb, n, names, stmtName, 0)
	return sb.String()
}

func printC(sb *strings.Builder, n Node, names []string, stmtName func(int) string, ind int) {
	pad := strings.Repeat("  ", ind)
	switch n := n.(type) {
	case nil:
	case *Block:
		for _, c := range n.Nodes {
			printC(sb, c, names, stmtName, ind)
		}
	case *Leaf:
		args := make([]string, len(names))
		copy(args, names)
		fmt.Fprintf(sb, "%s%s(%s);\n", pad, stmtName(n.Stmt), strings.Join(args, ", "))
	case *Assign:
		fmt.Fprintf(sb, "%s{\n%s  int %s = %s;\n", pad, pad, names[n.Dim], cExpr(n.Value, names))
		printC(sb, n.Body, names, stmtName, ind+1)
		fmt.Fprintf(sb, "%s}\n", pad)
	case *If:
		var cs []string
		for _, c := range n.Conds {
			op := " >= 0"
			if c.Eq {
				op = " == 0"
			}
			cs = append(cs, cExpr(c.Aff, names)+op)
		}
		fmt.Fprintf(sb, "%sif (%s) {\n", pad, strings.Join(cs, " && "))
		printC(sb, n.Then, names, stmtName, ind+1)
		fmt.Fprintf(sb, "%s}\n", pad)
	case *For:
		v := names[n.Dim]
		lo := cMinMax("max", n.Lower, names)
		hi := cMinMax("min", n.Upper, names)
		step := v + " += 1"
		if n.Stride > 1 {
			step = fmt.Sprintf("%s += %d", v, n.Stride)
			lo = fmt.Sprintf("%s + (((%s) - (%s)) %% %d + %d) %% %d", lo, cExpr(n.Offset, names), lo, n.Stride, n.Stride, n.Stride)
		}
		fmt.Fprintf(sb, "%sfor (int %s = %s; %s <= %s; %s) {\n", pad, v, lo, v, hi, step)
		printC(sb, n.Body, names, stmtName, ind+1)
		fmt.Fprintf(sb, "%s}\n", pad)
	}
}

func cMinMax(fn string, bs []Aff, names []string) string {
	if len(bs) == 0 {
		return "/* unbounded */ 0"
	}
	s := cExpr(bs[0], names)
	for _, b := range bs[1:] {
		s = fmt.Sprintf("%s(%s, %s)", fn, s, cExpr(b, names))
	}
	return s
}

// cExpr prints an Aff as a C expression; floor divisions use floord(n, d) as isl's codegen does.
func cExpr(a Aff, names []string) string {
	var parts []string
	add := func(c int64, s string) {
		switch {
		case c == 1:
			parts = append(parts, s)
		case c == -1:
			parts = append(parts, "-"+s)
		default:
			parts = append(parts, fmt.Sprintf("%d * %s", c, s))
		}
	}
	for i, c := range a.Dims {
		if c != 0 {
			add(c, names[i])
		}
	}
	for _, p := range a.Params {
		add(p.Coef, p.Name)
	}
	for _, f := range a.Floors {
		add(f.Coef, fmt.Sprintf("floord(%s, %d)", cExpr(f.Num, names), f.Den))
	}
	if a.Const != 0 || len(parts) == 0 {
		parts = append(parts, fmt.Sprint(a.Const))
	}
	return strings.ReplaceAll(strings.Join(parts, " + "), "+ -", "- ")
}
