// This file turns a scanned loop AST (volume.Node: For, If, Assign, Leaf, Block) into LLVM
// loops. The innermost loop of a vectorized kernel becomes a loop over vectors of vl lanes and
// a scalar remainder loop.

package lower

import (
	"fmt"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/volume"
)

// astEmitter emits the loops of one AST. lev holds the current values of the scanned dims
// (levels); leaf runs the statement at them; vecLeaf, when set, runs it at vl consecutive
// values of the innermost level starting at lev[inner].
type astEmitter struct {
	fb      *funcBuilder
	lev     []value.Value
	leaf    func(lev []value.Value) error
	vl      int
	vecLeaf func(lev []value.Value) error
	// remLeaf, when set with vecLeaf, runs the remainder of a vector loop at once: the
	// count (1 .. vl-1) consecutive values of the innermost level from lev[inner]
	remLeaf func(lev []value.Value, count value.Value) error
	// acc, when set, carries a vector accumulator through each vector loop instead of
	// vecLeaf (a reduction along the innermost dim, see vecAccumulator)
	acc *vecAccumulator
	// rolled keeps the loops rolled (llvm.loop.unroll.disable): the reduction nests of
	// register tiles (see loopmd.go)
	rolled bool
	// clamp, when set, restricts a level to a task's range (parallel.go)
	clamp *levelClamp
	// win, when set, accumulates a windowed reduction in registers over the levels inside
	// its level (window.go)
	win *windowAcc
}

// vecAccumulator is a register carried through the iterations of a vector loop: it starts at
// init before the loop, step folds the points of each iteration into it, and done folds it
// into the result after the loop (before the scalar remainder).
type vecAccumulator struct {
	init func() value.Value
	step func(lev []value.Value, acc value.Value) (value.Value, error)
	done func(lev []value.Value, acc value.Value) error
}

func (e *astEmitter) emit(n volume.Node) error {
	fb := e.fb
	switch n := n.(type) {
	case nil:
		return nil
	case *volume.Block:
		for _, c := range n.Nodes {
			if err := e.emit(c); err != nil {
				return err
			}
		}
		return nil
	case *volume.Leaf:
		return e.leaf(e.lev)
	case *volume.Assign:
		saved := e.lev[n.Dim]
		e.lev[n.Dim] = fb.aff(n.Value, e.lev)
		var err error
		body := func() error {
			if e.win != nil && n.Dim == e.win.level {
				return e.windowPoint(n.Body, 0)
			}
			return e.emit(n.Body)
		}
		if e.clamp != nil && e.clamp.covers(n.Dim) {
			err = fb.ifThen(e.clamp.holds(fb, n.Dim, e.lev, e.lev[n.Dim]), "range", body)
		} else {
			err = body()
		}
		e.lev[n.Dim] = saved
		return err
	case *volume.If:
		cond := fb.conds(n.Conds, e.lev)
		return fb.ifThen(cond, "guard", func() error { return e.emit(n.Then) })
	case *volume.For:
		var lo, hi value.Value
		for i, b := range n.Lower {
			v := fb.aff(b, e.lev)
			if i == 0 {
				lo = v
			} else {
				lo = fb.smax(lo, v)
			}
		}
		for i, b := range n.Upper {
			v := fb.aff(b, e.lev)
			if i == 0 {
				hi = v
			} else {
				hi = fb.smin(hi, v)
			}
		}
		if lo == nil || hi == nil {
			return fmt.Errorf("loop over dimension %d is unbounded", n.Dim)
		}
		if e.clamp != nil && e.clamp.covers(n.Dim) {
			lo, hi = e.clamp.bounds(fb, n.Dim, e.lev, lo, hi)
		}
		step := max(n.Stride, 1)
		if step > 1 {
			off := fb.aff(n.Offset, e.lev)
			d := fb.sub(off, lo)
			m := fb.sub(d, fb.mul(fb.floorDiv(d, step), i64(step)))
			lo = fb.add(lo, m)
		}
		saved := e.lev[n.Dim]
		defer func() { e.lev[n.Dim] = saved }()
		if e.win != nil && n.Dim == e.win.level {
			return e.windowFor(n, lo, hi, step)
		}
		if _, isLeaf := n.Body.(*volume.Leaf); isLeaf && e.vecLeaf != nil && step == 1 && n.Dim == len(e.lev)-1 {
			return e.vectorFor(n.Dim, lo, hi)
		}
		rolled := e.rolled
		if trips, ok := constTrips(n); ok && trips <= 2 {
			// a loop of two trips (a 1-D convolution's two taps, every phase of a stride-4
			// ConvTranspose of 8 taps) kept rolled became a loop on an i1 flag whose phis
			// spilled every accumulator (Zen 3: conv1d 2 taps 128→128 22.8 GFLOP/s, 3 taps
			// 69.8); unrolled, it is straight code
			rolled = false
		}
		return fb.loopMD(lo, hi, step, fmt.Sprintf("d%d", n.Dim), rolled, func(iv value.Value) error {
			e.lev[n.Dim] = iv
			return e.emit(n.Body)
		})
	}
	return fmt.Errorf("unknown AST node %T", n)
}

// vectorFor emits for (iv = lo; iv + vl - 1 <= hi; iv += vl) vecLeaf; then the scalar
// remainder for (; iv <= hi; iv++) leaf, unless the bounds are constants and the vectors cover
// them.
func (e *astEmitter) vectorFor(dim int, lo, hi value.Value) error {
	fb := e.fb
	pre := fb.cur
	header := fb.newBlock("vec.header")
	body := fb.newBlock("vec.body")
	exit := fb.newBlock("vec.exit")
	var accInit value.Value
	if e.acc != nil {
		accInit = e.acc.init()
	}
	pre.NewBr(header)
	iv := header.NewPhi(llvm.NewIncoming(lo, pre))
	fb.known(iv, gcd(fb.multipleOf(lo), int64(e.vl))) // lo, lo + vl, lo + 2vl, ...
	var acc *llvm.InstPhi
	if e.acc != nil {
		acc = header.NewPhi(llvm.NewIncoming(accInit, pre))
	}
	last := header.NewAdd(iv, i64(int64(e.vl-1)))
	header.NewCondBr(header.NewICmp(enum.IPredSLE, last, hi), body, exit)
	fb.cur = body
	e.lev[dim] = iv
	if e.acc != nil {
		next, err := e.acc.step(e.lev, acc)
		if err != nil {
			return err
		}
		acc.Incs = append(acc.Incs, llvm.NewIncoming(next, fb.cur))
	} else if err := e.vecLeaf(e.lev); err != nil {
		return err
	}
	next := fb.cur.NewAdd(iv, i64(int64(e.vl)))
	iv.Incs = append(iv.Incs, llvm.NewIncoming(next, fb.cur))
	fb.cur.NewBr(header)
	fb.cur = exit
	if e.acc != nil {
		if err := e.acc.done(e.lev, acc); err != nil {
			return err
		}
	}
	if l, ok := isConst(lo); ok {
		if h, ok := isConst(hi); ok && (h-l+1)%int64(e.vl) == 0 {
			return nil // no remainder: the vector loop covers lo..hi
		}
	}
	if e.remLeaf != nil {
		count := fb.add(fb.sub(hi, iv), i64(1))
		return fb.ifThen(fb.cur.NewICmp(enum.IPredSGT, count, i64(0)), "vec.rem", func() error {
			e.lev[dim] = iv
			return e.remLeaf(e.lev, count)
		})
	}
	return fb.loop(iv, hi, 1, "vec.rem", func(r value.Value) error {
		e.lev[dim] = r
		return e.leaf(e.lev)
	})
}
