// This file emits one op: initialise its result, then run its body over the scanned domain,
// storing or combining into the result.

package lower

import (
	"fmt"
	"math"

	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/ir"
)

func (fb *funcBuilder) emitOp(op *ir.Op) error {
	if op.Reduce.IsArg() {
		return fmt.Errorf("lowering of %s reductions is not supported yet", op.Reduce)
	}
	dst := fb.bufs[op.Result]
	elem := op.Result.Type.Elem
	ty, err := llType(elem)
	if err != nil {
		return err
	}
	n, _ := fb.numElements(op.Result.Type)
	initV := memConst(elem, op.Init)
	if err := fb.loop(i64(0), fb.sub(n, i64(1)), 1, "init", func(iv value.Value) error {
		p := fb.cur.NewGetElementPtr(ty, dst, iv)
		fb.cur.NewStore(initV, p)
		return nil
	}); err != nil {
		return err
	}
	ast, err := op.Domain.Scan()
	if err != nil {
		return err
	}
	outStrides := fb.strides(op.Result.Type)
	opStrides := make([][]value.Value, len(op.Operands))
	for k, o := range op.Operands {
		opStrides[k] = fb.strides(o.Type)
	}
	dims := make([]value.Value, op.NDim())
	return fb.emitAST(ast, dims, func(_ int, dims []value.Value) error {
		var off value.Value = i64(0)
		for d, a := range op.Out.Pieces[0].Index {
			off = fb.add(off, fb.mul(fb.aff(a, dims), outStrides[d]))
		}
		bc := &bodyCtx{fb: fb, op: op, dims: dims, strides: opStrides, memo: map[*ir.Scalar]value.Value{}}
		v, err := bc.emit(op.Body)
		if err != nil {
			return err
		}
		p := fb.cur.NewGetElementPtr(ty, dst, off)
		if op.Reduce != ir.ReduceNone {
			acc := fb.toReg(fb.cur.NewLoad(ty, p), elem)
			v = bc.combine(op.Reduce, elem, acc, v)
		}
		fb.cur.NewStore(fb.toMem(v, elem), p)
		return nil
	})
}

// memConst returns the in-memory constant of value v of type t.
func memConst(t ir.DType, v float64) value.Value {
	switch t {
	case ir.F32:
		return constant.NewFloat(types.Float, float64(float32(v)))
	case ir.F64:
		return constant.NewFloat(types.Double, v)
	case ir.I64:
		return constant.NewInt(types.I64, int64(v))
	case ir.I32:
		return constant.NewInt(types.I32, int64(int32(v)))
	case ir.Bool:
		if v != 0 {
			return constant.NewInt(types.I8, 1)
		}
		return constant.NewInt(types.I8, 0)
	default:
		return constant.NewInt(types.I8, int64(int8(t.WrapInt(int64(v)))))
	}
}

// regConst returns the register constant of value v of type t.
func regConst(t ir.DType, v float64) value.Value {
	if t == ir.Bool {
		return boolConst(v != 0)
	}
	if t.IsFloat() && (math.IsInf(v, 0) || math.IsNaN(v)) {
		return memConst(t, v)
	}
	return memConst(t, v)
}

func boolConst(b bool) value.Value { return constant.NewBool(b) }

// toReg converts a loaded value to its register form (bool: i8 -> i1).
func (fb *funcBuilder) toReg(v value.Value, t ir.DType) value.Value {
	if t == ir.Bool {
		return fb.cur.NewTrunc(v, types.I1)
	}
	return v
}

// toMem converts a register value to its in-memory form (bool: i1 -> i8).
func (fb *funcBuilder) toMem(v value.Value, t ir.DType) value.Value {
	if t == ir.Bool {
		return fb.cur.NewZExt(v, types.I8)
	}
	return v
}

// emitCopy copies value v (input, constant or another output) into dst.
func (fb *funcBuilder) emitCopy(v *ir.Value, dst value.Value) error {
	ty, err := llType(v.Type.Elem)
	if err != nil {
		return err
	}
	src := fb.bufs[v]
	n, _ := fb.numElements(v.Type)
	return fb.loop(i64(0), fb.sub(n, i64(1)), 1, "copy", func(iv value.Value) error {
		x := fb.cur.NewLoad(ty, fb.cur.NewGetElementPtr(ty, src, iv))
		fb.cur.NewStore(x, fb.cur.NewGetElementPtr(ty, dst, iv))
		return nil
	})
}
