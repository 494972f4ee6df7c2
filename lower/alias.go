// This file makes padding and concatenation copies free: when a value's only reader copies it
// into part of a larger tensor (the zero-padded input of a convolution, made by channels-last;
// one operand of a concatenation, along any axis, the inner channel dim of a channels-last
// tensor included), the value is written in place, inside the larger tensor's buffer, by its
// own producer, and the copy only writes the rest (the border, the other operands). Every
// activation is then written once. The value's view keeps its own box and takes the larger
// buffer's strides.

package lower

import (
	"slices"

	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// aliasInfo places a value inside another tensor's buffer: element x of the value is element
// x + shift of target.
type aliasInfo struct {
	target *ir.Value
	shift  []int64
	copyOp *ir.Op // the op that copied the value into target, which now writes only the rest
	k      int    // the operand of copyOp that the value is
}

// planAliases finds the values written in place into their copies (ec.alias) and the copies
// that skip their parts (ec.aliasCopies). It runs after a first buffer plan (kernel forms need
// it) and before the final one.
func (ec *entryCtx) planAliases() {
	ec.alias = map[*ir.Value]*aliasInfo{}
	ec.aliasCopies = map[*ir.Op][]*aliasInfo{}
	if ec.mc.cfg.NoEpilogues || len(ec.g.Params) > 0 {
		return
	}
	outs := map[*ir.Value]bool{}
	for _, o := range ec.g.Outputs {
		outs[o] = true
	}
	for _, p := range ec.g.Ops {
		if len(p.Operands) == 0 || p.Reduce != ir.ReduceNone || outs[p.Result] || ec.fusedInto[p] != nil {
			continue
		}
		if !ec.fullRegion(p.Result) {
			continue
		}
		kf := ec.formOf(p)
		if kf.parts == nil || !kf.whole {
			continue // a copy that initialises its box first would overwrite the parts
		}
		ps, _ := p.Result.Type.StaticShape()
		for k, y := range p.Operands {
			if y.Def == nil || outs[y] || len(ec.users[y]) != 1 || ec.aliasCopies[y.Def] != nil || ec.alias[y] != nil {
				continue
			}
			if slices.Index(p.Operands, y) != k || slices.IndexFunc(p.Operands[k+1:], func(o *ir.Value) bool { return o == y }) >= 0 {
				continue // read through two operands
			}
			shift, ok := copiedOperand(p, k)
			if !ok || !ec.fullRegion(y) || !ec.writesInPlace(y) {
				continue
			}
			// the shifted box of y lies in the target's
			ys, _ := y.Type.StaticShape()
			inside := true
			for d := range ys {
				inside = inside && shift[d] >= 0 && shift[d]+ys[d] <= ps[d]
			}
			// y's kernels address it in the target's rows (viewOf), and the trailing extents of
			// 1 of y are skipped when its accesses are classified (accessStrideIn): the target
			// must not pad them, else the last index of y that counts is not unit-stride there
			for d := len(ys) - 1; d >= 0 && ys[d] == 1; d-- {
				inside = inside && ps[d] == 1
			}
			// the part of the copy that reads y writes exactly y's shifted box: y's producer
			// then writes what the part would, and nothing of the other parts
			if !inside || !partIsBox(kf.parts, k, shift, ys) {
				continue
			}
			a := &aliasInfo{target: p.Result, shift: shift, copyOp: p, k: k}
			ec.alias[y] = a
			ec.aliasCopies[p] = append(ec.aliasCopies[p], a)
			delete(ec.bufKeys, y)
		}
	}
}

// copiedOperand reports whether op copies its operand k unchanged where it reads it: the read
// is one piece (guarded or not) whose index is the iteration point plus constants (the shift),
// the result is written at the iteration point, and the body is the operand where it is
// defined (the others undefined: the part of a concatenation or padding that reads k).
func copiedOperand(op *ir.Op, k int) ([]int64, bool) {
	acc := op.Access[k]
	if acc.Approx || len(acc.Pieces) != 1 || len(op.Out.Pieces) != 1 || op.Result.Type.Rank() != op.NDim() {
		return nil, false
	}
	for d, a := range op.Out.Pieces[0].Index {
		if !isDim(a, d) {
			return nil, false
		}
	}
	idx := acc.Pieces[0].Index
	x := op.Operands[k]
	if len(idx) != op.NDim() || !x.Type.Elem.IsFloat() || x.Type.Elem != op.Result.Type.Elem {
		return nil, false
	}
	shift := make([]int64, len(idx))
	for d, a := range idx {
		b := a
		b.Const = 0
		if !isDim(b, d) {
			return nil, false
		}
		shift[d] = -a.Const // operand index x = p - shift: p = x + shift
	}
	others := map[int]bool{}
	for j := range op.Operands {
		if j != k {
			others[j] = true
		}
	}
	body := simplifyAvail(simplifyAvail(op.Body, map[int]bool{k: true}, true), others, false)
	if body.Op != ir.SRead || body.Arg != k {
		return nil, false
	}
	if _, ok := x.Type.StaticShape(); !ok {
		return nil, false
	}
	return shift, true
}

// partIsBox reports whether the guard-split part of a copy that reads operand k (the part
// whose body is that read) runs exactly over the box of extents ys shifted by shift.
func partIsBox(parts []*ir.Op, k int, shift, ys []int64) bool {
	var part *ir.Op
	for _, p := range parts {
		if p.Body.Op == ir.SRead && p.Body.Arg == k {
			if part != nil {
				return false
			}
			part = p
		}
	}
	if part == nil {
		return false
	}
	dom := part.Domain
	var cons []volume.Constraint
	for d := range ys {
		x := volume.AffDim(d)
		cons = append(cons, volume.GE(x, volume.AffConst(shift[d])), volume.GE(volume.AffConst(shift[d]+ys[d]-1), x))
	}
	box := volume.SetFromConstraints(dom.Params(), dom.TupleName(), dom.DimNames(), cons)
	return dom.IsEqual(box) == volume.Yes
}

// fullRegion reports whether v's buffer holds the whole tensor.
func (ec *entryCtx) fullRegion(v *ir.Value) bool {
	r := ec.regionOf(v)
	if r == nil || r.full {
		return true
	}
	shape, ok := v.Type.StaticShape()
	if !ok {
		return false
	}
	for d := range shape {
		if len(r.lo[d]) == 0 {
			return false
		}
		l, lok := symExtreme(true, r.lo[d]).constant()
		h, hok := symExtreme(false, r.hi[d]).constant()
		if !lok || !hok || l > 0 || h < shape[d]-1 {
			return false
		}
	}
	return true
}

// writesInPlace reports whether v's kernel writes it without first initialising its whole box
// (which would overwrite the target's border): an epilogue's result, or the result of a kernel
// that writes every element.
func (ec *entryCtx) writesInPlace(v *ir.Value) bool {
	op := v.Def
	if c := ec.fusedInto[op]; c != nil {
		ch := ec.epi[c]
		return ch.ops[len(ch.ops)-1] == op
	}
	if ec.epi[op] != nil {
		return false // its own result is an intermediate; the chain's last op writes
	}
	kf := ec.formOf(op)
	if kf.tiles != nil {
		// unknown: not written in place (the copy writes every element)
		return kf.tiles.border == nil && ec.readsOnlyWritten(op) && ec.writesWhole(op)
	}
	return kf.whole && op.Reduce == ir.ReduceNone && !op.Reduce.IsArg()
}

// viewOf returns the view of v in a kernel whose parameter ptr is v's buffer (for a value
// written in place, ptr is the target's buffer).
func (ec *entryCtx) viewOf(fb *funcBuilder, v *ir.Value, ptr value.Value) *view {
	a := ec.alias[v]
	if a == nil {
		w := fb.newView(v, ptr, ec.regionOf(v))
		w.aligned = ec.alignedBuffer(v)
		return w
	}
	tlo, text := fb.box(ec.regionOf(a.target), a.target.Type)
	strides := fb.rowMajor(text)
	lo, ext := fb.box(ec.regionOf(v), v.Type)
	var base value.Value = i64(0)
	for d := range lo {
		base = fb.add(base, fb.mul(fb.sub(fb.add(lo[d], i64(a.shift[d])), tlo[d]), strides[d]))
	}
	p := fb.cur.NewGetElementPtr(mustMemType(v.Type.Elem), ptr, base)
	return &view{v: v, ptr: p, lo: lo, ext: ext, strides: strides}
}

// copyParts returns the parts of a guard-split op that its kernel runs: all of them, but for
// a copy whose operands are written in place, the parts that copy them.
func (ec *entryCtx) copyParts(op *ir.Op, parts []*ir.Op) []int {
	var out []int
	for i, p := range parts {
		if p.Body.Op == ir.SRead && slices.ContainsFunc(ec.aliasCopies[op], func(a *aliasInfo) bool { return a.k == p.Body.Arg }) {
			continue
		}
		out = append(out, i)
	}
	return out
}
