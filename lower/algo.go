// This file lowers algorithm ops (ir/ops_algo.go): ops whose semantics is an algorithm, not a
// per-point body, get a kernel of their own, emitted by the row of algoKernels named after the
// op. Each computes its whole result for the rows of the result's stored box in a scratch
// buffer of the workspace, then copies the stored box out: a domain DIE restricted (only the
// first k ranks of a sort read) stores fewer elements, and the algorithm still needs them all.

package lower

import (
	"fmt"
	"slices"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/ir"
)

// algoKernel emits the body of an algorithm op's kernel.
type algoKernel struct {
	// scratch is the scratch bytes per element of one row of the result (the last axis)
	scratch int64
	// scratchBytes, when set, is the scratch size instead (the op's whole kernel)
	scratchBytes func(fb *funcBuilder, op *ir.Op) value.Value
	emit         func(kb *kernelBuilder) error
}

// algoKernels are the algorithm ops' kernels, by op name.
var algoKernels = map[string]algoKernel{
	"argsort":   {scratch: 8, emit: emitArgsort},
	"nms":       {scratchBytes: nmsScratchBytes, emit: emitNMS},
	"roi_align": {scratchBytes: roiScratchBytes, emit: emitRoiAlign},
	// no scratch: the result is the working copy
	"scatter_elements_rt": {emit: emitScatterElementsRT},
	"scatter_nd_rt":       {emit: emitScatterNDRT},
	"nonzero_positions":   {emit: emitNonzeroPositions},
}

func planAlgorithmFamily(ec *entryCtx, op *ir.Op, kf *kernelForm) string {
	if ir.AlgorithmOf(op) == nil {
		return "not an algorithm op"
	}
	if _, ok := algoKernels[op.Kind]; !ok {
		return "no kernel for algorithm " + op.Kind
	}
	kf.algo, kf.name, kf.whole = true, "algorithm "+op.Kind, true
	return ""
}

// algoScratchBytes emits the scratch size of algorithm op: one row of its full result.
func (ec *entryCtx) algoScratchBytes(fb *funcBuilder, op *ir.Op) value.Value {
	k := algoKernels[op.Kind]
	if k.scratchBytes != nil {
		return k.scratchBytes(fb, op)
	}
	t := op.Result.Type
	ext := fb.extents(t)
	return fb.mul(ext[len(ext)-1], i64(k.scratch))
}

// emitAlgorithm emits the kernel of an algorithm op.
func (kb *kernelBuilder) emitAlgorithm() error {
	return algoKernels[kb.op.Kind].emit(kb)
}

// rows calls body for every index of the result's stored box but its last axis.
func (kb *kernelBuilder) rows(body func(idx []value.Value) error) error {
	fb, res := kb.fb, kb.res
	r := len(res.ext) - 1
	idx := make([]value.Value, r)
	var rec func(d int) error
	rec = func(d int) error {
		if d == r {
			return body(slices.Clone(idx))
		}
		return fb.loop(res.lo[d], fb.sub(fb.add(res.lo[d], res.ext[d]), i64(1)), 1, "row", func(iv value.Value) error {
			idx[d] = iv
			return rec(d + 1)
		})
	}
	return rec(0)
}

// variable is a mutable local of the kernel (a stack slot LLVM promotes to a register).
type variable struct {
	kb *kernelBuilder
	p  value.Value
	t  types.Type
}

func (kb *kernelBuilder) variable(t types.Type, init value.Value) *variable {
	v := &variable{kb: kb, p: kb.entryAlloca(t), t: t}
	v.set(init)
	return v
}

func (v *variable) get() value.Value  { return v.kb.fb.cur.NewLoad(v.t, v.p) }
func (v *variable) set(x value.Value) { v.kb.fb.cur.NewStore(x, v.p) }

// whileLoop emits `while (cond()) body()`; body returns whether to go on (false: break).
func (fb *funcBuilder) whileLoop(hint string, cond func() value.Value, body func() (value.Value, error)) error {
	header := fb.newBlock(hint + ".while")
	bodyB := fb.newBlock(hint + ".do")
	exit := fb.newBlock(hint + ".done")
	fb.cur.NewBr(header)
	fb.cur = header
	fb.cur.NewCondBr(cond(), bodyB, exit)
	fb.cur = bodyB
	more, err := body()
	if err != nil {
		return err
	}
	fb.cur.NewCondBr(more, header, exit)
	fb.cur = exit
	return nil
}

// copyOut stores list[k] (an i64 scratch row of the full last axis) into the result row idx for
// the stored box's k, or fill where k >= count (count nil: no fill).
func (kb *kernelBuilder) copyOut(idx []value.Value, list value.Value, count value.Value, fill int64) error {
	fb, res := kb.fb, kb.res
	r := len(res.ext) - 1
	lo := res.lo[r]
	return fb.loop(lo, fb.sub(fb.add(lo, res.ext[r]), i64(1)), 1, "copy", func(k value.Value) error {
		v := fb.cur.NewLoad(types.I64, fb.cur.NewGetElementPtr(types.I64, list, k))
		var x value.Value = v
		if count != nil {
			x = fb.sel(fb.cur.NewICmp(enum.IPredSLT, k, count), v, i64(fill))
		}
		off := fb.offset(res, append(slices.Clone(idx), k))
		fb.cur.NewStore(fb.toMem(x, ir.I64), fb.elemPtr(res, off))
		return nil
	})
}

// loadAt loads operand view w at index idx as the register form of its element.
func (kb *kernelBuilder) loadAt(w *view, idx ...value.Value) value.Value {
	return kb.fb.loadElem(w, kb.fb.offset(w, idx))
}

// sortsBefore emits ir.SortsBefore of values a (index i) and b (index j).
func (fb *funcBuilder) sortsBefore(a, b, i, j value.Value, float, desc bool) value.Value {
	c := fb.cur
	if !float {
		p := enum.IPredSGT
		if !desc {
			p = enum.IPredSLT
		}
		return c.NewOr(c.NewICmp(p, a, b), c.NewAnd(c.NewICmp(enum.IPredEQ, a, b), c.NewICmp(enum.IPredSLT, i, j)))
	}
	p := enum.FPredOGT
	if !desc {
		p = enum.FPredOLT
	}
	na, nb := c.NewFCmp(enum.FPredUNO, a, a), c.NewFCmp(enum.FPredUNO, b, b)
	both := c.NewAnd(na, nb)
	// one NaN: it comes first when descending
	var oneNaN value.Value = c.NewAnd(na, c.NewXor(nb, constant.True))
	if !desc {
		oneNaN = c.NewAnd(nb, c.NewXor(na, constant.True))
	}
	eq := c.NewFCmp(enum.FPredOEQ, a, b)
	num := c.NewOr(c.NewFCmp(p, a, b), c.NewAnd(eq, c.NewICmp(enum.IPredSLT, i, j)))
	return c.NewOr(c.NewAnd(both, c.NewICmp(enum.IPredSLT, i, j)), c.NewOr(oneNaN, num))
}

// emitArgsort: for every row, a heap sort in scratch (the root holds the index that sorts
// last, so the sorted order builds from the end), then the copy of the stored box. Only the
// first h = min(L, hi) ranks are sorted, hi the end of the stored box along the row (TopK's k
// where DIE cut the ranks to a slice): a heap of the first h indices, then every later index
// that sorts before the root replaces it (a selection in L·log h, most indices failing one
// comparison), then the heap sorted. The order is total (ties by index), so the first h ranks
// are those of the whole sort.
func emitArgsort(kb *kernelBuilder) error {
	fb := kb.fb
	x := kb.ops[0]
	r := len(kb.res.ext) - 1
	n := fb.extents(kb.op.Result.Type)[r]
	// at least one: an empty stored box still sorts a heap of one (no root to compare with otherwise)
	h := fb.smin(n, fb.smax(fb.add(kb.res.lo[r], kb.res.ext[r]), i64(1)))
	perm := fb.cur.NewBitCast(kb.scratch, types.NewPointer(types.I64))
	float := x.v.Type.Elem.IsFloat()
	desc := kb.op.Attrs.Int("descending", 1) != 0
	return kb.rows(func(idx []value.Value) error {
		key := func(i value.Value) value.Value {
			return kb.loadAt(x, append(slices.Clone(idx), i)...)
		}
		at := func(k value.Value) value.Value {
			return fb.cur.NewLoad(types.I64, fb.cur.NewGetElementPtr(types.I64, perm, k))
		}
		put := func(k, v value.Value) { fb.cur.NewStore(v, fb.cur.NewGetElementPtr(types.I64, perm, k)) }
		// after: p sorts after q (the heap's root is the element that sorts last)
		after := func(p, q value.Value) value.Value { return fb.sortsBefore(key(q), key(p), q, p, float, desc) }
		if err := fb.loop(i64(0), fb.sub(h, i64(1)), 1, "iota", func(i value.Value) error { put(i, i); return nil }); err != nil {
			return err
		}
		// siftDown(root, end): restore the heap below root within [0, end)
		siftDown := func(root0, end value.Value) error {
			root := kb.variable(types.I64, root0)
			return fb.whileLoop("sift", func() value.Value {
				return fb.cur.NewICmp(enum.IPredSLT, fb.add(fb.mul(root.get(), i64(2)), i64(1)), end)
			}, func() (value.Value, error) {
				rt := root.get()
				child := fb.add(fb.mul(rt, i64(2)), i64(1))
				right := fb.add(child, i64(1))
				hasRight := fb.cur.NewICmp(enum.IPredSLT, right, end)
				// the child that sorts later (guarded: right may lie past end)
				rv := fb.sel(hasRight, right, child)
				cv, rvv := at(child), at(rv)
				pick := fb.sel(fb.cur.NewAnd(hasRight, after(rvv, cv)), rv, child)
				pv, rootv := at(pick), at(rt)
				swap := after(pv, rootv)
				more := kb.variable(types.I1, constant.False)
				if err := fb.ifThen(swap, "swap", func() error {
					put(rt, pv)
					put(pick, rootv)
					root.set(pick)
					more.set(constant.True)
					return nil
				}); err != nil {
					return nil, err
				}
				return more.get(), nil
			})
		}
		// heapify: roots h/2-1 down to 0
		start := kb.variable(types.I64, fb.sdivConst(h, 2))
		if err := fb.whileLoop("heapify", func() value.Value {
			return fb.cur.NewICmp(enum.IPredSGT, start.get(), i64(0))
		}, func() (value.Value, error) {
			s := fb.sub(start.get(), i64(1))
			start.set(s)
			return constant.True, siftDown(s, h)
		}); err != nil {
			return err
		}
		// select: an index that sorts before the root (the last of the h kept) replaces it
		if err := fb.loop(h, fb.sub(n, i64(1)), 1, "select", func(i value.Value) error {
			return fb.ifThen(after(at(i64(0)), i), "replace", func() error {
				put(i64(0), i)
				return siftDown(i64(0), h)
			})
		}); err != nil {
			return err
		}
		end := kb.variable(types.I64, h)
		if err := fb.whileLoop("pop", func() value.Value {
			return fb.cur.NewICmp(enum.IPredSGT, end.get(), i64(1))
		}, func() (value.Value, error) {
			e := fb.sub(end.get(), i64(1))
			end.set(e)
			top, last := at(i64(0)), at(e)
			put(e, top)
			put(i64(0), last)
			return constant.True, siftDown(i64(0), e)
		}); err != nil {
			return err
		}
		return kb.copyOut(idx, perm, nil, 0)
	})
}

// emitNMS: for every (batch, class) of the stored box, the candidates in order; each one that
// passes the score threshold is tested against the boxes kept so far and appended when none
// suppresses it, until the limit; then the list, padded with -1, is copied out. The kept boxes
// live in scratch after the list of kept indices, structure of arrays (nmsScratchBytes), so that a
// candidate meets nmsLanes of them at once; the test leaves at the first vector where a lane
// suppresses. Every lane does the scalar test's operations (onnxruntime's float32 IoU, the
// division included), so the selection is the same bit for bit.
func emitNMS(kb *kernelBuilder) error {
	fb := kb.fb
	op := kb.op
	boxes, scores, order := kb.ops[0], kb.ops[1], kb.ops[2]
	full := fb.extents(op.Result.Type)
	l := full[2]
	n := fb.extents(scores.v.Type)[2]
	w := nmsLanes(fb.mc)
	list := fb.cur.NewBitCast(kb.scratch, types.NewPointer(types.I64))
	kept := fb.cur.NewBitCast(fb.cur.NewGetElementPtr(types.I8, kb.scratch, fb.mul(l, i64(8))), types.NewPointer(types.Float))
	capacity := fb.add(l, i64(int64(w)))
	// arr returns the address of element k of kept array m (nmsScratchBytes)
	arr := func(m int, k value.Value) value.Value {
		return fb.cur.NewGetElementPtr(types.Float, kept, fb.add(fb.mul(capacity, i64(int64(m))), k))
	}
	iou := constant.NewFloat(types.Float, float64(float32(op.Attrs.Float("iou_threshold", 0))))
	st := constant.NewFloat(types.Float, float64(float32(op.Attrs.Float("score_threshold", 0))))
	hasST := op.Attrs.Int("has_score_threshold", 0) != 0
	center := op.Attrs.Int("center_point_box", 0) != 0
	c := func() *llvm.Block { return fb.cur }
	fmax := func(a, b value.Value) value.Value { return fb.sel(c().NewFCmp(enum.FPredOGT, a, b), a, b) }
	fmin := func(a, b value.Value) value.Value { return fb.sel(c().NewFCmp(enum.FPredOLT, a, b), a, b) }
	// the lanes' forms of scalars and constants (w == 1: the scalars themselves)
	var vt types.Type = types.Float
	spl := func(x value.Value) value.Value { return x }
	if w > 1 {
		vt = types.NewVector(uint64(w), types.Float)
		spl = func(x value.Value) value.Value {
			if k, ok := x.(constant.Constant); ok {
				return splat(k, w)
			}
			return splatValue(fb, x, w)
		}
	}
	load := func(m int, k value.Value) value.Value {
		ld := c().NewLoad(vt, c().NewBitCast(arr(m, k), types.NewPointer(vt)))
		ld.Align = 4
		return ld
	}
	return kb.rows(func(idx []value.Value) error {
		b, cl := idx[0], idx[1]
		count := kb.variable(types.I64, i64(0))
		t := kb.variable(types.I64, i64(0))
		if err := fb.whileLoop("cand", func() value.Value {
			return c().NewAnd(c().NewICmp(enum.IPredSLT, t.get(), n), c().NewICmp(enum.IPredSLT, count.get(), l))
		}, func() (value.Value, error) {
			tv := t.get()
			t.set(fb.add(tv, i64(1)))
			i := kb.loadAt(order, b, cl, tv)
			var ok value.Value = constant.True
			if hasST {
				ok = c().NewFCmp(enum.FPredOGT, kb.loadAt(scores, b, cl, i), st)
			}
			err := fb.ifThen(ok, "cand", func() error {
				var q [4]value.Value
				for k := range q {
					q[k] = kb.loadAt(boxes, b, i, i64(int64(k)))
				}
				var y0, x0, y1, x1 value.Value
				if center {
					two := constant.NewFloat(types.Float, 2)
					w, h := c().NewFDiv(q[2], two), c().NewFDiv(q[3], two)
					y0, x0, y1, x1 = c().NewFSub(q[1], h), c().NewFSub(q[0], w), c().NewFAdd(q[1], h), c().NewFAdd(q[0], w)
				} else {
					y0, x0, y1, x1 = fmin(q[0], q[2]), fmin(q[1], q[3]), fmax(q[0], q[2]), fmax(q[1], q[3])
				}
				a2 := c().NewFMul(c().NewFSub(x1, x0), c().NewFSub(y1, y0))
				// is it suppressed by a kept box? w of them at a time
				sup := kb.variable(types.I1, constant.False)
				j := kb.variable(types.I64, i64(0))
				cnt := count.get()
				vy0, vx0, vy1, vx1, va2 := spl(y0), spl(x0), spl(y1), spl(x1), spl(a2)
				if err := fb.whileLoop("kept", func() value.Value {
					return c().NewICmp(enum.IPredSLT, j.get(), cnt)
				}, func() (value.Value, error) {
					jv := j.get()
					j.set(fb.add(jv, i64(int64(w))))
					var p [4]value.Value
					for k := range p {
						p[k] = load(k, jv)
					}
					a1 := load(4, jv)
					ixlo, ixhi := fmax(p[1], vx0), fmin(p[3], vx1)
					iylo, iyhi := fmax(p[0], vy0), fmin(p[2], vy1)
					inter := c().NewFMul(c().NewFSub(ixhi, ixlo), c().NewFSub(iyhi, iylo))
					union := c().NewFSub(c().NewFAdd(a1, va2), inter)
					zero := spl(constant.NewFloat(types.Float, 0))
					gt := func(a, b value.Value) value.Value { return c().NewFCmp(enum.FPredOGT, a, b) }
					var s value.Value = c().NewAnd(c().NewAnd(gt(ixhi, ixlo), gt(iyhi, iylo)), c().NewAnd(gt(inter, zero), gt(a1, zero)))
					s = c().NewAnd(s, c().NewAnd(gt(va2, zero), gt(union, zero)))
					s = c().NewAnd(s, gt(c().NewFDiv(inter, union), spl(iou)))
					if w > 1 {
						// lanes at or past cnt hold no kept box (their memory is not written:
						// the select, not an and, keeps their value out)
						rem := c().NewTrunc(fb.smin(fb.sub(cnt, jv), i64(int64(w))), types.I32)
						lanes := make([]constant.Constant, w)
						for k := range lanes {
							lanes[k] = i32c(int64(k))
						}
						in := c().NewICmp(enum.IPredSLT, constant.NewVector(types.NewVector(uint64(w), types.I32), lanes...), splatValue(fb, rem, w))
						s = c().NewSelect(in, s, splat(constant.False, w))
						s = c().NewICmp(enum.IPredNE, c().NewBitCast(s, types.NewInt(uint64(w))), constant.NewInt(types.NewInt(uint64(w)), 0))
					}
					sup.set(s)
					return c().NewXor(s, constant.True), nil
				}); err != nil {
					return err
				}
				return fb.ifThen(c().NewXor(sup.get(), constant.True), "keep", func() error {
					k := count.get()
					c().NewStore(i, c().NewGetElementPtr(types.I64, list, k))
					for m, v := range []value.Value{y0, x0, y1, x1, a2} {
						c().NewStore(v, arr(m, k))
					}
					count.set(fb.add(k, i64(1)))
					return nil
				})
			})
			return constant.True, err
		}); err != nil {
			return err
		}
		return kb.copyOut(idx, list, count.get(), -1)
	})
}

// nmsLanes is the number of kept boxes a candidate is tested against at once: a vector of
// floats, at most 8 (a class's kept boxes are few; wider vectors would test mostly empty
// lanes), or 1 where floats do not vectorise or where the target's float selects need a
// barrier (Hexagon: funcBuilder.launder is scalar).
func nmsLanes(mc *moduleCtx) int {
	if !mc.vecFloat || mc.vecBytes < 16 || mc.tgt.FloatSelectBarrier {
		return 1
	}
	return min(mc.vecBytes/4, 8)
}

// nmsScratchBytes is the scratch of nms (nmsScratchBytes): the list of kept indices (i64), then the
// kept boxes' y0, x0, y1, x1 and area (float32) as five arrays of l + nmsLanes elements each
// (the last vector of kept boxes may read up to nmsLanes-1 lanes past the l-th).
func nmsScratchBytes(fb *funcBuilder, op *ir.Op) value.Value {
	l := fb.extents(op.Result.Type)[2]
	return fb.add(fb.mul(l, i64(8+5*4)), i64(5*4*int64(nmsLanes(fb.mc))))
}

// algoKeyAttrs returns the attributes of an algorithm op, for its kernel's key (its body is a
// placeholder that does not say what the attributes decide).
func algoKeyAttrs(op *ir.Op) string {
	if ir.AlgorithmOf(op) == nil {
		return ""
	}
	return fmt.Sprint(op.Attrs)
}
