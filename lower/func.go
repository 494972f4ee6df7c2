// This file holds funcBuilder, the per-function state of emission (current block, parameter
// and buffer values), and the integer helpers every other file uses.

package lower

import (
	"fmt"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

type funcBuilder struct {
	mc     *moduleCtx
	f      *llvm.Func
	cur    *llvm.Block
	params map[string]value.Value // symbolic dims (i64)
	bufs   map[*ir.Value]value.Value
	nblk   int
}

func newFuncBuilder(mc *moduleCtx, f *llvm.Func) *funcBuilder {
	fb := &funcBuilder{mc: mc, f: f, params: map[string]value.Value{}, bufs: map[*ir.Value]value.Value{}}
	fb.cur = f.NewBlock("entry")
	return fb
}

func (fb *funcBuilder) newBlock(hint string) *llvm.Block {
	fb.nblk++
	return fb.f.NewBlock(fmt.Sprintf("%s.%d", hint, fb.nblk))
}

func constI32(v int64) *constant.Int { return constant.NewInt(types.I32, v) }

func isConst(v value.Value) (int64, bool) {
	if c, ok := v.(*constant.Int); ok && c.Typ == types.I64 {
		return c.X.Int64(), true
	}
	return 0, false
}

// add, mul, ... fold constants in Go (LLVM 19 rejects constant expressions).
func (fb *funcBuilder) add(a, b value.Value) value.Value {
	x, xok := isConst(a)
	y, yok := isConst(b)
	switch {
	case xok && yok:
		return i64(x + y)
	case xok && x == 0:
		return b
	case yok && y == 0:
		return a
	}
	return fb.cur.NewAdd(a, b)
}

func (fb *funcBuilder) sub(a, b value.Value) value.Value {
	x, xok := isConst(a)
	y, yok := isConst(b)
	switch {
	case xok && yok:
		return i64(x - y)
	case yok && y == 0:
		return a
	}
	return fb.cur.NewSub(a, b)
}

func (fb *funcBuilder) mul(a, b value.Value) value.Value {
	x, xok := isConst(a)
	y, yok := isConst(b)
	switch {
	case xok && yok:
		return i64(x * y)
	case xok && x == 1:
		return b
	case yok && y == 1:
		return a
	case xok && x == 0 || yok && y == 0:
		return i64(0)
	}
	return fb.cur.NewMul(a, b)
}

// floorDiv returns floor(a/d) for a constant d > 0.
func (fb *funcBuilder) floorDiv(a value.Value, d int64) value.Value {
	if d == 1 {
		return a
	}
	if x, ok := isConst(a); ok {
		q := x / d
		if x%d != 0 && x < 0 {
			q--
		}
		return i64(q)
	}
	neg := fb.cur.NewICmp(enum.IPredSLT, a, i64(0))
	adj := fb.cur.NewSub(a, i64(d-1))
	sel := fb.cur.NewSelect(neg, adj, a)
	return fb.cur.NewSDiv(sel, i64(d))
}

func (fb *funcBuilder) smax(a, b value.Value) value.Value {
	x, xok := isConst(a)
	y, yok := isConst(b)
	if xok && yok {
		return i64(max(x, y))
	}
	c := fb.cur.NewICmp(enum.IPredSGT, a, b)
	return fb.cur.NewSelect(c, a, b)
}

func (fb *funcBuilder) smin(a, b value.Value) value.Value {
	x, xok := isConst(a)
	y, yok := isConst(b)
	if xok && yok {
		return i64(min(x, y))
	}
	c := fb.cur.NewICmp(enum.IPredSLT, a, b)
	return fb.cur.NewSelect(c, a, b)
}

// aff emits a quasi-affine expression; dims are the current values of the iteration dims.
func (fb *funcBuilder) aff(a volume.Aff, dims []value.Value) value.Value {
	var v value.Value = i64(a.Const)
	for i, c := range a.Dims {
		if c != 0 {
			v = fb.add(v, fb.mul(dims[i], i64(c)))
		}
	}
	for _, p := range a.Params {
		pv, ok := fb.params[p.Name]
		if !ok {
			panic(fmt.Errorf("lower: symbolic dim %s has no value", p.Name))
		}
		v = fb.add(v, fb.mul(pv, i64(p.Coef)))
	}
	for _, f := range a.Floors {
		v = fb.add(v, fb.mul(fb.floorDiv(fb.aff(f.Num, dims), f.Den), i64(f.Coef)))
	}
	return v
}

// extents returns the extents of a type as i64 values.
func (fb *funcBuilder) extents(t ir.TensorType) []value.Value {
	out := make([]value.Value, t.Rank())
	for i, d := range t.Shape {
		out[i] = fb.aff(d, nil)
	}
	return out
}

func (fb *funcBuilder) numElements(t ir.TensorType) (value.Value, error) {
	var n value.Value = i64(1)
	for _, e := range fb.extents(t) {
		n = fb.mul(n, e)
	}
	return n, nil
}

// strides returns row-major strides (in elements) of a type.
func (fb *funcBuilder) strides(t ir.TensorType) []value.Value {
	ext := fb.extents(t)
	out := make([]value.Value, len(ext))
	var acc value.Value = i64(1)
	for i := len(ext) - 1; i >= 0; i-- {
		out[i] = acc
		acc = fb.mul(acc, ext[i])
	}
	return out
}

// loop emits for (iv = lo; iv <= hi; iv += step) body(iv).
func (fb *funcBuilder) loop(lo, hi value.Value, step int64, hint string, body func(iv value.Value) error) error {
	pre := fb.cur
	header := fb.newBlock(hint + ".header")
	bodyB := fb.newBlock(hint + ".body")
	exit := fb.newBlock(hint + ".exit")
	pre.NewBr(header)
	iv := header.NewPhi(llvm.NewIncoming(lo, pre))
	cond := header.NewICmp(enum.IPredSLE, iv, hi)
	header.NewCondBr(cond, bodyB, exit)
	fb.cur = bodyB
	if err := body(iv); err != nil {
		return err
	}
	next := fb.cur.NewAdd(iv, i64(step))
	iv.Incs = append(iv.Incs, llvm.NewIncoming(next, fb.cur))
	fb.cur.NewBr(header)
	fb.cur = exit
	return nil
}

// ifThen emits if (cond) then().
func (fb *funcBuilder) ifThen(cond value.Value, hint string, then func() error) error {
	t := fb.newBlock(hint + ".then")
	merge := fb.newBlock(hint + ".end")
	fb.cur.NewCondBr(cond, t, merge)
	fb.cur = t
	if err := then(); err != nil {
		return err
	}
	fb.cur.NewBr(merge)
	fb.cur = merge
	return nil
}
