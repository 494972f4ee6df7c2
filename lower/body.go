// This file emits an op body (ir.Scalar) at one iteration point as scalar LLVM IR.

package lower

import (
	"fmt"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/ir"
)

type bodyCtx struct {
	fb      *funcBuilder
	op      *ir.Op
	dims    []value.Value
	strides [][]value.Value
	memo    map[*ir.Scalar]value.Value
}

func (bc *bodyCtx) emit(s *ir.Scalar) (value.Value, error) {
	if v, ok := bc.memo[s]; ok {
		return v, nil
	}
	v, err := bc.emit1(s)
	if err != nil {
		return nil, err
	}
	bc.memo[s] = v
	return v, nil
}

// guard returns the i1 saying whether piece p of operand k's access applies.
func (bc *bodyCtx) guard(k, p int) value.Value {
	return bc.fb.conds(bc.op.Access[k].Pieces[p].Guard, bc.dims)
}

// load reads operand k at its access; guarded pieces are read under a branch so that no
// out-of-bounds address is ever dereferenced.
func (bc *bodyCtx) load(k int) (value.Value, error) {
	fb := bc.fb
	o := bc.op.Operands[k]
	ty, err := llType(o.Type.Elem)
	if err != nil {
		return nil, err
	}
	acc := bc.op.Access[k]
	if acc.Approx {
		return nil, fmt.Errorf("operand #%d is read through a data-dependent access; use a dynamic read", k)
	}
	addr := func(p int) value.Value {
		var off value.Value = i64(0)
		for d, a := range acc.Pieces[p].Index {
			off = fb.add(off, fb.mul(fb.aff(a, bc.dims), bc.strides[k][d]))
		}
		return fb.cur.NewGetElementPtr(ty, fb.bufs[o], off)
	}
	if len(acc.Pieces) == 1 && len(acc.Pieces[0].Guard) == 0 {
		return fb.toReg(fb.cur.NewLoad(ty, addr(0)), o.Type.Elem), nil
	}
	// chain of guarded pieces: the first whose guard holds is read
	merge := fb.newBlock("read.end")
	var incs []*llvm.Incoming
	for p := range acc.Pieces {
		c := bc.guard(k, p)
		then := fb.newBlock("read.piece")
		next := fb.newBlock("read.next")
		fb.cur.NewCondBr(c, then, next)
		fb.cur = then
		v := fb.toReg(fb.cur.NewLoad(ty, addr(p)), o.Type.Elem)
		incs = append(incs, llvm.NewIncoming(v, fb.cur))
		fb.cur.NewBr(merge)
		fb.cur = next
	}
	// no piece applies: the body only reads under avail(k), so the value is never used
	undef := regConst(o.Type.Elem, 0)
	incs = append(incs, llvm.NewIncoming(undef, fb.cur))
	fb.cur.NewBr(merge)
	fb.cur = merge
	return fb.cur.NewPhi(incs...), nil
}

func (bc *bodyCtx) emit1(s *ir.Scalar) (value.Value, error) {
	fb := bc.fb
	b := func() *llvm.Block { return fb.cur }
	switch s.Op {
	case ir.SRead:
		return bc.load(s.Arg)
	case ir.SAvail:
		acc := bc.op.Access[s.Arg]
		var v value.Value
		for p := range acc.Pieces {
			c := bc.guard(s.Arg, p)
			if v == nil {
				v = c
			} else {
				v = b().NewOr(v, c)
			}
		}
		if v == nil {
			return boolConst(false), nil
		}
		return v, nil
	case ir.SIndex:
		return bc.dims[s.Arg], nil
	case ir.SParam:
		return fb.params[s.Name], nil
	case ir.SConst:
		if s.Type.IsFloat() {
			return regConst(s.Type, s.F), nil
		}
		return regConst(s.Type, float64(s.I)), nil
	case ir.SSelect:
		c, err := bc.emit(s.Args[0])
		if err != nil {
			return nil, err
		}
		x, err := bc.emit(s.Args[1])
		if err != nil {
			return nil, err
		}
		y, err := bc.emit(s.Args[2])
		if err != nil {
			return nil, err
		}
		return b().NewSelect(c, x, y), nil
	case ir.SCast:
		x, err := bc.emit(s.Args[0])
		if err != nil {
			return nil, err
		}
		return bc.cast(x, s.Args[0].Type, s.Type)
	}
	args := make([]value.Value, len(s.Args))
	for i, a := range s.Args {
		v, err := bc.emit(a)
		if err != nil {
			return nil, err
		}
		args[i] = v
	}
	if s.Op.IsBinary() {
		return bc.binary(s.Op, s.Args[0].Type, args[0], args[1])
	}
	if s.Op.IsUnary() {
		return bc.unary(s.Op, s.Args[0].Type, args[0])
	}
	return nil, fmt.Errorf("lowering of %s is not supported yet", s.Op)
}

func (bc *bodyCtx) binary(op ir.ScalarOp, t ir.DType, x, y value.Value) (value.Value, error) {
	c := bc.fb.cur
	if t.IsFloat() {
		switch op {
		case ir.SAdd:
			return c.NewFAdd(x, y), nil
		case ir.SSub:
			return c.NewFSub(x, y), nil
		case ir.SMul:
			return c.NewFMul(x, y), nil
		case ir.SDiv:
			return c.NewFDiv(x, y), nil
		case ir.SRem:
			return c.NewFRem(x, y), nil
		case ir.SMax, ir.SMin:
			pred := enum.FPredOGT
			if op == ir.SMin {
				pred = enum.FPredOLT
			}
			r := c.NewSelect(c.NewFCmp(pred, x, y), x, y)
			// NaN in either operand propagates
			r2 := c.NewSelect(c.NewFCmp(enum.FPredUNO, y, y), y, r)
			return c.NewSelect(c.NewFCmp(enum.FPredUNO, x, x), x, r2), nil
		case ir.SEq:
			return c.NewFCmp(enum.FPredOEQ, x, y), nil
		case ir.SNe:
			return c.NewFCmp(enum.FPredUNE, x, y), nil
		case ir.SLt:
			return c.NewFCmp(enum.FPredOLT, x, y), nil
		case ir.SLe:
			return c.NewFCmp(enum.FPredOLE, x, y), nil
		case ir.SGt:
			return c.NewFCmp(enum.FPredOGT, x, y), nil
		case ir.SGe:
			return c.NewFCmp(enum.FPredOGE, x, y), nil
		}
		return nil, fmt.Errorf("lowering of float %s is not supported yet", op)
	}
	unsigned := t == ir.U8 || t == ir.Bool
	switch op {
	case ir.SAdd:
		return c.NewAdd(x, y), nil
	case ir.SSub:
		return c.NewSub(x, y), nil
	case ir.SMul:
		return c.NewMul(x, y), nil
	case ir.SAnd:
		return c.NewAnd(x, y), nil
	case ir.SOr:
		return c.NewOr(x, y), nil
	case ir.SXor:
		return c.NewXor(x, y), nil
	case ir.SMax, ir.SMin, ir.SEq, ir.SNe, ir.SLt, ir.SLe, ir.SGt, ir.SGe:
		preds := map[ir.ScalarOp][2]enum.IPred{
			ir.SMax: {enum.IPredSGT, enum.IPredUGT}, ir.SMin: {enum.IPredSLT, enum.IPredULT},
			ir.SEq: {enum.IPredEQ, enum.IPredEQ}, ir.SNe: {enum.IPredNE, enum.IPredNE},
			ir.SLt: {enum.IPredSLT, enum.IPredULT}, ir.SLe: {enum.IPredSLE, enum.IPredULE},
			ir.SGt: {enum.IPredSGT, enum.IPredUGT}, ir.SGe: {enum.IPredSGE, enum.IPredUGE},
		}[op]
		p := preds[0]
		if unsigned {
			p = preds[1]
		}
		cmp := c.NewICmp(p, x, y)
		if op == ir.SMax || op == ir.SMin {
			return c.NewSelect(cmp, x, y), nil
		}
		return cmp, nil
	}
	return nil, fmt.Errorf("lowering of integer %s is not supported yet", op)
}

func (bc *bodyCtx) unary(op ir.ScalarOp, t ir.DType, x value.Value) (value.Value, error) {
	c := bc.fb.cur
	if t.IsFloat() {
		switch op {
		case ir.SNeg:
			return c.NewFNeg(x), nil
		}
		return nil, fmt.Errorf("lowering of float %s is not supported yet", op)
	}
	switch op {
	case ir.SNeg:
		return c.NewSub(regConst(t, 0), x), nil
	case ir.SNot:
		return c.NewXor(x, regConst(t, 1)), nil
	}
	return nil, fmt.Errorf("lowering of integer %s is not supported yet", op)
}

func (bc *bodyCtx) combine(r ir.ReduceKind, t ir.DType, acc, v value.Value) value.Value {
	var op ir.ScalarOp
	switch r {
	case ir.ReduceSum:
		op = ir.SAdd
	case ir.ReduceProd:
		op = ir.SMul
	case ir.ReduceMax:
		op = ir.SMax
	default:
		op = ir.SMin
	}
	res, _ := bc.binary(op, t, acc, v)
	return res
}

func (bc *bodyCtx) cast(x value.Value, from, to ir.DType) (value.Value, error) {
	c := bc.fb.cur
	ft, tt := regType(from), regType(to)
	switch {
	case from == to:
		return x, nil
	case from.IsFloat() && to.IsFloat():
		if sizeOf(ft) < sizeOf(tt) {
			return c.NewFPExt(x, tt), nil
		}
		return c.NewFPTrunc(x, tt), nil
	case from.IsFloat() && to == ir.Bool:
		return c.NewFCmp(enum.FPredUNE, x, regConst(from, 0)), nil
	case from.IsFloat():
		return c.NewFPToSI(x, tt), nil
	case to.IsFloat():
		if from == ir.U8 || from == ir.Bool {
			return c.NewUIToFP(x, tt), nil
		}
		return c.NewSIToFP(x, tt), nil
	case to == ir.Bool:
		return c.NewICmp(enum.IPredNE, x, regConst(from, 0)), nil
	}
	fw, tw := intWidth(ft), intWidth(tt)
	switch {
	case fw > tw:
		return c.NewTrunc(x, tt), nil
	case fw < tw && (from == ir.U8 || from == ir.Bool):
		return c.NewZExt(x, tt), nil
	case fw < tw:
		return c.NewSExt(x, tt), nil
	}
	return x, nil
}

func intWidth(t types.Type) uint64 {
	if it, ok := t.(*types.IntType); ok {
		return it.BitSize
	}
	return 0
}
