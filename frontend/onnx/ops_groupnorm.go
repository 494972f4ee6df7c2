// This file imports GroupNorm as PyTorch exports it before opset 18: X [N, C, S…] reshaped to
// [N, G, Cg·S], InstanceNormalization over the last axis, reshaped back. Normalised over the
// flat view, every element of the result read X across its channels at the stride of S: a
// per-element gather once channels-last stores X as [N, S…, C] (half of Conv-TasNet's time
// on Zen 3). Here the statistics are sums over X itself, each group's channels innermost, and
// the normalisation is an elementwise op over X's own shape that reads the statistics of
// channel c at its group floor(c/Cg): every access is affine in X's layout, so channels-last
// keeps the channels innermost and the ops vectorise along them.

package onnx

import (
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// groupNormSource returns X and G when x [N, G, L] is a reshape of X [N, C, S…] (rank >= 3,
// C a static multiple of G, G < C); else nil.
func groupNormSource(x *ir.Value) (*ir.Value, int64) {
	if x.Def == nil || x.Def.Kind != "reshape" || x.Type.Rank() != 3 || !x.Type.Elem.IsFloat() {
		return nil, 0
	}
	X := x.Def.Operands[0]
	if X.Type.Rank() < 3 || !X.Type.Shape[0].Equal(x.Type.Shape[0]) {
		return nil, 0
	}
	C, ok1 := X.Type.Dim(1)
	G, ok2 := x.Type.Dim(1)
	if !ok1 || !ok2 || G <= 0 || C%G != 0 || G == C {
		return nil, 0
	}
	return X, G
}

// groupNorm emits the normalisation of X [N, C, S…] over groups of C/G channels (and every
// spatial element) with per-group scale and bias [G], as the result of X's shape: mean, then
// the mean of the squared deviations (the two passes of InstanceNormalization's reference).
func (e *emitter) groupNorm(X *ir.Value, G int64, scale, bias *ir.Value, eps float64) *ir.Value {
	if e.err != nil {
		return nil
	}
	t := X.Type.Elem
	r := X.Type.Rank()
	C, _ := X.Type.Dim(1)
	cg := C / G
	params := e.c.im.g.Params
	// the sums: dims [n, g, s…, c'] (the channels innermost), over X[n, g·Cg + c', s…]
	sdims := []string{"n", "g"}
	sext := []volume.Aff{X.Type.Shape[0], volume.AffConst(G)}
	iters := []ir.IterKind{ir.Parallel, ir.Parallel}
	xIdx := []volume.Aff{volume.AffDim(0), volume.AffDim(1).Mul(cg).Add(volume.AffDim(r))}
	for a := 2; a < r; a++ {
		sdims = append(sdims, "s"+string(rune('0'+a-2)))
		sext = append(sext, X.Type.Shape[a])
		iters = append(iters, ir.Reduction)
		xIdx = append(xIdx, volume.AffDim(a))
	}
	sdims = append(sdims, "c")
	sext = append(sext, volume.AffConst(cg))
	iters = append(iters, ir.Reduction)
	stat := ir.TensorType{Elem: t, Shape: []volume.Aff{X.Type.Shape[0], volume.AffConst(G)}}
	ng := ir.AffAccess(volume.AffDim(0), volume.AffDim(1))
	sum := func(name string, body *ir.Scalar, ops []*ir.Value, acc []ir.Access) *ir.Value {
		op := &ir.Op{Kind: "generic", Name: e.c.node.GetName(), Operands: ops, Dims: sdims, Iters: iters,
			Full: volume.Box(params, "", sdims, sext), Access: acc, Out: ng, Body: body, Reduce: ir.ReduceSum,
			Result: &ir.Value{Type: stat}}
		return e.fromRaw(name, op)
	}
	cnt := e.Op("mul", "", nil, e.Count(X, rangeAxes(2, r), t), e.Scalar(t, float64(cg)))
	mean := e.Op("div", "", nil, sum(e.Base+"_sum", ir.Read(0, t), []*ir.Value{X}, []ir.Access{ir.AffAccess(xIdx...)}), cnt)
	d := ir.Bin(ir.SSub, ir.Read(0, t), ir.Read(1, t))
	variance := e.Op("div", "", nil, sum(e.Base+"_sqsum", ir.Bin(ir.SMul, d, d), []*ir.Value{X, mean},
		[]ir.Access{ir.AffAccess(xIdx...), ng}), cnt)
	// the normalisation over X's shape, with the statistics of the group of channel c
	ydims := make([]string, r)
	for a := range ydims {
		ydims[a] = "d" + string(rune('0'+a))
	}
	grp := volume.AffDim(1).FloorDiv(cg)
	at := ir.AffAccess(volume.AffDim(0), grp)
	per := ir.AffAccess(grp)
	norm := ir.Bin(ir.SDiv, ir.Bin(ir.SSub, ir.Read(0, t), ir.Read(1, t)), ir.Un(ir.SSqrt, ir.Bin(ir.SAdd, ir.Read(2, t), ir.Const(t, eps))))
	body := ir.Bin(ir.SAdd, ir.Bin(ir.SMul, norm, ir.Read(3, t)), ir.Read(4, t))
	op := &ir.Op{Kind: "generic", Name: e.c.node.GetName(), Operands: []*ir.Value{X, mean, variance, scale, bias}, Dims: ydims,
		Iters: make([]ir.IterKind, r), Full: volume.Box(params, "", ydims, X.Type.Shape),
		Access: []ir.Access{ir.AffAccess(identityAffs(r)...), at, at, per, per}, Out: ir.AffAccess(identityAffs(r)...), Body: body,
		Result: &ir.Value{Type: X.Type}}
	return e.fromRaw(e.Base+"_groupnorm", op)
}

// fromRaw emits op, given in generic form (its dims, domain, accesses, out map and body), as
// a generic op named name.
func (e *emitter) fromRaw(name string, op *ir.Op) *ir.Value {
	if e.err != nil {
		return nil
	}
	op.Domain = op.Full
	op.Result.Def = op
	gen, err := ir.ToGeneric(e.c.im.g.Params, op)
	if err != nil {
		e.err = err
		return nil
	}
	return e.Op("generic", name, gen.Attrs, gen.Operands...)
}

func identityAffs(n int) []volume.Aff {
	out := make([]volume.Aff, n)
	for i := range out {
		out[i] = volume.AffDim(i)
	}
	return out
}
