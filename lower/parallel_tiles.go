// This file splits the kernels whose loops are written by hand rather than scanned from a
// domain, the integer dot-product kernels (intdot.go) and the matmul_nbits kernels (nbits.go),
// over threads (parallel.go). One loop over output tiles is split: a loop over row or column
// tiles of a product, over output rows of a convolution, over pixel or channel tiles, or over
// the output columns of matmul_nbits. Its iterations write disjoint result elements, and each
// tile runs its whole reduction in the order of one thread: outputs are bit-identical for any
// number of threads.
//
// A region's values are pos·T + t, t the tile and pos the position of the loops around the
// split loop (a batch dim, or a counter of matmul_nbits' row groups), so that a region begun
// inside a loop gives each of its iterations distinct values: a task then walks the loops
// around it as the whole-range call does, and finds its tiles at one position only (the
// clamp of the others is empty). Work that every tile reads, done inside such a loop before
// the region (the interleaved copy of a convolution's input, the copy of matmul_nbits' row of
// A), runs in the whole-range call only (wholeOnly), before it hands the region's tiles out.

package lower

import (
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// tileSplit is the split loop of a hand-written kernel: the loop with that hint, of T
// iterations per position of the loops around it; clamp is the task's range of the region's
// values, and pos the position (set by the loops around the split loop; nil: 0).
type tileSplit struct {
	loop  string
	T     int64
	clamp *levelClamp
	pos   value.Value
}

// tiles returns the first and last iteration [lo, hi] of the split loop that the task runs at
// the current position (lo > hi: none), computed on the region's values so that the
// whole range's bounds (INT64_MIN, INT64_MAX) do not overflow.
func (s *tileSplit) tiles(fb *funcBuilder) (lo, hi value.Value) {
	var base value.Value = i64(0)
	if s.pos != nil {
		base = fb.mul(s.pos, i64(s.T))
	}
	l := fb.smax(base, s.clamp.pb)
	h := fb.smin(fb.add(base, i64(s.T-1)), fb.sub(s.clamp.pe, i64(1)))
	return fb.sub(l, base), fb.sub(h, base)
}

// beginTileRegion begins the region of a kernel whose loop hint (T iterations per position)
// is split, over positions [0, positions) of the loops around it (the region is begun
// outside them), or, with at not nil, at position at only (the region is begun inside them).
// align > 1 starts the tasks' iterations at multiples of align (T is then a multiple of
// it). It does nothing in a kernel that is not split; endTileRegion closes the region.
func (kb *kernelBuilder) beginTileRegion(hint string, T, positions int64, at value.Value, align int64) {
	if kb.par == nil {
		return
	}
	fb := kb.fb
	var lo, hi value.Value = i64(0), i64(positions*T - 1)
	if at != nil {
		// a task must not take the whole range for the serial kernel's whole work
		kb.par.loops = true
		lo = fb.mul(at, i64(T))
		hi = fb.add(lo, i64(T-1))
	}
	s := &tileSplit{loop: hint, T: T, pos: at}
	s.clamp = kb.beginRegion(lo, hi, align, 0)
	kb.tsplit = s
}

// endTileRegion closes the region begun by beginTileRegion.
func (kb *kernelBuilder) endTileRegion() {
	if kb.tsplit == nil {
		return
	}
	kb.tsplit = nil
	kb.endRegion()
}

// splitBounds returns the bounds [lo, hi] of the loop with hint over the iterations [0, n),
// clamped to the task's when it is the split loop.
func (kb *kernelBuilder) splitBounds(hint string, n int64) (lo, hi value.Value, split bool) {
	if s := kb.tsplit; s != nil && s.loop == hint && s.clamp != nil {
		l, h := s.tiles(kb.fb)
		return l, kb.fb.smin(h, i64(n-1)), true
	}
	return i64(0), i64(n - 1), false
}

// wholeOnly emits what body emits so that in a split kernel only the whole-range call runs it
// (the tasks find its result done).
func (kb *kernelBuilder) wholeOnly(hint string, body func() error) error {
	if kb.par == nil {
		return body()
	}
	return kb.fb.ifThen(kb.wholeRange(), hint, body)
}

// forTileRange covers the items [0, n) in tiles of size as forTiles does, restricted to the
// tiles [lo, hi]: the full ones in a loop, the tail one when in the range.
func (kb *kernelBuilder) forTileRange(n, size int64, lo, hi value.Value, hint string, tile func(t value.Value, cnt int64) error) error {
	fb := kb.fb
	full, tail := n/size, n%size
	if err := fb.loop(lo, fb.smin(hi, i64(full-1)), 1, hint, func(t value.Value) error {
		return tile(t, size)
	}); err != nil {
		return err
	}
	if tail == 0 {
		return nil
	}
	in := fb.and1(fb.cur.NewICmp(enum.IPredSLE, lo, i64(full)), fb.cur.NewICmp(enum.IPredSGE, hi, i64(full)))
	return fb.ifThen(in, hint+".tail", func() error { return tile(i64(full), tail) })
}

// intDotSplit begins the region of integer dot-product kernel d, whose loops around the tiles
// are its outer result dims (outer of them, begun outside them) or, with at, the image at
// (begun inside the image loop): the tile loop with more iterations of the two given is split
// (the first on ties).
func (kb *kernelBuilder) intDotSplit(d *intDot, outer int, at value.Value, a string, na int64, b string, nb int64) {
	positions := int64(1)
	for k := 0; k < outer; k++ {
		positions *= d.hi[k] - d.lo[k] + 1
	}
	if nb > na {
		a, na = b, nb
	}
	kb.beginTileRegion(a, na, positions, at, 1)
}

// setOuter records the position of the outer result dims around the tiles (the values of
// outerLoops) for the split loop.
func (kb *kernelBuilder) setOuter(d *intDot, outer []value.Value) {
	s := kb.tsplit
	if s == nil || len(outer) == 0 {
		return
	}
	fb := kb.fb
	var pos value.Value = i64(0)
	for k, v := range outer {
		pos = fb.add(fb.mul(pos, i64(d.hi[k]-d.lo[k]+1)), fb.sub(v, i64(d.lo[k])))
	}
	s.pos = pos
}

// ceilDiv is ⌈a / b⌉ for positive b.
func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// nbitsColumnAlign is the alignment of a task's first column of matmul_nbits' GEMV form: a
// multiple of every column step of the form (nbitsColumns and nbitsNibbleColumns divided by
// the rows of a group), so that every column takes the step it takes in one thread.
func nbitsColumnAlign() int64 {
	return nbitsColumns * nbitsNibbleColumns / gcd(nbitsColumns, nbitsNibbleColumns)
}

// nbitsColumnRegion begins the region of a matmul_nbits kernel split over its n columns in
// steps of align (a multiple of every step its column loops take): at position pos (a counter
// of the loops around it, nil when begun outside every loop). It returns the columns
// [lo, hi] the task computes; without a split, [0, n - 1]. endTileRegion closes it.
func (kb *kernelBuilder) nbitsColumnRegion(n, align int64, pos value.Value) (lo, hi value.Value) {
	if kb.par == nil {
		return i64(0), i64(n - 1)
	}
	T := ceilDiv(n, align) * align
	kb.beginTileRegion("nbits.cols", T, 1, pos, align)
	lo, hi, _ = kb.splitBounds("nbits.cols", n)
	return lo, hi
}

// nbitsCounter returns a counter of a kernel's row groups, set to zero, for the positions of
// regions begun inside the loop over them (nil in a kernel that is not split).
func (kb *kernelBuilder) nbitsCounter() value.Value {
	if kb.par == nil {
		return nil
	}
	c := kb.entryAlloca(types.I64)
	kb.fb.cur.NewStore(i64(0), c)
	return c
}

// nextGroup advances counter (nbitsCounter) and returns its value before.
func (kb *kernelBuilder) nextGroup(counter value.Value) value.Value {
	if counter == nil {
		return nil
	}
	fb := kb.fb
	v := fb.cur.NewLoad(types.I64, counter)
	fb.cur.NewStore(fb.add(v, i64(1)), counter)
	return v
}

// nbitsPanel returns the float panel of matmul_nbits' GEMM form: the workspace scratch, or in
// a split kernel a stack buffer of the task (tasks dequantize different panels at once).
func (kb *kernelBuilder) nbitsPanel(floats int64) value.Value {
	if kb.par == nil {
		return kb.fb.cur.NewBitCast(kb.scratch, types.NewPointer(types.Float))
	}
	a := kb.entryAlloca(types.NewArray(uint64(floats), types.Float))
	return kb.fb.cur.NewBitCast(a, types.NewPointer(types.Float))
}

// nbitsColumnLoops runs the columns [0, n) of matmul_nbits' GEMV form: in steps of nr up to
// the last multiple of nr, then one by one (step(k) is the body of a step of k columns); in a
// split kernel, the task's columns of the region at position pos (nbitsColumnRegion).
func (kb *kernelBuilder) nbitsColumnLoops(n, nr int64, pos value.Value, step func(nr int) func(value.Value) error) error {
	fb := kb.fb
	lo, hi := kb.nbitsColumnRegion(n, nbitsColumnAlign(), pos)
	main := n - n%nr
	if main > 0 {
		if err := fb.loop(lo, fb.smin(hi, i64(main-1)), nr, "nbits.n", step(int(nr))); err != nil {
			return err
		}
	}
	if main < n {
		if err := fb.loop(fb.smax(lo, i64(main)), hi, 1, "nbits.nrem", step(1)); err != nil {
			return err
		}
	}
	kb.endTileRegion()
	return nil
}

// ifInRange runs body when v lies in [lo, hi] in a split kernel, always in a serial one (where
// [lo, hi] is the whole range).
func (kb *kernelBuilder) ifInRange(v int64, lo, hi value.Value, hint string, body func() error) error {
	if kb.par == nil {
		return body()
	}
	fb := kb.fb
	in := fb.and1(fb.cur.NewICmp(enum.IPredSLE, lo, i64(v)), fb.cur.NewICmp(enum.IPredSGE, hi, i64(v)))
	return fb.ifThen(in, hint, body)
}
