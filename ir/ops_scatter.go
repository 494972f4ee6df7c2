// This file declares the scatters, scatter_elements and scatter_nd, as reductions that search
// the updates: result element x starts from data[x] and combines (sum, product, max or min)
// every update whose index elements name x. Data, updates and indices are all read through
// exact affine accesses (the index elements are compared with x in the body, not used as
// addresses), so the element maps are exact descriptions of what each result element may
// depend on: the matching update is among those read. The cost is the product of the result's
// size and the number of updates that could reach each element (the updates along the axis for
// scatter_elements, all of them for scatter_nd); out-of-range index elements match nothing.

package ir

import (
	"math"

	"github.com/graphc/graphc/volume"
)

func init() {
	register(
		&OpDef{
			Name: "scatter_elements",
			Summary: "out = data, then out[u with u[axis] replaced by indices[u]] ⊕= updates[u] for every update u, in order " +
				"(⊕: the reduction; negative indices count from the end)",
			Example:     `%s = scatter_elements(%data, %idx, %upd) {axis = 0, reduction = "add"} : f32[3, 3]`,
			MinOperands: 3, MaxOperands: 3,
			Attrs: []AttrDef{
				{Name: "axis", Kind: AttrInt, Default: dflt(IntAttr(0)), Doc: "the axis the indices address"},
				{Name: "reduction", Kind: AttrString, Default: dflt(StringAttr("add")), Doc: "add, mul, max or min"},
			},
			Build: buildScatterElements,
		},
		&OpDef{
			Name: "scatter_nd",
			Summary: "out = data, then out[i_0[u], …, i_{k-1}[u], r..] ⊕= updates[u.., r..] for every update u, in order " +
				"(one index operand per addressed leading dim of data; ⊕: the reduction)",
			Example:     `%s = scatter_nd(%data, %upd, %i0) {reduction = "add"} : f32[8]`,
			MinOperands: 3, MaxOperands: -1,
			Attrs: []AttrDef{
				{Name: "reduction", Kind: AttrString, Default: dflt(StringAttr("add")), Doc: "add, mul, max or min"},
			},
			Build: buildScatterND,
		},
	)
}

// scatterReduction returns the reduction of a scatter and its identity for element type t
// (the sum starts from -0, which leaves every addend's sign and value as it is).
func scatterReduction(b *Builder, t DType) (ReduceKind, float64, error) {
	switch r := b.Op.Attrs.Str("reduction", "add"); r {
	case "add":
		if t.IsFloat() {
			return ReduceSum, math.Copysign(0, -1), nil
		}
		return ReduceSum, 0, nil
	case "mul":
		return ReduceProd, 1, nil
	case "max":
		return ReduceMax, LowestValue(t), nil
	case "min":
		return ReduceMin, HighestValue(t), nil
	default:
		return 0, 0, b.Errorf("reduction %q (want add, mul, max or min)", r)
	}
}

// identityConst is the constant of type t with value v (an op's Init).
func identityConst(t DType, v float64) *Scalar {
	if t.IsFloat() {
		return ConstF(t, v)
	}
	return ConstI(t, IntInit(t, v))
}

// scatterElementsOperands checks scatter_elements' and scatter_elements_rt's operands (data,
// indices and updates of one rank, indices and updates of one shape) and axis attribute; it
// returns data, the updates, the rank and the normalised axis.
func scatterElementsOperands(b *Builder) (data, upd TensorType, r, axis int, err error) {
	data, ind, upd := b.In(0), b.In(1), b.In(2)
	r = data.Rank()
	if r == 0 || ind.Rank() != r || upd.Rank() != r {
		return data, upd, r, 0, b.Errorf("data, indices and updates must have one rank >= 1, got %s, %s and %s", data, ind, upd)
	}
	if err := checkIndexType(b, 1); err != nil {
		return data, upd, r, 0, err
	}
	if upd.Elem != data.Elem {
		return data, upd, r, 0, b.Errorf("updates %s and data %s differ in element type", upd, data)
	}
	for d := range ind.Shape {
		if !ind.Shape[d].Equal(upd.Shape[d]) {
			return data, upd, r, 0, b.Errorf("indices %s and updates %s differ in shape", ind, upd)
		}
	}
	axis, err = normAxis(b.Op.Attrs.Int("axis", 0), r)
	if err != nil {
		return data, upd, r, 0, b.Errorf("%v", err)
	}
	return data, upd, r, axis, nil
}

// buildScatterElements: iteration [x.., s] with s = 0 reading data[x] and s = 1 + t reading
// update u = x with u[axis] = t (for x inside the updates' box in the other dims); the update
// contributes where its index element equals x[axis].
func buildScatterElements(b *Builder) error {
	data, upd, r, axis, err := scatterElementsOperands(b)
	if err != nil {
		return err
	}
	kind, init, err := scatterReduction(b, data.Elem)
	if err != nil {
		return err
	}
	dims := dimNames(r + 1)
	ext := append(append([]volume.Aff(nil), data.Shape...), upd.Shape[axis].AddConst(1))
	iters := make([]IterKind, r+1)
	iters[r] = Reduction
	b.SetBox(dims, ext, iters)
	s := volume.AffDim(r)
	dataAcc := Access{Pieces: []AccessPiece{{Guard: []volume.Constraint{volume.EQ(s, volume.AffConst(0))}, Index: identity(0, r)}}}
	guard := []volume.Constraint{volume.GE(s, volume.AffConst(1))}
	idx := identity(0, r)
	for d := 0; d < r; d++ {
		if d == axis {
			idx[d] = s.AddConst(-1)
			continue
		}
		if !upd.Shape[d].Equal(data.Shape[d]) {
			guard = append(guard, volume.LT(volume.AffDim(d), upd.Shape[d]))
		}
	}
	updAcc := Access{Pieces: []AccessPiece{{Guard: guard, Index: idx}}}
	b.Op.Access = []Access{dataAcc, updAcc, updAcc}
	b.Op.Out = AffAccess(identity(0, r)...)
	id := identityConst(data.Elem, init)
	match := Bin(SEq, wrapIndex(Read(1, b.In(1).Elem), data.Shape[axis]), Index(axis))
	b.Op.Body = Select(Avail(0), Read(0, data.Elem), Select(Avail(1), Select(match, Read(2, upd.Elem), id), id))
	b.Op.Reduce, b.Op.Init = kind, init
	b.Result = data
	return nil
}

// scatterNDOperands checks scatter_nd's and scatter_nd_rt's operands: data, updates and k
// index tensors (one per addressed dim of data, each of the updates' leading shape). It returns
// data, the updates, the first index tensor's type, k, data's rank and the indices' rank.
func scatterNDOperands(b *Builder) (data, upd, ut TensorType, k, r, p int, err error) {
	data, upd = b.In(0), b.In(1)
	k = b.NumIn() - 2
	r = data.Rank()
	if k > r {
		return data, upd, ut, k, r, p, b.Errorf("%d index operands address a data tensor of rank %d", k, r)
	}
	if upd.Elem != data.Elem {
		return data, upd, ut, k, r, p, b.Errorf("updates %s and data %s differ in element type", upd, data)
	}
	ut = b.In(2)
	p = ut.Rank()
	for j := 0; j < k; j++ {
		if err := checkIndexType(b, 2+j); err != nil {
			return data, upd, ut, k, r, p, err
		}
		if !b.In(2 + j).Equal(ut) {
			return data, upd, ut, k, r, p, b.Errorf("index operands #2 %s and #%d %s differ", ut, 2+j, b.In(2+j))
		}
	}
	// updates: the indices' shape, then data's dims from k on
	want := append(append([]volume.Aff(nil), ut.Shape...), data.Shape[k:]...)
	if upd.Rank() != len(want) {
		return data, upd, ut, k, r, p, b.Errorf("updates %s must have shape %s", upd, shapeString(want))
	}
	for d := range want {
		if !upd.Shape[d].Equal(want[d]) {
			return data, upd, ut, k, r, p, b.Errorf("updates %s must have shape %s", upd, shapeString(want))
		}
	}
	return data, upd, ut, k, r, p, nil
}

// buildScatterND: operands data, updates and k index tensors (one per addressed dim of data,
// each of the updates' leading shape). Iteration [x.., s, u..]: s = 0 (with u = 0) reads
// data[x], s = 1 reads update u at the trailing coordinates of x; it contributes where
// i_j[u] = x_j for every j < k.
func buildScatterND(b *Builder) error {
	data, upd, ut, k, r, p, err := scatterNDOperands(b)
	if err != nil {
		return err
	}
	kind, init, err := scatterReduction(b, data.Elem)
	if err != nil {
		return err
	}
	n := r + 1 + p
	dims := dimNames(n)
	ext := append(append(append([]volume.Aff(nil), data.Shape...), volume.AffConst(2)), ut.Shape...)
	iters := make([]IterKind, n)
	for d := r; d < n; d++ {
		iters[d] = Reduction
	}
	b.SetBox(dims, ext, iters)
	s := volume.AffDim(r)
	// the data is read once per element (s = 0, u = 0), the updates at s = 1
	first := []volume.Constraint{volume.EQ(s, volume.AffConst(0))}
	for d := r + 1; d < n; d++ {
		first = append(first, volume.EQ(volume.AffDim(d), volume.AffConst(0)))
	}
	second := []volume.Constraint{volume.EQ(s, volume.AffConst(1))}
	b.Op.Full = b.Op.Full.Intersect(volume.SetFromConstraints(b.Params, "", dims, first).
		Union(volume.SetFromConstraints(b.Params, "", dims, second))).Coalesce()
	b.Op.Access = make([]Access, 2+k)
	b.Op.Access[0] = Access{Pieces: []AccessPiece{{Guard: first, Index: identity(0, r)}}}
	b.Op.Access[1] = Access{Pieces: []AccessPiece{{Guard: second, Index: append(identity(r+1, p), identity(k, r-k)...)}}}
	var match *Scalar
	for j := 0; j < k; j++ {
		b.Op.Access[2+j] = Access{Pieces: []AccessPiece{{Guard: second, Index: identity(r+1, p)}}}
		m := Bin(SEq, wrapIndex(Read(2+j, b.In(2+j).Elem), data.Shape[j]), Index(j))
		if match == nil {
			match = m
		} else {
			match = Bin(SAnd, match, m)
		}
	}
	b.Op.Out = AffAccess(identity(0, r)...)
	id := identityConst(data.Elem, init)
	var contrib *Scalar = Read(1, upd.Elem)
	if match != nil {
		contrib = Select(match, contrib, id)
	}
	b.Op.Body = Select(Avail(0), Read(0, data.Elem), contrib)
	b.Op.Reduce, b.Op.Init = kind, init
	b.Result = data
	return nil
}
