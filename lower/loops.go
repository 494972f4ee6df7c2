// This file turns a scanned loop AST (volume.Node) into LLVM loops.

package lower

import (
	"fmt"

	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/volume"
)

// emitAST emits the loops of an AST; leaf is called with the current dimension values.
func (fb *funcBuilder) emitAST(n volume.Node, dims []value.Value, leaf func(stmt int, dims []value.Value) error) error {
	switch n := n.(type) {
	case nil:
		return nil
	case *volume.Block:
		for _, c := range n.Nodes {
			if err := fb.emitAST(c, dims, leaf); err != nil {
				return err
			}
		}
		return nil
	case *volume.Leaf:
		return leaf(n.Stmt, dims)
	case *volume.Assign:
		dims[n.Dim] = fb.aff(n.Value, dims)
		return fb.emitAST(n.Body, dims, leaf)
	case *volume.If:
		cond := fb.conds(n.Conds, dims)
		return fb.ifThen(cond, "guard", func() error { return fb.emitAST(n.Then, dims, leaf) })
	case *volume.For:
		var lo, hi value.Value
		for i, b := range n.Lower {
			v := fb.aff(b, dims)
			if i == 0 {
				lo = v
			} else {
				lo = fb.smax(lo, v)
			}
		}
		for i, b := range n.Upper {
			v := fb.aff(b, dims)
			if i == 0 {
				hi = v
			} else {
				hi = fb.smin(hi, v)
			}
		}
		if lo == nil || hi == nil {
			return fmt.Errorf("loop over dimension %d is unbounded", n.Dim)
		}
		step := max(n.Stride, 1)
		if step > 1 {
			off := fb.aff(n.Offset, dims)
			d := fb.sub(off, lo)
			m := fb.sub(d, fb.mul(fb.floorDiv(d, step), i64(step)))
			lo = fb.add(lo, m)
		}
		return fb.loop(lo, hi, step, fmt.Sprintf("d%d", n.Dim), func(iv value.Value) error {
			saved := dims[n.Dim]
			dims[n.Dim] = iv
			err := fb.emitAST(n.Body, dims, leaf)
			dims[n.Dim] = saved
			return err
		})
	}
	return fmt.Errorf("unknown AST node %T", n)
}

// conds emits the conjunction of constraints as an i1.
func (fb *funcBuilder) conds(cs []volume.Constraint, dims []value.Value) value.Value {
	var acc value.Value
	for _, c := range cs {
		v := fb.aff(c.Aff, dims)
		pred := enum.IPredSGE
		if c.Eq {
			pred = enum.IPredEQ
		}
		var b value.Value = fb.cur.NewICmp(pred, v, i64(0))
		if acc == nil {
			acc = b
		} else {
			acc = fb.cur.NewAnd(acc, b)
		}
	}
	if acc == nil {
		return boolConst(true)
	}
	return acc
}
