// This file emits transposing elementwise ops: ops that read an operand whose unit-stride dim
// is not the result's (the reorders of a graph's NCHW input into a channels-last copy, and
// of a channels-last result into an NCHW output; a HardSwish, a residual sum or a scaled sum
// at the border between the two layouts). The per-point nest reads one of the two at a stride
// of a whole plane per element, and a vector nest loads such reads lane by lane; here the box
// is cut into vl×vl blocks, each transposed operand loaded as vl vectors along its
// unit-stride dim and transposed in registers (log2(vl) rounds of two-vector shuffles), the
// other operands read as vectors along the result's unit-stride dim, and the body stored as
// vl vectors along it, as oneDNN's and MLAS's reorders do. Elements outside whole blocks take
// the per-point path. Only loads and stores move: results keep their bits.

package lower

import (
	"fmt"

	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// transposePlan is the block transpose of an elementwise op: dc is the result's unit-stride
// dim, dw the unit-stride dim of the transposed operands (trans); the other operands the body
// reads are unit-stride or invariant along dc (a residual in the result's layout, a
// per-channel scale) and are read as vectors along it; lo and hi bound the domain, a box.
type transposePlan struct {
	dc, dw int
	vl     int
	lo, hi []int64
	trans  []int
}

func (t *transposePlan) String() string {
	return fmt.Sprintf("transpose %dx%d", t.vl, t.vl)
}

// planTranspose returns the block transpose of op for vectors of vecBytes, or nil: op must
// have no reduction, a static box domain, a result written once per point through dims plus
// constants, and a body of vectorisable float32 operations. Every operand it reads (float32)
// goes through one unguarded piece; at least one is transposed: dims plus constants whose
// last index is one dim dw other than the result's last one, dc, and which is strided along
// dc. The others are unit-stride or invariant along dc.
func planTranspose(op *ir.Op, vecBytes int) *transposePlan {
	if op.Reduce != ir.ReduceNone || len(op.Operands) == 0 || len(op.Out.Pieces) != 1 || len(op.Out.Pieces[0].Guard) > 0 || len(op.Domain.Params()) > 0 {
		return nil
	}
	if op.Result.Type.Elem != ir.F32 || op.Body.Type != ir.F32 {
		return nil
	}
	vl := vecBytes / 4
	if vl != 4 && vl != 8 && vl != 16 {
		return nil
	}
	ok := true
	read := map[int]bool{}
	op.Body.Walk(func(s *ir.Scalar) {
		switch {
		case s.Op == ir.SRead:
			read[s.Arg] = true
		case s.Op == ir.SConst:
		case s.Op == ir.SIndex, s.Op == ir.SAvail, s.Op == ir.SParam, s.Op == ir.SDynRead:
			ok = false
		case !vectorizable(s) || s.Type.IsInt():
			ok = false
		}
	})
	if !ok || len(read) == 0 {
		return nil
	}
	plain := func(idx []volume.Aff) bool {
		for _, a := range idx {
			if a.ShiftedDim() < 0 {
				return false
			}
		}
		return true
	}
	out := op.Out.Pieces[0].Index
	if !plain(out) || len(out) < 2 {
		return nil
	}
	dc, dw := out[len(out)-1].ShiftedDim(), -1
	var trans []int
	for k := range op.Operands {
		if !read[k] {
			continue
		}
		acc := op.Access[k]
		if op.Operands[k].Type.Elem != ir.F32 || acc.Approx || len(acc.Pieces) != 1 || len(acc.Pieces[0].Guard) > 0 {
			return nil
		}
		in := acc.Pieces[0].Index
		if accessStride(in, dc) != strideOther {
			continue // read as vectors (or broadcast) along dc
		}
		if !plain(in) || len(in) < 2 {
			return nil
		}
		w := in[len(in)-1].ShiftedDim()
		if w < 0 || w == dc || dw >= 0 && w != dw {
			return nil
		}
		dw = w
		trans = append(trans, k)
	}
	if dc < 0 || dw < 0 || accessStride(out, dw) != strideOther {
		return nil
	}
	lo, hi, err := constBounds(op.Domain)
	// unknown: not a box, no block transpose
	if err != nil || lo == nil || !boxSet(nil, op.Domain.TupleName(), lo, hi).IsSubset(op.Domain).Or(false) {
		return nil
	}
	if hi[dc]-lo[dc]+1 < int64(vl) || hi[dw]-lo[dw]+1 < int64(vl) {
		return nil
	}
	return &transposePlan{dc: dc, dw: dw, vl: vl, lo: lo, hi: hi, trans: trans}
}

// emitTranspose emits the block transpose of kb.op: loops over the other dims, then blocks of
// dw and dc, and the per-point nest for the remainders of dw and dc. Split over threads, it is
// one region whose split dim is the other dim of most values, or dw (in whole blocks) when no
// other dim has two values: every element is copied by one task, as in one thread.
func (kb *kernelBuilder) emitTranspose(t *transposePlan) error {
	fb := kb.fb
	op := kb.op
	n := op.NDim()
	vl := int64(t.vl)
	wEnd := t.lo[t.dw] + (t.hi[t.dw]-t.lo[t.dw]+1)/vl*vl // first dw of the remainder
	cEnd := t.lo[t.dc] + (t.hi[t.dc]-t.lo[t.dc]+1)/vl*vl
	var others []int
	split := t.dw
	for d := 0; d < n; d++ {
		if d != t.dc && d != t.dw {
			others = append(others, d)
			if ext := t.hi[d] - t.lo[d]; ext > 0 && (split == t.dw || ext > t.hi[split]-t.lo[split]) {
				split = d
			}
		}
	}
	var clamp *levelClamp
	if kb.par != nil {
		align := int64(1)
		if split == t.dw {
			align = vl
		}
		clamp = kb.beginRegion(i64(t.lo[split]), i64(t.hi[split]), align, split)
	}
	// bounds returns the loop bounds [lo, hi] of dim d, clamped to a task's range
	bounds := func(d int, lo, hi int64) (value.Value, value.Value) {
		if clamp == nil || d != split {
			return i64(lo), i64(hi)
		}
		return clamp.apply(fb, i64(lo), i64(hi))
	}
	dims := make([]value.Value, n)
	scalar := func(wlo, whi, clo, chi int64) error {
		if wlo > whi || clo > chi {
			return nil
		}
		l, h := bounds(t.dw, wlo, whi)
		return fb.loop(l, h, 1, "tw", func(w value.Value) error {
			return fb.loop(i64(clo), i64(chi), 1, "tc", func(c value.Value) error {
				d := append([]value.Value(nil), dims...)
				d[t.dw], d[t.dc] = w, c
				return kb.point(d, 0)
			})
		})
	}
	var nest func(k int) error
	nest = func(k int) error {
		if k < len(others) {
			d := others[k]
			l, h := bounds(d, t.lo[d], t.hi[d])
			return fb.loop(l, h, 1, "t", func(iv value.Value) error {
				dims[d] = iv
				return nest(k + 1)
			})
		}
		l, h := bounds(t.dw, t.lo[t.dw], wEnd-1)
		err := fb.loop(l, h, vl, "tw", func(w0 value.Value) error {
			return fb.loop(i64(t.lo[t.dc]), i64(cEnd-1), vl, "tc", func(c0 value.Value) error {
				return kb.transposeBlock(t, dims, w0, c0)
			})
		})
		if err != nil {
			return err
		}
		// the remainders: the last dw values for every dc, the last dc values of whole dw
		// blocks
		if err := scalar(wEnd, t.hi[t.dw], t.lo[t.dc], t.hi[t.dc]); err != nil {
			return err
		}
		return scalar(t.lo[t.dw], wEnd-1, cEnd, t.hi[t.dc])
	}
	if err := nest(0); err != nil {
		return err
	}
	kb.endRegion()
	return nil
}

// transposeBlock loads the vl×vl block at (w0, c0) of each transposed operand as vl vectors
// along dw, transposes it and stores the body's value on vl vectors along dc (the other
// operands read along dc as the vectors of a nest do).
func (kb *kernelBuilder) transposeBlock(t *transposePlan, dims []value.Value, w0, c0 value.Value) error {
	fb := kb.fb
	op := kb.op
	vl := t.vl
	cols := make([][]value.Value, len(op.Operands))
	for _, k := range t.trans {
		rows := make([]value.Value, vl)
		for i := range rows {
			d := append([]value.Value(nil), dims...)
			d[t.dw], d[t.dc] = w0, fb.add(c0, i64(int64(i)))
			off := fb.offset(kb.ops[k], fb.indexAt(op.Access[k].Pieces[0].Index, d))
			rows[i] = fb.vectorLoad(kb.ops[k], off, vl)
		}
		cols[k] = transposeRegisters(fb, rows)
	}
	for j := 0; j < vl; j++ {
		d := append([]value.Value(nil), dims...)
		d[t.dw], d[t.dc] = fb.add(w0, i64(int64(j))), c0
		bc := &bodyCtx{kb: kb, fb: fb, op: op, dims: d, vl: vl, inner: t.dc, memo: map[*ir.Scalar]value.Value{}}
		op.Body.Walk(func(s *ir.Scalar) {
			if s.Op == ir.SRead && cols[s.Arg] != nil {
				bc.memo[s] = cols[s.Arg][j]
			}
		})
		v, err := bc.emit(op.Body)
		if err != nil {
			return err
		}
		fb.vectorStore(kb.res, fb.offset(kb.res, fb.indexAt(op.Out.Pieces[0].Index, d)), v)
	}
	return nil
}

// transposeRegisters transposes vl vectors of vl lanes: row r lane l of rows is row l lane r
// of the result. For every bit b of the row and lane numbers, swapping the off-diagonal b×b
// blocks of each 2b×2b block exchanges that bit of the two (log2(vl) rounds of two-vector
// shuffles).
func transposeRegisters(fb *funcBuilder, rows []value.Value) []value.Value {
	vl := len(rows)
	for b := vl / 2; b >= 1; b /= 2 {
		next := make([]value.Value, vl)
		for i := 0; i < vl; i++ {
			if i&b != 0 {
				continue
			}
			lo := make([]constant.Constant, vl) // lanes of rows i (0..vl-1) and i+b (vl..2vl-1)
			hi := make([]constant.Constant, vl)
			for l := 0; l < vl; l++ {
				if l&b != 0 {
					lo[l] = constant.NewInt(types.I32, int64(vl+l-b))
					hi[l] = constant.NewInt(types.I32, int64(vl+l))
				} else {
					lo[l] = constant.NewInt(types.I32, int64(l))
					hi[l] = constant.NewInt(types.I32, int64(l+b))
				}
			}
			next[i] = fb.cur.NewShuffleVector(rows[i], rows[i+b], constant.NewVector(types.NewVector(uint64(vl), types.I32), lo...))
			next[i+b] = fb.cur.NewShuffleVector(rows[i], rows[i+b], constant.NewVector(types.NewVector(uint64(vl), types.I32), hi...))
		}
		rows = next
	}
	return rows
}
