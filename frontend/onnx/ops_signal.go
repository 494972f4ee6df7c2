// This file imports the signal-processing ops: the window generators (Hann, Hamming,
// Blackman; the size must be known at import, the window is a constant), DFT as products with
// constant cosine and sine matrices along the transformed axis (forward, inverse, one-sided,
// and the real inverse of a one-sided spectrum), and STFT as frames of the signal (a generic op
// with an affine access: frame f reads samples f·step + n), windowed, then the DFT.

package onnx

import (
	"fmt"
	"math"
	"strings"

	kit "github.com/graphc/graphc/frontend/importer"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// maxDFTMatrix bounds the elements of one constant DFT matrix (N_in × N_out).
const maxDFTMatrix = 1 << 24

func init() {
	registerOp("HannWindow", 17, importWindow([]float64{0.5, 0.5}))
	registerOp("HammingWindow", 17, importWindow([]float64{25.0 / 46, 21.0 / 46}))
	registerOp("BlackmanWindow", 17, importWindow([]float64{0.42, 0.5, 0.08}))
	registerOp("DFT", 17, importDFT)
	registerOp("STFT", 17, importSTFT)
	for _, w := range []string{"HannWindow", "HammingWindow", "BlackmanWindow"} {
		noteOp(w, "size known at import: a constant")
	}
	noteOp("DFT", "products with constant cosine/sine matrices (N_in × N_out elements, at most 2^24): forward, inverse, onesided, real inverse; dft_length and axis known at import")
	noteOp("STFT", "frames by an affine access, the window, then the DFT; frame_step and frame_length known at import")
}

// importWindow: w[n] = Σ_k (-1)^k a_k cos(2πkn / N), N = size (periodic) or size - 1.
func importWindow(a []float64) func(c *nodeCtx) error {
	return func(c *nodeCtx) error {
		size, err := c.RequireInts(0, "size")
		if err != nil {
			return err
		}
		if len(size) != 1 || size[0] < 0 || size[0] > 1<<24 {
			return fmt.Errorf("%w: size must be one value in [0, 2^24], got %v", ErrInvalid, size)
		}
		elem, err := DType(int32(c.AttrInt("output_datatype", 1)))
		if err != nil {
			return err
		}
		n := size[0]
		den := float64(n)
		if c.AttrInt("periodic", 1) == 0 {
			den = float64(n - 1)
		}
		t := ir.NewTensor(elem, []int64{n})
		for i := int64(0); i < n; i++ {
			v := 0.0
			for k, ak := range a {
				v += math.Pow(-1, float64(k)) * ak * math.Cos(2*math.Pi*float64(k)*float64(i)/den)
			}
			if elem.IsFloat() {
				t.F[i] = ir.RoundFloat(elem, v)
			} else {
				t.I[i] = elem.WrapInt(int64(v))
			}
		}
		c.SetConst(0, t)
		return nil
	}
}

// dftMatrices returns the coefficient matrices [nIn, nOut] of a transform along one axis:
// yr = xr·A + xi·B and yi = xr·C + xi·D (C and D nil for the real inverse).
func dftMatrices(t ir.DType, nIn, length int64, inverse, onesided bool) (a, b, cm, d *ir.Tensor, nOut int64) {
	nOut = length
	switch {
	case !inverse && onesided:
		nOut = length/2 + 1
	}
	mk := func() *ir.Tensor { return ir.NewTensor(t, []int64{nIn, nOut}) }
	a, b = mk(), mk()
	real := inverse && onesided
	if !real {
		cm, d = mk(), mk()
	}
	for n := int64(0); n < nIn; n++ {
		for k := int64(0); k < nOut; k++ {
			i := n*nOut + k
			if n >= length {
				continue // the input is truncated to dft_length
			}
			th := 2 * math.Pi * float64((n*k)%length) / float64(length)
			cs, sn := math.Cos(th), math.Sin(th)
			switch {
			case real:
				// the real inverse of a one-sided spectrum: bins 1 .. length/2 - 1 stand for
				// their conjugate twins too; bins past length/2 are ignored
				if n > length/2 {
					continue
				}
				w := 2.0
				if n == 0 || 2*n == length {
					w = 1
				}
				a.F[i] = ir.RoundFloat(t, w*cs/float64(length))
				b.F[i] = ir.RoundFloat(t, -w*sn/float64(length))
			case inverse:
				s := 1 / float64(length)
				a.F[i], b.F[i] = ir.RoundFloat(t, cs*s), ir.RoundFloat(t, -sn*s)
				cm.F[i], d.F[i] = ir.RoundFloat(t, sn*s), ir.RoundFloat(t, cs*s)
			default:
				a.F[i], b.F[i] = ir.RoundFloat(t, cs), ir.RoundFloat(t, sn)
				cm.F[i], d.F[i] = ir.RoundFloat(t, -sn), ir.RoundFloat(t, cs)
			}
		}
	}
	return a, b, cm, d, nOut
}

// dft transforms x [.., N, 1 or 2] along axis (< rank - 1) and returns [.., N_out, 1 or 2].
func (e *emitter) dft(name string, x *ir.Value, axis int, length int64, inverse, onesided bool) *ir.Value {
	if e.err != nil {
		return nil
	}
	r := x.Type.Rank()
	t := x.Type.Elem
	nIn, ok := x.Type.Dim(axis)
	comp, ok2 := x.Type.Dim(r - 1)
	if !ok || !ok2 || comp != 1 && comp != 2 {
		e.err = fmt.Errorf("%w: the transformed axis and the last dim (1 or 2) of %s must be static", ErrUnsupported, x.Type)
		return nil
	}
	if length <= 0 {
		e.err = fmt.Errorf("%w: dft_length %d", ErrInvalid, length)
		return nil
	}
	_, _, _, _, nOut := dftMatrices(ir.F32, 0, length, inverse, onesided)
	if nIn*nOut > maxDFTMatrix {
		e.err = fmt.Errorf("%w: a DFT of %d by %d points (at most 2^24 matrix elements)", ErrUnsupported, nIn, nOut)
		return nil
	}
	a, b, cm, d, _ := dftMatrices(t, nIn, length, inverse, onesided)
	// the axis last: [.., N] per component
	perm := make([]int64, 0, r-1)
	for i := 0; i < r-1; i++ {
		if i != axis {
			perm = append(perm, int64(i))
		}
	}
	perm = append(perm, int64(axis))
	part := func(j int64) *ir.Value {
		p := e.sliceAt(x, r-1, j)
		return e.Op("transpose", "", ir.Attrs{"perm": ir.IntsAttr(perm...)}, p)
	}
	g := e.c.im.g
	mat := func(m *ir.Tensor) *ir.Value { return g.AddConst(e.Base+"_dft", m) }
	xr := part(0)
	var xi *ir.Value
	if comp == 2 {
		xi = part(1)
	}
	comb := func(p, q *ir.Tensor) *ir.Value {
		y := e.matmulAcc("", xr, mat(p))
		if xi != nil {
			y = e.Op("add", "", nil, y, e.matmulAcc("", xi, mat(q)))
		}
		return y
	}
	parts := []*ir.Value{comb(a, b)}
	if cm != nil {
		parts = append(parts, comb(cm, d))
	}
	if e.err != nil {
		return nil
	}
	y := e.stack("", parts, r-1) // [.. (axis last), N_out, comps]
	// back to x's order: the transformed axis returns to its place
	back := make([]int64, r)
	for i := range back {
		back[i] = -1
	}
	back[axis] = int64(r - 2)
	j := int64(0)
	for i := 0; i < r-1; i++ {
		if i == axis {
			continue
		}
		back[i] = j
		j++
	}
	back[r-1] = int64(r - 1)
	return e.Op("transpose", name, ir.Attrs{"perm": ir.IntsAttr(back...)}, y)
}

func importDFT(c *nodeCtx) error {
	e := c.emitter()
	x := e.In(0)
	if e.err != nil {
		return e.err
	}
	r := x.Type.Rank()
	if r < 2 || !x.Type.Elem.IsFloat() {
		return fmt.Errorf("%w: input must be a float tensor of rank >= 2, got %s", ErrInvalid, x.Type)
	}
	var axis int64
	if c.Opset() < 20 {
		axis = c.AttrInt("axis", 1)
	} else {
		axis = -2
		if c.HasInput(2) {
			v, err := c.RequireInts(2, "axis")
			if err != nil {
				return err
			}
			if len(v) != 1 {
				return fmt.Errorf("%w: axis must be one value", ErrInvalid)
			}
			axis = v[0]
		}
	}
	if axis < 0 {
		axis += int64(r)
	}
	if axis < 0 || axis >= int64(r-1) {
		return fmt.Errorf("%w: axis %d is not a signal axis of %s", ErrInvalid, axis, x.Type)
	}
	inverse, onesided := c.AttrInt("inverse", 0) != 0, c.AttrInt("onesided", 0) != 0
	n, ok := x.Type.Dim(int(axis))
	if !ok {
		return fmt.Errorf("%w: a symbolic signal length in %s", ErrUnsupported, x.Type)
	}
	length := n
	if inverse && onesided {
		length = 2 * (n - 1)
	}
	if c.HasInput(1) {
		v, err := c.RequireInts(1, "dft_length")
		if err != nil {
			return err
		}
		if len(v) != 1 {
			return fmt.Errorf("%w: dft_length must be one value", ErrInvalid)
		}
		length = v[0]
	}
	e.Out(0, e.dft(c.Output(0), x, int(axis), length, inverse, onesided))
	return e.Done()
}

// importSTFT: frames [batch, frames, frame_length, comps] of the signal read at f·step + n,
// times the window, then the DFT along the frame.
func importSTFT(c *nodeCtx) error {
	e := c.emitter()
	x := e.In(0)
	if e.err != nil {
		return e.err
	}
	if x.Type.Rank() != 3 || !x.Type.Elem.IsFloat() {
		return fmt.Errorf("%w: signal must be a float tensor [batch, length, 1 or 2], got %s", ErrInvalid, x.Type)
	}
	stepv, err := c.RequireInts(1, "frame_step")
	if err != nil {
		return err
	}
	var window *ir.Value
	var flen int64 = -1
	if c.HasInput(2) {
		window = e.In(2)
		if e.err != nil {
			return e.err
		}
		if w, ok := window.Type.Dim(0); ok && window.Type.Rank() == 1 {
			flen = w
		}
	}
	if c.HasInput(3) {
		v, err := c.RequireInts(3, "frame_length")
		if flen, err = kit.One(v, err, 3, "frame_length", ErrInvalid); err != nil {
			return err
		}
	}
	length, ok := x.Type.Dim(1)
	if !ok || len(stepv) != 1 || stepv[0] <= 0 || flen <= 0 || flen > length {
		return fmt.Errorf("%w: a static signal, a positive frame_step and a frame_length up to the signal's are needed (%s, %v, %d)", ErrInvalid, x.Type, stepv, flen)
	}
	step := stepv[0]
	frames := (length-flen)/step + 1
	comps := x.Type.Shape[2]
	batch := x.Type.Shape[0]
	params := ""
	if ps := append(batch.ParamNames(), comps.ParamNames()...); len(ps) > 0 {
		params = "[" + strings.Join(ps, ", ") + "] -> "
	}
	rt := ir.TensorType{Elem: x.Type.Elem, Shape: []volume.Aff{batch, volume.AffConst(frames), volume.AffConst(flen), comps}}
	fr := e.Op("generic", "", ir.Attrs{
		"type": ir.StringAttr(rt.String()),
		"domain": ir.StringAttr(fmt.Sprintf("%s{ [b, f, n, k] : 0 <= b < %s and 0 <= f < %d and 0 <= n < %d and 0 <= k < %s }",
			params, batch.String(), frames, flen, comps.String())),
		"access": ir.StringsAttr(fmt.Sprintf("{ [b, f, n, k] -> [b, %d f + n, k] }", step)),
		"out":    ir.StringAttr("{ [b, f, n, k] -> [b, f, n, k] }"),
		"body":   ir.StringAttr("in0"),
	}, x)
	if window != nil {
		fr = e.Op("mul", "", nil, fr, e.reshape(e.Cast(window, x.Type.Elem, ""), volume.AffConst(1), volume.AffConst(1), volume.AffConst(flen), volume.AffConst(1)))
	}
	e.Out(0, e.dft(c.Output(0), fr, 2, flen, false, c.AttrInt("onesided", 1) != 0))
	return e.Done()
}

func init() {
	registerOp("MelWeightMatrix", 17, importMelWeightMatrix)
	noteOp("MelWeightMatrix", "all inputs known at import (they decide the output's shape): a constant, computed as the ONNX reference does")
}

// importMelWeightMatrix computes the triangular mel filters at import: the mel edges in
// float32 as numpy computes them from float32 inputs, the bin positions in float64.
func importMelWeightMatrix(c *nodeCtx) error {
	scalar := func(i int, role string) (float64, error) {
		t, err := c.RequireConst(i, role)
		if err != nil {
			return 0, err
		}
		if t.Len() != 1 {
			return 0, fmt.Errorf("%w: %s must be a scalar", ErrInvalid, role)
		}
		return t.Float(0), nil
	}
	var v [5]float64
	for i, role := range []string{"num_mel_bins", "dft_length", "sample_rate", "lower_edge_hertz", "upper_edge_hertz"} {
		x, err := scalar(i, role)
		if err != nil {
			return err
		}
		v[i] = x
	}
	bins, dft, rate := int64(v[0]), int64(v[1]), v[2]
	if bins <= 0 || dft <= 0 || rate <= 0 || bins > 1<<16 || dft > 1<<24 {
		return fmt.Errorf("%w: num_mel_bins %d, dft_length %d and sample_rate %g must be positive (and not huge)", ErrInvalid, bins, dft, rate)
	}
	mel := func(hz float64) float32 {
		return 2595 * float32(math.Log10(float64(1+float32(hz)/700)))
	}
	lo, hi := mel(v[3]), mel(v[4])
	step := (hi - lo) / float32(bins+2)
	freq := make([]int64, bins+2)
	for i := range freq {
		f := float64(i)*float64(step) + float64(lo)
		f = 700 * (math.Pow(10, f/2595) - 1)
		freq[i] = int64(math.Floor(float64(dft+1) * f / rate))
	}
	spec := dft/2 + 1
	elem, err := DType(int32(c.AttrInt("output_datatype", 1)))
	if err != nil {
		return err
	}
	out := ir.NewTensor(elem, []int64{spec, bins})
	set := func(j, i int64, x float64) {
		if j < 0 || j >= spec {
			return
		}
		if elem.IsFloat() {
			out.F[j*bins+i] = ir.RoundFloat(elem, x)
		} else {
			out.I[j*bins+i] = elem.WrapInt(int64(x))
		}
	}
	for i := int64(0); i < bins; i++ {
		l, ce, h := freq[i], freq[i+1], freq[i+2]
		if ce-l == 0 {
			set(ce, i, 1)
		} else {
			for j := l; j <= ce; j++ {
				set(j, i, float64(j-l)/float64(ce-l))
			}
		}
		if h-ce > 0 {
			for j := ce; j < h; j++ {
				set(j, i, float64(h-j)/float64(h-ce))
			}
		}
	}
	c.SetConst(0, out)
	return nil
}
