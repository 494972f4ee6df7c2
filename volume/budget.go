// This file holds the work budget of an operation: every exact test and elimination an operation
// runs spends from one budget (and checks the caller's context, when there is one), so that a
// public operation stops with ErrTooComplex (or the context's error) after a bounded amount of
// work, however many tests it runs.

package volume

import (
	"context"
	"fmt"
)

// maxOpWork bounds the work of one public operation, in constraint rows processed by the Omega
// test and by projections (each elimination step counts the rows it rewrites). Tensor-sized
// operations need a few thousand; 1,000,000 take 0.2 to 0.9 s (the nested mods of FuzzParse's
// corpus), past which the operation stops with ErrTooComplex. One emptiness test had 500,000
// and an operation ran any number of them; half the budget leaves room for coalescing, whose
// compact results keep the rest of an operation cheap (a random map's domain, range and their
// equality need 0.6 M together).
const maxOpWork = 1_000_000

// ctxCheckEvery is the work between two checks of the context of an operation.
const ctxCheckEvery = 4096

// budget is the work an operation may still do. A budget with a parent is a local allowance
// inside it (the test of a redundancy or of a scanning guard, which answers "undecided" when
// its own allowance runs out): spending from it spends from the parent too.
type budget struct {
	left   int
	parent *budget
	ctx    context.Context // nil: no context
	tick   int             // work since the last context check
}

// newBudget returns the budget of one operation, checking ctx (which may be nil).
func newBudget(ctx context.Context) *budget {
	if ctx != nil && ctx.Done() == nil {
		ctx = nil // never done (context.Background): no checks
	}
	return &budget{left: maxOpWork, ctx: ctx}
}

// child returns a local allowance of n inside bg (bg may be nil: then the allowance stands
// alone).
func (bg *budget) child(n int) *budget { return &budget{left: n, parent: bg} }

// maxOptionalWork bounds the allowance of one optional test (a redundant constraint, a pair of
// pieces to coalesce, a sample point for coalescing): such a test is left undecided past it.
const maxOptionalWork = 50_000

// optional returns the allowance of one optional test inside bg: maxOptionalWork, at most a
// quarter of what bg has left, so that optional work never takes what the operation needs.
// Refill it for each further test (one allocation for a sequence of tests).
func (bg *budget) optional() *budget { return bg.child(0).refill() }

// refill resets the local allowance l (from optional) for its next test.
func (l *budget) refill() *budget {
	l.left = maxOptionalWork
	if l.parent != nil {
		l.left = min(l.left, l.parent.remaining()/4)
	}
	return l
}

// remaining is what bg and the budgets it is part of have left (maxOpWork for nil).
func (bg *budget) remaining() int {
	if bg == nil {
		return maxOpWork
	}
	n := bg.left
	if bg.parent != nil {
		n = min(n, bg.parent.remaining())
	}
	return n
}

// lowOnWork reports whether bg has less than half an operation's budget left: optional steps
// (coalescing, redundancy removal) stop there, leaving the result exact but less compact.
func (bg *budget) lowOnWork() bool { return bg.remaining() < maxOpWork/2 }

// orNew returns bg, or the budget of a new operation when bg is nil (internal callers that do
// not pass one on).
func (bg *budget) orNew() *budget {
	if bg == nil {
		return newBudget(nil)
	}
	return bg
}

// spend spends n; it panics with tooComplex when bg (or a budget it is part of) is exhausted,
// and with ctxDone when the context of the operation is done.
func (bg *budget) spend(n int) {
	if bg.parent != nil {
		bg.parent.spend(n)
	}
	bg.left -= n
	if bg.left < 0 {
		panic(tooComplex{what: fmt.Sprintf("an operation exceeds its budget of row operations (%d)", bg.size()), bg: bg, fatal: bg.parent == nil})
	}
	if bg.ctx != nil {
		bg.tick += n
		if bg.tick >= ctxCheckEvery {
			bg.tick = 0
			if err := bg.ctx.Err(); err != nil {
				panic(ctxDone{err})
			}
		}
	}
}

// size is the budget's initial allowance (for messages).
func (bg *budget) size() int {
	if bg.parent == nil {
		return maxOpWork
	}
	return bg.left
}

// ctxDone is the panic value of an operation whose context is done; try returns err.
type ctxDone struct{ err error }

// undecided reports whether the panic value r leaves a local test undecided: a structural bound
// of an elimination or the exhaustion of a local allowance. The exhaustion of an operation's
// budget, a done context and every other panic are not: they must reach the operation.
func undecided(r any) bool {
	tc, ok := r.(tooComplex)
	return ok && !tc.fatal
}
