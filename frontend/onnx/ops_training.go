// This file imports the optimizers of ai.onnx.preview.training (Adagrad, Momentum, Adam): one
// update step of each tensor they are given, elementwise, as the ONNX definitions write it.

package onnx

import (
	"fmt"

	"github.com/graphc/graphc/ir"
)

func init() {
	registerOp("Adagrad", 1, importAdagrad)
	registerOp("Momentum", 1, importMomentum)
	registerOp("Adam", 1, importAdam)
	previewOps["ai.onnx.preview.training"] = map[string]bool{"Adagrad": true, "Momentum": true, "Adam": true}
	for _, op := range []string{"Adagrad", "Momentum", "Adam"} {
		noteOp(op, "domain ai.onnx.preview.training: one update step, elementwise")
	}
}

// optimizerGroups returns the number of optimised tensors of a node with R, T and then
// groups input lists of equal length.
func optimizerGroups(c *nodeCtx, groups int) (int, error) {
	n := c.NumInputs() - 2
	if n <= 0 || n%groups != 0 || len(c.node.Output) > n {
		return 0, fmt.Errorf("%w: %d inputs after R and T do not form %d lists of one length", ErrInvalid, n, groups)
	}
	return n / groups, nil
}

// optimizerScalars returns R and T (as a float of x's type) and whether T > 0.
func (e *emitter) optimizerScalars(t ir.DType) (r, tf, positive *ir.Value) {
	r = e.Cast(e.In(0), t, "")
	ti := e.In(1)
	tf = e.Cast(ti, t, "")
	if ti != nil {
		positive = e.Op("greater", "", nil, ti, e.Scalar(ti.Type.Elem, 0))
	}
	return r, tf, positive
}

// importAdagrad: r = R / (1 + T·decay); g = norm·X + G; H' = H + g²; X' = X - r·g / (sqrt(H') + ε).
func importAdagrad(c *nodeCtx) error {
	n, err := optimizerGroups(c, 3)
	if err != nil {
		return err
	}
	e := c.emitter()
	for i := 0; i < n; i++ {
		x, g, h := e.In(2+i), e.In(2+n+i), e.In(2+2*n+i)
		if e.err != nil {
			return e.err
		}
		t := x.Type.Elem
		r, tf, _ := e.optimizerScalars(t)
		c1 := func(v float32) *ir.Value { return e.Scalar(t, float64(v)) }
		rr := e.Op("div", "", nil, r, e.Op("add", "", nil, c1(1), e.Op("mul", "", nil, tf, c1(c.AttrFloat("decay_factor", 0)))))
		greg := e.Op("add", "", nil, e.Op("mul", "", nil, c1(c.AttrFloat("norm_coefficient", 0)), x), g)
		hn := e.Op("add", "", nil, h, e.Op("mul", "", nil, greg, greg))
		ha := e.Op("add", "", nil, e.Op("sqrt", "", nil, hn), c1(c.AttrFloat("epsilon", 1e-6)))
		xn := e.Op("sub", "", nil, x, e.Op("div", "", nil, e.Op("mul", "", nil, rr, greg), ha))
		e.Out(i, e.Op("identity", c.Output(i), nil, xn))
		e.Out(n+i, e.Op("identity", c.Output(n+i), nil, hn))
	}
	return e.Done()
}

// importMomentum: g = norm·X + G; V' = α·V + β'·g (β' = β when T > 0, else 1); X' = X - R·V'
// (standard) or X - R·(g + α·V') (nesterov).
func importMomentum(c *nodeCtx) error {
	n, err := optimizerGroups(c, 3)
	if err != nil {
		return err
	}
	mode := c.AttrString("mode", "standard")
	if mode != "standard" && mode != "nesterov" {
		return fmt.Errorf("%w: mode %q (want standard or nesterov)", ErrInvalid, mode)
	}
	e := c.emitter()
	for i := 0; i < n; i++ {
		x, g, v := e.In(2+i), e.In(2+n+i), e.In(2+2*n+i)
		if e.err != nil {
			return e.err
		}
		t := x.Type.Elem
		r, _, positive := e.optimizerScalars(t)
		c1 := func(v float32) *ir.Value { return e.Scalar(t, float64(v)) }
		alpha := c1(c.AttrFloat("alpha", 0))
		greg := e.Op("add", "", nil, e.Op("mul", "", nil, c1(c.AttrFloat("norm_coefficient", 0)), x), g)
		beta := e.Op("where", "", nil, positive, c1(c.AttrFloat("beta", 0)), c1(1))
		vn := e.Op("add", "", nil, e.Op("mul", "", nil, alpha, v), e.Op("mul", "", nil, beta, greg))
		step := vn
		if mode == "nesterov" {
			step = e.Op("add", "", nil, greg, e.Op("mul", "", nil, alpha, vn))
		}
		xn := e.Op("sub", "", nil, x, e.Op("mul", "", nil, r, step))
		e.Out(i, e.Op("identity", c.Output(i), nil, xn))
		e.Out(n+i, e.Op("identity", c.Output(n+i), nil, vn))
	}
	return e.Done()
}

// importAdam: g = norm·X + G; V' = α·V + (1-α)·g; H' = β·H + (1-β)·g²; R' = R·sqrt(1-β^T)/(1-α^T)
// when T > 0 (else R); X' = (1 - norm_post)·(X - R'·V'/(sqrt(H') + ε)).
func importAdam(c *nodeCtx) error {
	n, err := optimizerGroups(c, 4)
	if err != nil {
		return err
	}
	e := c.emitter()
	for i := 0; i < n; i++ {
		x, g, v, h := e.In(2+i), e.In(2+n+i), e.In(2+2*n+i), e.In(2+3*n+i)
		if e.err != nil {
			return e.err
		}
		t := x.Type.Elem
		r, tf, positive := e.optimizerScalars(t)
		c1 := func(v float32) *ir.Value { return e.Scalar(t, float64(v)) }
		a, b := c.AttrFloat("alpha", 0.9), c.AttrFloat("beta", 0.999)
		greg := e.Op("add", "", nil, e.Op("mul", "", nil, c1(c.AttrFloat("norm_coefficient", 0)), x), g)
		vn := e.Op("add", "", nil, e.Op("mul", "", nil, c1(a), v), e.Op("mul", "", nil, c1(1-a), greg))
		hn := e.Op("add", "", nil, e.Op("mul", "", nil, c1(b), h), e.Op("mul", "", nil, c1(1-b), e.Op("mul", "", nil, greg, greg)))
		hs := e.Op("add", "", nil, e.Op("sqrt", "", nil, hn), c1(c.AttrFloat("epsilon", 1e-6)))
		num := e.Op("sqrt", "", nil, e.Op("sub", "", nil, c1(1), e.Op("pow", "", nil, c1(b), tf)))
		den := e.Op("sub", "", nil, c1(1), e.Op("pow", "", nil, c1(a), tf))
		radj := e.Op("where", "", nil, positive, e.Op("div", "", nil, e.Op("mul", "", nil, r, num), den), r)
		xn := e.Op("sub", "", nil, x, e.Op("mul", "", nil, radj, e.Op("div", "", nil, vn, hs)))
		xf := e.Op("mul", "", nil, c1(1-c.AttrFloat("norm_coefficient_post", 0)), xn)
		e.Out(i, e.Op("identity", c.Output(i), nil, xf))
		e.Out(n+i, e.Op("identity", c.Output(n+i), nil, vn))
		e.Out(2*n+i, e.Op("identity", c.Output(2*n+i), nil, hn))
	}
	return e.Done()
}
