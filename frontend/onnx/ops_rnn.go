// This file imports the recurrent layers RNN, GRU and LSTM, unrolled over the (static)
// sequence length: the input projections of all steps are one matmul, then every step is the
// cell's matmul with the previous hidden state and its elementwise gates. Every direction,
// activation, clip, linear_before_reset, peepholes, input_forget and both layouts;
// sequence_lens (data) holds the state and zeroes the output past each sequence's end in the
// forward direction.

package onnx

import (
	"fmt"
	"strings"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// rnnForm describes one recurrent layer: its gate count and default activations.
type rnnForm struct {
	op    string
	gates int
	acts  []string
}

func init() {
	for _, f := range []rnnForm{
		{op: "RNN", gates: 1, acts: []string{"Tanh"}},
		{op: "GRU", gates: 3, acts: []string{"Sigmoid", "Tanh"}},
		{op: "LSTM", gates: 4, acts: []string{"Sigmoid", "Tanh", "Tanh"}},
	} {
		registerOp(f.op, 7, importRecurrent(f))
		noteOp(f.op, "unrolled over a static sequence length; all directions, activations and layouts; sequence_lens in the forward direction only")
	}
}

// rnnAct applies an ONNX recurrent activation with its alpha and beta.
func (e *emitter) rnnAct(name string, alpha, beta *float64, x *ir.Value) *ir.Value {
	if e.err != nil {
		return nil
	}
	t := x.Type.Elem
	a := func(def float64) float64 {
		if alpha != nil {
			return *alpha
		}
		return def
	}
	b := func(def float64) float64 {
		if beta != nil {
			return *beta
		}
		return def
	}
	switch strings.ToLower(name) {
	case "sigmoid":
		return e.Op("sigmoid", "", nil, x)
	case "tanh":
		return e.Op("tanh", "", nil, x)
	case "relu":
		return e.Op("relu", "", nil, x)
	case "affine":
		return e.Op("add", "", nil, e.Op("mul", "", nil, x, e.Scalar(t, a(1))), e.Scalar(t, b(0)))
	case "leakyrelu":
		return e.Op("leaky_relu", "", ir.Attrs{"alpha": ir.FloatAttr(a(0.01))}, x)
	case "thresholdedrelu":
		return e.Op("thresholded_relu", "", ir.Attrs{"alpha": ir.FloatAttr(a(1))}, x)
	case "scaledtanh":
		return e.Op("mul", "", nil, e.Scalar(t, a(1)), e.Op("tanh", "", nil, e.Op("mul", "", nil, x, e.Scalar(t, b(1)))))
	case "hardsigmoid":
		return e.Op("hard_sigmoid", "", ir.Attrs{"alpha": ir.FloatAttr(a(0.2)), "beta": ir.FloatAttr(b(0.5))}, x)
	case "elu":
		return e.Op("elu", "", ir.Attrs{"alpha": ir.FloatAttr(a(1))}, x)
	case "softsign":
		return e.Op("softsign", "", nil, x)
	case "softplus":
		return e.Op("softplus", "", nil, x)
	}
	e.err = fmt.Errorf("%w: activation %q", ErrUnsupported, name)
	return nil
}

// rnnCell is one direction of a layer: its weights, biases and activations.
type rnnCell struct {
	e           *emitter
	form        rnnForm
	h           int64
	rT          *ir.Value  // Rᵀ [H, G·H]
	wb, rb      *ir.Value  // the two halves of B [G·H] (nil without B)
	p           *ir.Value  // LSTM peepholes [3H] (nil without P)
	acts        []string   // this direction's activations
	alpha       []*float64 // their alphas and betas (nil: the default)
	beta        []*float64
	clip        *float64
	lbr         bool // GRU linear_before_reset
	inputForget bool
}

// gate returns columns [k·H, (k+1)·H) of v (a [batch, G·H] or [G·H] tensor).
func (rc *rnnCell) gate(v *ir.Value, k int) *ir.Value {
	return rc.e.sliceLast(v, int64(k)*rc.h, int64(k+1)*rc.h, 1)
}

// act applies activation i, after the clip.
func (rc *rnnCell) act(i int, x *ir.Value) *ir.Value {
	e := rc.e
	if rc.clip != nil && x != nil {
		t := x.Type.Elem
		x = e.Op("min", "", nil, e.Op("max", "", nil, x, e.Scalar(t, -*rc.clip)), e.Scalar(t, *rc.clip))
	}
	return e.rnnAct(rc.acts[i], rc.alpha[i], rc.beta[i], x)
}

// step computes one time step from the input projection xw ([batch, G·H], input bias
// included) and the state (h, c); it returns the new state.
func (rc *rnnCell) step(xw, h, c *ir.Value) (*ir.Value, *ir.Value) {
	e := rc.e
	t := xw.Type.Elem
	add := func(a, b *ir.Value) *ir.Value {
		if b == nil {
			return a
		}
		return e.Op("add", "", nil, a, b)
	}
	mul := func(a, b *ir.Value) *ir.Value { return e.Op("mul", "", nil, a, b) }
	switch rc.form.op {
	case "RNN":
		return rc.act(0, add(add(xw, e.matmulAcc("", h, rc.rT)), rc.rb)), nil
	case "GRU":
		hr := e.matmulAcc("", h, rc.rT)
		rbGate := func(k int) *ir.Value {
			if rc.rb == nil {
				return nil
			}
			return rc.gate(rc.rb, k)
		}
		z := rc.act(0, add(add(rc.gate(xw, 0), rc.gate(hr, 0)), rbGate(0)))
		r := rc.act(0, add(add(rc.gate(xw, 1), rc.gate(hr, 1)), rbGate(1)))
		var cand *ir.Value
		if rc.lbr {
			cand = add(rc.gate(xw, 2), mul(r, add(rc.gate(hr, 2), rbGate(2))))
		} else {
			rhT := rc.e.sliceLast(rc.rT, 2*rc.h, 3*rc.h, 1)
			cand = add(add(rc.gate(xw, 2), e.matmulAcc("", mul(r, h), rhT)), rbGate(2))
		}
		hc := rc.act(1, cand)
		one := e.Scalar(t, 1)
		return add(mul(e.Op("sub", "", nil, one, z), hc), mul(z, h)), nil
	default: // LSTM, gates i, o, f, c
		g := add(add(xw, e.matmulAcc("", h, rc.rT)), rc.rb)
		peep := func(k int, state *ir.Value) *ir.Value {
			if rc.p == nil {
				return nil
			}
			return mul(rc.gate(rc.p, k), state)
		}
		i := rc.act(0, add(rc.gate(g, 0), peep(0, c)))
		var f *ir.Value
		if rc.inputForget {
			f = e.Op("sub", "", nil, e.Scalar(t, 1), i)
		} else {
			f = rc.act(0, add(rc.gate(g, 2), peep(2, c)))
		}
		ct := rc.act(1, rc.gate(g, 3))
		c2 := add(mul(f, c), mul(i, ct))
		o := rc.act(0, add(rc.gate(g, 1), peep(1, c2)))
		return mul(o, rc.act(2, c2)), c2
	}
}

func importRecurrent(form rnnForm) func(c *nodeCtx) error {
	return func(c *nodeCtx) error {
		e := c.emitter()
		x, w, r := e.In(0), e.In(1), e.In(2)
		if e.err != nil {
			return e.err
		}
		t := x.Type.Elem
		if !t.IsFloat() || x.Type.Rank() != 3 || w.Type.Rank() != 3 || r.Type.Rank() != 3 {
			return fmt.Errorf("%w: X, W and R must be 3-D float tensors, got %s, %s and %s", ErrInvalid, x.Type, w.Type, r.Type)
		}
		layout := c.AttrInt("layout", 0)
		if layout != 0 {
			x = e.Op("transpose", "", ir.Attrs{"perm": ir.IntsAttr(1, 0, 2)}, x) // [seq, batch, input]
		}
		seq, ok := x.Type.Dim(0)
		if !ok {
			return fmt.Errorf("%w: a symbolic sequence length in %s (the layer is unrolled)", ErrUnsupported, x.Type)
		}
		if seq > maxUnroll {
			return fmt.Errorf("%w: a sequence of %d steps (at most %d are unrolled)", ErrUnsupported, seq, maxUnroll)
		}
		batch := x.Type.Shape[1]
		h, ok := r.Type.Dim(2)
		if !ok {
			return fmt.Errorf("%w: a symbolic hidden size in %s", ErrUnsupported, r.Type)
		}
		if hs := c.AttrInt("hidden_size", h); hs != h {
			return fmt.Errorf("%w: hidden_size = %d but R is %s", ErrInvalid, hs, r.Type)
		}
		dirs := []bool{false} // reversed?
		switch d := c.AttrString("direction", "forward"); d {
		case "forward":
		case "reverse":
			dirs = []bool{true}
		case "bidirectional":
			dirs = []bool{false, true}
		default:
			return fmt.Errorf("%w: direction %q", ErrInvalid, d)
		}
		g := int64(form.gates)
		if n, ok := w.Type.Dim(0); !ok || n != int64(len(dirs)) || !w.Type.Shape[1].Equal(volume.AffConst(g*h)) {
			return fmt.Errorf("%w: W %s must be [%d, %d, input]", ErrInvalid, w.Type, len(dirs), g*h)
		}
		acts := c.AttrStrings("activations", nil)
		if len(acts) == 0 {
			for range dirs {
				acts = append(acts, form.acts...)
			}
		}
		if len(acts) != len(form.acts)*len(dirs) {
			return fmt.Errorf("%w: %d activations for %d directions of %s (want %d each)", ErrInvalid, len(acts), len(dirs), form.op, len(form.acts))
		}
		alphas, betas := c.AttrFloats("activation_alpha", nil), c.AttrFloats("activation_beta", nil)
		pick := func(list []float32, i int) *float64 {
			if i < len(list) {
				v := float64(list[i])
				return &v
			}
			return nil
		}
		var clip *float64
		if c.Attr("clip") != nil {
			v := float64(c.AttrFloat("clip", 0))
			clip = &v
		}
		var seqLens *ir.Value
		if c.HasInput(4) {
			if len(dirs) != 1 || dirs[0] {
				return fmt.Errorf("%w: sequence_lens with the %s direction", ErrUnsupported, c.AttrString("direction", "forward"))
			}
			seqLens = e.reshape(e.Cast(e.In(4), ir.I64, ""), batch, volume.AffConst(1))
		}
		// the input projections of every step at once: [seq, batch, G·H] per direction
		var ys, hs, cs []*ir.Value
		for d, rev := range dirs {
			rc := &rnnCell{e: e, form: form, h: h, clip: clip, lbr: c.AttrInt("linear_before_reset", 0) != 0,
				inputForget: c.AttrInt("input_forget", 0) != 0}
			n := len(form.acts)
			rc.acts = acts[d*n : (d+1)*n]
			for i := range rc.acts {
				rc.alpha = append(rc.alpha, pick(alphas, d*n+i))
				rc.beta = append(rc.beta, pick(betas, d*n+i))
			}
			wd := e.sliceAt(w, 0, int64(d))
			rc.rT = e.Op("transpose", "", ir.Attrs{"perm": ir.IntsAttr(1, 0)}, e.sliceAt(r, 0, int64(d)))
			xw := e.matmulAcc("", x, e.Op("transpose", "", ir.Attrs{"perm": ir.IntsAttr(1, 0)}, wd))
			if c.HasInput(3) {
				b := e.sliceAt(e.In(3), 0, int64(d))
				rc.wb, rc.rb = e.sliceLast(b, 0, g*h, 1), e.sliceLast(b, g*h, 2*g*h, 1)
				xw = e.Op("add", "", nil, xw, rc.wb)
			}
			if form.op == "LSTM" && c.HasInput(7) {
				rc.p = e.sliceAt(e.In(7), 0, int64(d))
			}
			zeros := func() *ir.Value {
				ty := ir.TensorType{Elem: t, Shape: []volume.Aff{batch, volume.AffConst(h)}}
				return e.Op("fill", "", ir.Attrs{"type": ir.StringAttr(ty.String()), "value": ir.FloatAttr(0)})
			}
			state := func(i int) *ir.Value {
				if c.HasInput(i) {
					return e.sliceAt(e.In(i), 0, int64(d))
				}
				return zeros()
			}
			hv := state(5)
			var cv *ir.Value
			if form.op == "LSTM" {
				cv = state(6)
			}
			if e.err != nil {
				return e.err
			}
			steps := make([]*ir.Value, seq)
			for s := int64(0); s < seq; s++ {
				ti := s
				if rev {
					ti = seq - 1 - s
				}
				h2, c2 := rc.step(e.sliceAt(xw, 0, ti), hv, cv)
				out := h2
				if seqLens != nil {
					live := e.Op("less", "", nil, e.Scalar(ir.I64, float64(ti)), seqLens)
					out = e.Op("where", "", nil, live, h2, zeros())
					h2 = e.Op("where", "", nil, live, h2, hv)
					if c2 != nil {
						c2 = e.Op("where", "", nil, live, c2, cv)
					}
				}
				steps[ti] = out
				hv, cv = h2, c2
			}
			ys = append(ys, e.stack("", steps, 0)) // [seq, batch, H]
			hs, cs = append(hs, hv), append(cs, cv)
		}
		if e.err != nil {
			return e.err
		}
		y := e.stack("", ys, 1)  // [seq, dirs, batch, H]
		yh := e.stack("", hs, 0) // [dirs, batch, H]
		var yc *ir.Value
		if form.op == "LSTM" {
			yc = e.stack("", cs, 0)
		}
		if layout != 0 {
			y = e.Op("transpose", "", ir.Attrs{"perm": ir.IntsAttr(2, 0, 1, 3)}, y)
			yh = e.Op("transpose", "", ir.Attrs{"perm": ir.IntsAttr(1, 0, 2)}, yh)
			if yc != nil {
				yc = e.Op("transpose", "", ir.Attrs{"perm": ir.IntsAttr(1, 0, 2)}, yc)
			}
		}
		for i, v := range []*ir.Value{y, yh, yc} {
			if c.Output(i) != "" && v != nil {
				e.Out(i, e.Op("identity", c.Output(i), nil, v))
			}
		}
		return e.Done()
	}
}
