// This file imports the normalisations: BatchNormalization (inference, and training mode with
// ratio-free statistics), InstanceNormalization, GroupNormalization, LayerNormalization,
// RMSNormalization and LRN,
// each as reductions and elementwise ops around the catalogue's batch_norm and
// channel_window_sum.

package onnx

import (
	"fmt"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

func init() {
	registerOp("BatchNormalization", 7, importBatchNorm)
	registerOp("InstanceNormalization", 6, importInstanceNorm)
	registerOp("LayerNormalization", 17, importLayerNorm)
	registerOp("RMSNormalization", 23, importRMSNorm)
	registerOp("LRN", 1, importLRN)
	registerOp("MeanVarianceNormalization", 9, importMVN)
	registerOp("GroupNormalization", 18, importGroupNorm)
	noteOp("GroupNormalization", "mean and E[x²] - mean² per group in stash_type; scale and bias per group before opset 21, per channel since")
	noteOp("BatchNormalization", "inference, and training_mode (opset 14+) with batch statistics; spatial = 0 is not supported")
	noteOp("LayerNormalization", "mean, variance and normalisation over the axes from axis on, in stash_type")
	noteOp("LRN", "channel_window_sum of squares, then x / (bias + alpha / size * s)^beta (as exp(beta * log(...)) when bias > 0 and alpha >= 0)")
}

// rangeAxes returns [from, to).
func rangeAxes(from, to int) []int {
	var out []int
	for a := from; a < to; a++ {
		out = append(out, a)
	}
	return out
}

// moments returns the mean and the biased variance of x over axes as tensors without those
// axes, and the mean with them kept (for centring x).
func (e *emitter) moments(x *ir.Value, axes []int) (mean, variance *ir.Value) {
	if e.err != nil {
		return nil, nil
	}
	t := x.Type.Elem
	n := e.Count(x, axes, t)
	keep := ir.Attrs{"axes": ints(axes), "keepdims": ir.IntAttr(1)}
	drop := ir.Attrs{"axes": ints(axes), "keepdims": ir.IntAttr(0)}
	mk := e.Op("div", "", nil, e.Op("reduce_sum", "", keep, x), n)
	d := e.Op("sub", "", nil, x, mk)
	mean = e.Op("div", "", nil, e.Op("reduce_sum", "", drop, x), n)
	variance = e.Op("div", "", nil, e.Op("reduce_sum", "", drop, e.Op("mul", "", nil, d, d)), n)
	return mean, variance
}

func importBatchNorm(c *nodeCtx) error {
	e := c.emitter()
	x, scale, bias, mean, variance := e.In(0), e.In(1), e.In(2), e.In(3), e.In(4)
	if e.err != nil {
		return e.err
	}
	// since opset 15 the parameters may have other float types than x: computed in x's
	statType := mean.Type.Elem
	scale, bias, mean, variance = e.Cast(scale, x.Type.Elem, ""), e.Cast(bias, x.Type.Elem, ""), e.Cast(mean, x.Type.Elem, ""), e.Cast(variance, x.Type.Elem, "")
	if c.Opset() < 9 && c.AttrInt("spatial", 1) == 0 {
		return fmt.Errorf("%w: spatial = 0 (per-activation statistics)", ErrUnsupported)
	}
	eps := ir.Attrs{"epsilon": ir.FloatAttr(float64(c.AttrFloat("epsilon", 1e-5)))}
	training := c.Opset() >= 14 && c.AttrInt("training_mode", 0) != 0
	if !training {
		for i := 1; i < len(c.node.Output); i++ {
			if c.Output(i) != "" {
				return fmt.Errorf("%w: output #%d (training statistics) outside training mode", ErrUnsupported, i)
			}
		}
		e.Out(0, e.Op("batch_norm", c.Output(0), eps, x, scale, bias, mean, variance))
		return e.Done()
	}
	// training mode: normalise with the batch statistics; running = input * momentum + batch * (1 - momentum)
	axes := append([]int{0}, rangeAxes(2, x.Type.Rank())...)
	bm, bv := e.moments(x, axes)
	e.Out(0, e.Op("batch_norm", c.Output(0), eps, x, scale, bias, bm, bv))
	mom := float64(c.AttrFloat("momentum", 0.9))
	t := x.Type.Elem
	running := func(in, batch *ir.Value, name string) *ir.Value {
		if statType == t {
			return e.Op("add", name, nil, e.Op("mul", "", nil, in, e.Scalar(t, mom)), e.Op("mul", "", nil, batch, e.Scalar(t, 1-mom)))
		}
		r := e.Op("add", "", nil, e.Op("mul", "", nil, in, e.Scalar(t, mom)), e.Op("mul", "", nil, batch, e.Scalar(t, 1-mom)))
		return e.Op("cast", name, ir.Attrs{"to": ir.StringAttr(statType.String())}, r)
	}
	if c.Output(1) != "" {
		e.Out(1, running(mean, bm, c.Output(1)))
	}
	if c.Output(2) != "" {
		e.Out(2, running(variance, bv, c.Output(2)))
	}
	return e.Done()
}

func importInstanceNorm(c *nodeCtx) error {
	e := c.emitter()
	x, scale, bias := e.In(0), e.In(1), e.In(2)
	if e.err != nil {
		return e.err
	}
	if x.Type.Rank() < 2 {
		return fmt.Errorf("%w: input must have rank >= 2 (N, C, …), got %s", ErrInvalid, x.Type)
	}
	eps := ir.Attrs{"epsilon": ir.FloatAttr(float64(c.AttrFloat("epsilon", 1e-5)))}
	if X, G := groupNormSource(x); X != nil {
		// GroupNorm as PyTorch exports it (ops_groupnorm.go): on X itself, then the view
		y := e.groupNorm(X, G, scale, bias, float64(c.AttrFloat("epsilon", 1e-5)))
		if y != nil {
			e.Out(0, e.Op("reshape", c.Output(0), ir.Attrs{"shape": ir.StringAttr(ir.ExtentsString(x.Type.Shape))}, y))
		}
		return e.Done()
	}
	m, v := e.moments(x, rangeAxes(2, x.Type.Rank()))
	e.Out(0, e.Op("batch_norm", c.Output(0), eps, x, scale, bias, m, v))
	return e.Done()
}

// stash returns the computation type of LayerNormalization and RMSNormalization (stash_type 1
// is f32) and x converted to it.
func stash(c *nodeCtx, e *emitter, x *ir.Value) (ir.DType, *ir.Value, error) {
	t := x.Type.Elem
	if st := c.AttrInt("stash_type", 1); st != 1 {
		var err error
		if t, err = DType(int32(st)); err != nil {
			return 0, nil, fmt.Errorf("stash_type: %w", err)
		}
	} else {
		t = ir.F32
	}
	return t, e.Cast(x, t, ""), nil
}

// stashedNormAxes is the common start of LayerNormalization, RMSNormalization and
// SimplifiedLayerNormalization: the axes from attribute axis (default -1) on, the computation
// type of stash_type, and x0 converted to it.
func stashedNormAxes(c *nodeCtx, e *emitter, x0 *ir.Value) (axes []int, t ir.DType, x *ir.Value, err error) {
	r := x0.Type.Rank()
	ax, err := resolveAxes([]int64{c.AttrInt("axis", -1)}, r)
	if err != nil {
		return nil, 0, nil, err
	}
	if t, x, err = stash(c, e, x0); err != nil {
		return nil, 0, nil, err
	}
	return rangeAxes(ax[0], r), t, x, nil
}

// layerNorm returns (x - mean) · inv with mean and inv = 1 / sqrt(var + eps) over axes (kept),
// in x's type t; mean and inv are named meanName and invName (LayerNormalization's outputs 1
// and 2, SkipLayerNormalization's).
func (e *emitter) layerNorm(x *ir.Value, axes []int, eps float64, t ir.DType, meanName, invName string) (y, mean, inv *ir.Value) {
	keep := ir.Attrs{"axes": ints(axes), "keepdims": ir.IntAttr(1)}
	n := e.Count(x, axes, t)
	mean = e.Op("div", meanName, nil, e.Op("reduce_sum", "", keep, x), n)
	d := e.Op("sub", "", nil, x, mean)
	variance := e.Op("div", "", nil, e.Op("reduce_sum", "", keep, e.Op("mul", "", nil, d, d)), n)
	inv = e.Op("reciprocal", invName, nil, e.Op("sqrt", "", nil, e.Op("add", "", nil, variance, e.Scalar(t, eps))))
	return e.Op("mul", "", nil, d, inv), mean, inv
}

// importLayerNorm follows the ONNX reference: mean and variance over the axes from axis on,
// Y = (x - mean) * (1 / sqrt(var + epsilon)) * scale + bias, with outputs Mean and InvStdDev
// keeping the reduced axes.
func importLayerNorm(c *nodeCtx) error {
	e := c.emitter()
	x0, scale := e.In(0), e.In(1)
	if e.err != nil {
		return e.err
	}
	axes, t, x, err := stashedNormAxes(c, e, x0)
	if err != nil {
		return err
	}
	y, mean, inv := e.layerNorm(x, axes, float64(c.AttrFloat("epsilon", 1e-5)), t, c.Output(1), c.Output(2))
	y = e.Op("mul", "", nil, e.Cast(y, x0.Type.Elem, ""), scale)
	if c.HasInput(2) {
		y = e.Op("add", "", nil, y, e.In(2))
	}
	e.Out(0, e.Op("identity", c.Output(0), nil, y))
	e.Out(1, mean)
	e.Out(2, inv)
	return e.Done()
}

// importRMSNorm: Y = x / sqrt(mean(x²) + epsilon) * scale over the axes from axis on.
func importRMSNorm(c *nodeCtx) error {
	e := c.emitter()
	x0, scale := e.In(0), e.In(1)
	if e.err != nil {
		return e.err
	}
	axes, t, x, err := stashedNormAxes(c, e, x0)
	if err != nil {
		return err
	}
	keep := ir.Attrs{"axes": ints(axes), "keepdims": ir.IntAttr(1)}
	ms := e.Op("div", "", nil, e.Op("reduce_sum", "", keep, e.Op("mul", "", nil, x, x)), e.Count(x, axes, t))
	rms := e.Op("sqrt", "", nil, e.Op("add", "", nil, ms, e.Scalar(t, float64(c.AttrFloat("epsilon", 1e-5)))))
	y := e.Cast(e.Op("div", "", nil, x, rms), x0.Type.Elem, "")
	e.Out(0, e.Op("mul", c.Output(0), nil, y, scale))
	return e.Done()
}

// importGroupNorm follows the function body: x [N, C, …] viewed as [N, G, C/G · spatial],
// normalised with the group's mean and variance E[x²] - mean² (in stash_type from opset 21),
// then scaled and shifted per channel (per group before opset 21).
func importGroupNorm(c *nodeCtx) error {
	e := c.emitter()
	x0, scale, bias := e.In(0), e.In(1), e.In(2)
	if e.err != nil {
		return e.err
	}
	r := x0.Type.Rank()
	g := c.AttrInt("num_groups", 0)
	ch, ok := x0.Type.Dim(1)
	if r < 2 || !ok || g <= 0 || ch%g != 0 {
		return fmt.Errorf("%w: x %s needs a static channel dim divisible by num_groups = %d", ErrInvalid, x0.Type, g)
	}
	// the elements of one group: C/G times the spatial extents (at most one of them symbolic)
	size := volume.AffConst(ch / g)
	for _, d := range x0.Type.Shape[2:] {
		if n, ok := d.IsConst(); ok {
			size = size.Mul(n)
		} else if n, ok := size.IsConst(); ok {
			size = d.Mul(n)
		} else {
			return fmt.Errorf("%w: more than one symbolic spatial dim in %s", ErrUnsupported, x0.Type)
		}
	}
	t := x0.Type.Elem
	x := x0
	if c.Opset() >= 21 {
		var err error
		if t, x, err = stash(c, e, x0); err != nil {
			return err
		}
	}
	n := x0.Type.Shape[0]
	xg := e.reshape(x, n, volume.AffConst(g), size)
	keep := ir.Attrs{"axes": ints([]int{2}), "keepdims": ir.IntAttr(1)}
	cnt := e.Count(xg, []int{2}, t)
	mean := e.Op("div", "", nil, e.Op("reduce_sum", "", keep, xg), cnt)
	meanSq := e.Op("div", "", nil, e.Op("reduce_sum", "", keep, e.Op("mul", "", nil, xg, xg)), cnt)
	variance := e.Op("sub", "", nil, meanSq, e.Op("mul", "", nil, mean, mean))
	std := e.Op("sqrt", "", nil, e.Op("add", "", nil, variance, e.Scalar(t, float64(c.AttrFloat("epsilon", 1e-5)))))
	norm := e.Op("div", "", nil, e.Op("sub", "", nil, xg, mean), std)
	one := volume.AffConst(1)
	var y *ir.Value
	if c.Opset() < 21 {
		// scale and bias per group, on the [N, G, ·] view
		sc := e.reshape(e.Cast(scale, t, ""), one, volume.AffConst(g), one)
		bi := e.reshape(e.Cast(bias, t, ""), one, volume.AffConst(g), one)
		y = e.reshape(e.Op("add", "", nil, e.Op("mul", "", nil, sc, norm), bi), x0.Type.Shape...)
	} else {
		// per channel, on [N, C, spatial] after the cast back
		nc := e.Cast(e.reshape(norm, n, volume.AffConst(ch), size.FloorDiv(ch/g)), x0.Type.Elem, "")
		sc := e.reshape(scale, one, volume.AffConst(ch), one)
		bi := e.reshape(bias, one, volume.AffConst(ch), one)
		y = e.reshape(e.Op("add", "", nil, e.Op("mul", "", nil, sc, nc), bi), x0.Type.Shape...)
	}
	e.Out(0, e.Op("identity", c.Output(0), nil, y))
	return e.Done()
}

// importLRN: y = x / (bias + alpha / size * Σ window x²)^beta, the window over channels.
func importLRN(c *nodeCtx) error {
	e := c.emitter()
	x := e.In(0)
	if x == nil {
		return e.Done()
	}
	size := c.AttrInt("size", 0)
	if size < 1 {
		return fmt.Errorf("%w: size must be at least 1, got %d", ErrInvalid, size)
	}
	t := x.Type.Elem
	alpha := float64(c.AttrFloat("alpha", 1e-4))
	beta := float64(c.AttrFloat("beta", 0.75))
	bias := float64(c.AttrFloat("bias", 1))
	s := e.Op("channel_window_sum", "", ir.Attrs{"size": ir.IntAttr(size)}, e.Op("mul", "", nil, x, x))
	den := e.Op("add", "", nil, e.Scalar(t, bias), e.Op("mul", "", nil, e.Scalar(t, alpha/float64(size)), s))
	var p *ir.Value
	if bias > 0 && alpha >= 0 {
		// den ≥ bias > 0 (s is a sum of squares): den^β = exp(β·log den), which compiles to
		// the vector exp and log polynomials; pow is Go's exact float64 algorithm, one scalar
		// call per element (inception_v1's two LRNs took 89 of its 102 ms)
		p = e.Op("exp", "", nil, e.Op("mul", "", nil, e.Scalar(t, beta), e.Op("log", "", nil, den)))
	} else {
		p = e.Op("pow", "", nil, den, e.Scalar(t, beta))
	}
	e.Out(0, e.Op("div", c.Output(0), nil, x, p))
	return e.Done()
}

// importMVN follows the ONNX reference: (x - E[x]) / (sqrt(E[x²] - E[x]²) + 1e-9) over axes
// (default [0, 2, 3]).
func importMVN(c *nodeCtx) error {
	e := c.emitter()
	x := e.In(0)
	if x == nil {
		return e.Done()
	}
	axes, err := resolveAxes(c.AttrInts("axes", []int64{0, 2, 3}), x.Type.Rank())
	if err != nil {
		return err
	}
	t := x.Type.Elem
	keep := ir.Attrs{"axes": ints(axes), "keepdims": ir.IntAttr(1)}
	n := e.Count(x, axes, t)
	mean := e.Op("div", "", nil, e.Op("reduce_sum", "", keep, x), n)
	meanSq := e.Op("div", "", nil, e.Op("reduce_sum", "", keep, e.Op("mul", "", nil, x, x)), n)
	std := e.Op("sqrt", "", nil, e.Op("sub", "", nil, meanSq, e.Op("mul", "", nil, mean, mean)))
	den := e.Op("add", "", nil, std, e.Scalar(t, 1e-9))
	e.Out(0, e.Op("div", c.Output(0), nil, e.Op("sub", "", nil, x, mean), den))
	return e.Done()
}
