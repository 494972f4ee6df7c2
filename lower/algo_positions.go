// This file lowers nonzero_positions (ir/ops_positions.go): one pass over the 1-D operand that
// writes each non-zero element's position at its rank, stopping once the stored box of ranks
// is full, then -1 for the ranks past the count.

package lower

import (
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/ir"
)

// emitNonzeroPositions: c counts the non-zeros seen; every element's position is stored at
// rank max(c, lo) and c advances past a non-zero only, so a zero's store is overwritten by the
// next non-zero's (or by the fill): no branch on the data, whose non-zeros are often an
// unpredictable half (scores above a threshold). The stored box holds ranks [lo, hi); the scan
// stops when c reaches hi.
func emitNonzeroPositions(kb *kernelBuilder) error {
	fb, res, x := kb.fb, kb.res, kb.ops[0]
	l := fb.extents(x.v.Type)[0]
	lo := res.lo[0]
	hi := fb.add(lo, res.ext[0])
	// an empty stored box scans nothing (max(c, lo) would be hi, outside it)
	hi = fb.sel(fb.cur.NewICmp(enum.IPredSGT, res.ext[0], i64(0)), hi, i64(0))
	i := kb.variable(types.I64, i64(0))
	c := kb.variable(types.I64, i64(0))
	store := func(k, v value.Value) {
		fb.cur.NewStore(v, fb.elemPtr(res, fb.offset(res, []value.Value{k})))
	}
	if err := fb.whileLoop("positions", func() value.Value {
		return fb.cur.NewAnd(fb.cur.NewICmp(enum.IPredSLT, i.get(), l), fb.cur.NewICmp(enum.IPredSLT, c.get(), hi))
	}, func() (value.Value, error) {
		iv, cv := i.get(), c.get()
		v := kb.loadAt(x, iv)
		store(fb.smax(cv, lo), iv)
		c.set(fb.add(cv, fb.cur.NewZExt(nonZero(fb, v, x.v.Type.Elem), types.I64)))
		i.set(fb.add(iv, i64(1)))
		return fb.cur.NewICmp(enum.IPredSLT, c.get(), hi), nil
	}); err != nil {
		return err
	}
	return fb.loop(fb.smax(c.get(), lo), fb.sub(hi, i64(1)), 1, "fill", func(k value.Value) error {
		store(k, i64(-1))
		return nil
	})
}

// nonZero emits v != 0 for a register-form scalar of element type t (NaN is non-zero).
func nonZero(fb *funcBuilder, v value.Value, t ir.DType) value.Value {
	if v.Type().Equal(types.I1) {
		return v
	}
	if t.IsFloat() {
		return fb.cur.NewFCmp(enum.FPredUNE, v, floatConstOf(v.Type(), 0))
	}
	return fb.cur.NewICmp(enum.IPredNE, v, intConstOf(v.Type(), 0))
}
