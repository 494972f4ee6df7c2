// This file imports the data-dependent ops whose deciding input is known only at run time, with
// a bounded dim (ir.BoundedDim) for the extent the data decides: NonZero and Unique without
// axis (at most the input's element count), Compress (at most the condition's length) and TopK
// with a computed k (at most the axis's extent). The count is computed by the graph, becomes a symbolic dim for every op
// after it, and is returned to the caller as an extra scalar i64 output.
//
// The selections are a mask m (1 where selected), its count, and the positions of the selected
// elements in order (selectedIndices: the algorithm op nonzero_positions, one pass of the mask,
// cut to the count); Unique's runs also take the mask's running sum (by doubling, runningSum:
// N·log N for N mask elements). Sorted
// Unique, whose ranks are not a running sum, searches every position for every k
// (selectedByRank, n·N), as TopK's ranking.

package onnx

import (
	"fmt"
	"strconv"
	"strings"

	kit "github.com/graphc/graphc/frontend/importer"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// boundedDecl is a bounded dim declared by a node: param takes the value of v, at most bound.
type boundedDecl struct {
	param string
	bound int64
	v     *ir.Value
	node  string
}

// attachBounded declares the bounded dims of the graph once its outputs are set: each count
// becomes an extra output, after the model's.
func (im *importer) attachBounded() error {
	for _, b := range im.bounded {
		if err := im.g.AddBoundedDim(b.param, b.bound, b.v); err != nil {
			return im.errf("node %q: %w", b.node, err)
		}
	}
	return nil
}

// boundedDim declares a new symbolic dim, named after base, whose value is the scalar i64
// count, at most bound; it returns the dim's name. The ops that follow may use it.
func (e *emitter) boundedDim(base string, count *ir.Value, bound int64) string {
	if e.err != nil {
		return ""
	}
	g := e.c.im.g
	// a C identifier: the header's macros take the dims of the outputs as parameters
	base = strings.ReplaceAll(kit.Ident(base), ".", "_")
	name := base
	if name == "" || name[0] >= '0' && name[0] <= '9' {
		name = "n_" + name
	}
	for i := 1; ; i++ {
		taken := false
		for _, p := range g.Params {
			taken = taken || p == name
		}
		if !taken {
			break
		}
		name = fmt.Sprintf("%s_%d", base, i)
	}
	g.AddParam(name)
	e.c.im.bounded = append(e.c.im.bounded, boundedDecl{param: name, bound: bound, v: count, node: e.c.node.GetName()})
	return name
}

// selectionMask returns m = (x != 0) as i64 (0 or 1), with x's shape.
func (e *emitter) selectionMask(x *ir.Value) *ir.Value {
	if x == nil {
		return nil
	}
	var nz *ir.Value
	if x.Type.Elem == ir.Bool {
		nz = x
	} else {
		nz = e.Op("not_equal", "", nil, x, e.Scalar(x.Type.Elem, 0))
	}
	return e.Cast(nz, ir.I64, "")
}

// countAndRanks returns the number of selected elements of the mask m (a scalar i64) and the
// exclusive running sum of m in row-major order (with m's shape).
func (e *emitter) countAndRanks(m *ir.Value, n int64) (count, pos *ir.Value) {
	if m == nil {
		return nil, nil
	}
	count = e.countOf(m)
	return count, e.Reshape(e.exclusiveRanks(e.Reshape(m, []volume.Aff{volume.AffConst(n)}, ""), n), m.Type.Shape, "")
}

// countOf returns the number of selected elements of the mask m (a scalar i64).
func (e *emitter) countOf(m *ir.Value) *ir.Value {
	if m == nil {
		return nil
	}
	all := make([]int, m.Type.Rank())
	for d := range all {
		all[d] = d
	}
	return e.Op("reduce_sum", e.Base+"_count", ir.Attrs{"axes": ints(all), "keepdims": ir.IntAttr(0)}, m)
}

// exclusiveRanks returns the exclusive running sum of the 1-D mask flat of length n.
func (e *emitter) exclusiveRanks(flat *ir.Value, n int64) *ir.Value {
	if n <= scanDirect {
		return e.Op("cumsum", "", ir.Attrs{"axis": ir.IntAttr(0), "exclusive": ir.IntAttr(1)}, flat)
	}
	return e.Op("sub", "", nil, e.runningSum(flat, n), flat)
}

// scanDirect is the longest mask whose running sum is the cumsum op (n²/2 work, one pass);
// longer ones take runningSum's ⌈log2 n⌉ passes of n.
const scanDirect = 32

// runningSum returns the inclusive running sum of the 1-D i64 x of length n by doubling
// (Hillis and Steele): after the pass of shift s every element holds the sum of the 2s elements
// ending at it, x[i] + x[i-s] where i-s exists (a guarded affine access, so the element maps
// stay exact). n·⌈log2 n⌉ work instead of cumsum's n²/2.
func (e *emitter) runningSum(x *ir.Value, n int64) *ir.Value {
	for s := int64(1); s < n && e.err == nil; s *= 2 {
		attrs := ir.Attrs{
			"type":   ir.StringAttr(fmt.Sprintf("i64[%d]", n)),
			"domain": ir.StringAttr(fmt.Sprintf("{ [i] : 0 <= i < %d }", n)),
			"access": ir.StringsAttr("{ [i] -> [i] }", fmt.Sprintf("{ [i] -> [i - %d] : i >= %d }", s, s)),
			"out":    ir.StringAttr("{ [i] -> [i] }"),
			"body":   ir.StringAttr("add(in0, select(avail(1), in1, 0:i64))"),
		}
		x = e.Op("generic", "", attrs, x, x)
	}
	return x
}

// boxDomain prints "0 <= d0 < e0 and …" for the named dims.
func boxDomain(names []string, ext []string) string {
	parts := make([]string, len(names))
	for i := range names {
		parts[i] = fmt.Sprintf("0 <= %s < %s", names[i], ext[i])
	}
	return strings.Join(parts, " and ")
}

// importNonZeroRuntime: out[d, k] = coordinate d of the k-th non-zero element of x (row-major
// order), for k < n, n the number of non-zeros.
func importNonZeroRuntime(c *nodeCtx) error {
	e := c.emitter()
	x := e.In(0)
	if e.err != nil {
		return e.err
	}
	shape, ok := x.Type.StaticShape()
	if !ok && x.Type.Rank() == 1 {
		// a 1-D input over a bounded extent (a selection of a selection): zeros past its end,
		// up to the extent's bound
		b, err := e.boundOf(x.Type.Shape[0])
		if err != nil {
			return fmt.Errorf("%w: NonZero of a run-time input of symbolic shape %s: %v", ErrUnsupported, x.Type, err)
		}
		ext := x.Type.Shape[0]
		ps := strings.Join(ext.ParamNames(), ", ")
		x = e.Op("generic", "", ir.Attrs{
			"type":   ir.StringAttr(fmt.Sprintf("%s[%d]", x.Type.Elem, b)),
			"domain": ir.StringAttr(fmt.Sprintf("{ [k] : 0 <= k < %d }", b)),
			"access": ir.StringsAttr(fmt.Sprintf("[%s] -> { [k] -> [k] : k < %s }", ps, ext.String())),
			"out":    ir.StringAttr("{ [k] -> [k] }"),
			"body":   ir.StringAttr(fmt.Sprintf("select(avail(0), in0, 0:%s)", x.Type.Elem)),
		}, x)
		shape, ok = []int64{b}, true
	}
	if !ok {
		return fmt.Errorf("%w: NonZero of a run-time input of symbolic shape %s: the bound of its count (the element count) must be static", ErrUnsupported, x.Type)
	}
	r := len(shape)
	if r == 0 {
		x = e.Reshape(x, []volume.Aff{volume.AffConst(1)}, "")
		shape, r = []int64{1}, 1
	}
	total := ir.NumElements(shape)
	m := e.selectionMask(x)
	n := e.boundedDim(c.Output(0)+"_n", e.countOf(m), total)
	if e.err != nil {
		return e.err
	}
	// the flat positions of the non-zeros in order, then their coordinates
	flat := e.selectedIndices(e.Reshape(m, []volume.Aff{volume.AffConst(total)}, ""), nil, n, total)
	stride := int64(1)
	coord := ""
	for d := r - 1; d >= 0; d-- {
		// (no division by 1: the last coordinate of a 1-D input is the position itself, a
		// copy that runs on vectors)
		q := "in0"
		if stride != 1 {
			q = fmt.Sprintf("div(in0, %d:i64)", stride)
		}
		cd := fmt.Sprintf("rem(%s, %d:i64)", q, shape[d])
		if d == 0 {
			cd = q
		}
		if coord == "" {
			coord = cd
		} else {
			coord = fmt.Sprintf("select(eq(idx(0), %d:i64), %s, %s)", d, cd, coord)
		}
		stride *= shape[d]
	}
	attrs := ir.Attrs{
		"type":   ir.StringAttr(fmt.Sprintf("i64[%d, %s]", r, n)),
		"domain": ir.StringAttr(fmt.Sprintf("[%s] -> { [d, k] : 0 <= d < %d and 0 <= k < %s }", n, r, n)),
		"access": ir.StringsAttr("{ [d, k] -> [k] }"),
		"out":    ir.StringAttr("{ [d, k] -> [d, k] }"),
		"body":   ir.StringAttr(coord),
	}
	e.Out(0, e.Op("generic", c.Output(0), attrs, flat))
	return e.Done()
}

// selectedByRank returns, for k < n, the position i of the selected element (m[i] != 0) whose
// rank (slot[i]) is k: a search of all L positions for every k (n·L work), for ranks that are
// not a running sum in position order (sorted Unique).
func (e *emitter) selectedByRank(m, rank *ir.Value, n string, length int64) *ir.Value {
	if e.err != nil {
		return nil
	}
	attrs := ir.Attrs{
		"type":      ir.StringAttr(fmt.Sprintf("i64[%s]", n)),
		"domain":    ir.StringAttr(fmt.Sprintf("[%s] -> { [k, i] : 0 <= k < %s and 0 <= i < %d }", n, n, length)),
		"access":    ir.StringsAttr("{ [k, i] -> [i] }", "{ [k, i] -> [i] }"),
		"out":       ir.StringAttr("{ [k, i] -> [k] }"),
		"body":      ir.StringAttr("select(and(ne(in0, 0:i64), eq(in1, idx(0))), idx(1), 0:i64)"),
		"iterators": ir.StringsAttr("parallel", "reduction"),
		"reduce":    ir.StringAttr("sum"),
	}
	return e.Op("generic", "", attrs, m, rank)
}

// selectedIndices returns the positions i of the selected elements of the 1-D mask m (0 or 1
// as i64, length L), in order: idx[k] for k < n. Beyond scanDirect elements that is the
// algorithm op nonzero_positions cut to its first n ranks (DIE keeps only those): one pass of L
// when compiled, where the selection in generic ops (a binary search of the running sum for
// every rank, n·⌈log2 L⌉ after the sum's L·⌈log2 L⌉) took 23 passes of 8 M elements for
// RetinaNet's scores. Masks of at most scanDirect elements take the direct search
// (selectedByRank) given excl, m's exclusive running sum (computed when nil).
func (e *emitter) selectedIndices(m, excl *ir.Value, n string, length int64) *ir.Value {
	if e.err != nil {
		return nil
	}
	if length <= scanDirect {
		if excl == nil {
			excl = e.exclusiveRanks(m, length)
		}
		return e.selectedByRank(m, excl, n, length) // one op of at most scanDirect² iterations
	}
	pos := e.Op("nonzero_positions", "", nil, m)
	return e.Op("slice", "", ir.Attrs{"axes": ir.IntsAttr(0), "starts": ir.IntsAttr(0), "ends": ir.IntsAttr(0),
		"sym_ends": ir.StringsAttr(n)}, pos)
}

// importCompressRuntime: the slices of x along axis where the run-time condition is non-zero,
// gathered by their selected positions.
func importCompressRuntime(c *nodeCtx) error {
	e := c.emitter()
	x, cond := e.In(0), e.In(1)
	if e.err != nil {
		return e.err
	}
	if cond.Type.Rank() != 1 {
		return fmt.Errorf("%w: the condition must be 1-D, got %s", ErrInvalid, cond.Type)
	}
	l, ok := cond.Type.Dim(0)
	if !ok {
		return fmt.Errorf("%w: Compress with a run-time condition of symbolic length %s: its length bounds the result and must be static", ErrUnsupported, cond.Type)
	}
	x, axis, err := compressAxis(c, e, x)
	if err != nil {
		return err
	}
	if ext, ok := x.Type.Dim(axis); ok && l > ext {
		return fmt.Errorf("%w: a condition of %d elements for an axis of %d", ErrInvalid, l, ext)
	}
	m := e.selectionMask(cond)
	n := e.boundedDim(c.Output(0)+"_n", e.countOf(m), l)
	idx := e.selectedIndices(m, nil, n, l)
	e.Out(0, e.Op("gather", c.Output(0), ir.Attrs{"axis": ir.IntAttr(int64(axis))}, x, idx))
	return e.Done()
}

// topKRuntimeK returns the symbolic dim that holds TopK's run-time k (input 1, one element),
// at most the axis's extent: static, or a function of bounded dims (TopK over NonZero's
// selection), taken at their bounds.
func (e *emitter) topKRuntimeK(c *nodeCtx, x *ir.Value, axis int) (string, error) {
	kv := e.In(1)
	if e.err != nil {
		return "", e.err
	}
	ext := x.Type.Shape[axis]
	bound, ok := ext.IsConst()
	if !ok {
		b, err := e.boundOf(ext)
		if err != nil {
			return "", fmt.Errorf("%w: TopK with a run-time K over the axis %s of %s: %v", ErrUnsupported, ext.String(), x.Type, err)
		}
		bound = b
	}
	if cnt, ok := staticCount(kv.Type); !ok || cnt != 1 {
		return "", fmt.Errorf("%w: K must hold one value, got %s", ErrInvalid, kv.Type)
	}
	if kv.Type.Elem != ir.I64 {
		return "", fmt.Errorf("%w: K must be int64, got %s", ErrInvalid, kv.Type)
	}
	if cap, ok := minCap(kv); ok && cap < bound {
		bound = max(cap, 0) // k = min(…, cap): exporters cap k by a constant (SSD: min(count, 300))
	}
	k := e.Reshape(kv, nil, e.Base+"_k")
	return e.boundedDim(c.Output(0)+"_k", k, bound), e.Done()
}

// minCap returns an upper bound c of v's values when v is min(x, c) for a constant c, or the
// minimum of a vector holding a constant (SSD's k = min(300, count) is ReduceMin(Concat(300,
// count))), through reshapes.
func minCap(v *ir.Value) (int64, bool) {
	for v.Def != nil && (v.Def.Kind == "reshape" || v.Def.Kind == "identity") {
		v = v.Def.Operands[0]
	}
	if v.Def == nil || v.Type.Elem != ir.I64 {
		return 0, false
	}
	maxOf := func(t *ir.Tensor) int64 {
		hi := t.Int(0)
		for i := 1; i < t.Len(); i++ {
			hi = max(hi, t.Int(i))
		}
		return hi
	}
	switch v.Def.Kind {
	case "min":
		for _, o := range v.Def.Operands {
			if o.Data != nil && o.Data.Len() > 0 {
				return maxOf(o.Data), true
			}
		}
	case "reduce_min":
		// the minimum of all elements is at most any one of them
		u := v.Def.Operands[0]
		if u.Def != nil && u.Def.Kind == "concat" {
			for _, o := range u.Def.Operands {
				if o.Data != nil && o.Data.Len() > 0 && u.Type.Rank() == 1 {
					return o.Data.Int(0), true
				}
			}
		}
		if u.Def != nil && u.Def.Kind == "values" && u.Type.Rank() == 1 {
			for _, e := range u.Def.Attrs.Strings("values", nil) {
				if c, err := strconv.ParseInt(strings.TrimSpace(e), 10, 64); err == nil {
					return c, true
				}
			}
		}
	}
	return 0, false
}

// boundOf returns the largest value of an extent over the bounded dims' ranges [0, bound]:
// its value with each dim at its bound where the extent grows with it and at 0 where it
// shrinks (a run-time Slice's end - start: Faster R-CNN's per-class scores, whose start
// normalizeRuntimeBounds makes a dim of its own).
func (e *emitter) boundOf(a volume.Aff) (int64, error) {
	bounds := map[string]int64{}
	for _, b := range e.c.im.bounded {
		bounds[b.param] = b.bound
	}
	at := map[string]int64{}
	for _, p := range a.Params {
		b, ok := bounds[p.Name]
		if !ok {
			return 0, fmt.Errorf("its extent must be static or a function of dims computed by the graph (it depends on %s)", p.Name)
		}
		if p.Coef > 0 {
			at[p.Name] = b
		} else {
			at[p.Name] = 0
		}
	}
	if len(a.Floors) > 0 {
		return 0, fmt.Errorf("its extent %s has a floor division", a.String())
	}
	return a.Eval(nil, func(n string) (int64, bool) { v, ok := at[n]; return v, ok })
}

// importTopKRuntime is TopK whose K is computed at run time: k is a bounded dim; every element
// is ranked and the elements of the first k ranks are written to a result of extent k
// (topKRanked: DIE keeps the search form's iterations to those ranks; the walk writes nothing
// for the others). k must lie within the axis's extent: its bound does; a k beyond a bounded
// extent's run-time value (invalid in ONNX) leaves the ranks past the extent zero.
func importTopKRuntime(c *nodeCtx, e *emitter, x *ir.Value, axis int) error {
	k, err := e.topKRuntimeK(c, x, axis)
	if err != nil {
		return err
	}
	v, ind := e.topKRanked(x, axis, volume.AffParam(k), c.AttrInt("largest", 1), c.Output(0), c.Output(1))
	e.Out(0, v)
	if c.Output(1) != "" {
		e.Out(1, ind)
	}
	return e.Done()
}

// pairOp emits a generic op over [i, j] ∈ [0, n)² (restricted by cond, an isl constraint on i
// and j, when not ""), reading a at j and b at i, reducing body over j into a result [n] of type
// elem.
func (e *emitter) pairOp(n int64, cond, body, reduce string, init float64, elem ir.DType, a, b *ir.Value) *ir.Value {
	dom := fmt.Sprintf("{ [i, j] : 0 <= i < %d and 0 <= j < %d }", n, n)
	if cond != "" {
		dom = fmt.Sprintf("{ [i, j] : 0 <= i < %d and 0 <= j < %d and %s }", n, n, cond)
	}
	attrs := ir.Attrs{
		"type":      ir.StringAttr(fmt.Sprintf("%s[%d]", elem, n)),
		"domain":    ir.StringAttr(dom),
		"access":    ir.StringsAttr("{ [i, j] -> [j] }", "{ [i, j] -> [i] }"),
		"out":       ir.StringAttr("{ [i, j] -> [i] }"),
		"body":      ir.StringAttr(body),
		"iterators": ir.StringsAttr("parallel", "reduction"),
		"reduce":    ir.StringAttr(reduce),
		"init":      ir.FloatAttr(init),
	}
	return e.Op("generic", "", attrs, a, b)
}

// importUniqueRuntime is Unique over the flattened run-time input: the distinct values (sorted,
// or in order of first appearance), the index of each one's first occurrence, each element's
// distinct value, and the counts, with the number of distinct values a bounded dim. Elements
// are compared with ==, so each NaN is a value of its own. n² work in the element count.
func importUniqueRuntime(c *nodeCtx) error {
	e := c.emitter()
	x := e.In(0)
	if e.err != nil {
		return e.err
	}
	total, ok := staticCount(x.Type)
	if !ok {
		return fmt.Errorf("%w: Unique of a run-time input of symbolic shape %s: the bound of its count (the element count) must be static", ErrUnsupported, x.Type)
	}
	xf := e.Reshape(x, []volume.Aff{volume.AffConst(total)}, "")
	if total > uniquePairs && (x.Type.Elem.IsFloat() || !x.Type.Elem.IsUnsigned()) {
		return e.uniqueSorted(c, xf, total)
	}
	// first[i]: no earlier element equals element i
	dup := e.pairOp(total, "j < i", "select(eq(in0, in1), 1:i64, 0:i64)", "sum", 0, ir.I64, xf, xf)
	first := e.Cast(e.Op("equal", "", nil, dup, e.Scalar(ir.I64, 0)), ir.I64, "")
	count := e.Op("reduce_sum", e.Base+"_count", ir.Attrs{"axes": ints([]int{0}), "keepdims": ir.IntAttr(0)}, first)
	n := e.boundedDim(c.Output(0)+"_n", count, total)
	if e.err != nil {
		return e.err
	}
	// slot[i]: the position of element i's value among the distinct values
	var slot *ir.Value
	if c.AttrInt("sorted", 1) != 0 {
		// the distinct values below it (each counted at its first occurrence)
		slot = e.pairOp2(total, "select(and(ne(in0, 0:i64), lt(in1, in2)), 1:i64, 0:i64)", first, xf)
	} else {
		// the distinct values whose first occurrence precedes that of element i's value
		fo := e.pairOp(total, "", fmt.Sprintf("select(eq(in0, in1), idx(1), %d:i64)", total), "min", float64(total), ir.I64, xf, xf)
		slot = e.pairOp(total, "", "select(and(ne(in0, 0:i64), lt(idx(1), in1)), 1:i64, 0:i64)", "sum", 0, ir.I64, first, fo)
	}
	idx := e.selectedByRank(first, slot, n, total)
	e.Out(0, e.Op("gather", c.Output(0), ir.Attrs{"axis": ir.IntAttr(0)}, xf, idx))
	if c.Output(1) != "" {
		e.Out(1, e.Op("identity", c.Output(1), nil, idx))
	}
	if c.Output(2) != "" {
		e.Out(2, e.Op("identity", c.Output(2), nil, slot))
	}
	if c.Output(3) != "" {
		attrs := ir.Attrs{
			"type":      ir.StringAttr(fmt.Sprintf("i64[%s]", n)),
			"domain":    ir.StringAttr(fmt.Sprintf("[%s] -> { [k, i] : 0 <= k < %s and 0 <= i < %d }", n, n, total)),
			"access":    ir.StringsAttr("{ [k, i] -> [i] }"),
			"out":       ir.StringAttr("{ [k, i] -> [k] }"),
			"body":      ir.StringAttr("select(eq(in0, idx(0)), 1:i64, 0:i64)"),
			"iterators": ir.StringsAttr("parallel", "reduction"),
			"reduce":    ir.StringAttr("sum"),
		}
		e.Out(3, e.Op("generic", c.Output(3), attrs, slot))
	}
	return e.Done()
}

// uniquePairs is the longest input Unique compares pairwise (n² work, a few ops); longer ones
// sort (uniqueSorted, N·log N).
const uniquePairs = 64

// uniqueSorted is Unique over the flat run-time xf of N elements in N·log N: argsort (stable:
// equal values by index), the sorted values' runs (a run starts where a value differs from the
// one before it; each NaN is a run of its own, as == compares), their count (the bounded dim
// n), the first position of every run (selectedIndices), and from those the four outputs. The
// first element of a run is the value's first occurrence (the sort is stable); the inverse
// indices read each element's run through the inverse permutation (a second argsort). Unsorted
// (order of first appearance) reorders the runs by their first occurrence, a third argsort over
// the n runs.
func (e *emitter) uniqueSorted(c *nodeCtx, xf *ir.Value, total int64) error {
	gather := func(data, idx *ir.Value) *ir.Value {
		return e.Op("gather", "", ir.Attrs{"axis": ir.IntAttr(0)}, data, idx)
	}
	asc := ir.Attrs{"descending": ir.IntAttr(0)}
	perm := e.Op("argsort", "", asc, xf)
	vs := gather(xf, perm)
	// start[k]: the sorted element k begins a run
	start := e.Op("generic", "", ir.Attrs{
		"type":   ir.StringAttr(fmt.Sprintf("i64[%d]", total)),
		"domain": ir.StringAttr(fmt.Sprintf("{ [k] : 0 <= k < %d }", total)),
		"access": ir.StringsAttr("{ [k] -> [k] }", "{ [k] -> [k - 1] : k >= 1 }"),
		"out":    ir.StringAttr("{ [k] -> [k] }"),
		"body":   ir.StringAttr("select(avail(1), select(ne(in0, in1), 1:i64, 0:i64), 1:i64)"),
	}, vs, vs)
	count, excl := e.countAndRanks(start, total)
	n := e.boundedDim(c.Output(0)+"_n", count, total)
	if e.err != nil {
		return e.err
	}
	first := e.selectedIndices(start, excl, n, total) // [n]: where each run starts
	run := e.Op("sub", "", nil, e.Op("add", "", nil, excl, start), e.Scalar(ir.I64, 1))
	rank := e.Op("argsort", "", asc, perm) // the inverse permutation
	inv := gather(run, rank)
	// counts: the distance to the next run's start (the end for the last)
	counts := e.Op("generic", "", ir.Attrs{
		"type":   ir.StringAttr(fmt.Sprintf("i64[%s]", n)),
		"domain": ir.StringAttr(fmt.Sprintf("[%s] -> { [p] : 0 <= p < %s }", n, n)),
		"access": ir.StringsAttr("{ [p] -> [p] }", fmt.Sprintf("[%s] -> { [p] -> [p + 1] : p + 1 < %s }", n, n)),
		"out":    ir.StringAttr("{ [p] -> [p] }"),
		"body":   ir.StringAttr(fmt.Sprintf("sub(select(avail(1), in1, %d:i64), in0)", total)),
	}, first, first)
	idx := gather(perm, first)
	if c.AttrInt("sorted", 1) == 0 {
		q := e.Op("argsort", "", asc, idx) // the runs by first occurrence
		first, idx, counts = gather(first, q), gather(idx, q), gather(counts, q)
		inv = gather(e.Op("argsort", "", asc, q), inv)
	}
	e.Out(0, e.Op("gather", c.Output(0), ir.Attrs{"axis": ir.IntAttr(0)}, vs, first))
	for i, v := range []*ir.Value{idx, inv, counts} {
		if c.Output(1+i) != "" {
			e.Out(1+i, e.Op("identity", c.Output(1+i), nil, v))
		}
	}
	return e.Done()
}

// pairOp2 is pairOp with three operands: a (i64 flags) and b read at j, b read at i again.
func (e *emitter) pairOp2(n int64, body string, a, b *ir.Value) *ir.Value {
	attrs := ir.Attrs{
		"type":      ir.StringAttr(fmt.Sprintf("i64[%d]", n)),
		"domain":    ir.StringAttr(fmt.Sprintf("{ [i, j] : 0 <= i < %d and 0 <= j < %d }", n, n)),
		"access":    ir.StringsAttr("{ [i, j] -> [j] }", "{ [i, j] -> [j] }", "{ [i, j] -> [i] }"),
		"out":       ir.StringAttr("{ [i, j] -> [i] }"),
		"body":      ir.StringAttr(body),
		"iterators": ir.StringsAttr("parallel", "reduction"),
		"reduce":    ir.StringAttr("sum"),
	}
	return e.Op("generic", "", attrs, a, b, b)
}
