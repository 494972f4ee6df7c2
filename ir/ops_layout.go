// This file declares the layout ops, which move elements without computing on them:
// transpose, reshape (quasi-affine), slice with steps, concat (piecewise), expand, tile and the
// depth/space rearrangements. Each iterates over its result's index box and reads its operand
// through an affine or quasi-affine access, so its element map is exact.

package ir

import (
	"github.com/graphc/graphc/volume"
)

func init() {
	register(
		&OpDef{
			Name:        "transpose",
			Summary:     "permutes the dimensions: result dim i is operand dim perm[i]",
			Example:     "%t = transpose(%x) {perm = [1, 0]} : f32[3, 4]",
			MinOperands: 1, MaxOperands: 1,
			Attrs: []AttrDef{{Name: "perm", Kind: AttrInts, Default: dflt(IntsAttr()), Doc: "the permutation (default: reversed dims)"}},
			Build: buildTranspose,
		},
		&OpDef{
			Name:        "reshape",
			Summary:     "the same elements in row-major order under a new shape (a quasi-affine map of the flattened index; it iterates over the side with fewer dims)",
			Example:     `%r = reshape(%x) {shape = "[N, 12]"} : f32[N, 12]`,
			MinOperands: 1, MaxOperands: 1,
			Attrs: []AttrDef{{Name: "shape", Kind: AttrString, Doc: "the result shape, extents quasi-affine in the symbolic dims"}},
			Build: buildReshape,
		},
		&OpDef{
			Name:        "slice",
			Summary:     "elements start, start + step, … before end along the given axes (ONNX Slice semantics: negative indices count from the end, bounds are clamped)",
			Example:     "%s = slice(%x) {axes = [1], ends = [4], starts = [0], steps = [2]} : f32[3, 2]",
			MinOperands: 1, MaxOperands: 1,
			Attrs: []AttrDef{
				{Name: "starts", Kind: AttrInts, Doc: "first index per sliced axis"},
				{Name: "ends", Kind: AttrInts, Doc: "end index (exclusive) per sliced axis"},
				{Name: "axes", Kind: AttrInts, Default: dflt(IntsAttr()), Doc: "sliced axes (default: the first len(starts) dims)"},
				{Name: "steps", Kind: AttrInts, Default: dflt(IntsAttr()), Doc: "step per sliced axis (default 1)"},
				{Name: "sym_starts", Kind: AttrStrings, Default: dflt(StringsAttr()), Doc: "first index per sliced axis as quasi-affine expressions of the symbolic dims (replaces starts); required to lie in [0, extent]"},
				{Name: "sym_ends", Kind: AttrStrings, Default: dflt(StringsAttr()), Doc: "end index per sliced axis as quasi-affine expressions (replaces ends); required to lie in [start, extent]"},
			},
			Build: buildSlice,
		},
		&OpDef{
			Name:        "concat",
			Summary:     "joins operands along an axis; operand k is read where the result index lies in its range",
			Example:     "%c = concat(%a, %b) {axis = 0} : f32[5, 3]",
			MinOperands: 1, MaxOperands: -1,
			Attrs: []AttrDef{{Name: "axis", Kind: AttrInt, Doc: "the concatenation axis (negative counts from the end)"}},
			Build: buildConcat,
		},
		&OpDef{
			Name:        "expand",
			Summary:     "broadcasts the operand to shape with numpy rules",
			Example:     `%e = expand(%x) {shape = "[2, 3, 4]"} : f32[2, 3, 4]`,
			MinOperands: 1, MaxOperands: 1,
			Attrs: []AttrDef{{Name: "shape", Kind: AttrString, Doc: "the target shape (numpy-broadcast with the operand's)"}},
			Build: buildExpand,
		},
		&OpDef{
			Name:        "tile",
			Summary:     "repeats the operand repeats[d] times along each dim d (index r mod extent)",
			Example:     "%t = tile(%x) {repeats = [2, 1]} : f32[6, 4]",
			MinOperands: 1, MaxOperands: 1,
			Attrs: []AttrDef{{Name: "repeats", Kind: AttrInts, Doc: "repetitions per dim"}},
			Build: buildTile,
		},
		&OpDef{
			Name:        "depth_to_space",
			Summary:     "moves channel blocks into blocksize × blocksize spatial blocks (NCHW; DCR or CRD order)",
			Example:     `%d = depth_to_space(%x) {blocksize = 2, mode = "DCR"} : f32[1, 2, 6, 6]`,
			MinOperands: 1, MaxOperands: 1,
			Attrs: []AttrDef{
				{Name: "blocksize", Kind: AttrInt, Doc: "block edge"},
				{Name: "mode", Kind: AttrString, Default: dflt(StringAttr("DCR")), Doc: "DCR (depth, column, row) or CRD"},
			},
			Build: buildDepthToSpace,
		},
		&OpDef{
			Name:        "space_to_depth",
			Summary:     "moves blocksize × blocksize spatial blocks into channels (NCHW), the inverse of depth_to_space in DCR order",
			Example:     "%s = space_to_depth(%x) {blocksize = 2} : f32[1, 8, 3, 3]",
			MinOperands: 1, MaxOperands: 1,
			Attrs: []AttrDef{{Name: "blocksize", Kind: AttrInt, Doc: "block edge"}},
			Build: buildSpaceToDepth,
		},
	)
}

// copyOp finishes an op whose result is its box domain read through index.
func copyOp(b *Builder, shape []volume.Aff, acc Access) {
	b.SetBox(dimNames(len(shape)), shape, nil)
	b.Op.Access = []Access{acc}
	b.Op.Out = AffAccess(identity(0, len(shape))...)
	b.Op.Body = Read(0, b.In(0).Elem)
	b.Result = TensorType{Elem: b.In(0).Elem, Shape: shape}
}

func buildTranspose(b *Builder) error {
	x := b.In(0)
	r := x.Rank()
	perm := b.Op.Attrs.Ints("perm", nil)
	if len(perm) == 0 {
		perm = make([]int64, r)
		for i := range perm {
			perm[i] = int64(r - 1 - i)
		}
	}
	if len(perm) != r {
		return b.Errorf("perm %v has %d entries for an operand of rank %d", perm, len(perm), r)
	}
	seen := make([]bool, r)
	idx := make([]volume.Aff, r)
	shape := make([]volume.Aff, r)
	for i, p := range perm {
		if p < 0 || p >= int64(r) || seen[p] {
			return b.Errorf("perm %v is not a permutation of 0..%d", perm, r-1)
		}
		seen[p] = true
		shape[i] = x.Shape[p]
		idx[p] = volume.AffDim(i)
	}
	copyOp(b, shape, AffAccess(idx...))
	return nil
}

// product is a product of extents: a constant times a multiset of symbolic factors, compared
// structurally (enough to match the symbolic extents a reshape keeps or merges). A symbolic
// extent without a constant term contributes its content (the gcd of its coefficients) to the
// constant, so that 2N, the extent Flatten makes of [N, 2, ...], is 2 times the factor N.
type product struct {
	c    int64
	syms map[string]int
}

func newProduct() product { return product{c: 1, syms: map[string]int{}} }

func (p product) mul(d volume.Aff) product {
	q := product{c: p.c, syms: map[string]int{}}
	for k, v := range p.syms {
		q.syms[k] = v
	}
	if c, ok := d.IsConst(); ok {
		q.c *= c
		return q
	}
	if g := content(d); g > 1 {
		q.c *= g
		d = d.FloorDiv(g) // exact: g divides every coefficient
	}
	q.syms[d.String()]++
	return q
}

// content returns the gcd of the coefficients of a non-constant d whose constant term is 0,
// and 1 otherwise.
func content(d volume.Aff) int64 {
	if d.Const != 0 {
		return 1
	}
	g := int64(0)
	add := func(c int64) {
		if c < 0 {
			c = -c
		}
		for c != 0 {
			g, c = c, g%c
		}
	}
	for _, c := range d.Dims {
		add(c)
	}
	for _, t := range d.Params {
		add(t.Coef)
	}
	for _, t := range d.Floors {
		add(t.Coef)
	}
	if g <= 0 { // no terms, or a coefficient of -2^63
		return 1
	}
	return g
}

func (p product) equal(q product) bool {
	if p.c != q.c || len(p.syms) != len(q.syms) {
		return false
	}
	for k, v := range p.syms {
		if q.syms[k] != v {
			return false
		}
	}
	return true
}

// symsWithin reports whether p's symbolic factors are a sub-multiset of q's.
func (p product) symsWithin(q product) bool {
	for k, v := range p.syms {
		if q.syms[k] < v {
			return false
		}
	}
	return true
}

func buildReshape(b *Builder) error {
	x := b.In(0)
	shape, err := ParseExtents(b.Op.Attrs.Str("shape", ""))
	if err != nil {
		return b.Errorf("%v", err)
	}
	if nonUnit(x.Shape) < nonUnit(shape) {
		// Splitting dims: iterate over the operand and write the result through floors of its
		// flattened index. The other way round the access would merge several iteration dims
		// into one index, whose images the passes' exact projections splinter into
		// exponentially many pieces; preimages through floors stay one piece.
		out, err := reshapeIndex(shape, x.Shape)
		if err != nil {
			return b.Errorf("%s to %s: %v", shapeString(x.Shape), shapeString(shape), err)
		}
		b.SetBox(dimNames(x.Rank()), x.Shape, nil)
		b.Op.Access = []Access{AffAccess(identity(0, x.Rank())...)}
		b.Op.Out = AffAccess(out...)
		b.Op.Body = Read(0, x.Elem)
		b.Result = TensorType{Elem: x.Elem, Shape: shape}
		return nil
	}
	idx, err := reshapeIndex(x.Shape, shape)
	if err != nil {
		return b.Errorf("%s to %s: %v", shapeString(x.Shape), shapeString(shape), err)
	}
	copyOp(b, shape, AffAccess(idx...))
	return nil
}

// nonUnit counts the extents that are not the constant 1.
func nonUnit(shape []volume.Aff) int {
	n := 0
	for _, d := range shape {
		if c, ok := d.IsConst(); !ok || c != 1 {
			n++
		}
	}
	return n
}

// reshapeIndex returns the operand index (of shape in) read for result index r (of shape out)
// in row-major order. Unit dims read index 0; the other dims are grouped into the smallest
// runs with equal element counts, and each run maps its flattened index with floor and mod.
// Within a run every extent but the first must be static, so that the strides are constants.
func reshapeIndex(in, out []volume.Aff) ([]volume.Aff, error) {
	pin, pout := newProduct(), newProduct()
	for _, d := range in {
		pin = pin.mul(d)
	}
	for _, d := range out {
		pout = pout.mul(d)
	}
	if !pin.equal(pout) {
		if pin.c == 0 && pout.c == 0 {
			// both empty: no iteration reads anything
			idx := make([]volume.Aff, len(in))
			for i := range idx {
				idx[i] = volume.AffConst(0)
			}
			return idx, nil
		}
		return nil, errorf("the number of elements differs")
	}
	idx := make([]volume.Aff, len(in))
	var ins, outs []int
	for i, d := range in {
		if c, ok := d.IsConst(); ok && c == 1 {
			idx[i] = volume.AffConst(0)
		} else {
			ins = append(ins, i)
		}
	}
	for j, d := range out {
		if c, ok := d.IsConst(); !ok || c != 1 {
			outs = append(outs, j)
		}
	}
	if pin.c == 0 {
		// empty tensors: the domain is empty, the index never evaluated
		for _, i := range ins {
			idx[i] = volume.AffConst(0)
		}
		return idx, nil
	}
	i, j := 0, 0
	for i < len(ins) || j < len(outs) {
		if i >= len(ins) || j >= len(outs) {
			return nil, errorf("dims do not group into runs of equal size")
		}
		gi, gj := []int{ins[i]}, []int{outs[j]}
		pi, pj := newProduct().mul(in[ins[i]]), newProduct().mul(out[outs[j]])
		i, j = i+1, j+1
		for !pi.equal(pj) {
			grow := 0 // 1: add an input dim, 2: add an output dim
			switch {
			case pi.symsWithin(pj) && !pj.symsWithin(pi):
				grow = 1
			case pj.symsWithin(pi) && !pi.symsWithin(pj):
				grow = 2
			case pi.c < pj.c:
				grow = 1
			default:
				grow = 2
			}
			if grow == 1 && i < len(ins) {
				gi = append(gi, ins[i])
				pi = pi.mul(in[ins[i]])
				i++
			} else if grow == 2 && j < len(outs) {
				gj = append(gj, outs[j])
				pj = pj.mul(out[outs[j]])
				j++
			} else {
				return nil, errorf("dims do not group into runs of equal size")
			}
		}
		if len(gi) == 1 && len(gj) == 1 {
			idx[gi[0]] = volume.AffDim(gj[0])
			continue
		}
		// flattened index of the run in the result
		lin := volume.AffConst(0)
		stride := int64(1)
		for k := len(gj) - 1; k >= 0; k-- {
			lin = lin.Add(volume.AffDim(gj[k]).Mul(stride))
			if k > 0 {
				c, ok := out[gj[k]].IsConst()
				if !ok {
					return nil, errorf("symbolic extent %s is not the leading dim of its run: the map would not be quasi-affine", out[gj[k]].String())
				}
				stride *= c
			}
		}
		// index k = floor(lin/T_k) - A_k·floor(lin/T_{k-1}) with T_k the stride of dim k: the
		// floors are shared between neighbouring dims and never nested, which keeps the number
		// of division variables (and the cost of the passes' Presburger operations) low
		stride = 1
		for k := len(gi) - 1; k >= 0; k-- {
			e := lin.FloorDiv(stride)
			if k > 0 {
				c, ok := in[gi[k]].IsConst()
				if !ok {
					return nil, errorf("symbolic extent %s is not the leading dim of its run: the map would not be quasi-affine", in[gi[k]].String())
				}
				e = e.Sub(lin.FloorDiv(stride * c).Mul(c))
				stride *= c
			}
			idx[gi[k]] = e
		}
	}
	return idx, nil
}

// sliceAxis returns the first index read and the extent of a slice of a dim of extent n.
// Static extents follow ONNX exactly (clamping); for a symbolic extent the bounds are taken
// relative to it (negative from the end, very large as the end). A quasi-affine extent cannot
// clamp, so, as in sliceAxisSym, the op requires the indices it reads to lie inside the axis
// (n >= end for a constant end, n + start >= 0 for a start from the end, and the mirror images
// for a negative step); the entry and the evaluator check that at run time, so a slice to 8 of
// an axis of 4 is an error there, not a read past the buffer. Bounded extents whose ends clamp
// are rewritten by the frontend first (clampBoundedEnds) and take sliceAxisSym.
func sliceAxis(b *Builder, n volume.Aff, start, end, step int64) (first, extent volume.Aff, err error) {
	const huge = 1 << 40
	if step == 0 {
		return first, extent, errorf("step 0")
	}
	if c, ok := n.IsConst(); ok {
		if start < 0 {
			start += c
		}
		if end < 0 {
			end += c
		}
		if step > 0 {
			start = min(max(start, 0), c)
			end = min(max(end, 0), c)
			ext := max(0, ceilDiv(end-start, step))
			return volume.AffConst(start), volume.AffConst(ext), nil
		}
		start = min(max(start, 0), c-1)
		end = min(max(end, -1), c-1)
		ext := max(0, ceilDiv(start-end, -step))
		return volume.AffConst(start), volume.AffConst(ext), nil
	}
	rel := func(v int64, big volume.Aff) volume.Aff {
		switch {
		case v >= huge:
			return big
		case v <= -huge:
			return volume.AffConst(-1)
		case v < 0:
			return n.AddConst(v)
		}
		return volume.AffConst(v)
	}
	// the reads lie in [lo, hi] whenever the extent is positive
	var lo, hi, ext volume.Aff
	if step > 0 {
		s, e := rel(start, n), rel(end, n)
		if start <= -huge {
			s = volume.AffConst(0)
		}
		first, ext, lo, hi = s, e.Sub(s).AddConst(step-1).FloorDiv(step), s, e.AddConst(-1)
	} else {
		s, e := rel(start, n.AddConst(-1)), rel(end, n.AddConst(-1))
		first, ext, lo, hi = s, s.Sub(e).AddConst(-step-1).FloorDiv(-step), e.AddConst(1), s
	}
	for _, c := range []volume.Constraint{volume.GE(lo, volume.AffConst(0)), volume.GE(n.AddConst(-1), hi)} {
		if err := b.require(c); err != nil {
			return first, extent, err
		}
	}
	return first, ext, nil
}

// symBounds parses the symbolic bounds of a slice: nil when absent, else one expression per
// sliced axis (nil entries where the bound is a constant, taken from starts or ends).
func symBounds(texts []string, n int, what string) ([]*volume.Aff, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	if len(texts) != n {
		return nil, errorf("%d %s for %d sliced axes", len(texts), what, n)
	}
	out := make([]*volume.Aff, n)
	for i, t := range texts {
		a, err := volume.ParseAff(t, nil)
		if err != nil {
			return nil, errorf("%s #%d: %v", what, i, err)
		}
		if len(a.Dims) > 0 {
			return nil, errorf("%s #%d: %q uses iteration dims", what, i, t)
		}
		if _, ok := a.IsConst(); !ok {
			out[i] = &a
		}
	}
	return out, nil
}

func pick(bs []*volume.Aff, k int) *volume.Aff {
	if bs == nil {
		return nil
	}
	return bs[k]
}

// sliceAxisSym is sliceAxis with a symbolic start or end (how exporters slice a registered
// buffer to the sequence length: mask[:T, :T]). A quasi-affine expression cannot clamp, so the
// op requires the bounds to be in range already (0 <= start <= end <= extent; the entry checks
// that at run time) and the slice is then exact. Constant bounds keep ONNX's rules.
func sliceAxisSym(b *Builder, n volume.Aff, start, end int64, symStart, symEnd *volume.Aff, step int64) (first, extent volume.Aff, err error) {
	if step <= 0 {
		return first, extent, errorf("a symbolic bound needs a positive step, got %d", step)
	}
	bound := func(v int64, sym *volume.Aff) volume.Aff {
		const huge = 1 << 40
		switch {
		case sym != nil:
			return *sym
		case v >= huge:
			return n
		case v <= -huge:
			return volume.AffConst(0)
		case v < 0:
			return n.AddConst(v)
		}
		return volume.AffConst(v)
	}
	s, e := bound(start, symStart), bound(end, symEnd)
	for _, c := range []volume.Constraint{volume.GE(s, volume.AffConst(0)), volume.GE(e, s), volume.GE(n, e)} {
		if err := b.require(c); err != nil {
			return first, extent, err
		}
	}
	return s, e.Sub(s).AddConst(step - 1).FloorDiv(step), nil
}

func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) == (b < 0) {
		q++
	}
	return q
}

func buildSlice(b *Builder) error {
	x := b.In(0)
	a := b.Op.Attrs
	starts, ends := a.Ints("starts", nil), a.Ints("ends", nil)
	axes, steps := a.Ints("axes", nil), a.Ints("steps", nil)
	if len(starts) != len(ends) {
		return b.Errorf("%d starts and %d ends", len(starts), len(ends))
	}
	if len(axes) == 0 {
		for i := range starts {
			axes = append(axes, int64(i))
		}
	}
	if len(steps) == 0 {
		for range starts {
			steps = append(steps, 1)
		}
	}
	if len(axes) != len(starts) || len(steps) != len(starts) {
		return b.Errorf("%d starts, %d axes and %d steps", len(starts), len(axes), len(steps))
	}
	symStarts, err := symBounds(a.Strings("sym_starts", nil), len(starts), "sym_starts")
	if err != nil {
		return b.Errorf("%v", err)
	}
	symEnds, err := symBounds(a.Strings("sym_ends", nil), len(starts), "sym_ends")
	if err != nil {
		return b.Errorf("%v", err)
	}
	shape := append([]volume.Aff(nil), x.Shape...)
	idx := identity(0, x.Rank())
	seen := map[int]bool{}
	for k, ax := range axes {
		d, err := normAxis(ax, x.Rank())
		if err != nil {
			return b.Errorf("%v", err)
		}
		if seen[d] {
			return b.Errorf("axis %d sliced twice", d)
		}
		seen[d] = true
		var first, ext volume.Aff
		if symStarts != nil && symStarts[k] != nil || symEnds != nil && symEnds[k] != nil {
			first, ext, err = sliceAxisSym(b, x.Shape[d], starts[k], ends[k], pick(symStarts, k), pick(symEnds, k), steps[k])
		} else {
			first, ext, err = sliceAxis(b, x.Shape[d], starts[k], ends[k], steps[k])
		}
		if err != nil {
			return b.Errorf("axis %d: %v", d, err)
		}
		shape[d] = ext
		idx[d] = first.Add(volume.AffDim(d).Mul(steps[k]))
	}
	copyOp(b, shape, AffAccess(idx...))
	return nil
}

func buildConcat(b *Builder) error {
	x := b.In(0)
	axis, err := normAxis(b.Op.Attrs.Int("axis", 0), x.Rank())
	if err != nil {
		return b.Errorf("%v", err)
	}
	shape := append([]volume.Aff(nil), x.Shape...)
	off := volume.AffConst(0)
	b.Op.Access = make([]Access, b.NumIn())
	var avail []int
	for k := 0; k < b.NumIn(); k++ {
		t := b.In(k)
		if t.Rank() != x.Rank() || t.Elem != x.Elem {
			return b.Errorf("operand #%d has type %s, operand #0 has %s", k, t, x)
		}
		for d := range t.Shape {
			if d != axis && !t.Shape[d].Equal(x.Shape[d]) {
				return b.Errorf("operand #%d has extent %s at dimension %d, operand #0 has %s", k, t.Shape[d].String(), d, x.Shape[d].String())
			}
		}
		idx := identity(0, x.Rank())
		idx[axis] = volume.AffDim(axis).Sub(off)
		end := off.Add(t.Shape[axis])
		guard := rangeGuard(volume.AffDim(axis), off, end)
		if c, ok := t.Shape[axis].IsConst(); ok && c == 0 {
			guard = falseGuard() // an empty operand is never read
		} else {
			avail = append(avail, k)
		}
		b.Op.Access[k] = Access{Pieces: []AccessPiece{{Guard: guard, Index: idx}}}
		off = end
	}
	shape[axis] = off
	b.SetBox(dimNames(len(shape)), shape, nil)
	b.Op.Out = AffAccess(identity(0, len(shape))...)
	// body: the one operand whose range holds the index (the last one needs no test)
	var body *Scalar
	for i := len(avail) - 1; i >= 0; i-- {
		k := avail[i]
		if body == nil {
			body = Read(k, x.Elem)
		} else {
			body = Select(Avail(k), Read(k, x.Elem), body)
		}
	}
	if body == nil {
		body = Const(x.Elem, 0) // every operand is empty along the axis: so is the result
	}
	b.Op.Body = body
	b.Result = TensorType{Elem: x.Elem, Shape: shape}
	return nil
}

func buildExpand(b *Builder) error {
	x := b.In(0)
	target, err := ParseExtents(b.Op.Attrs.Str("shape", ""))
	if err != nil {
		return b.Errorf("%v", err)
	}
	rank := max(len(target), x.Rank())
	out := make([]volume.Aff, rank)
	for i := range out {
		out[i] = volume.AffConst(1)
	}
	for _, s := range [][]volume.Aff{x.Shape, target} {
		off := rank - len(s)
		for i, d := range s {
			cur := out[off+i]
			c, cok := cur.IsConst()
			v, vok := d.IsConst()
			switch {
			case vok && v == 1:
			case cok && c == 1:
				out[off+i] = d
			case cur.Equal(d):
			default:
				return b.Errorf("operand shape %s does not broadcast to %s at dimension %d", shapeString(x.Shape), shapeString(target), off+i)
			}
		}
	}
	copyOp(b, out, broadcastAccess(x, out))
	return nil
}

func buildTile(b *Builder) error {
	x := b.In(0)
	reps := b.Op.Attrs.Ints("repeats", nil)
	if len(reps) != x.Rank() {
		return b.Errorf("%d repeats for an operand of rank %d", len(reps), x.Rank())
	}
	shape := make([]volume.Aff, x.Rank())
	idx := make([]volume.Aff, x.Rank())
	for d, r := range reps {
		if r < 0 {
			return b.Errorf("negative repeat %d at dimension %d", r, d)
		}
		shape[d] = x.Shape[d].Mul(r)
		idx[d] = volume.AffDim(d)
		if r == 1 {
			continue
		}
		n, ok := x.Shape[d].IsConst()
		if !ok {
			return b.Errorf("repeating the symbolic extent %s needs a modulo by a parameter, which is not quasi-affine", x.Shape[d].String())
		}
		if n > 0 {
			idx[d] = volume.AffDim(d).Mod(n)
		}
	}
	copyOp(b, shape, AffAccess(idx...))
	return nil
}

// blockOperand checks a rank-4 operand and a positive block size, and returns the static
// channel count.
func blockOperand(b *Builder) (bs, channels int64, err error) {
	x := b.In(0)
	if x.Rank() != 4 {
		return 0, 0, b.Errorf("operand must have rank 4 (NCHW), got %s", x)
	}
	bs = b.Op.Attrs.Int("blocksize", 0)
	if bs <= 0 {
		return 0, 0, b.Errorf("blocksize %d must be positive", bs)
	}
	c, ok := x.Shape[1].IsConst()
	if !ok {
		return 0, 0, b.Errorf("the channel extent %s must be static", x.Shape[1].String())
	}
	return bs, c, nil
}

func buildDepthToSpace(b *Builder) error {
	x := b.In(0)
	bs, c, err := blockOperand(b)
	if err != nil {
		return err
	}
	if c%(bs*bs) != 0 {
		return b.Errorf("channels %d are not a multiple of blocksize² = %d", c, bs*bs)
	}
	cOut := c / (bs * bs)
	shape := []volume.Aff{x.Shape[0], volume.AffConst(cOut), x.Shape[2].Mul(bs), x.Shape[3].Mul(bs)}
	n, ch, y, xx := volume.AffDim(0), volume.AffDim(1), volume.AffDim(2), volume.AffDim(3)
	by, bx := y.Mod(bs), xx.Mod(bs)
	var inC volume.Aff
	switch mode := b.Op.Attrs.Str("mode", "DCR"); mode {
	case "DCR":
		inC = by.Mul(bs).Add(bx).Mul(cOut).Add(ch)
	case "CRD":
		inC = ch.Mul(bs * bs).Add(by.Mul(bs)).Add(bx)
	default:
		return b.Errorf("mode %q is neither DCR nor CRD", mode)
	}
	copyOp(b, shape, AffAccess(n, inC, y.FloorDiv(bs), xx.FloorDiv(bs)))
	return nil
}

func buildSpaceToDepth(b *Builder) error {
	x := b.In(0)
	bs, c, err := blockOperand(b)
	if err != nil {
		return err
	}
	for _, d := range []int{2, 3} {
		if e, ok := x.Shape[d].IsConst(); ok && e%bs != 0 {
			return b.Errorf("extent %d of dimension %d is not a multiple of blocksize %d", e, d, bs)
		}
	}
	shape := []volume.Aff{x.Shape[0], volume.AffConst(c * bs * bs), x.Shape[2].FloorDiv(bs), x.Shape[3].FloorDiv(bs)}
	n, ch, h, w := volume.AffDim(0), volume.AffDim(1), volume.AffDim(2), volume.AffDim(3)
	blk := ch.FloorDiv(c) // by*bs + bx
	copyOp(b, shape, AffAccess(n, ch.Mod(c), h.Mul(bs).Add(blk.FloorDiv(bs)), w.Mul(bs).Add(blk.Mod(bs))))
	return nil
}
