// This file writes a transposed convolution as ordinary convolutions, one per stride phase,
// and an interleave of their results: the gather form that runs on the convolution kernels
// (register tiles, packed weights, channels-last), where conv_transpose itself, whose every
// output reads the input through a divisibility guard, runs as a per-point nest.
//
// For one spatial dim with stride s, dilation d, kernel K and begin pad pb, the output o =
// s·q + r of phase r ∈ [0, s) sums the taps k with d·k ≡ r + pb (mod s), reading input
// i = q + (r + pb − d·k)/s. Those taps are k0, k0 + s/g, … (g = gcd(s, d)), so the phase is
// a convolution over q with stride 1, dilation d/g, the taps reversed, and pads that make its
// extent ⌈(O − r)/s⌉: with O = s(S − 1) + C, that is S + ⌊(C − r − 1)/s⌋, so the pads are
// constants even when S is symbolic (they may be negative: the phase reads inside the input).
// Its weights are W[g(m)·Cg + c, m mod Mg, k0 + (T − 1 − t)·s/g], gathered by a generic op
// that constant folding evaluates at compile time when W is a constant.

package ir

import (
	"fmt"

	"github.com/graphc/graphc/volume"
)

// ConvTransposePhases appends to g the phase convolutions and the interleave that compute
// conv_transpose(operands) {attrs}, and returns the result (named name), or nil when the
// decomposition does not apply: a phase without taps (a kernel shorter than the stride), a
// phase with no output, or a non-float element type. g is not changed when it returns nil.
func ConvTransposePhases(g *Graph, name, opName string, operands []*Value, attrs Attrs) (*Value, error) {
	ref, err := MakeOp(g.Params, "conv_transpose", opName, operands, attrs)
	if err != nil {
		return nil, err
	}
	x, w := operands[0], operands[1]
	if !x.Type.Elem.IsFloat() || x.Type.Elem == F16 || x.Type.Elem == BF16 {
		return nil, nil
	}
	ns := x.Type.Rank() - 2
	ws, ok := w.Type.StaticShape()
	if !ok {
		return nil, nil
	}
	a := ref.Attrs
	get := func(key string, n int, def int64) []int64 {
		v := a.Ints(key, nil)
		if len(v) == 0 {
			v = make([]int64, n)
			for i := range v {
				v[i] = def
			}
		}
		return v
	}
	st, dl, pads, opad := get("strides", ns, 1), get("dilations", ns, 1), get("pads", 2*ns, 0), get("output_padding", ns, 0)
	grp := a.Int("group", 1)
	C, Mg := ws[0], ws[1]
	Cg, M := C/grp, Mg*grp
	// the phases of each spatial dim
	type phase struct {
		k0, step, taps, dil, pb, pe int64
	}
	per := make([][]phase, ns)
	for i := 0; i < ns; i++ {
		s, d, K := st[i], dl[i], ws[2+i]
		gg := gcd64(s, d)
		cst := opad[i] + d*(K-1) + 1 - pads[i] - pads[ns+i] // O = s(S-1) + cst
		for r := int64(0); r < s; r++ {
			var ph phase
			ph.k0 = -1
			for k := int64(0); k < K; k++ {
				if floorMod64(d*k-r-pads[i], s) == 0 {
					if ph.k0 < 0 {
						ph.k0 = k
					}
					ph.taps++
				}
			}
			if ph.taps == 0 {
				return nil, nil
			}
			ph.step, ph.dil = s/gg, d/gg
			e := (r + pads[i] - d*ph.k0) / s // exact
			ph.pb = (ph.taps-1)*ph.dil - e
			qMinusS := floorDiv64(cst-r-1, s)
			if n, ok := x.Type.Shape[2+i].IsConst(); ok && n+qMinusS <= 0 {
				return nil, nil // a phase without outputs
			}
			ph.pe = qMinusS - ph.pb + ph.dil*(ph.taps-1)
			per[i] = append(per[i], ph)
		}
	}
	// every combination of phases, the last spatial dim fastest
	nPh := 1
	for i := 0; i < ns; i++ {
		nPh *= int(st[i])
	}
	var convs []*Op
	var rs [][]int64
	var added []*Op
	for p := 0; p < nPh; p++ {
		r := make([]int64, ns)
		rem := p
		for i := ns - 1; i >= 0; i-- {
			r[i] = int64(rem) % st[i]
			rem /= int(st[i])
		}
		phs := make([]phase, ns)
		for i := range phs {
			phs[i] = per[i][r[i]]
		}
		// the phase's weights [M, Cg, T…]
		wdims := []string{"m", "c"}
		wext := []volume.Aff{volume.AffConst(M), volume.AffConst(Cg)}
		m, c := volume.AffDim(0), volume.AffDim(1)
		idx := []volume.Aff{m.FloorDiv(Mg).Mul(Cg).Add(c), m.Mod(Mg)}
		for i, ph := range phs {
			wdims = append(wdims, fmt.Sprintf("t%d", i))
			wext = append(wext, volume.AffConst(ph.taps))
			t := volume.AffDim(2 + i)
			idx = append(idx, volume.AffConst(ph.k0+(ph.taps-1)*ph.step).Sub(t.Mul(ph.step)))
		}
		wop := &Op{
			Kind: "generic", Name: opName, Operands: []*Value{w}, Dims: wdims, Iters: make([]IterKind, len(wdims)),
			Full: volume.Box(g.Params, "", wdims, wext), Access: []Access{AffAccess(idx...)},
			Out: AffAccess(identity(0, len(wdims))...), Body: Read(0, w.Type.Elem),
			Result: &Value{Type: TensorType{Elem: w.Type.Elem, Shape: wext}},
		}
		wop.Domain = wop.Full
		wop.Result.Def = wop
		wgen, err := ToGeneric(g.Params, wop)
		if err != nil {
			return nil, err
		}
		dil := make([]int64, ns)
		pd := make([]int64, 2*ns)
		for i, ph := range phs {
			dil[i], pd[i], pd[ns+i] = ph.dil, ph.pb, ph.pe
		}
		cops := []*Value{x, wgen.Result}
		if len(operands) == 3 {
			cops = append(cops, operands[2])
		}
		conv, err := MakeOp(g.Params, "conv", opName, cops, Attrs{"dilations": IntsAttr(dil...), "pads": IntsAttr(pd...), "group": IntAttr(grp)})
		if err != nil {
			return nil, fmt.Errorf("phase %v of %s: %w", r, opName, err)
		}
		added = append(added, wgen, conv)
		convs = append(convs, conv)
		rs = append(rs, r)
	}
	suffix := func(r []int64) string {
		s := ""
		for _, v := range r {
			s += fmt.Sprintf("_%d", v)
		}
		return s
	}
	if nPh == 1 {
		g.Append(added[0], name+"_w")
		g.Append(added[1], name)
		return added[1].Result, nil
	}
	// the interleave: Y[n, m, o…] = Y_r[n, m, (o − r)/s…] where o ≡ r (mod s)
	shape := ref.Result.Type.Shape
	dims := []string{"n", "m"}
	for i := 0; i < ns; i++ {
		dims = append(dims, fmt.Sprintf("o%d", i))
	}
	il := &Op{
		Kind: "generic", Name: opName, Dims: dims, Iters: make([]IterKind, len(dims)),
		Full: volume.Box(g.Params, "", dims, shape), Out: AffAccess(identity(0, len(dims))...),
		Result: &Value{Type: ref.Result.Type},
	}
	var body *Scalar
	elem := x.Type.Elem
	for p := nPh - 1; p >= 0; p-- {
		var guard []volume.Constraint
		idx := []volume.Aff{volume.AffDim(0), volume.AffDim(1)}
		for i := 0; i < ns; i++ {
			o := volume.AffDim(2 + i).AddConst(-rs[p][i])
			if st[i] > 1 {
				guard = append(guard, volume.EQ(o.Mod(st[i]), volume.AffConst(0)))
			}
			idx = append(idx, o.FloorDiv(st[i]))
		}
		il.Operands = append([]*Value{convs[p].Result}, il.Operands...)
		il.Access = append([]Access{{Pieces: []AccessPiece{{Guard: guard, Index: idx}}}}, il.Access...)
		if body == nil {
			body = Const(elem, 0)
		}
		body = Select(Avail(p), Read(p, elem), body)
	}
	il.Body = body
	il.Domain = il.Full
	il.Result.Def = il
	ilg, err := ToGeneric(g.Params, il)
	if err != nil {
		return nil, err
	}
	for k := 0; k < len(added); k += 2 {
		r := rs[k/2]
		g.Append(added[k], name+"_w"+suffix(r))
		g.Append(added[k+1], name+"_phase"+suffix(r))
	}
	g.Append(ilg, name)
	return ilg.Result, nil
}

func gcd64(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func floorDiv64(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func floorMod64(a, b int64) int64 { return a - floorDiv64(a, b)*b }
