// This file imports the elementwise ops: arithmetic with numpy broadcasting, comparisons and
// logic, the unary math functions and activations (Relu6 as max then min, Rsqrt as the
// reciprocal of sqrt, Square as x * x), Cast, AddN, SelectV2, and Softmax/LogSoftmax over the
// last axis as max-shifted exponentials normalised by a sum (as the ONNX importer builds them).

package tf

import (
	"fmt"

	"github.com/graphc/graphc/ir"
)

func init() {
	for tfName, kind := range map[string]string{"Add": "add", "AddV2": "add", "Sub": "sub", "Mul": "mul",
		"RealDiv": "div", "Div": "div", "Maximum": "max", "Minimum": "min", "Pow": "pow", "FloorMod": "mod",
		"Equal": "equal", "NotEqual": "not_equal", "Less": "less", "LessEqual": "less_equal",
		"Greater": "greater", "GreaterEqual": "greater_equal", "LogicalAnd": "and", "LogicalOr": "or",
		"SelectV2": "where"} {
		n := 2
		if kind == "where" {
			n = 3
		}
		registerOp(tfName, simple(kind, n))
	}
	for tfName, kind := range map[string]string{"Relu": "relu", "Sigmoid": "sigmoid", "Tanh": "tanh",
		"Neg": "neg", "Abs": "abs", "Exp": "exp", "Log": "log", "Sqrt": "sqrt", "Reciprocal": "reciprocal",
		"Inv": "reciprocal", "Floor": "floor", "Ceil": "ceil", "Round": "round", "Sign": "sign", "Sin": "sin",
		"Cos": "cos", "Erf": "erf", "Softplus": "softplus", "Softsign": "softsign", "Elu": "elu",
		"LogicalNot": "not"} {
		registerOp(tfName, simple(kind, 1))
	}
	registerOp("Relu6", importRelu6)
	registerOp("Rsqrt", importRsqrt)
	registerOp("Square", importSquare)
	registerOp("SquaredDifference", importSquaredDifference)
	registerOp("LeakyRelu", importLeakyRelu)
	registerOp("Selu", importSelu)
	registerOp("AddN", importAddN)
	registerOp("Cast", importCast)
	registerOp("Softmax", importSoftmax(false))
	registerOp("LogSoftmax", importSoftmax(true))
	noteOp("min(max(x, 0), 6)", "Relu6")
	noteOp("1 / sqrt(x)", "Rsqrt")
	noteOp("x * x", "Square")
	noteOp("(x - y) * (x - y)", "SquaredDifference")
	noteOp("integers divide with truncation", "Div")
	noteOp("the remainder with the sign of the divisor", "FloorMod")
	noteOp("numpy broadcasting of the three operands", "SelectV2")
	noteOp("DstT; float to integer truncates", "Cast")
	noteOp("over the last axis: reduce_max, exp(x - max), reduce_sum, div", "Softmax")
	noteOp("over the last axis: x - max - log(sum(exp(x - max)))", "LogSoftmax")
}

// unary returns the node's single input.
func unary(c *nodeCtx, e *emitter) *ir.Value {
	if c.NumInputs() != 1 {
		e.Fail(fmt.Errorf("%w: expected 1 input, got %d", ErrInvalid, c.NumInputs()))
		return nil
	}
	return e.In(0)
}

// importRelu6: min(max(x, 0), 6).
func importRelu6(c *nodeCtx) error {
	e := c.emitter()
	x := unary(c, e)
	if x == nil {
		return e.Done()
	}
	t := x.Type.Elem
	e.Out(0, e.Op("min", e.Base, nil, e.Op("max", "", nil, x, e.Scalar(t, 0)), e.Scalar(t, 6)))
	return e.Done()
}

// importRsqrt: 1 / sqrt(x).
func importRsqrt(c *nodeCtx) error {
	e := c.emitter()
	x := unary(c, e)
	e.Out(0, e.Op("reciprocal", e.Base, nil, e.Op("sqrt", "", nil, x)))
	return e.Done()
}

// importSquare: x * x.
func importSquare(c *nodeCtx) error {
	e := c.emitter()
	x := unary(c, e)
	e.Out(0, e.Op("mul", e.Base, nil, x, x))
	return e.Done()
}

// importSquaredDifference: (x - y) * (x - y).
func importSquaredDifference(c *nodeCtx) error {
	if c.NumInputs() != 2 {
		return fmt.Errorf("%w: expected 2 inputs, got %d", ErrInvalid, c.NumInputs())
	}
	e := c.emitter()
	d := e.Op("sub", "", nil, e.In(0), e.In(1))
	e.Out(0, e.Op("mul", e.Base, nil, d, d))
	return e.Done()
}

func importLeakyRelu(c *nodeCtx) error {
	e := c.emitter()
	x := unary(c, e)
	e.Out(0, e.Op("leaky_relu", e.Base, ir.Attrs{"alpha": ir.FloatAttr(float64(c.AttrFloat("alpha", 0.2)))}, x))
	return e.Done()
}

// importSelu uses TensorFlow's constants (as float32, the precision its kernels use).
func importSelu(c *nodeCtx) error {
	e := c.emitter()
	x := unary(c, e)
	const alpha, scale = float32(1.6732632423543772848170429916717), float32(1.0507009873554804934193349852946)
	e.Out(0, e.Op("selu", e.Base, ir.Attrs{"alpha": ir.FloatAttr(float64(alpha)), "gamma": ir.FloatAttr(float64(scale))}, x))
	return e.Done()
}

// importAddN sums its inputs left to right.
func importAddN(c *nodeCtx) error {
	n := c.NumInputs()
	if n == 0 {
		return fmt.Errorf("%w: no inputs", ErrInvalid)
	}
	e := c.emitter()
	acc := e.In(0)
	for i := 1; i < n; i++ {
		acc = e.Op("add", e.NameIf(i == n-1), nil, acc, e.In(i))
	}
	if n == 1 {
		acc = e.Op("identity", e.Base, nil, acc)
	}
	e.Out(0, acc)
	return e.Done()
}

// importCast converts to DstT (float to integer truncates toward zero, as static_cast does).
func importCast(c *nodeCtx) error {
	to, ok, err := c.AttrType("DstT")
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: Cast without a DstT attribute", ErrInvalid)
	}
	e := c.emitter()
	e.Out(0, e.Cast(unary(c, e), to, e.Base))
	return e.Done()
}

// importSoftmax: exp(x - max) / sum(exp(x - max)) over the last axis, or (x - max) -
// log(sum(exp(x - max))).
func importSoftmax(logSoftmax bool) func(c *nodeCtx) error {
	return func(c *nodeCtx) error {
		e := c.emitter()
		x := unary(c, e)
		if x == nil {
			return e.Done()
		}
		r := x.Type.Rank()
		if r == 0 {
			return fmt.Errorf("%w: logits must have rank >= 1, got %s", ErrInvalid, x.Type)
		}
		keep := ir.Attrs{"axes": ir.IntsAttr(int64(r - 1)), "keepdims": ir.IntAttr(1)}
		m := e.Op("reduce_max", "", keep, x)
		d := e.Op("sub", "", nil, x, m)
		ex := e.Op("exp", "", nil, d)
		s := e.Op("reduce_sum", "", keep, ex)
		if logSoftmax {
			e.Out(0, e.Op("sub", e.Base, nil, d, e.Op("log", "", nil, s)))
		} else {
			e.Out(0, e.Op("div", e.Base, nil, ex, s))
		}
		return e.Done()
	}
}
