// This file chooses the strategy of an op's loop nest (the "nest" row of kernel_choice.go's
// table, and the parts and tile borders of the split and register-tile rows): the loop order
// of its nest and whether the innermost loop uses explicit vectors. The strategies are the
// generic scalar nest, the same nest with the output's unit-stride dimension moved innermost
// (matmul becomes i-k-j), explicit vectors of the target's width on that innermost loop, and
// block transposes. Register tiles and integer dot products are kernel families of their own
// (contract.go, intdot.go), tried before the nest.

package lower

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// strategy says how one op's kernel is emitted.
type strategy struct {
	name string
	// perm is the loop order: level l scans iteration dim perm[l].
	perm []int
	// vl is the number of lanes of the innermost loop's explicit vectors (0: scalar code).
	vl int
	// reduceInner: the innermost dim is a reduction dim the result does not depend on; the
	// body runs on vectors and its lanes are combined into the result element in order, so
	// every element is combined in the evaluator's order (the same bits).
	reduceInner bool
	// transpose, when not nil, emits the op as a block transpose (transpose.go) instead of
	// the nest
	transpose *transposePlan
	// reduceLanes (with reduceInner): lane l of a vector accumulator combines the points l,
	// l + vl... of each vector loop, and the lanes are folded after it (kernel.go's
	// laneAccumulator): the evaluator's value for integers and float max/min (but for the sign
	// of a zero extremum), a reassociated sum for floats (unless Config.OrderedReductions).
	reduceLanes bool
	// window (with vl): a windowed reduction (window.go): the parallel dims, the result's
	// unit-stride dim at level windowLevel in vectors of vl lanes, then the reduction dims;
	// each vector of results accumulates its window in a register and is stored once
	window      bool
	windowLevel int
}

func (s *strategy) String() string {
	if s.perm == nil || s.transpose != nil {
		return s.name
	}
	return fmt.Sprintf("%s perm=%v vl=%d", s.name, s.perm, s.vl)
}

// stride classes of an access with respect to one iteration dim.
const (
	strideInvariant = iota // the dim does not appear
	strideUnit             // the dim appears only in the last index, with coefficient 1
	strideOther
)

// accessStride classifies index (an access piece) with respect to iteration dim d.
func accessStride(index []volume.Aff, d int) int {
	return accessStrideIn(ir.TensorType{}, index, d)
}

// accessStrideIn classifies index, an access piece of a value of type t, with respect to
// iteration dim d. An index into an extent of 1 is 0 wherever the access is in bounds, so it
// adds nothing to the address, whatever dims it names: it is skipped, and the last index that
// counts is the last one into an extent other than 1. A per-channel constant [C, 1, 1] read at
// [c, 0, 0] is then unit-stride in c, as the dense buffer it is, and not a lane-by-lane read.
// A type without a shape (the zero TensorType) skips nothing. The buffer must be laid out row
// major in its own box (every view but values written in place into a padded copy, which
// planAliases keeps to copies that pad no trailing extent of 1).
func accessStrideIn(t ir.TensorType, index []volume.Aff, d int) int {
	last := len(index) - 1
	unit := func(i int) bool { return unitExtent(t, i) }
	for last >= 0 && unit(last) {
		last--
	}
	cls := strideInvariant
	for i, a := range index {
		c := coefOf(a, d)
		if c == 0 && !floorsUse(a, d) || unit(i) {
			continue
		}
		if i == last && c == 1 && !floorsUse(a, d) {
			cls = strideUnit
			continue
		}
		return strideOther
	}
	return cls
}

// unitExtent reports whether extent i of t is the constant 1.
func unitExtent(t ir.TensorType, i int) bool {
	if i >= len(t.Shape) {
		return false
	}
	c, ok := t.Shape[i].IsConst()
	return ok && c == 1
}

// singleInner reports whether the op's innermost iteration dim takes one value: the result's
// last index is that dim, into an extent of 1 (a [1, 56, 56, 1] row statistic).
func singleInner(op *ir.Op) bool {
	if len(op.Out.Pieces) != 1 {
		return false
	}
	idx := op.Out.Pieces[0].Index
	n := len(idx)
	return n > 0 && unitExtent(op.Result.Type, n-1) && isDim(idx[n-1], op.NDim()-1)
}

func coefOf(a volume.Aff, d int) int64 {
	if d < len(a.Dims) {
		return a.Dims[d]
	}
	return 0
}

func floorsUse(a volume.Aff, d int) bool {
	for _, f := range a.Floors {
		if coefOf(f.Num, d) != 0 || floorsUse(f.Num, d) {
			return true
		}
	}
	return false
}

// outDim returns the iteration dim that the last index of the op's result is (plus terms in
// parameters and constants only), or -1. Iterations that write the same element then share
// that dim's value, so moving it innermost keeps the order in which each element is written
// or combined: any reduction, argmax included, gives the same bits. Trailing extents of 1 of
// the result are skipped (their index is 0 at every write, as accessStrideIn skips them):
// the last index of a [1, 56, 56, 1] row statistic is its 56 columns.
func outDim(op *ir.Op) int {
	if len(op.Out.Pieces) != 1 || len(op.Out.Pieces[0].Index) == 0 {
		return -1
	}
	idx := op.Out.Pieces[0].Index
	for n := len(idx); n > 1 && unitExtent(op.Result.Type, n-1); n-- {
		idx = idx[:n-1]
	}
	last := idx[len(idx)-1]
	if len(last.Floors) > 0 {
		return -1
	}
	d := -1
	for i, c := range last.Dims {
		switch {
		case c == 0:
		case c == 1 && d < 0:
			d = i
		default:
			return -1
		}
	}
	if d < 0 {
		return -1
	}
	for _, a := range idx[:len(idx)-1] {
		if coefOf(a, d) != 0 || floorsUse(a, d) {
			return -1
		}
	}
	return d
}

// score counts the accesses that are unit-stride or invariant in dim d (a good innermost dim
// has many of them).
func score(op *ir.Op, d int) int {
	n := 0
	// the literal classification (accessStride, extents of 1 not skipped): skipped, a dim
	// that only indexes extents of 1 (a kernel tap k1 of a 1×1 convolution over a [1, 1, 1, C]
	// input) would count as invariant everywhere and win over the result's channels
	count := func(acc ir.Access) {
		for _, p := range acc.Pieces {
			if accessStride(p.Index, d) != strideOther {
				n++
			}
		}
	}
	for _, a := range op.Access {
		count(a)
	}
	count(op.Out)
	return n
}

// chooseStrategy picks the strategy of op for a module whose explicit vectors are vecBytes
// wide (0: none); ordered keeps float sums and products in the evaluator's order, and a
// requantization on integer vectors (intRequant) is emitted whole (requant.go).
//
// strided lets a read that is strided along the innermost dim (a transpose) load its lanes one
// by one, so that a body worth vectorising (at least minStridedBody nodes: a requantization
// fused into the NHWC -> NCHW transpose of a convolution's output) still runs on vectors.
func chooseStrategy(op *ir.Op, vecBytes int, intRequant, ordered, strided bool) *strategy {
	n := op.NDim()
	s := &strategy{name: "scalar-nest", perm: make([]int, n)}
	for i := range s.perm {
		s.perm[i] = i
	}
	if n == 0 {
		return s
	}
	d := outDim(op)
	inner := n - 1
	if d >= 0 && vecBytes > 0 {
		// a windowed reduction: vectors along d, the window inside (window.go)
		if perm := windowOrder(op, d); perm != nil {
			// at least one vector of results (a window of scalars only is the plain nest's
			// work, and llc-19 failed on Hexagon on a 30-tap one: no emergency spill slot)
			if vl := vectorLanes(op, d, vecBytes, strideUnit, intRequant, false); vl > 1 && minExtent(op, d) >= int64(vl) {
				s.perm, s.vl, s.window, s.windowLevel = perm, vl, true, slices.Index(perm, d)
				s.name = "window-acc+vector"
				return s.orTranspose(op, vecBytes)
			}
		}
	}
	if d >= 0 && d != n-1 && (score(op, d) > score(op, n-1) || singleInner(op)) {
		// move d innermost, keeping the other dims in order
		perm := make([]int, 0, n)
		for i := 0; i < n; i++ {
			if i != d {
				perm = append(perm, i)
			}
		}
		s.perm = append(perm, d)
		s.name = "interchanged"
		inner = d
	}
	switch {
	case vecBytes <= 0:
	case d == inner:
		if vl := vectorLanes(op, inner, vecBytes, strideUnit, intRequant, strided && op.Reduce == ir.ReduceNone && bodyNodes(op.Body) >= minStridedBody); vl > 1 {
			s.vl = vl
			s.name += "+vector"
		}
	case op.Reduce != ir.ReduceNone && !op.Reduce.IsArg() && op.Iters[inner] == ir.Reduction:
		if vl := vectorLanes(op, inner, vecBytes, strideInvariant, intRequant, false); vl > 1 {
			s.vl = vl
			s.reduceInner = true
			elem := op.Result.Type.Elem
			float := elem == ir.F32 || elem == ir.F64
			exact := op.Reduce == ir.ReduceMax || op.Reduce == ir.ReduceMin
			// float products keep their order: with zeros, infinities and underflows the
			// order decides between 0, ±Inf and NaN
			sum := op.Reduce == ir.ReduceSum
			if (float && (exact || sum && !ordered) || elem == ir.I64 || elem == ir.I32 || elem == ir.I8 || elem == ir.U8) && vl&(vl-1) == 0 {
				s.reduceLanes = true
				s.name += "+vector-acc"
			} else {
				s.name += "+vector-reduce"
			}
		}
	}
	return s.orTranspose(op, vecBytes)
}

// orTranspose returns s, or the block transpose of op when it has one: an op with a block
// transpose reads an operand strided along the result's unit-stride dim, and the block
// transpose also beats vectors that load that read lane by lane (strided).
func (s *strategy) orTranspose(op *ir.Op, vecBytes int) *strategy {
	if vecBytes > 0 {
		if t := planTranspose(op, vecBytes); t != nil {
			s.vl = 0
			s.window = false
			s.transpose = t
			s.name = t.String()
		}
	}
	return s
}

// vectorLanes returns the lanes of explicit vectors for op with inner dim d, or 0 when the
// op's innermost loop cannot use them: every access must be one piece, guarded (if at all)
// independently of d, unit-stride or invariant in d (the result as outStride says), and every
// body operation must have a vector lowering (a requantization on integer vectors, intRequant,
// is emitted whole: requant.go). With strided, reads strided along d are allowed too (vload
// loads their lanes one by one).
func vectorLanes(op *ir.Op, d int, vecBytes int, outStride int, intRequant, strided bool) int {
	if op.Reduce.IsArg() || len(op.Out.Pieces) != 1 || accessStrideIn(op.Result.Type, op.Out.Pieces[0].Index, d) != outStride {
		return 0
	}
	widest := op.Result.Type.Elem.Size()
	if op.Result.Type.Elem.IsNarrowFloat() {
		return 0
	}
	for k, acc := range op.Access {
		if !op.Body.Reads(k) || len(acc.Pieces) == 0 && !acc.Approx {
			continue // a read nowhere on the domain is the constant 0
		}
		if !uniformPiece(acc, d) || accessStrideIn(op.Operands[k].Type, acc.Pieces[0].Index, d) == strideOther && !strided {
			return 0
		}
		widest = max(widest, op.Operands[k].Type.Elem.Size())
	}
	ok := true
	konst := constNodes(op.Body)
	op.Body.Walk(func(s *ir.Scalar) {
		// avail of a read guarded uniformly along d is one condition for all lanes, and a
		// constant when decideGuards settled it
		if s.Op == ir.SAvail && (constAvail(op.Access[s.Arg]) || uniformPiece(op.Access[s.Arg], d)) {
			return
		}
		if !vectorizable(s) && !intRequant {
			ok = false
		}
		if !konst[s] {
			// a constant subexpression (an average pool's window size, 7·7 in i64) folds
			// away: its type does not narrow the lanes
			widest = max(widest, s.Type.Size())
		}
	})
	if !ok || widest == 0 {
		return 0
	}
	return vecBytes / widest
}

// constNodes returns the nodes of a body whose value is a constant: constants and operations
// on constants only (a data-dependent read is none).
func constNodes(body *ir.Scalar) map[*ir.Scalar]bool {
	k := map[*ir.Scalar]bool{}
	var rec func(s *ir.Scalar) bool
	rec = func(s *ir.Scalar) bool {
		if c, seen := k[s]; seen {
			return c
		}
		c := s.Op == ir.SConst
		if len(s.Args) > 0 && s.Op != ir.SDynRead {
			c = true
			for _, a := range s.Args {
				c = rec(a) && c
			}
		}
		for _, a := range s.Args {
			rec(a)
		}
		k[s] = c
		return c
	}
	rec(body)
	return k
}

// minStridedBody is the smallest body (distinct nodes) that loads strided reads lane by lane
// to run on vectors: a plain transpose (in0) or a cast stays a scalar nest.
const minStridedBody = 8

// bodyNodes counts the distinct nodes of a body.
func bodyNodes(s *ir.Scalar) int {
	seen := map[*ir.Scalar]bool{}
	s.Walk(func(n *ir.Scalar) { seen[n] = true })
	return len(seen)
}

// uniformPiece reports whether an access is one piece whose guard (if any) does not involve
// dim d, so that the vl lanes along d are all read or all not read (padding of a channels-last
// tensor, a bias read at the first reduction point).
func uniformPiece(acc ir.Access, d int) bool {
	return !acc.Approx && len(acc.Pieces) == 1 && !guardUses(acc.Pieces[0].Guard, d)
}

// vectorizable reports whether a body node has a lowering on vectors.
func vectorizable(s *ir.Scalar) bool {
	if s.Type.IsNarrowFloat() {
		return false
	}
	for _, a := range s.Args {
		if a.Type.IsNarrowFloat() {
			return false
		}
	}
	// the scalar table's lane rule: float32 exp, log, tanh, sigmoid and erf are vector
	// polynomials (math_vec.go), other float functions vector intrinsics or runtime calls lane by
	// lane; integer division keeps its scalar zero check
	return vectorizableDef(s)
}

// vectorBytesFor returns the width of op's explicit vectors: the module's, or 0 when op
// computes in floating point and the vector unit has none (HVX before v68).
func (mc *moduleCtx) vectorBytesFor(op *ir.Op) int {
	if mc.vecFloat || mc.vecBytes == 0 || mc.intRequant(op) {
		return mc.vecBytes
	}
	float := op.Result.Type.Elem.IsFloat()
	op.Body.Walk(func(s *ir.Scalar) {
		if s.Type.IsFloat() {
			float = true
		}
	})
	if float {
		return 0
	}
	return mc.vecBytes
}

// stridedLanes reports whether nests may load strided reads lane by lane to run their bodies
// on vectors (chooseStrategy): on x86-64, where the lanes are cheap to assemble.
func (mc *moduleCtx) stridedLanes() bool { return strings.HasPrefix(mc.tgt.Triple, "x86_64") }

// minExtent returns the number of values of dim d of op's domain when it is a constant (its
// bounds' span), or the largest int64.
func minExtent(op *ir.Op, d int) int64 {
	lo, hi, err := constBounds(op.Domain)
	if err != nil {
		return math.MaxInt64
	}
	return hi[d] - lo[d] + 1
}
