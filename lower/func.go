// This file holds funcBuilder, the per-function state of emission (current block, values of
// the symbolic dims), and the integer, control-flow and loop helpers every other file uses.
// Integer helpers fold constants in Go: LLVM 19 rejects most constant expressions.

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
	nblk   int
	fails  map[int64]*llvm.Block // blocks returning an error status
	// mult records a known divisor of i64 values (offsets, loop counters), so that vector
	// accesses can claim the alignment they have (see multipleOf).
	mult map[value.Value]int64
}

func newFuncBuilder(mc *moduleCtx, f *llvm.Func) *funcBuilder {
	fb := &funcBuilder{mc: mc, f: f, params: map[string]value.Value{}, fails: map[int64]*llvm.Block{}, mult: map[value.Value]int64{}}
	fb.cur = f.NewBlock("entry")
	return fb
}

func (fb *funcBuilder) newBlock(hint string) *llvm.Block {
	fb.nblk++
	return fb.f.NewBlock(fmt.Sprintf("%s.%d", hint, fb.nblk))
}

// failBlock returns a block that returns status code (an i32 function only).
func (fb *funcBuilder) failBlock(code int64) *llvm.Block {
	if b, ok := fb.fails[code]; ok {
		return b
	}
	b := fb.f.NewBlock(fmt.Sprintf("fail.%d", code))
	b.NewRet(i32c(code))
	fb.fails[code] = b
	return b
}

// check continues when ok holds and returns status code otherwise.
func (fb *funcBuilder) check(ok value.Value, code int64, hint string) {
	if c, isC := ok.(*constant.Int); isC && c.Typ == types.I1 {
		if c.X.Sign() != 0 {
			return
		}
	}
	next := fb.newBlock(hint)
	fb.cur.NewCondBr(ok, next, fb.failBlock(code))
	fb.cur = next
}

func isConst(v value.Value) (int64, bool) {
	if c, ok := v.(*constant.Int); ok && c.Typ == types.I64 {
		return c.X.Int64(), true
	}
	return 0, false
}

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
	return fb.known(fb.cur.NewAdd(a, b), gcd(fb.multipleOf(a), fb.multipleOf(b)))
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
	return fb.known(fb.cur.NewSub(a, b), gcd(fb.multipleOf(a), fb.multipleOf(b)))
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
	ma, mb := fb.multipleOf(a), fb.multipleOf(b)
	m := int64(0)
	if ma < 1<<31 && mb < 1<<31 {
		m = ma * mb
	}
	return fb.known(fb.cur.NewMul(a, b), m)
}

// multipleOf returns a known positive divisor of an i64 value (1 when nothing is known; a
// large power of two for the constant 0).
func (fb *funcBuilder) multipleOf(v value.Value) int64 {
	if c, ok := isConst(v); ok {
		if c == 0 {
			return 1 << 30
		}
		if c < 0 {
			c = -c
		}
		return c
	}
	if m, ok := fb.mult[v]; ok {
		return m
	}
	return 1
}

// known records that m divides v and returns v.
func (fb *funcBuilder) known(v value.Value, m int64) value.Value {
	if m > 1 {
		fb.mult[v] = m
	}
	return v
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	if a < 0 {
		return -a
	}
	return a
}

// floorDiv returns floor(a/d) for a constant d > 0, without a division instruction when d is
// a power of two (Hexagon has no integer divide).
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
	if d&(d-1) == 0 {
		sh := int64(0)
		for int64(1)<<sh < d {
			sh++
		}
		return fb.cur.NewAShr(a, i64(sh))
	}
	// floor(a/d) = (a >= 0 ? a : a - (d-1)) / d, a signed division by a constant that LLVM
	// turns into a multiplication on every target
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

// sel returns c ? a : b, folding a constant condition.
func (fb *funcBuilder) sel(c, a, b value.Value) value.Value {
	if k, ok := c.(*constant.Int); ok && k.Typ == types.I1 {
		if k.X.Sign() != 0 {
			return a
		}
		return b
	}
	if fb.mc.tgt.FloatSelectBarrier {
		if ft, ok := a.Type().(*types.FloatType); ok {
			a, b = fb.launder(a, ft), fb.launder(b, ft)
		}
	}
	return fb.cur.NewSelect(c, a, b)
}

// launder returns x through an empty inline asm statement: the same register, but a value the
// optimizers cannot see through. LLVM 19's Hexagon backend turns select(a < b, a, b) into
// sfmin (and the max forms into sfmax), whose NaN handling differs from the select's (qemu
// implements IEEE minNum); laundering the arms keeps that pattern from matching.
func (fb *funcBuilder) launder(x value.Value, t types.Type) value.Value {
	if _, ok := x.(constant.Constant); ok {
		return x
	}
	asm := llvm.NewInlineAsm(types.NewPointer(types.NewFunc(t, t)), "", "=r,0")
	return fb.cur.NewCall(asm, x)
}

// and1 returns a && b for i1 values, folding constants.
func (fb *funcBuilder) and1(a, b value.Value) value.Value {
	if k, ok := a.(*constant.Int); ok && k.Typ == types.I1 {
		if k.X.Sign() != 0 {
			return b
		}
		return a
	}
	if k, ok := b.(*constant.Int); ok && k.Typ == types.I1 {
		if k.X.Sign() != 0 {
			return a
		}
		return b
	}
	return fb.cur.NewAnd(a, b)
}

// aff emits a quasi-affine expression; dims are the current values of the iteration dims.
func (fb *funcBuilder) aff(a volume.Aff, dims []value.Value) value.Value {
	if err := a.Err(); err != nil {
		throw(fmt.Errorf("an index expression volume gave up on: %w", err))
	}
	var v value.Value = i64(a.Const)
	for i, c := range a.Dims {
		if c != 0 {
			v = fb.add(v, fb.mul(dims[i], i64(c)))
		}
	}
	for _, p := range a.Params {
		pv, ok := fb.params[p.Name]
		if !ok {
			throw(fmt.Errorf("symbolic dim %s has no value here", p.Name))
		}
		v = fb.add(v, fb.mul(pv, i64(p.Coef)))
	}
	for _, f := range a.Floors {
		v = fb.add(v, fb.mul(fb.floorDiv(fb.aff(f.Num, dims), f.Den), i64(f.Coef)))
	}
	return v
}

// conds emits the conjunction of constraints as an i1.
func (fb *funcBuilder) conds(cs []volume.Constraint, dims []value.Value) value.Value {
	var acc value.Value = boolConst(true)
	for _, c := range cs {
		v := fb.aff(c.Aff, dims)
		var b value.Value
		if x, ok := isConst(v); ok {
			b = boolConst(c.Eq && x == 0 || !c.Eq && x >= 0)
		} else if c.Eq {
			b = fb.cur.NewICmp(enum.IPredEQ, v, i64(0))
		} else {
			b = fb.cur.NewICmp(enum.IPredSGE, v, i64(0))
		}
		acc = fb.and1(acc, b)
	}
	return acc
}

// extents returns the extents of a type as i64 values.
func (fb *funcBuilder) extents(t ir.TensorType) []value.Value {
	out := make([]value.Value, t.Rank())
	for i, d := range t.Shape {
		out[i] = fb.aff(d, nil)
	}
	return out
}

// product returns the product of vs (1 for none).
func (fb *funcBuilder) product(vs []value.Value) value.Value {
	var n value.Value = i64(1)
	for _, e := range vs {
		n = fb.mul(n, e)
	}
	return n
}

// rowMajor returns the row-major strides (in elements) of a box with the given extents.
func (fb *funcBuilder) rowMajor(ext []value.Value) []value.Value {
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
	return fb.loopMD(lo, hi, step, hint, false, body)
}

// loopMD is loop; noUnroll asks LLVM not to unroll it (see loopmd.go).
func (fb *funcBuilder) loopMD(lo, hi value.Value, step int64, hint string, noUnroll bool, body func(iv value.Value) error) error {
	if l, ok := isConst(lo); ok {
		if h, ok := isConst(hi); ok && h < l {
			return nil
		}
	}
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
	latch := fb.cur.NewBr(header)
	if noUnroll {
		fb.markNoUnroll(latch)
	}
	fb.cur = exit
	return nil
}

// ifThen emits if (cond) then().
func (fb *funcBuilder) ifThen(cond value.Value, hint string, then func() error) error {
	if k, ok := cond.(*constant.Int); ok && k.Typ == types.I1 {
		if k.X.Sign() == 0 {
			return nil
		}
		return then()
	}
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

// ifElse emits cond ? then() : els() with branches and returns the merged value.
func (fb *funcBuilder) ifElse(cond value.Value, hint string, then, els func() value.Value) value.Value {
	if k, ok := cond.(*constant.Int); ok && k.Typ == types.I1 {
		if k.X.Sign() != 0 {
			return then()
		}
		return els()
	}
	t := fb.newBlock(hint + ".then")
	e := fb.newBlock(hint + ".else")
	merge := fb.newBlock(hint + ".end")
	fb.cur.NewCondBr(cond, t, e)
	fb.cur = t
	tv := then()
	tb := fb.cur
	tb.NewBr(merge)
	fb.cur = e
	ev := els()
	eb := fb.cur
	eb.NewBr(merge)
	fb.cur = merge
	return merge.NewPhi(llvm.NewIncoming(tv, tb), llvm.NewIncoming(ev, eb))
}
