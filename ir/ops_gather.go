// This file declares the data-dependent selections gather and gather_elements. The index
// tensor is read through an exact affine access; the data is read at indices computed from
// those elements (DynRead), so its access is marked Approx and carries an over-approximation:
// every element along the gathered axis.

package ir

import (
	"fmt"
	"slices"
	"strings"

	"github.com/graphc/graphc/volume"
)

func init() {
	register(
		&OpDef{
			Name:        "gather",
			Summary:     "out[a.., i.., b..] = data[a.., indices[i..], b..] along axis (negative indices count from the end)",
			Example:     "%g = gather(%data, %idx) {axis = 0} : f32[2, 4]",
			MinOperands: 2, MaxOperands: 2,
			Attrs: []AttrDef{{Name: "axis", Kind: AttrInt, Default: dflt(IntAttr(0)), Doc: "the gathered axis of data"}},
			Build: buildGather,
		},
		&OpDef{
			Name:        "gather_elements",
			Summary:     "out[x] = data[x with x[axis] replaced by indices[x]] (negative indices count from the end)",
			Example:     "%g = gather_elements(%data, %idx) {axis = 1} : f32[2, 2]",
			MinOperands: 2, MaxOperands: 2,
			Attrs: []AttrDef{{Name: "axis", Kind: AttrInt, Default: dflt(IntAttr(0)), Doc: "the gathered axis"}},
			Build: buildGatherElements,
		},
		&OpDef{
			Name: "gather_nd",
			Summary: "out[b.., p.., r..] = data[b.., i_0[b.., p..], …, i_{k-1}[b.., p..], r..]: one index operand per " +
				"addressed dim after the batch_dims leading ones (negative indices count from the end)",
			Example:     "%g = gather_nd(%data, %i0, %i1) {batch_dims = 0} : f32[2]",
			MinOperands: 2, MaxOperands: -1,
			Attrs: []AttrDef{{Name: "batch_dims", Kind: AttrInt, Default: dflt(IntAttr(0)), Doc: "leading dims shared by data and the indices"}},
			Build: buildGatherND,
		},
		&OpDef{
			Name: "tensor_scatter",
			Summary: "the cache with each batch's update written along axis from write_indices[b] on (linear), or modulo the " +
				"cache's extent (circular): out[x] = update[x with x[axis] - w] where that lies in the update, else cache[x]",
			Example:     `%c = tensor_scatter(%cache, %update, %w) {axis = 2, mode = "linear"} : f32[2, 1, 4, 5]`,
			MinOperands: 3, MaxOperands: 3,
			Attrs: []AttrDef{
				{Name: "axis", Kind: AttrInt, Default: dflt(IntAttr(-2)), Doc: "the sequence axis (not the batch axis 0)"},
				{Name: "mode", Kind: AttrString, Default: dflt(StringAttr("linear")), Doc: "linear or circular"},
			},
			Build: buildTensorScatter,
		},
		&OpDef{
			Name: "reverse_sequence",
			Summary: "reverses the first lens[b] elements along time_axis of every batch b: " +
				"out[.., b, .., t, ..] = x[.., b, .., lens[b] - 1 - t, ..] for t < lens[b], x itself beyond",
			Example:     "%r = reverse_sequence(%x, %lens) {batch_axis = 0, time_axis = 1} : f32[4, 4]",
			MinOperands: 2, MaxOperands: 2,
			Attrs: []AttrDef{
				{Name: "batch_axis", Kind: AttrInt, Default: dflt(IntAttr(1)), Doc: "the batch axis"},
				{Name: "time_axis", Kind: AttrInt, Default: dflt(IntAttr(0)), Doc: "the reversed axis"},
			},
			Build: buildReverseSequence,
		},
	)
}

// approxAlongAxis returns { [x] -> [e_0, …, t, …] : 0 <= t < extent }: the elements an access
// reading idx, with its entry at axis replaced by any index, may touch.
func approxAlongAxis(params, dims []string, idx []volume.Aff, axis int, extent volume.Aff) (volume.Map, error) {
	ext := make([]volume.Aff, len(idx))
	ext[axis] = extent
	return approxAlongAxes(params, dims, idx, []int{axis}, ext)
}

// approxAlongAxes is approxAlongAxis with several free axes, axis a ranging over extents[a].
func approxAlongAxes(params, dims []string, idx []volume.Aff, axes []int, extents []volume.Aff) (volume.Map, error) {
	ps := append([]string(nil), params...)
	addParams := func(a volume.Aff) {
		for _, p := range a.ParamNames() {
			if !contains(ps, p) {
				ps = append(ps, p)
			}
		}
	}
	for _, a := range axes {
		addParams(extents[a])
	}
	for _, a := range idx {
		addParams(a)
	}
	outs := make([]string, len(idx))
	var cons []string
	for i, a := range idx {
		outs[i] = a.String(dims...)
	}
	for n, a := range axes {
		free := fmt.Sprintf("t%d_", n)
		outs[a] = free
		cons = append(cons, fmt.Sprintf("0 <= %s < %s", free, extents[a].String()))
	}
	where := "" // no free axis (an operand read at the iteration's own index): no constraint
	if len(cons) > 0 {
		where = " : " + strings.Join(cons, " and ")
	}
	text := fmt.Sprintf("[%s] -> { [%s] -> [%s]%s }", strings.Join(ps, ", "), strings.Join(dims, ", "),
		strings.Join(outs, ", "), where)
	m, err := volume.ParseMap(text)
	if err != nil {
		return volume.Map{}, fmt.Errorf("internal error building the over-approximated map %s: %w", text, err)
	}
	return m, nil
}

func contains(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// wrapIndex converts an index element to i64 and adds extent when it is negative.
func wrapIndex(v *Scalar, extent volume.Aff) *Scalar {
	i := Cast(v, I64)
	return Select(Bin(SLt, i, ConstI(I64, 0)), Bin(SAdd, i, AffScalar(extent)), i)
}

func checkIndexType(b *Builder, k int) error {
	if e := b.In(k).Elem; e != I64 && e != I32 {
		return b.Errorf("indices must be i64 or i32, got %s", e)
	}
	return nil
}

func buildGather(b *Builder) error {
	data, ind := b.In(0), b.In(1)
	if data.Rank() == 0 {
		return b.Errorf("data must have rank >= 1")
	}
	if err := checkIndexType(b, 1); err != nil {
		return err
	}
	axis, err := normAxis(b.Op.Attrs.Int("axis", 0), data.Rank())
	if err != nil {
		return b.Errorf("%v", err)
	}
	q := ind.Rank()
	shape := append(append(append([]volume.Aff(nil), data.Shape[:axis]...), ind.Shape...), data.Shape[axis+1:]...)
	dims := dimNames(len(shape))
	b.SetBox(dims, shape, nil)
	// data index: dims before axis, the gathered element, dims after the index dims
	idx := make([]volume.Aff, data.Rank())
	args := make([]*Scalar, data.Rank())
	for d := 0; d < data.Rank(); d++ {
		switch {
		case d < axis:
			idx[d], args[d] = volume.AffDim(d), Index(d)
		case d > axis:
			idx[d], args[d] = volume.AffDim(d+q-1), Index(d+q-1)
		default:
			idx[d] = volume.AffConst(0)
			args[d] = wrapIndex(Read(1, ind.Elem), data.Shape[axis])
		}
	}
	return finishGather(b, shape, idx, args, axis, identity(axis, q))
}

func buildGatherElements(b *Builder) error {
	data, ind := b.In(0), b.In(1)
	if data.Rank() == 0 || ind.Rank() != data.Rank() {
		return b.Errorf("data and indices must have the same rank >= 1, got %s and %s", data, ind)
	}
	if err := checkIndexType(b, 1); err != nil {
		return err
	}
	axis, err := normAxis(b.Op.Attrs.Int("axis", 0), data.Rank())
	if err != nil {
		return b.Errorf("%v", err)
	}
	shape := ind.Shape
	dims := dimNames(len(shape))
	b.SetBox(dims, shape, nil)
	idx := identity(0, data.Rank())
	args := make([]*Scalar, data.Rank())
	for d := range args {
		args[d] = Index(d)
	}
	args[axis] = wrapIndex(Read(1, ind.Elem), data.Shape[axis])
	return finishGather(b, shape, idx, args, axis, identity(0, ind.Rank()))
}

// finishGather completes a gather over the result box shape: data (operand 0) is read at idx
// with its entry at axis replaced by the index element, which operand 1 holds at indexAt. The
// read is exact when the index elements are known (exactGather), else a data-dependent read
// at args with the named over-approximation: every element along the axis.
func finishGather(b *Builder, shape, idx []volume.Aff, args []*Scalar, axis int, indexAt []volume.Aff) error {
	data := b.In(0)
	b.Op.Out = AffAccess(identity(0, len(shape))...)
	b.Result = TensorType{Elem: data.Elem, Shape: shape}
	idxAccess := AffAccess(indexAt...)
	exact, inBounds, err := exactGather(b, shape, idx, axis, data.Shape[axis], indexAt)
	if err != nil {
		return err
	}
	b.Op.Body = DynRead(0, data.Elem, args...)
	if exact != nil {
		b.Op.Access = []Access{*exact, idxAccess}
		if inBounds {
			b.Op.Body = Read(0, data.Elem)
		}
		return nil
	}
	am, err := approxAlongAxis(b.Params, b.Op.Dims, idx, axis, data.Shape[axis])
	if err != nil {
		return b.Errorf("%v", err)
	}
	b.Op.Access = []Access{{Approx: true, ApproxMap: am}, idxAccess}
	return nil
}

// exactGather returns the exact access of the data operand of a gather whose index operand
// (operand 1, read at indexAt of the iteration point) has known affine elements (constants,
// arange(T) and views of them): data[idx with its entry at axis replaced by the index element,
// negative elements counted from the end (an element whose sign depends on the symbolic dims,
// such as T - 1 - P, gives a piece for each sign)]. It returns nil when the elements are not
// known.
// inBounds says whether every element read lies in [0, extent): checked now for static
// shapes (an out-of-range constant index is an error), and for symbolic ones turned into
// requirements on the symbolic dims when the bounds of the element are affine in them;
// otherwise the caller keeps the data-dependent read, which checks each index at run time.
func exactGather(b *Builder, shape, idx []volume.Aff, axis int, extent volume.Aff, indexAt []volume.Aff) (acc *Access, inBounds bool, err error) {
	pieces, ok := AffineValue(b.Op.Operands[1])
	if !ok {
		return nil, false, nil
	}
	dims := b.Op.Dims
	box := b.Op.Full
	inBounds = true
	var out Access
	for _, p := range pieces {
		v := p.Value.SubstDims(indexAt)
		var guard []volume.Constraint
		for _, c := range p.Guard {
			guard = append(guard, volume.Constraint{Aff: c.Aff.SubstDims(indexAt), Eq: c.Eq})
		}
		type signed struct {
			guard []volume.Constraint
			v     volume.Aff
		}
		parts := []signed{{guard, v}}
		if c, ok := p.Value.IsConst(); ok && c < 0 {
			parts[0].v = extent.AddConst(c) // ONNX: a negative index counts from the end
		} else if !ok && !nonNegativeAff(p.Value) {
			// the sign of the element is not known (T - 1 - P: a position computed from
			// symbolic dims): where it is negative it counts from the end
			parts = []signed{
				{append(slices.Clip(guard), volume.GE(v, volume.AffConst(0))), v},
				{append(slices.Clip(guard), volume.LT(v, volume.AffConst(0))), v.Add(extent)},
			}
		}
		for _, part := range parts {
			piece := AccessPiece{Guard: part.guard, Index: append([]volume.Aff(nil), idx...)}
			piece.Index[axis] = part.v
			out.Pieces = append(out.Pieces, piece)
			ok, err := gatherInBounds(b, box, dims, part.guard, part.v, extent, shape)
			if err != nil {
				return nil, false, err
			}
			inBounds = inBounds && ok
		}
	}
	return &out, inBounds, nil
}

// nonNegativeAff reports whether a >= 0 for all non-negative dims and parameters.
func nonNegativeAff(a volume.Aff) bool {
	if len(a.Floors) > 0 || a.Const < 0 {
		return false
	}
	for _, c := range a.Dims {
		if c < 0 {
			return false
		}
	}
	for _, p := range a.Params {
		if p.Coef < 0 {
			return false
		}
	}
	return true
}

// gatherInBounds decides whether the element v (an expression of the iteration point) lies in
// [0, extent) on the piece of the iteration box where guard holds. Static shapes are decided
// exactly (out of range is an error about the model); symbolic ones become requirements on the
// symbolic dims when v's extreme values over the box are affine (no floors, no guard).
func gatherInBounds(b *Builder, box volume.Set, dims []string, guard []volume.Constraint, v, extent volume.Aff, shape []volume.Aff) (bool, error) {
	params := box.Params()
	static := len(v.Params) == 0 && len(extent.Params) == 0
	for _, d := range shape {
		static = static && len(d.Params) == 0
	}
	if static {
		region := box.Intersect(volume.SetFromConstraints(params, "", dims, guard))
		bad := region.Intersect(volume.SetFromConstraints(params, "", dims, []volume.Constraint{volume.LT(v, volume.AffConst(0))})).
			Union(region.Intersect(volume.SetFromConstraints(params, "", dims, []volume.Constraint{volume.GE(v, extent)})))
		if err := bad.Err(); err != nil {
			return false, err
		}
		if !bad.IsEmpty().Or(false) { // unknown: not proven in bounds, an error about the model
			return false, b.Errorf("invalid: index elements outside [-%s, %s) (iterations %s)", extent.String(), extent.String(), bad.Coalesce())
		}
		return true, nil
	}
	if len(guard) > 0 || len(v.Floors) > 0 {
		return false, nil
	}
	lo, hi := v, v
	sub := func(pick func(c int64, d int) volume.Aff) volume.Aff {
		at := make([]volume.Aff, len(dims))
		for d := range at {
			c := int64(0)
			if d < len(v.Dims) {
				c = v.Dims[d]
			}
			at[d] = pick(c, d)
		}
		return v.SubstDims(at)
	}
	lo = sub(func(c int64, d int) volume.Aff {
		if c < 0 {
			return shape[d].AddConst(-1)
		}
		return volume.AffConst(0)
	})
	hi = sub(func(c int64, d int) volume.Aff {
		if c > 0 {
			return shape[d].AddConst(-1)
		}
		return volume.AffConst(0)
	})
	if err := b.require(volume.GE(lo, volume.AffConst(0))); err != nil {
		return false, err
	}
	if err := b.require(volume.LT(hi, extent)); err != nil {
		return false, err
	}
	return true, nil
}

// buildGatherND: operand 0 is data, operands 1..k the index elements of the k addressed dims
// (all of one shape, whose first batch_dims dims are data's). The data is read at computed
// indices (DynRead), so its access over-approximates: every element along the addressed dims.
func buildGatherND(b *Builder) error {
	data := b.In(0)
	k := b.NumIn() - 1
	it := b.In(1)
	bd := int(b.Op.Attrs.Int("batch_dims", 0))
	if bd < 0 || bd > it.Rank() || bd+k > data.Rank() {
		return b.Errorf("batch_dims %d with %d index operands of rank %d does not fit data of rank %d", bd, k, it.Rank(), data.Rank())
	}
	for j := 1; j <= k; j++ {
		if err := checkIndexType(b, j); err != nil {
			return err
		}
		if !b.In(j).Equal(it) {
			return b.Errorf("index operands #1 %s and #%d %s differ", it, j, b.In(j))
		}
	}
	for d := 0; d < bd; d++ {
		if !it.Shape[d].Equal(data.Shape[d]) {
			return b.Errorf("batch dim %d: data %s and indices %s differ", d, data, it)
		}
	}
	p := it.Rank()
	shape := append(append([]volume.Aff(nil), it.Shape...), data.Shape[bd+k:]...)
	dims := dimNames(len(shape))
	b.SetBox(dims, shape, nil)
	idx := make([]volume.Aff, data.Rank())
	args := make([]*Scalar, data.Rank())
	var axes []int
	for d := range idx {
		switch {
		case d < bd:
			idx[d], args[d] = volume.AffDim(d), Index(d)
		case d < bd+k:
			idx[d] = volume.AffConst(0)
			args[d] = wrapIndex(Read(1+d-bd, it.Elem), data.Shape[d])
			axes = append(axes, d)
		default:
			idx[d], args[d] = volume.AffDim(p+d-bd-k), Index(p+d-bd-k)
		}
	}
	b.Op.Access = make([]Access, 1+k)
	for j := 1; j <= k; j++ {
		b.Op.Access[j] = AffAccess(identity(0, p)...)
	}
	b.Op.Out = AffAccess(identity(0, len(shape))...)
	b.Result = TensorType{Elem: data.Elem, Shape: shape}
	am, err := approxAlongAxes(b.Params, dims, idx, axes, data.Shape)
	if err != nil {
		return b.Errorf("%v", err)
	}
	b.Op.Access[0] = Access{Approx: true, ApproxMap: am}
	b.Op.Body = DynRead(0, data.Elem, args...)
	return nil
}

// buildTensorScatter: out[x] reads the update at x[axis] - w[x[0]] (modulo the extent when
// circular) when that lies in [0, update extent), else the cache at x. The cache and the write
// indices are read through exact affine accesses; the update at a computed index (DynRead),
// over-approximated along the axis.
func buildTensorScatter(b *Builder) error {
	cache, upd, w := b.In(0), b.In(1), b.In(2)
	r := cache.Rank()
	axis, err := normAxis(b.Op.Attrs.Int("axis", -2), r)
	if err != nil {
		return b.Errorf("%v", err)
	}
	if axis == 0 || upd.Rank() != r || upd.Elem != cache.Elem {
		return b.Errorf("cache %s and update %s must have one type and rank, and axis %d must not be the batch axis", cache, upd, axis)
	}
	for d := 0; d < r; d++ {
		if d != axis && !upd.Shape[d].Equal(cache.Shape[d]) {
			return b.Errorf("cache %s and update %s differ outside axis %d", cache, upd, axis)
		}
	}
	if err := checkIndexType(b, 2); err != nil {
		return err
	}
	if w.Rank() != 1 || !w.Shape[0].Equal(cache.Shape[0]) {
		return b.Errorf("write indices %s must be [batch] of %s", w, cache)
	}
	mode := b.Op.Attrs.Str("mode", "linear")
	if mode != "linear" && mode != "circular" {
		return b.Errorf("mode %q (want linear or circular)", mode)
	}
	dims := dimNames(r)
	b.SetBox(dims, cache.Shape, nil)
	idx := identity(0, r)
	idx[axis] = volume.AffConst(0)
	am, err := approxAlongAxis(b.Params, dims, idx, axis, upd.Shape[axis])
	if err != nil {
		return b.Errorf("%v", err)
	}
	b.Op.Access = []Access{AffAccess(identity(0, r)...), {Approx: true, ApproxMap: am}, AffAccess(volume.AffDim(0))}
	b.Op.Out = AffAccess(identity(0, r)...)
	t := Bin(SSub, Index(axis), Cast(Read(2, w.Elem), I64))
	if mode == "circular" {
		n := AffScalar(cache.Shape[axis])
		m := Bin(SRem, t, n)
		t = Select(Bin(SLt, m, ConstI(I64, 0)), Bin(SAdd, m, n), m)
	}
	in := Bin(SAnd, Bin(SLe, ConstI(I64, 0), t), Bin(SLt, t, AffScalar(upd.Shape[axis])))
	args := make([]*Scalar, r)
	for d := range args {
		args[d] = Index(d)
	}
	args[axis] = t
	b.Op.Body = Select(in, DynRead(1, upd.Elem, args...), Read(0, cache.Elem))
	b.Result = cache
	return nil
}

// buildReverseSequence reads x at a time index computed from the sequence's length (DynRead,
// over-approximated along the time axis) and the lengths through an exact affine access.
func buildReverseSequence(b *Builder) error {
	x, lens := b.In(0), b.In(1)
	r := x.Rank()
	ba, err := normAxis(b.Op.Attrs.Int("batch_axis", 1), r)
	if err != nil {
		return b.Errorf("%v", err)
	}
	ta, err := normAxis(b.Op.Attrs.Int("time_axis", 0), r)
	if err != nil {
		return b.Errorf("%v", err)
	}
	if r < 2 || ba == ta {
		return b.Errorf("batch_axis %d and time_axis %d must be distinct axes of %s", ba, ta, x)
	}
	if err := checkIndexType(b, 1); err != nil {
		return err
	}
	if lens.Rank() != 1 || !lens.Shape[0].Equal(x.Shape[ba]) {
		return b.Errorf("lengths %s must be [batch] of %s", lens, x)
	}
	dims := dimNames(r)
	b.SetBox(dims, x.Shape, nil)
	idx := identity(0, r)
	idx[ta] = volume.AffConst(0)
	am, err := approxAlongAxis(b.Params, dims, idx, ta, x.Shape[ta])
	if err != nil {
		return b.Errorf("%v", err)
	}
	b.Op.Access = []Access{{Approx: true, ApproxMap: am}, AffAccess(volume.AffDim(ba))}
	b.Op.Out = AffAccess(identity(0, r)...)
	t := Index(ta)
	l := Cast(Read(1, lens.Elem), I64)
	src := Select(Bin(SLt, t, l), Bin(SSub, Bin(SSub, l, ConstI(I64, 1)), t), t)
	args := make([]*Scalar, r)
	for d := range args {
		args[d] = Index(d)
	}
	args[ta] = src
	b.Op.Body = DynRead(0, x.Elem, args...)
	b.Result = x
	return nil
}
