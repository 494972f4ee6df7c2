// This file lowers scatter_elements_rt and scatter_nd_rt (ir/ops_scatter_rt.go). For
// scatter_elements_rt, the result's stored box is a copy of data, then one walk over the
// updates whose coordinates off the axis lie in the box combines each into the element its index names, when that element is stored (a negative
// index counts from the end; an out-of-range one writes nothing). Per element, the updates
// arrive in their order along the axis, as in the search form and the evaluator.

package lower

import (
	"slices"

	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/ir"
)

func emitScatterElementsRT(kb *kernelBuilder) error {
	fb, res, op := kb.fb, kb.res, kb.op
	data, ind, upd := kb.ops[0], kb.ops[1], kb.ops[2]
	r := len(res.ext)
	axis := int(op.Attrs.Int("axis", 0))
	if axis < 0 {
		axis += r
	}
	kind, err := ir.ScatterReductionKind(op)
	if err != nil {
		return err
	}
	elem := op.Result.Type.Elem
	n := fb.extents(op.Result.Type)[axis]
	ulen := fb.extents(upd.v.Type)[axis]
	// over calls body for every index of the stored box, with dim axis over [0, ulen) when walk
	over := func(walk bool, hint string, body func(idx []value.Value) error) error {
		idx := make([]value.Value, r)
		var rec func(d int) error
		rec = func(d int) error {
			if d == r {
				return body(slices.Clone(idx))
			}
			lo, hi := res.lo[d], fb.sub(fb.add(res.lo[d], res.ext[d]), i64(1))
			if walk && d == axis {
				lo, hi = i64(0), fb.sub(ulen, i64(1))
			}
			return fb.loop(lo, hi, 1, hint, func(iv value.Value) error {
				idx[d] = iv
				return rec(d + 1)
			})
		}
		return rec(0)
	}
	store := func(idx []value.Value, v value.Value) {
		fb.cur.NewStore(fb.toMem(v, elem), fb.elemPtr(res, fb.offset(res, idx)))
	}
	if err := over(false, "copy", func(idx []value.Value) error {
		store(idx, kb.loadAt(data, idx...))
		return nil
	}); err != nil {
		return err
	}
	bc := &bodyCtx{kb: kb, fb: fb, op: op, memo: map[*ir.Scalar]value.Value{}}
	alo := res.lo[axis]
	ahi := fb.add(alo, res.ext[axis])
	return over(true, "walk", func(idx []value.Value) error {
		i := kb.loadAt(ind, idx...)
		if it, ok := i.Type().(*types.IntType); ok && it.BitSize < 64 {
			i = fb.cur.NewSExt(i, types.I64)
		}
		i = fb.sel(fb.cur.NewICmp(enum.IPredSLT, i, i64(0)), fb.add(i, n), i)
		// stored (which implies in range): alo <= i < ahi
		in := fb.cur.NewAnd(fb.cur.NewICmp(enum.IPredSGE, i, alo), fb.cur.NewICmp(enum.IPredSLT, i, ahi))
		return fb.ifThen(in, "hit", func() error {
			at := slices.Clone(idx)
			at[axis] = i
			acc := kb.loadAt(res, at...)
			v, err := bc.combine(kind, elem, acc, kb.loadAt(upd, idx...))
			if err != nil {
				return err
			}
			store(at, v)
			return nil
		})
	})
}

// emitScatterNDRT: the stored box is a copy of data; then for every update u (the index
// operands' box, in order) whose indices name a stored row (each wrapped from the end,
// inside the stored box along dims 0..k-1), the update's trailing elements within the stored
// box combine into that row.
func emitScatterNDRT(kb *kernelBuilder) error {
	fb, res, op := kb.fb, kb.res, kb.op
	data, upd := kb.ops[0], kb.ops[1]
	k := len(kb.ops) - 2
	r := len(res.ext)
	kind, err := ir.ScatterReductionKind(op)
	if err != nil {
		return err
	}
	elem := op.Result.Type.Elem
	ext := fb.extents(op.Result.Type)
	uext := fb.extents(kb.ops[2].v.Type)
	p := len(uext)
	// box calls body for every index of a box given by per-dim bounds
	box := func(lo, hi func(d int) value.Value, n int, hint string, body func(idx []value.Value) error) error {
		idx := make([]value.Value, n)
		var rec func(d int) error
		rec = func(d int) error {
			if d == n {
				return body(slices.Clone(idx))
			}
			return fb.loop(lo(d), hi(d), 1, hint, func(iv value.Value) error {
				idx[d] = iv
				return rec(d + 1)
			})
		}
		return rec(0)
	}
	storedLo := func(d int) value.Value { return res.lo[d] }
	storedHi := func(d int) value.Value { return fb.sub(fb.add(res.lo[d], res.ext[d]), i64(1)) }
	store := func(idx []value.Value, v value.Value) {
		fb.cur.NewStore(fb.toMem(v, elem), fb.elemPtr(res, fb.offset(res, idx)))
	}
	if err := box(storedLo, storedHi, r, "copy", func(idx []value.Value) error {
		store(idx, kb.loadAt(data, idx...))
		return nil
	}); err != nil {
		return err
	}
	bc := &bodyCtx{kb: kb, fb: fb, op: op, memo: map[*ir.Scalar]value.Value{}}
	return box(func(int) value.Value { return i64(0) }, func(d int) value.Value { return fb.sub(uext[d], i64(1)) }, p, "walk",
		func(u []value.Value) error {
			var in value.Value
			row := make([]value.Value, k)
			for j := 0; j < k; j++ {
				i := kb.loadAt(kb.ops[2+j], u...)
				if it, ok := i.Type().(*types.IntType); ok && it.BitSize < 64 {
					i = fb.cur.NewSExt(i, types.I64)
				}
				i = fb.sel(fb.cur.NewICmp(enum.IPredSLT, i, i64(0)), fb.add(i, ext[j]), i)
				ok := fb.cur.NewAnd(fb.cur.NewICmp(enum.IPredSGE, i, res.lo[j]),
					fb.cur.NewICmp(enum.IPredSLT, i, fb.add(res.lo[j], res.ext[j])))
				if in == nil {
					in = ok
				} else {
					in = fb.cur.NewAnd(in, ok)
				}
				row[j] = i
			}
			return fb.ifThen(in, "hit", func() error {
				return box(func(d int) value.Value { return storedLo(k + d) }, func(d int) value.Value { return storedHi(k + d) }, r-k, "row",
					func(q []value.Value) error {
						at := append(slices.Clone(row), q...)
						acc := kb.loadAt(res, at...)
						v, err := bc.combine(kind, elem, acc, kb.loadAt(upd, append(slices.Clone(u), q...)...))
						if err != nil {
							return err
						}
						store(at, v)
						return nil
					})
			})
		})
}
