// This file imports onnxruntime's fused activations of com.microsoft: FastGelu (the tanh
// approximation, with an optional bias), BiasGelu (the exact, erf form of x + bias), QuickGelu
// (x · sigmoid(alpha · x)) and BiasAdd (x + bias + skip). All are elementwise: exact element
// maps.

package onnx

import (
	"fmt"

	"github.com/graphc/graphc/ir"
)

func init() {
	registerDomainOp(MsftDomain, "FastGelu", importBiasGelu("tanh"),
		"0.5 x (1 + tanh(sqrt(2/π) (x + 0.044715 x³))) of x (+ bias): the catalogue's gelu with approximate = tanh")
	registerDomainOp(MsftDomain, "BiasGelu", importBiasGelu("none"), "gelu (erf form) of A + B")
	registerDomainOp(MsftDomain, "QuickGelu", importQuickGelu, "x · sigmoid(alpha · x), alpha 1.702 by default")
	registerDomainOp(MsftDomain, "BiasAdd", importBiasAdd, "X + bias + skip")
}

// importBiasGelu adds the optional bias (input 1) to x and applies gelu of the given
// approximation.
func importBiasGelu(approx string) func(c *nodeCtx) error {
	return func(c *nodeCtx) error {
		e := c.emitter()
		x := e.In(0)
		if e.err != nil {
			return e.err
		}
		if !x.Type.Elem.IsFloat() {
			return fmt.Errorf("%w: the input must be a float tensor, got %s", ErrInvalid, x.Type)
		}
		if c.HasInput(1) {
			x = e.Op("add", "", nil, x, e.In(1))
		}
		e.Out(0, e.Op("gelu", c.Output(0), ir.Attrs{"approximate": ir.StringAttr(approx)}, x))
		return e.Done()
	}
}

func importQuickGelu(c *nodeCtx) error {
	e := c.emitter()
	x := e.In(0)
	if e.err != nil {
		return e.err
	}
	if !x.Type.Elem.IsFloat() {
		return fmt.Errorf("%w: the input must be a float tensor, got %s", ErrInvalid, x.Type)
	}
	alpha := float64(c.AttrFloat("alpha", 1.702))
	s := e.Op("sigmoid", "", nil, e.Op("mul", "", nil, x, e.Scalar(x.Type.Elem, alpha)))
	e.Out(0, e.Op("mul", c.Output(0), nil, x, s))
	return e.Done()
}

func importBiasAdd(c *nodeCtx) error {
	e := c.emitter()
	x, bias, skip := e.In(0), e.In(1), e.In(2)
	if e.err != nil {
		return e.err
	}
	if x.Type.Rank() != 3 || bias.Type.Rank() != 1 || !skip.Type.Equal(x.Type) {
		return fmt.Errorf("%w: X and skip must be one 3-D shape and bias 1-D, got %s, %s and %s", ErrInvalid, x.Type, bias.Type, skip.Type)
	}
	e.Out(0, e.Op("add", c.Output(0), nil, e.Op("add", "", nil, x, bias), skip))
	return e.Done()
}
