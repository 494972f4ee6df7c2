// This file imports onnxruntime's fused normalizations: SkipLayerNormalization and
// SkipSimplifiedLayerNormalization (com.microsoft) and SimplifiedLayerNormalization (registered
// by onnxruntime in the default domain, accepted in com.microsoft too). Each is the residual sum
// input + skip (+ bias) followed by a layer norm or an RMS norm over the last axis, as
// reductions and elementwise ops: every element map is exact.

package onnx

import (
	"fmt"

	"github.com/graphc/graphc/ir"
)

func init() {
	const rms = "Y = x / sqrt(mean(x²) + epsilon) · scale over the axes from axis on, in stash_type (float32 by default); output 1 is 1 / sqrt(mean(x²) + epsilon)"
	registerOp("SimplifiedLayerNormalization", 1, importSimplifiedLayerNorm)
	noteOp("SimplifiedLayerNormalization", "onnxruntime's RMS norm, which it registers in the default domain: "+rms)
	registerDomainOp(MsftDomain, "SimplifiedLayerNormalization", importSimplifiedLayerNorm, rms)
	registerDomainOp(MsftDomain, "SkipLayerNormalization", importSkipLayerNorm(false),
		"s = input + skip (+ bias), then layer norm over the last axis (mean, variance, epsilon) · gamma (+ beta); outputs mean and inv_std_var (with the last axis kept as 1) and input_skip_bias_sum s")
	registerDomainOp(MsftDomain, "SkipSimplifiedLayerNormalization", importSkipLayerNorm(true),
		"s = input + skip (+ bias), then RMS norm over the last axis · gamma; outputs inv_std_var (output 2, the last axis kept as 1) and input_skip_bias_sum s (output 3)")
}

// importSimplifiedLayerNorm: Y = x / sqrt(mean(x²) + epsilon) * scale over the axes from axis
// on, computed in stash_type; output 1 is the inverse RMS with the reduced axes kept.
func importSimplifiedLayerNorm(c *nodeCtx) error {
	e := c.emitter()
	x0, scale := e.In(0), e.In(1)
	if e.err != nil {
		return e.err
	}
	if !x0.Type.Elem.IsFloat() {
		return fmt.Errorf("%w: X must be a float tensor, got %s", ErrInvalid, x0.Type)
	}
	axes, t, x, err := stashedNormAxes(c, e, x0)
	if err != nil {
		return err
	}
	y, inv := e.rmsNorm(x, axes, float64(c.AttrFloat("epsilon", 1e-5)), t, c.Output(1))
	y = e.Cast(y, x0.Type.Elem, "")
	e.Out(0, e.Op("mul", c.Output(0), nil, y, e.Cast(scale, x0.Type.Elem, "")))
	e.Out(1, inv)
	return e.Done()
}

// rmsNorm returns x · inv and inv = 1 / sqrt(mean(x²) + eps) over axes (kept), inv named name.
func (e *emitter) rmsNorm(x *ir.Value, axes []int, eps float64, t ir.DType, name string) (y, inv *ir.Value) {
	if e.err != nil {
		return nil, nil
	}
	keep := ir.Attrs{"axes": ints(axes), "keepdims": ir.IntAttr(1)}
	ms := e.Op("div", "", nil, e.Op("reduce_sum", "", keep, e.Op("mul", "", nil, x, x)), e.Count(x, axes, t))
	inv = e.Op("reciprocal", name, nil, e.Op("sqrt", "", nil, e.Op("add", "", nil, ms, e.Scalar(t, eps))))
	return e.Op("mul", "", nil, x, inv), inv
}

// importSkipLayerNorm imports SkipLayerNormalization (simplified = false: inputs input, skip,
// gamma, beta, bias) and SkipSimplifiedLayerNormalization (simplified: input, skip, gamma,
// bias). The statistics are computed in float32 for float16 inputs, as onnxruntime's kernels do.
func importSkipLayerNorm(simplified bool) func(c *nodeCtx) error {
	return func(c *nodeCtx) error {
		e := c.emitter()
		x, skip, gamma := e.In(0), e.In(1), e.In(2)
		if e.err != nil {
			return e.err
		}
		t := x.Type.Elem
		if !t.IsFloat() || skip.Type.Elem != t || gamma.Type.Elem != t {
			return fmt.Errorf("%w: input, skip and gamma must have one float type, got %s, %s and %s", ErrInvalid, x.Type, skip.Type, gamma.Type)
		}
		r := x.Type.Rank()
		if r < 2 || r > 3 {
			return fmt.Errorf("%w: input must be 2-D or 3-D, got %s", ErrInvalid, x.Type)
		}
		hidden := x.Type.Shape[r-1]
		if gamma.Type.Rank() != 1 || !gamma.Type.Shape[0].Equal(hidden) {
			return fmt.Errorf("%w: gamma must be 1-D of the hidden size %s, got %s", ErrInvalid, hidden.String(), gamma.Type)
		}
		biasIn := 4
		if simplified {
			biasIn = 3
			if c.Output(1) != "" {
				return fmt.Errorf("%w: output #1 (mean) of an RMS norm", ErrUnsupported)
			}
		}
		s := e.Op("add", "", nil, x, skip)
		if s != nil && !s.Type.Equal(x.Type) {
			return fmt.Errorf("%w: skip %s does not broadcast to input %s", ErrInvalid, skip.Type, x.Type)
		}
		if c.HasInput(biasIn) {
			s = e.Op("add", "", nil, s, e.In(biasIn))
		}
		if c.Output(3) != "" {
			s = e.Op("identity", c.Output(3), nil, s)
		}
		st := t
		if t == ir.F16 || t == ir.BF16 {
			st = ir.F32
		}
		xs := e.Cast(s, st, "")
		axes := []int{r - 1}
		eps := float64(c.AttrFloat("epsilon", 1e-12))
		var y, mean, inv *ir.Value
		if simplified {
			y, inv = e.rmsNorm(xs, axes, eps, st, c.Output(2))
		} else {
			y, mean, inv = e.layerNorm(xs, axes, eps, st, c.Output(1), c.Output(2))
		}
		y = e.Op("mul", "", nil, e.Cast(y, t, ""), gamma)
		if !simplified && c.HasInput(3) {
			y = e.Op("add", "", nil, y, e.In(3))
		}
		e.Out(0, e.Op("identity", c.Output(0), nil, y))
		if mean != nil {
			e.Out(1, mean)
		}
		e.Out(2, inv)
		e.Out(3, s)
		return e.Done()
	}
}
