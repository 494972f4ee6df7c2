// This file declares the normalisation building blocks that numpy broadcasting cannot express:
// batch_norm (per-channel statistics on axis 1, or per sample and channel for instance
// normalisation) and the channel window sum of LRN. Layer normalisation, softmax and the other
// multi-stage ops are compositions of reductions and elementwise ops built by the importers.

package ir

import "github.com/graphc/graphc/volume"

func init() {
	register(&OpDef{
		Name: "batch_norm",
		Summary: "(x - mean) / sqrt(var + epsilon) * scale + bias over axis 1 of x [N, C, …]; scale and bias are [C], " +
			"mean and var are [C] (batch normalisation) or [N, C] (instance normalisation)",
		Example:     "%y = batch_norm(%x, %scale, %bias, %mean, %var) {epsilon = 0.001} : f32[2, 3, 4, 4]",
		MinOperands: 5, MaxOperands: 5,
		Attrs: []AttrDef{floatAttr("epsilon", 1e-5, "added to the variance")},
		Build: buildBatchNorm,
	}, &OpDef{
		Name: "channel_window_sum",
		Summary: "s[…, c, …] = sum of x[…, c - (size - 1) / 2 + t, …] for 0 <= t < size inside the tensor (LRN's window " +
			"over axis 1)",
		Example:     "%s = channel_window_sum(%x) {size = 3} : f32[2, 5, 4, 4]",
		MinOperands: 1, MaxOperands: 1,
		Attrs: []AttrDef{{Name: "size", Kind: AttrInt, Doc: "the window length (odd or even)"}},
		Build: buildChannelWindowSum,
	})
}

func buildBatchNorm(b *Builder) error {
	x := b.In(0)
	if x.Rank() < 2 {
		return b.Errorf("operand #0 must have rank >= 2 (N, C, …), got %s", x)
	}
	if !x.Elem.IsFloat() {
		return b.Errorf("operand #0 must be a float tensor, got %s", x)
	}
	c := x.Shape[1]
	perSample := b.In(3).Rank() == 2
	for k := 1; k < 5; k++ {
		t := b.In(k)
		if t.Elem != x.Elem {
			return b.Errorf("operand #%d has element type %s, operand #0 has %s", k, t.Elem, x.Elem)
		}
		want := []volume.Aff{c}
		if k >= 3 && perSample {
			want = []volume.Aff{x.Shape[0], c}
		}
		if !t.Equal(TensorType{Elem: x.Elem, Shape: want}) {
			return b.Errorf("operand #%d has type %s, expected %s", k, t, TensorType{Elem: x.Elem, Shape: want})
		}
	}
	r := x.Rank()
	b.SetBox(dimNames(r), x.Shape, nil)
	ch := AffAccess(volume.AffDim(1))
	stat := ch
	if perSample {
		stat = AffAccess(volume.AffDim(0), volume.AffDim(1))
	}
	b.Op.Access = []Access{AffAccess(identity(0, r)...), ch, ch, stat, stat}
	b.Op.Out = AffAccess(identity(0, r)...)
	e := x.Elem
	eps := Const(e, b.Op.Attrs.Float("epsilon", 1e-5))
	norm := Bin(SDiv, Bin(SSub, Read(0, e), Read(3, e)), Un(SSqrt, Bin(SAdd, Read(4, e), eps)))
	b.Op.Body = Bin(SAdd, Bin(SMul, norm, Read(1, e)), Read(2, e))
	b.Result = x
	return nil
}

// buildChannelWindowSum reads x only inside the tensor: the guard on the access keeps the
// window's overhang out of the element map.
func buildChannelWindowSum(b *Builder) error {
	x := b.In(0)
	if x.Rank() < 2 {
		return b.Errorf("operand must have rank >= 2 (N, C, …), got %s", x)
	}
	size := b.Op.Attrs.Int("size", 0)
	if size < 1 {
		return b.Errorf("size must be at least 1, got %d", size)
	}
	r := x.Rank()
	dims := append(dimNames(r), "t")
	ext := append(append([]volume.Aff{}, x.Shape...), volume.AffConst(size))
	iters := make([]IterKind, r+1)
	iters[r] = Reduction
	b.SetBox(dims, ext, iters)
	idx := identity(0, r)
	ci := volume.AffDim(1).Add(volume.AffDim(r)).AddConst(-(size - 1) / 2) // c - (size-1)/2 + t
	idx[1] = ci
	guard := []volume.Constraint{volume.GE(ci, volume.AffConst(0)), volume.GE(x.Shape[1].AddConst(-1), ci)}
	b.Op.Access = []Access{{Pieces: []AccessPiece{{Guard: guard, Index: idx}}}}
	b.Op.Out = AffAccess(identity(0, r)...)
	b.Op.Body = Select(Avail(0), Read(0, x.Elem), Const(x.Elem, 0))
	b.Op.Reduce = ReduceSum
	b.Result = x
	return nil
}
