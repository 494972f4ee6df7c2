// This file makes padding copies free: when a value's only reader copies it into the interior
// of a larger tensor (the zero-padded input of a convolution, made by channels-last), the value
// is written in place, inside the larger tensor's buffer, by its own producer, and the copy only
// writes the border. Every activation is then written once. The value's view keeps its own box
// and takes the larger buffer's strides.

package lower

import (
	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/ir"
)

// aliasInfo places a value inside another tensor's buffer: element x of the value is element
// x + shift of target.
type aliasInfo struct {
	target *ir.Value
	shift  []int64
	copyOp *ir.Op // the op that copied the value into target, which now writes only the rest
}

// planAliases finds the values written in place into their padded copies (ec.alias) and the
// copies that skip their interior (ec.aliasCopies). It runs after a first buffer plan (kernel
// forms need it) and before the final one.
func (ec *entryCtx) planAliases() {
	ec.alias = map[*ir.Value]*aliasInfo{}
	ec.aliasCopies = map[*ir.Op]*aliasInfo{}
	if ec.mc.cfg.NoEpilogues || len(ec.g.Params) > 0 {
		return
	}
	outs := map[*ir.Value]bool{}
	for _, o := range ec.g.Outputs {
		outs[o] = true
	}
	for _, p := range ec.g.Ops {
		if len(p.Operands) != 1 || p.Reduce != ir.ReduceNone || outs[p.Result] {
			continue
		}
		y := p.Operands[0]
		if y.Def == nil || outs[y] || len(ec.users[y]) != 1 || ec.fusedInto[p] != nil || ec.aliasCopies[y.Def] != nil {
			continue
		}
		shift, ok := interiorCopy(p)
		if !ok || !ec.fullRegion(y) || !ec.fullRegion(p.Result) {
			continue
		}
		kf := ec.formOf(p)
		if kf.parts == nil || !kf.whole {
			continue // a copy that initialises its box first would overwrite the interior
		}
		if !ec.writesInPlace(y) {
			continue
		}
		// the shifted box of y lies in the target's
		ys, _ := y.Type.StaticShape()
		ps, _ := p.Result.Type.StaticShape()
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
		if !inside {
			continue
		}
		a := &aliasInfo{target: p.Result, shift: shift, copyOp: p}
		ec.alias[y] = a
		ec.aliasCopies[p] = a
		delete(ec.bufKeys, y)
	}
}

// interiorCopy reports whether op copies its one operand unchanged where it reads it: the read
// is one piece whose index is the iteration point plus constants (the shift), the result is
// written at the iteration point, and the body is the operand where it is defined.
func interiorCopy(op *ir.Op) ([]int64, bool) {
	acc := op.Access[0]
	if acc.Approx || len(acc.Pieces) != 1 || len(op.Out.Pieces) != 1 || op.Result.Type.Rank() != op.NDim() {
		return nil, false
	}
	for d, a := range op.Out.Pieces[0].Index {
		if !isDim(a, d) {
			return nil, false
		}
	}
	idx := acc.Pieces[0].Index
	if len(idx) != op.NDim() || !op.Operands[0].Type.Elem.IsFloat() || op.Operands[0].Type.Elem != op.Result.Type.Elem {
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
	body := simplifyAvail(op.Body, map[int]bool{0: true}, true)
	if body.Op != ir.SRead || body.Arg != 0 {
		return nil, false
	}
	if _, ok := op.Operands[0].Type.StaticShape(); !ok {
		return nil, false
	}
	return shift, true
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
// a copy whose operand is written in place, the part that copies it.
func (ec *entryCtx) copyParts(op *ir.Op, parts []*ir.Op) []int {
	var out []int
	for i, p := range parts {
		if ec.aliasCopies[op] != nil && p.Body.Op == ir.SRead && p.Body.Arg == 0 {
			continue
		}
		out = append(out, i)
	}
	return out
}
