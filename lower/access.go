// This file holds views (a tensor's buffer: pointer, box origin and strides) and the accesses
// through them: rebased addresses, guarded reads that never dereference an address whose guard
// is false, and bounds-checked data-dependent reads.

package lower

import (
	"math"
	"slices"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// view is a tensor as one function sees it: the buffer holds the box lo .. lo+ext-1 of the
// tensor, dense and row-major.
type view struct {
	v       *ir.Value
	ptr     value.Value // memType(elem)*
	lo, ext []value.Value
	strides []value.Value
	aligned bool // the buffer is 128-byte aligned (workspace slot or constant)
}

// newView emits the box of v (region r) and its strides.
func (fb *funcBuilder) newView(v *ir.Value, ptr value.Value, r *region) *view {
	lo, ext := fb.box(r, v.Type)
	return &view{v: v, ptr: ptr, lo: lo, ext: ext, strides: fb.rowMajor(ext)}
}

// offset returns the element offset of index idx in the buffer.
func (fb *funcBuilder) offset(w *view, idx []value.Value) value.Value {
	var off value.Value = i64(0)
	for d, x := range idx {
		off = fb.add(off, fb.mul(fb.sub(x, w.lo[d]), w.strides[d]))
	}
	return off
}

// elemPtr returns the address of the element at offset off.
func (fb *funcBuilder) elemPtr(w *view, off value.Value) value.Value {
	return fb.cur.NewGetElementPtr(mustMemType(w.v.Type.Elem), w.ptr, off)
}

// indexAt evaluates an access piece's index at the iteration point.
func (fb *funcBuilder) indexAt(idx []volume.Aff, dims []value.Value) []value.Value {
	out := make([]value.Value, len(idx))
	for d, a := range idx {
		out[d] = fb.aff(a, dims)
	}
	return out
}

// loadElem loads the element at offset off and converts it to its register form.
func (fb *funcBuilder) loadElem(w *view, off value.Value) value.Value {
	t := w.v.Type.Elem
	mt := mustMemType(t)
	ld := fb.cur.NewLoad(mt, fb.elemPtr(w, off))
	ld.Align = llvm.Align(byteSize(mt))
	return fb.toReg(ld, t)
}

// toReg converts a loaded value (scalar or vector) to its register form.
func (fb *funcBuilder) toReg(v value.Value, t ir.DType) value.Value {
	switch t {
	case ir.Bool:
		return fb.cur.NewICmp(enum.IPredNE, v, intConstOf(v.Type(), 0))
	case ir.F16:
		if fb.hwHalf() {
			return fb.halfFromBitsHW(v)
		}
		return fb.call(fb.mc.rtHalfFromBits(), v)
	}
	if t.IsMiniFloat() {
		return fb.call(fb.mc.rtFunc(rtMiniFrom(t)), v)
	}
	return v
}

// toMem converts a register value to its in-memory form.
func (fb *funcBuilder) toMem(v value.Value, t ir.DType) value.Value {
	switch t {
	case ir.Bool:
		it := types.Type(types.I8)
		if vt, ok := v.Type().(*types.VectorType); ok {
			it = types.NewVector(vt.Len, types.I8)
		}
		return fb.cur.NewZExt(v, it)
	case ir.F16:
		if fb.hwHalf() {
			return fb.halfToBitsHW(v)
		}
		return fb.call(fb.mc.rtHalfToBits(), v)
	}
	if t.IsMiniFloat() {
		return fb.call(fb.mc.rtFunc(rtMiniTo(t)), v)
	}
	return v
}

// load reads operand k at its access. Guarded pieces are read under a branch so that no
// address whose guard is false is ever dereferenced; where no piece applies the value is 0
// (the body reads such operands only under avail(k) or an unselected select arm).
func (kb *kernelBuilder) load(bc *bodyCtx, k int) (value.Value, error) {
	fb := kb.fb
	w := kb.ops[k]
	acc := kb.op.Access[k]
	t := w.v.Type.Elem
	if f, i, ok := splatConst(w.v); ok && len(acc.Pieces) == 1 && len(acc.Pieces[0].Guard) == 0 {
		// every element of a splat constant is the same: no load (the kernel key holds the
		// value, see bufferKey)
		return bc.cnst(t, f, i), nil
	}
	if len(acc.Pieces) == 0 {
		return bc.cnst(t, 0, 0), nil // read nowhere on the domain (decideGuards)
	}
	if bc.vl > 0 {
		return kb.vload(bc, k), nil
	}
	if len(acc.Pieces) == 1 && len(acc.Pieces[0].Guard) == 0 {
		return fb.loadElem(w, fb.offset(w, fb.indexAt(acc.Pieces[0].Index, bc.dims))), nil
	}
	merge := fb.newBlock("read.end")
	var incs []*llvm.Incoming
	for p := range acc.Pieces {
		c := fb.conds(acc.Pieces[p].Guard, bc.dims)
		then := fb.newBlock("read.piece")
		next := fb.newBlock("read.next")
		fb.cur.NewCondBr(c, then, next)
		fb.cur = then
		v := fb.loadElem(w, fb.offset(w, fb.indexAt(acc.Pieces[p].Index, bc.dims)))
		incs = append(incs, llvm.NewIncoming(v, fb.cur))
		fb.cur.NewBr(merge)
		fb.cur = next
	}
	incs = append(incs, llvm.NewIncoming(scalarConst(t, 0, 0), fb.cur))
	fb.cur.NewBr(merge)
	fb.cur = merge
	return fb.cur.NewPhi(incs...), nil
}

// splatConst returns the value of a constant whose elements are all equal (NaN payloads aside).
func splatConst(v *ir.Value) (f float64, i int64, ok bool) {
	t := v.Data
	if t == nil || t.Len() == 0 {
		return 0, 0, false
	}
	if t.IsRaw() {
		for j, n := 1, t.Len(); j < n; j++ {
			if t.Bits(j) != t.Bits(0) {
				return 0, 0, false
			}
		}
		if t.Elem.IsFloat() {
			return t.Float(0), 0, true
		}
		return 0, t.Int(0), true
	}
	if t.Elem.IsFloat() {
		if len(t.F) == 0 {
			return 0, 0, false
		}
		f = t.F[0]
		bits := math.Float64bits(f)
		for _, x := range t.F[1:] {
			if math.Float64bits(x) != bits {
				return 0, 0, false
			}
		}
		return f, 0, true
	}
	if len(t.I) == 0 {
		return 0, 0, false
	}
	i = t.I[0]
	for _, x := range t.I[1:] {
		if x != i {
			return 0, 0, false
		}
	}
	return 0, i, true
}

// vload reads operand k at vl consecutive points of the inner dimension: one vector load when
// the access is unit-stride in it, one scalar load broadcast when it is invariant, a load per
// lane when it is strided (x86-64, bodies worth vectors: chooseStrategy), zeros where a guard
// that holds for all lanes or none does not hold.
func (kb *kernelBuilder) vload(bc *bodyCtx, k int) value.Value {
	fb := kb.fb
	w := kb.ops[k]
	piece := kb.op.Access[k].Pieces[0]
	idx := piece.Index
	stride := accessStrideIn(w.v.Type, idx, bc.inner)
	load := func() value.Value {
		if stride == strideOther && !(bc.blocks && blockUniform(idx, bc.inner, bc.vl)) {
			// (a read uniform over each block of lanes, a grouped convolution's input within
			// a group, is one broadcast load below)
			return kb.laneLoads(bc, w, idx)
		}
		off := fb.offset(w, fb.indexAt(idx, bc.dims))
		if stride == strideInvariant || bc.blocks && blockUniform(idx, bc.inner, bc.vl) {
			return bc.splatValue(fb.loadElem(w, off))
		}
		return fb.vectorLoad(w, off, bc.vl)
	}
	if len(piece.Guard) == 0 {
		return load()
	}
	// a guard independent of the inner dim (see uniformPiece): all lanes or none
	return fb.ifElse(fb.conds(piece.Guard, bc.dims), "vread", load, func() value.Value {
		return bc.cnst(w.v.Type.Elem, 0, 0)
	})
}

// laneLoads reads an access strided along the inner dim lane by lane into a vector.
func (kb *kernelBuilder) laneLoads(bc *bodyCtx, w *view, idx []volume.Aff) value.Value {
	fb := kb.fb
	var v value.Value = constant.NewUndef(bc.ty(w.v.Type.Elem).(*types.VectorType))
	dims := slices.Clone(bc.dims)
	for l := 0; l < bc.vl; l++ {
		dims[bc.inner] = fb.add(bc.dims[bc.inner], i64(int64(l)))
		x := fb.loadElem(w, fb.offset(w, fb.indexAt(idx, dims)))
		v = fb.cur.NewInsertElement(v, x, i32c(int64(l)))
	}
	return v
}

// vectorLoad loads vl consecutive elements starting at offset off.
func (fb *funcBuilder) vectorLoad(w *view, off value.Value, vl int) value.Value {
	t := w.v.Type.Elem
	mt := mustMemType(t)
	vt := types.NewVector(uint64(vl), mt)
	p := fb.cur.NewBitCast(fb.elemPtr(w, off), types.NewPointer(vt))
	ld := fb.cur.NewLoad(vt, p)
	ld.Align = llvm.Align(fb.vectorAlign(w, off, byteSize(mt), vl))
	return fb.toReg(ld, t)
}

// vectorStore stores a vector register value at offset off.
func (fb *funcBuilder) vectorStore(w *view, off value.Value, v value.Value) {
	t := w.v.Type.Elem
	mv := fb.toMem(v, t)
	p := fb.cur.NewBitCast(fb.elemPtr(w, off), types.NewPointer(mv.Type()))
	st := fb.cur.NewStore(mv, p)
	lanes := int(mv.Type().(*types.VectorType).Len)
	st.Align = llvm.Align(fb.vectorAlign(w, off, byteSize(mustMemType(t)), lanes))
}

// avail returns whether operand k's access is defined at the iteration point.
func (kb *kernelBuilder) avail(bc *bodyCtx, k int) value.Value {
	fb := kb.fb
	var v value.Value = boolConst(false)
	for _, p := range kb.op.Access[k].Pieces {
		c := fb.conds(p.Guard, bc.dims)
		if k, ok := v.(*constant.Int); ok && k.X.Sign() == 0 {
			v = c
		} else {
			v = fb.cur.NewOr(v, c)
		}
	}
	return v
}

// dynLoad reads operand s.Arg at data-dependent indices. The indices are bounds-checked against
// the operand's buffer (its box, which DIE's over-approximated map makes cover every index the
// program can compute): outside it the entry returns statusIndexOOB, as the evaluator fails.
func (kb *kernelBuilder) dynLoad(bc *bodyCtx, s *ir.Scalar) (value.Value, error) {
	fb := kb.fb
	w := kb.ops[s.Arg]
	idx := make([]value.Value, len(s.Args))
	for d, a := range s.Args {
		v, err := bc.emit(a)
		if err != nil {
			return nil, err
		}
		idx[d] = fb.widen64(v, a.Type.IsUnsigned())
	}
	if len(idx) != len(w.lo) {
		return nil, errorf("read of operand #%d with %d indices, it has rank %d", s.Arg, len(idx), len(w.lo))
	}
	var ok value.Value = boolConst(true)
	for d, x := range idx {
		rel := fb.sub(x, w.lo[d])
		ok = fb.and1(ok, fb.cur.NewICmp(enum.IPredULT, rel, w.ext[d]))
	}
	fb.check(ok, statusIndexOOB, "dynread.ok")
	return fb.loadElem(w, fb.offset(w, idx)), nil
}
