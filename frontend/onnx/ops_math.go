// This file imports the elementwise ONNX ops: arithmetic, unary math, activations, Clip, the
// variadic Max/Min/Sum/Mean, comparisons and logic, Where, Cast/CastLike, Identity, Dropout
// (inference, and training with a seed) and Constant.

package onnx

import (
	"fmt"
	"math"

	kit "github.com/graphc/graphc/frontend/importer"
	"github.com/graphc/graphc/ir"
)

func init() {
	for _, op := range []struct {
		onnx  string
		since int
		kind  string
	}{
		{"Add", 7, "add"}, {"Sub", 7, "sub"}, {"Mul", 7, "mul"}, {"Div", 7, "div"},
		{"Sqrt", 6, "sqrt"}, {"Exp", 6, "exp"}, {"Log", 6, "log"}, {"Tanh", 6, "tanh"}, {"Sigmoid", 6, "sigmoid"},
		{"Relu", 6, "relu"}, {"Neg", 6, "neg"}, {"Abs", 6, "abs"}, {"Reciprocal", 6, "reciprocal"},
		{"Floor", 6, "floor"}, {"Ceil", 6, "ceil"}, {"Erf", 9, "erf"}, {"Softplus", 1, "softplus"},
		{"Softsign", 1, "softsign"}, {"Sign", 9, "sign"}, {"Sin", 7, "sin"}, {"Cos", 7, "cos"},
		{"Tan", 7, "tan"}, {"Asin", 7, "asin"}, {"Acos", 7, "acos"}, {"Atan", 7, "atan"}, {"Sinh", 9, "sinh"}, {"Cosh", 9, "cosh"},
		{"Asinh", 9, "asinh"}, {"Acosh", 9, "acosh"}, {"Atanh", 9, "atanh"}, {"Round", 11, "round"},
		{"HardSwish", 14, "hard_swish"},
		{"Equal", 7, "equal"}, {"Greater", 7, "greater"}, {"GreaterOrEqual", 12, "greater_equal"},
		{"Less", 7, "less"}, {"LessOrEqual", 12, "less_equal"},
		{"Not", 1, "not"}, {"And", 7, "and"}, {"Or", 7, "or"}, {"Xor", 7, "xor"},
		{"Where", 9, "where"},
		{"BitwiseAnd", 18, "bitwise_and"}, {"BitwiseOr", 18, "bitwise_or"}, {"BitwiseXor", 18, "bitwise_xor"},
		{"BitwiseNot", 18, "bitwise_not"}, {"IsNaN", 9, "is_nan"}, {"Mish", 18, "mish"},
	} {
		registerOp(op.onnx, op.since, elementwise(op.kind))
	}
	registerOp("LeakyRelu", 6, activation("leaky_relu", "alpha"))
	registerOp("Elu", 6, activation("elu", "alpha"))
	registerOp("Celu", 12, activation("celu", "alpha"))
	registerOp("Selu", 6, activation("selu", "alpha", "gamma"))
	registerOp("HardSigmoid", 6, activation("hard_sigmoid", "alpha", "beta"))
	registerOp("ThresholdedRelu", 10, activation("thresholded_relu", "alpha"))
	registerOp("Gelu", 20, importGelu)
	registerOp("Shrink", 9, activation("shrink", "bias", "lambd"))
	registerOp("Swish", 24, activation("swish", "alpha"))
	registerOp("IsInf", 10, importIsInf)
	registerOp("Pow", 7, importPow)
	registerOp("Mod", 10, importMod)
	registerOp("PRelu", 7, importPRelu)
	registerOp("Clip", 6, importClip)
	// before opset 8 the inputs had equal shapes, where broadcasting changes nothing
	registerOp("Max", 6, variadic("max", false))
	registerOp("Min", 6, variadic("min", false))
	registerOp("Sum", 6, variadic("add", false))
	registerOp("Mean", 6, variadic("add", true))
	registerOp("Cast", 6, importCast)
	registerOp("CastLike", 15, importCastLike)
	registerOp("Identity", 1, importIdentity)
	registerOp("Dropout", 7, importDropout)
	registerOp("Constant", 1, importConstant)
	registerOp("BitShift", 11, importBitShift)
	noteOp("Pow", "the exponent is converted to the base's element type")
	noteOp("Mod", "fmod = 0 (sign of the divisor) for integers, fmod = 1 (sign of the dividend)")
	noteOp("Clip", "bounds are attributes before opset 11 and optional inputs since")
	noteOp("Max", "variadic, folded left to right with broadcasting")
	noteOp("Min", "variadic, folded left to right with broadcasting")
	noteOp("Sum", "variadic, folded left to right with broadcasting")
	noteOp("Mean", "variadic: the sum divided by the number of inputs")
	noteOp("Cast", "between f64, f32, f16, bf16, the four float8 types (saturate honoured), float4e2m1, i64, i32, i16, i8, i4, i2, "+
		"u64, u32, u16, u8, u4, u2, float8e8m0 (round_mode up) and bool (integers wrap); strings are not supported")
	noteOp("Dropout", "inference: the output is the input and the mask all true; training mode with ratio 0, or with a seed: the mask is drawn at import from numpy's MT19937 generator as the ONNX reference draws it (no seed: unsupported)")
	noteOp("Constant", "value, value_float(s), value_int(s); string and sparse values are not supported")
}

// activation maps a node to a catalogue op whose float attributes have the same names.
func activation(kind string, attrs ...string) func(c *nodeCtx) error {
	return func(c *nodeCtx) error {
		e := c.emitter()
		a := ir.Attrs{}
		for _, n := range attrs {
			if at := c.Attr(n); at != nil {
				a[n] = ir.FloatAttr(float64(at.GetF()))
			}
		}
		e.Out(0, e.Op(kind, c.Output(0), a, e.In(0)))
		return e.Done()
	}
}

func importGelu(c *nodeCtx) error {
	e := c.emitter()
	approx := c.AttrString("approximate", "none")
	if approx != "none" && approx != "tanh" {
		return fmt.Errorf("%w: approximate = %q (want none or tanh)", ErrInvalid, approx)
	}
	e.Out(0, e.Op("gelu", c.Output(0), ir.Attrs{"approximate": ir.StringAttr(approx)}, e.In(0)))
	return e.Done()
}

func importIsInf(c *nodeCtx) error {
	e := c.emitter()
	attrs := ir.Attrs{"detect_positive": ir.IntAttr(c.AttrInt("detect_positive", 1)), "detect_negative": ir.IntAttr(c.AttrInt("detect_negative", 1))}
	e.Out(0, e.Op("is_inf", c.Output(0), attrs, e.In(0)))
	return e.Done()
}

// importPow converts the exponent to the base's type (ONNX allows them to differ since opset 12).
// A constant exponent of 2 (RMSNorm's x.pow(2)) is x·x: the same correctly rounded square, a
// multiplication instead of a call to the pow runtime function.
func importPow(c *nodeCtx) error {
	e := c.emitter()
	x, y := e.In(0), e.In(1)
	if t, ok := c.ConstInput(1); ok && x != nil && t.Len() == 1 && len(t.Shape) <= x.Type.Rank() && t.Float(0) == 2 {
		e.Out(0, e.Op("mul", c.Output(0), nil, x, x))
		return e.Done()
	}
	if x != nil && y != nil {
		y = e.Cast(y, x.Type.Elem, "")
	}
	e.Out(0, e.Op("pow", c.Output(0), nil, x, y))
	return e.Done()
}

func importMod(c *nodeCtx) error {
	e := c.emitter()
	x, y := e.In(0), e.In(1)
	kind := "mod"
	if c.AttrInt("fmod", 0) != 0 {
		kind = "rem"
	} else if x != nil && x.Type.Elem.IsFloat() {
		return fmt.Errorf("%w: Mod of floats needs fmod = 1", ErrInvalid)
	}
	e.Out(0, e.Op(kind, c.Output(0), nil, x, y))
	return e.Done()
}

// importPRelu: x < 0 ? slope * x : x, with slope broadcast to x.
func importPRelu(c *nodeCtx) error {
	e := c.emitter()
	x, slope := e.In(0), e.In(1)
	if e.err != nil {
		return e.err
	}
	neg := e.Op("less", "", nil, x, e.Scalar(x.Type.Elem, 0))
	e.Out(0, e.Op("where", c.Output(0), nil, neg, e.Op("mul", "", nil, x, slope), x))
	return e.Done()
}

// importClip emits max(x, min) then min(·, max); the bounds are attributes before opset 11 and
// optional inputs since.
func importClip(c *nodeCtx) error {
	e := c.emitter()
	x := e.In(0)
	if x == nil {
		return e.Done()
	}
	var lo, hi *ir.Value
	if c.Opset() < 11 {
		if a := c.Attr("min"); a != nil {
			lo = e.Scalar(x.Type.Elem, float64(a.GetF()))
		}
		if a := c.Attr("max"); a != nil {
			hi = e.Scalar(x.Type.Elem, float64(a.GetF()))
		}
	} else {
		if c.HasInput(1) {
			lo = e.In(1)
		}
		if c.HasInput(2) {
			hi = e.In(2)
		}
	}
	y := x
	if lo != nil {
		name := ""
		if hi == nil {
			name = c.Output(0)
		}
		y = e.Op("max", name, nil, y, lo)
	}
	if hi != nil {
		y = e.Op("min", c.Output(0), nil, y, hi)
	}
	if y == x {
		y = e.Op("identity", c.Output(0), nil, x)
	}
	e.Out(0, y)
	return e.Done()
}

// variadic folds the inputs left to right with a binary op (broadcasting at every step); mean
// divides the sum by the number of inputs.
func variadic(kind string, mean bool) func(c *nodeCtx) error {
	return func(c *nodeCtx) error {
		e := c.emitter()
		n := c.NumInputs()
		if n == 0 {
			return fmt.Errorf("%w: no inputs", ErrInvalid)
		}
		acc := e.In(0)
		for i := 1; i < n; i++ {
			name := ""
			if i == n-1 && !mean {
				name = c.Output(0)
			}
			acc = e.Op(kind, name, nil, acc, e.In(i))
		}
		switch {
		case mean && acc != nil:
			acc = e.Op("div", c.Output(0), nil, acc, e.Scalar(acc.Type.Elem, float64(n)))
		case n == 1:
			acc = e.Op("identity", c.Output(0), nil, acc)
		}
		e.Out(0, acc)
		return e.Done()
	}
}

func importCast(c *nodeCtx) error {
	to, err := DType(int32(c.AttrInt("to", 0)))
	if err != nil {
		return err
	}
	if rm := c.AttrString("round_mode", "up"); to == ir.F8E8M0 && rm != "up" {
		return fmt.Errorf("%w: round_mode %q to float8e8m0 (up is supported)", ErrUnsupported, rm)
	}
	e := c.emitter()
	x := e.In(0)
	if x != nil && x.Type.Elem == to && x.Def != nil && !c.im.outputs[c.Output(0)] {
		// a cast to the same type (PyTorch writes one after every QuantizeLinear) is the
		// value itself
		e.Out(0, x)
		return e.Done()
	}
	e.Out(0, e.Op("cast", c.Output(0), ir.Attrs{"to": ir.StringAttr(to.String()), "saturate": ir.IntAttr(c.AttrInt("saturate", 1))}, x))
	return e.Done()
}

// importBitShift: x << y or x >> y (logical), elementwise with broadcasting.
func importBitShift(c *nodeCtx) error {
	kind := "shift_left"
	switch d := c.AttrString("direction", ""); d {
	case "LEFT":
	case "RIGHT":
		kind = "shift_right"
	default:
		return fmt.Errorf("%w: direction %q (want LEFT or RIGHT)", ErrInvalid, d)
	}
	e := c.emitter()
	e.Out(0, e.Op(kind, c.Output(0), nil, e.In(0), e.In(1)))
	return e.Done()
}

func importCastLike(c *nodeCtx) error {
	e := c.emitter()
	x, like := e.In(0), e.In(1)
	if e.err != nil {
		return e.err
	}
	e.Out(0, e.Op("cast", c.Output(0), ir.Attrs{"to": ir.StringAttr(like.Type.Elem.String()), "saturate": ir.IntAttr(c.AttrInt("saturate", 1))}, x))
	return e.Done()
}

func importIdentity(c *nodeCtx) error {
	e := c.emitter()
	e.Out(0, e.Op("identity", c.Output(0), nil, e.In(0)))
	return e.Done()
}

// importDropout imports inference-mode dropout: the output is the input and the mask is all
// true. Training mode with a nonzero ratio and a seed draws its mask at import, from numpy's
// generator seeded by the seed as the ONNX reference does (keep where uniform(0, 1) >= ratio,
// scaled by 1/(1-ratio)); without a seed it would draw random numbers and is not supported.
func importDropout(c *nodeCtx) error {
	e := c.emitter()
	x := e.In(0)
	if x == nil {
		return e.Done()
	}
	training := false
	if c.Opset() >= 12 && c.HasInput(2) {
		t, err := c.RequireConst(2, "training_mode")
		if err != nil {
			return err
		}
		training = t.Len() == 1 && t.Float(0) != 0
	}
	if training {
		ratio := 0.5
		if c.HasInput(1) {
			r, err := c.RequireFloats(1, "ratio")
			if ratio, err = kit.One(r, err, 1, "ratio", ErrInvalid); err != nil {
				return err
			}
		}
		if ratio != 0 {
			return importSeededDropout(c, e, x, ratio)
		}
	}
	e.Out(0, e.Op("identity", c.Output(0), nil, x))
	if c.Output(1) != "" {
		mt := ir.Bool
		if c.Opset() < 10 {
			mt = x.Type.Elem
		}
		t := ir.TensorType{Elem: mt, Shape: x.Type.Shape}
		e.Out(1, e.Op("fill", c.Output(1), ir.Attrs{"type": ir.StringAttr(t.String()), "value": ir.FloatAttr(1)}))
	}
	return e.Done()
}

// importSeededDropout: y = x · mask / (1 - ratio) with the mask drawn at import from the
// node's seed (numpy's np.random.seed(seed); np.random.uniform(0, 1, shape) >= ratio).
func importSeededDropout(c *nodeCtx, e *emitter, x *ir.Value, ratio float64) error {
	if c.Attr("seed") == nil {
		return fmt.Errorf("%w: training-mode dropout with ratio %g and no seed draws random numbers", ErrUnsupported, ratio)
	}
	seed := c.AttrInt("seed", 0)
	if ratio < 0 || ratio >= 1 || seed < 0 || seed > math.MaxUint32 {
		return fmt.Errorf("%w: training-mode dropout needs a ratio in [0, 1) and a seed in [0, 2^32), got %g and %d", ErrInvalid, ratio, seed)
	}
	shape, ok := x.Type.StaticShape()
	if !ok || !x.Type.Elem.IsFloat() {
		return fmt.Errorf("%w: seeded training-mode dropout of %s (a static float tensor is needed)", ErrUnsupported, x.Type)
	}
	if n := ir.NumElements(shape); n > ir.DefaultMaxConstantElements {
		return fmt.Errorf("%w: a dropout mask of %d elements", ErrUnsupported, n)
	}
	rng := newMT19937(uint32(seed))
	scale := ir.NewTensor(x.Type.Elem, shape)
	mask := ir.NewTensor(ir.Bool, shape)
	for i := range scale.F {
		if rng.uniform() >= ratio {
			scale.F[i] = ir.RoundFloat(x.Type.Elem, 1/(1-ratio))
			mask.I[i] = 1
		}
	}
	g := c.im.g
	e.Out(0, e.Op("mul", c.Output(0), nil, x, g.AddConst(e.Base+"_dropout_scale", scale)))
	if c.Output(1) != "" {
		e.Out(1, g.AddConst(c.Output(1), mask))
	}
	return e.Done()
}

// importConstant binds the node's output to the value of whichever value attribute it has.
func importConstant(c *nodeCtx) error {
	var t *ir.Tensor
	switch {
	case c.Attr("value") != nil:
		v, found, err := c.AttrTensor("value")
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("%w: Constant's value attribute holds no tensor (attribute type %s)", ErrInvalid, c.Attr("value").GetType())
		}
		t = v
	case c.Attr("value_float") != nil:
		t = ir.NewTensor(ir.F32, nil)
		t.F[0] = float64(c.AttrFloat("value_float", 0))
	case c.Attr("value_floats") != nil:
		fs := c.AttrFloats("value_floats", nil)
		t = ir.NewTensor(ir.F32, []int64{int64(len(fs))})
		for i, f := range fs {
			t.F[i] = float64(f)
		}
	case c.Attr("value_int") != nil:
		t = ir.NewTensor(ir.I64, nil)
		t.I[0] = c.AttrInt("value_int", 0)
	case c.Attr("value_ints") != nil:
		is := c.AttrInts("value_ints", nil)
		t = ir.NewTensor(ir.I64, []int64{int64(len(is))})
		copy(t.I, is)
	case c.Attr("value_string") != nil || c.Attr("value_strings") != nil:
		return fmt.Errorf("%w: string constants", ErrUnsupported)
	case c.Attr("sparse_value") != nil:
		return fmt.Errorf("%w: sparse constants", ErrUnsupported)
	default:
		return fmt.Errorf("%w: Constant without a value attribute", ErrInvalid)
	}
	c.SetConst(0, t)
	return nil
}

func init() {
	registerOp("BitCast", 26, importBitCast)
}

// importBitCast reinterprets the elements' bits as type to (of the same size).
func importBitCast(c *nodeCtx) error {
	to, err := DType(int32(c.AttrInt("to", 0)))
	if err != nil {
		return err
	}
	e := c.emitter()
	e.Out(0, e.Op("bitcast", c.Output(0), ir.Attrs{"to": ir.StringAttr(to.String())}, e.In(0)))
	return e.Done()
}

func init() {
	registerOp("SwiGLU", 28, importSwiGLU)
	noteOp("SwiGLU", "a · sigmoid(alpha · a) · b (swish then mul)")
}

// importSwiGLU: swish(a, alpha) · b.
func importSwiGLU(c *nodeCtx) error {
	e := c.emitter()
	a, b := e.In(0), e.In(1)
	sw := e.Op("swish", "", ir.Attrs{"alpha": ir.FloatAttr(float64(c.AttrFloat("alpha", 1)))}, a)
	e.Out(0, e.Op("mul", c.Output(0), nil, sw, b))
	return e.Done()
}
