// This file plans the workspace: every intermediate tensor (and the scratch of each arg
// reduction) gets a buffer sized by its region's box; buffers whose lifetimes (the span of op
// indices from definition to last use) do not overlap share a slot; slots are laid out one after
// another, each aligned to 128 bytes. The plan is fixed at compile time; slot sizes are
// computed at run time when they depend on symbolic dims, by the same code in ENTRY and
// ENTRY_workspace_size.

package lower

import (
	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/ir"
)

// wsAlign is the alignment of every buffer in the workspace (the ABI promises the workspace is
// 128-byte aligned; HVX vectors are 128 bytes).
const wsAlign = 128

// planBuf is one buffer of the workspace.
type planBuf struct {
	v          *ir.Value // the tensor; nil for scratch
	op         *ir.Op    // for scratch: the arg reduction or integer convolution that uses it
	fixed      int64     // for an integer convolution's scratch: its size in bytes
	algo       bool      // an algorithm op's scratch (algo.go)
	start, end int       // lifetime in op indices, inclusive
	slot       int
	static     int64 // size in bytes when known at compile time, else -1
}

// bufPlan is the workspace plan of one graph.
type bufPlan struct {
	bufs    []*planBuf
	value   map[*ir.Value]*planBuf
	scratch map[*ir.Op]*planBuf
	slots   [][]*planBuf
}

// bytes emits the size in bytes of buffer b.
func (ec *entryCtx) bytes(fb *funcBuilder, b *planBuf) value.Value {
	if b.v != nil {
		r := ec.regionOf(b.v)
		t := sizingType(ec.g, b.v.Type)
		if !t.Equal(b.v.Type) || ec.regionShrinks(r) {
			// a box or an extent that shrinks as a bounded dim grows (rows j <= 11 - n of a
			// pasted mask), sized at the bounds, could be too small for smaller values: the
			// buffer is sized by the type's extents at their upper bounds (sizingType), which
			// contain the box for every value.
			r = fullRegion
		}
		_, ext := fb.box(r, t)
		return fb.mul(fb.product(ext), i64(int64(b.v.Type.Elem.Size())))
	}
	if b.fixed > 0 {
		return i64(b.fixed)
	}
	if b.algo {
		return ec.algoScratchBytes(fb, b.op)
	}
	r := ec.regionOf(b.op.Result)
	t := sizingType(ec.g, b.op.Result.Type)
	if !t.Equal(b.op.Result.Type) || ec.regionShrinks(r) {
		r = fullRegion // as for a value's buffer
	}
	_, ext := fb.box(r, t)
	return fb.mul(fb.product(ext), i64(9)) // a double and a flag per result element
}

// staticBytes returns the size of b when it does not depend on symbolic dims, else -1; tmp
// receives the instructions of sizes that are not constant.
func (ec *entryCtx) staticBytes(tmp *funcBuilder, b *planBuf) int64 {
	if len(ec.g.Params) > 0 {
		return -1
	}
	if n, ok := isConst(ec.bytes(tmp, b)); ok {
		return n
	}
	return -1
}

// planBuffers assigns the intermediates and scratch buffers of the graph to slots.
func (ec *entryCtx) planBuffers() *bufPlan {
	g := ec.g
	p := &bufPlan{value: map[*ir.Value]*planBuf{}, scratch: map[*ir.Op]*planBuf{}}
	outs := map[*ir.Value]bool{}
	for _, o := range g.Outputs {
		outs[o] = true
	}
	for i, op := range g.Ops {
		if op.Reduce.IsArg() {
			b := &planBuf{op: op, start: i, end: i}
			p.bufs = append(p.bufs, b)
			p.scratch[op] = b
		} else if ir.AlgorithmOf(op) != nil {
			b := &planBuf{op: op, start: i, end: i, algo: true}
			p.bufs = append(p.bufs, b)
			p.scratch[op] = b
		} else if d := ec.intDotOf(op); d != nil && d.scratch > 0 {
			b := &planBuf{op: op, start: i, end: i, fixed: d.scratch}
			p.bufs = append(p.bufs, b)
			p.scratch[op] = b
		} else if nb := ec.nbitsPlan(op); nb != nil && nb.scratch > 0 {
			b := &planBuf{op: op, start: i, end: i, fixed: nb.scratch}
			p.bufs = append(p.bufs, b)
			p.scratch[op] = b
		}
		if outs[op.Result] || ec.alias[op.Result] != nil {
			continue // an aliased value lives in its target's buffer
		}
		b := &planBuf{v: op.Result, start: i, end: i}
		p.bufs = append(p.bufs, b)
		p.value[op.Result] = b
	}
	for i, op := range g.Ops {
		for _, o := range op.Operands {
			if b, ok := p.value[o]; ok && i > b.end {
				b.end = i
			}
		}
	}
	// an epilogue's result is written by its contraction's kernel (epilogue.go)
	pos := map[*ir.Op]int{}
	for i, op := range g.Ops {
		pos[op] = i
	}
	for e, c := range ec.fusedInto {
		if b, ok := p.value[e.Result]; ok {
			b.start = min(b.start, pos[c])
		}
	}
	// a value written in place: its target's buffer lives from the value's writer on
	for v, a := range ec.alias {
		w := v.Def
		if c := ec.fusedInto[w]; c != nil {
			w = c
		}
		if b, ok := p.value[a.target]; ok {
			b.start = min(b.start, pos[w])
		}
	}
	tmp := newFuncBuilder(ec.mc, llvm.NewFunc("graphc.sizing", types.Void))
	for _, b := range p.bufs {
		b.static = ec.staticBytes(tmp, b)
	}
	// greedy in definition order: reuse a slot whose last buffer is dead; with static sizes
	// take the smallest one that fits (else the largest), with symbolic ones the first
	slotEnd := []int{}
	slotSize := []int64{}
	for _, b := range p.bufs {
		best := -1
		for s := range p.slots {
			if slotEnd[s] >= b.start {
				continue
			}
			switch {
			case best < 0:
				best = s
			case b.static < 0 || slotSize[best] < 0 || slotSize[s] < 0:
			case slotSize[best] < b.static && slotSize[s] > slotSize[best]:
				best = s // the current choice is too small: a larger one wastes less growth
			case slotSize[s] >= b.static && slotSize[s] < slotSize[best]:
				best = s
			}
		}
		if best < 0 {
			best = len(p.slots)
			p.slots = append(p.slots, nil)
			slotEnd = append(slotEnd, -1)
			slotSize = append(slotSize, 0)
		}
		b.slot = best
		p.slots[best] = append(p.slots[best], b)
		slotEnd[best] = b.end
		if b.static < 0 || slotSize[best] < 0 {
			slotSize[best] = -1
		} else {
			slotSize[best] = max(slotSize[best], b.static)
		}
	}
	return p
}

// layout emits the byte offset of every slot and the total workspace size.
func (ec *entryCtx) layout(fb *funcBuilder) ([]value.Value, value.Value) {
	offs := make([]value.Value, len(ec.plan.slots))
	var cur value.Value = i64(0)
	for s, members := range ec.plan.slots {
		offs[s] = cur
		var size value.Value = i64(0)
		for _, b := range members {
			if b.static >= 0 {
				size = fb.smax(size, i64(b.static))
			} else {
				size = fb.smax(size, ec.bytes(fb, b))
			}
		}
		cur = fb.alignUp(fb.add(cur, size), wsAlign)
	}
	return offs, cur
}

// alignUp rounds a non-negative a up to a multiple of the power of two al.
func (fb *funcBuilder) alignUp(a value.Value, al int64) value.Value {
	if x, ok := isConst(a); ok {
		return i64((x + al - 1) &^ (al - 1))
	}
	return fb.cur.NewAnd(fb.cur.NewAdd(a, i64(al-1)), i64(^(al - 1)))
}

// regionShrinks reports whether the box of region r may shrink as a bounded dim grows: an
// upper bound that decreases (or a lower bound that increases) with one.
func (ec *entryCtx) regionShrinks(r *region) bool {
	if r == nil || r.full || len(ec.g.Bounded) == 0 {
		return false
	}
	// grows reports whether s is non-decreasing in every bounded dim (sign +1) or
	// non-increasing in every one (sign -1)
	var grows func(s *sym, sign int64) bool
	grows = func(s *sym, sign int64) bool {
		switch s.kind {
		case symAff:
			for _, p := range s.aff.Params {
				if _, ok := ec.g.BoundedParam(p.Name); ok && p.Coef*sign < 0 {
					return false
				}
			}
			for _, f := range s.aff.Floors {
				if ec.g.UsesBounded(f.Num) {
					return false
				}
			}
			return true
		case symScale:
			if s.coef < 0 {
				sign = -sign
			}
		}
		for _, a := range s.args {
			if !grows(a, sign) {
				return false
			}
		}
		return true
	}
	for d := range r.hi {
		for _, s := range r.hi[d] {
			if !grows(s, 1) {
				return true
			}
		}
		for _, s := range r.lo[d] {
			if !grows(s, -1) {
				return true
			}
		}
	}
	return false
}
