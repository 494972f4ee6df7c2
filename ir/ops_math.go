// This file declares the elementwise math ops beyond the basic arithmetic of
// ops_elementwise.go: more unary functions, parametrised activations, comparisons, logic,
// select (where) and cast. Each is one generic op over the result's index box with numpy
// broadcasting of its operands.

package ir

import (
	"math"

	"github.com/graphc/graphc/volume"
)

// floatUnaryDef declares a unary elementwise op defined on floats only.
func floatUnaryDef(name, summary string, body func(x *Scalar) *Scalar) *OpDef {
	return unaryAttrDef(name, summary, "%y = "+name+"(%x) : f32[4, 3]", nil, func(_ Attrs, x *Scalar) *Scalar { return body(x) })
}

// unaryAttrDef declares a unary elementwise op whose body depends on its attributes.
func unaryAttrDef(name, summary, example string, attrs []AttrDef, body func(a Attrs, x *Scalar) *Scalar) *OpDef {
	return &OpDef{Name: name, Summary: summary, MinOperands: 1, MaxOperands: 1, Attrs: attrs,
		Example: example,
		Build: func(b *Builder) error {
			if !b.In(0).Elem.IsFloat() {
				return b.Errorf("operand must be a float tensor, got %s", b.In(0))
			}
			return elementwise(b, Invalid, func(in []*Scalar) *Scalar { return body(b.Op.Attrs, in[0]) })
		}}
}

// inF64 computes body in float64 and rounds the result once to x's type: the compositions of
// the inverse and hyperbolic functions lose no accuracy that the result type can show.
func inF64(body func(x *Scalar) *Scalar) func(x *Scalar) *Scalar {
	return func(x *Scalar) *Scalar {
		if x.Type == F64 {
			return body(x)
		}
		return Cast(body(Cast(x, F64)), x.Type)
	}
}

func floatAttr(name string, def float64, doc string) AttrDef {
	return AttrDef{Name: name, Kind: AttrFloat, Default: dflt(FloatAttr(def)), Doc: doc}
}

// logicDef declares a binary op on booleans.
func logicDef(name, summary string, op ScalarOp) *OpDef {
	d := binaryDef(name, summary, op)
	build := d.Build
	d.Build = func(b *Builder) error {
		for k := 0; k < b.NumIn(); k++ {
			if b.In(k).Elem != Bool {
				return b.Errorf("operand #%d must be a boolean tensor, got %s", k, b.In(k))
			}
		}
		return build(b)
	}
	return d
}

// intBinaryDef declares a binary op on integers (not bool).
func intBinaryDef(name, summary string, op ScalarOp) *OpDef {
	d := binaryDef(name, summary, op)
	build := d.Build
	d.Build = func(b *Builder) error {
		for k := 0; k < b.NumIn(); k++ {
			if t := b.In(k).Elem; t.IsFloat() || t == Bool {
				return b.Errorf("operand #%d must be an integer tensor, got %s", k, b.In(k))
			}
		}
		return build(b)
	}
	return d
}

// SELU's default constants (the float32 values ONNX specifies).
const (
	seluAlpha = 1.67326319217681884765625
	seluGamma = 1.05070102214813232421875
)

func init() {
	c := func(x *Scalar, v float64) *Scalar { return Const(x.Type, v) }
	register(
		floatUnaryDef("erf", "the error function", func(x *Scalar) *Scalar { return Un(SErf, x) }),
		unaryDef("floor", "largest integer not greater than x", func(x *Scalar) *Scalar { return Un(SFloor, x) }),
		unaryDef("ceil", "smallest integer not less than x", func(x *Scalar) *Scalar { return Un(SCeil, x) }),
		unaryDef("round", "nearest integer, halves to even", func(x *Scalar) *Scalar { return Un(SRound, x) }),
		unaryDef("sign", "-1, 0 or 1 by the sign of x", func(x *Scalar) *Scalar { return Un(SSign, x) }),
		floatUnaryDef("sin", "sine", func(x *Scalar) *Scalar { return Un(SSin, x) }),
		floatUnaryDef("cos", "cosine", func(x *Scalar) *Scalar { return Un(SCos, x) }),
		floatUnaryDef("tan", "tangent: sin(x) / cos(x) in float64", inF64(func(x *Scalar) *Scalar { return Bin(SDiv, Un(SSin, x), Un(SCos, x)) })),
		floatUnaryDef("atan", "arctangent", func(x *Scalar) *Scalar { return Un(SAtan, x) }),
		floatUnaryDef("asin", "arcsine: atan(x / sqrt((1 - x)(1 + x))) in float64", inF64(func(x *Scalar) *Scalar {
			return Un(SAtan, Bin(SDiv, x, Un(SSqrt, Bin(SMul, Bin(SSub, c(x, 1), x), Bin(SAdd, c(x, 1), x)))))
		})),
		floatUnaryDef("acos", "arccosine: 2 atan(sqrt((1 - x) / (1 + x))) in float64", inF64(func(x *Scalar) *Scalar {
			return Bin(SMul, c(x, 2), Un(SAtan, Un(SSqrt, Bin(SDiv, Bin(SSub, c(x, 1), x), Bin(SAdd, c(x, 1), x)))))
		})),
		floatUnaryDef("sinh", "hyperbolic sine in float64: 2t / (1 - t²) with t = tanh(x / 2) for |x| < 1, (e^x - e^-x) / 2 beyond",
			inF64(func(x *Scalar) *Scalar {
				t := Un(STanh, Bin(SMul, x, c(x, 0.5)))
				near := Bin(SDiv, Bin(SMul, c(x, 2), t), Bin(SSub, c(x, 1), Bin(SMul, t, t)))
				far := Bin(SMul, c(x, 0.5), Bin(SSub, Un(SExp, x), Un(SExp, Un(SNeg, x))))
				return Select(Bin(SLt, Un(SAbs, x), c(x, 1)), near, far)
			})),
		floatUnaryDef("cosh", "hyperbolic cosine: (e^x + e^-x) / 2 in float64", inF64(func(x *Scalar) *Scalar {
			return Bin(SMul, c(x, 0.5), Bin(SAdd, Un(SExp, x), Un(SExp, Un(SNeg, x))))
		})),
		floatUnaryDef("asinh", "inverse hyperbolic sine: ±log(|x| + sqrt(x² + 1)) in float64 (x itself for |x| < 1e-4)",
			inF64(func(x *Scalar) *Scalar {
				a := Un(SAbs, x)
				r := Un(SLog, Bin(SAdd, a, Un(SSqrt, Bin(SAdd, Bin(SMul, a, a), c(x, 1)))))
				return Select(Bin(SLt, a, c(x, 1e-4)), x, Select(Bin(SLt, x, c(x, 0)), Un(SNeg, r), r))
			})),
		floatUnaryDef("acosh", "inverse hyperbolic cosine: log(x + sqrt((x - 1)(x + 1))) in float64", inF64(func(x *Scalar) *Scalar {
			return Un(SLog, Bin(SAdd, x, Un(SSqrt, Bin(SMul, Bin(SSub, x, c(x, 1)), Bin(SAdd, x, c(x, 1))))))
		})),
		floatUnaryDef("atanh", "inverse hyperbolic tangent: log((1 + x) / (1 - x)) / 2 in float64 (x itself for |x| < 1e-4)",
			inF64(func(x *Scalar) *Scalar {
				r := Bin(SMul, c(x, 0.5), Un(SLog, Bin(SDiv, Bin(SAdd, c(x, 1), x), Bin(SSub, c(x, 1), x))))
				return Select(Bin(SLt, Un(SAbs, x), c(x, 1e-4)), x, r)
			})),
		floatUnaryDef("reciprocal", "1 / x", func(x *Scalar) *Scalar { return Bin(SDiv, c(x, 1), x) }),
		unaryDef("not", "logical negation of a boolean", func(x *Scalar) *Scalar { return Un(SNot, x) }),
		floatUnaryDef("softplus", "log(exp(x) + 1)", func(x *Scalar) *Scalar {
			return Un(SLog, Bin(SAdd, Un(SExp, x), c(x, 1)))
		}),
		floatUnaryDef("softsign", "x / (1 + |x|)", func(x *Scalar) *Scalar {
			return Bin(SDiv, x, Bin(SAdd, c(x, 1), Un(SAbs, x)))
		}),
		unaryAttrDef("leaky_relu", "x < 0 ? alpha * x : x", "%y = leaky_relu(%x) {alpha = 0.1} : f32[4, 3]",
			[]AttrDef{floatAttr("alpha", 0.01, "slope for x < 0")},
			func(a Attrs, x *Scalar) *Scalar {
				return Select(Bin(SLt, x, c(x, 0)), Bin(SMul, c(x, a.Float("alpha", 0.01)), x), x)
			}),
		unaryAttrDef("elu", "x < 0 ? alpha * (exp(x) - 1) : x", "%y = elu(%x) {alpha = 2.0} : f32[4, 3]",
			[]AttrDef{floatAttr("alpha", 1, "scale of the negative part")},
			func(a Attrs, x *Scalar) *Scalar {
				return Select(Bin(SLt, x, c(x, 0)), Bin(SMul, c(x, a.Float("alpha", 1)), Bin(SSub, Un(SExp, x), c(x, 1))), x)
			}),
		unaryAttrDef("celu", "max(0, x) + min(0, alpha * (exp(x / alpha) - 1))", "%y = celu(%x) {alpha = 2.0} : f32[4, 3]",
			[]AttrDef{floatAttr("alpha", 1, "scale of the negative part")},
			func(a Attrs, x *Scalar) *Scalar {
				al := c(x, a.Float("alpha", 1))
				neg := Bin(SMul, al, Bin(SSub, Un(SExp, Bin(SDiv, x, al)), c(x, 1)))
				return Bin(SAdd, Bin(SMax, x, c(x, 0)), Bin(SMin, neg, c(x, 0)))
			}),
		unaryAttrDef("selu", "gamma * (x > 0 ? x : alpha * exp(x) - alpha)", "%y = selu(%x) {alpha = 2.0, gamma = 3.0} : f32[4, 3]",
			[]AttrDef{floatAttr("alpha", seluAlpha, "scale of the negative part"), floatAttr("gamma", seluGamma, "overall scale")},
			func(a Attrs, x *Scalar) *Scalar {
				al := c(x, a.Float("alpha", seluAlpha))
				neg := Bin(SSub, Bin(SMul, al, Un(SExp, x)), al)
				return Bin(SMul, Select(Bin(SGt, x, c(x, 0)), x, neg), c(x, a.Float("gamma", seluGamma)))
			}),
		unaryAttrDef("hard_sigmoid", "max(0, min(1, alpha * x + beta))", "%y = hard_sigmoid(%x) {alpha = 0.5} : f32[4, 3]",
			[]AttrDef{floatAttr("alpha", 0.2, "slope"), floatAttr("beta", 0.5, "offset")},
			func(a Attrs, x *Scalar) *Scalar {
				lin := Bin(SAdd, Bin(SMul, c(x, a.Float("alpha", 0.2)), x), c(x, a.Float("beta", 0.5)))
				return Bin(SMax, c(x, 0), Bin(SMin, c(x, 1), lin))
			}),
		unaryAttrDef("hard_swish", "x * max(0, min(1, x / 6 + 0.5))", "%y = hard_swish(%x) : f32[4, 3]", nil,
			func(a Attrs, x *Scalar) *Scalar {
				lin := Bin(SAdd, Bin(SMul, c(x, 1.0/6), x), c(x, 0.5))
				return Bin(SMul, x, Bin(SMax, c(x, 0), Bin(SMin, c(x, 1), lin)))
			}),
		unaryAttrDef("thresholded_relu", "x > alpha ? x : 0", "%y = thresholded_relu(%x) {alpha = 2.0} : f32[4, 3]",
			[]AttrDef{floatAttr("alpha", 1, "threshold")},
			func(a Attrs, x *Scalar) *Scalar {
				return Select(Bin(SGt, x, c(x, a.Float("alpha", 1))), x, c(x, 0))
			}),
		unaryAttrDef("gelu", "x * Φ(x), exactly (approximate = \"none\") or with the tanh approximation",
			`%y = gelu(%x) {approximate = "tanh"} : f32[4, 3]`,
			[]AttrDef{{Name: "approximate", Kind: AttrString, Default: dflt(StringAttr("none")), Doc: "none or tanh"}},
			func(a Attrs, x *Scalar) *Scalar {
				var phi *Scalar
				if a.Str("approximate", "none") == "tanh" {
					// tanh(sqrt(2/π) * (x + 0.044715 x³))
					inner := Bin(SAdd, x, Bin(SMul, c(x, 0.044715), Bin(SMul, x, Bin(SMul, x, x))))
					phi = Un(STanh, Bin(SMul, c(x, math.Sqrt(2/math.Pi)), inner))
				} else {
					phi = Un(SErf, Bin(SMul, x, c(x, 1/math.Sqrt2)))
				}
				return Bin(SMul, Bin(SMul, c(x, 0.5), x), Bin(SAdd, c(x, 1), phi))
			}),
		unaryAttrDef("shrink", "x < -lambd ? x + bias : x > lambd ? x - bias : 0", "%y = shrink(%x) {lambd = 1.5} : f32[4, 3]",
			[]AttrDef{floatAttr("bias", 0, "shift of the kept values"), floatAttr("lambd", 0.5, "threshold")},
			func(a Attrs, x *Scalar) *Scalar {
				l, bias := a.Float("lambd", 0.5), a.Float("bias", 0)
				return Select(Bin(SLt, x, c(x, -l)), Bin(SAdd, x, c(x, bias)),
					Select(Bin(SGt, x, c(x, l)), Bin(SSub, x, c(x, bias)), c(x, 0)))
			}),
		unaryAttrDef("swish", "x * sigmoid(alpha * x)", "%y = swish(%x) {alpha = 2.0} : f32[4, 3]",
			[]AttrDef{floatAttr("alpha", 1, "scale inside the sigmoid")},
			func(a Attrs, x *Scalar) *Scalar {
				return Bin(SMul, x, Un(SSigmoid, Bin(SMul, c(x, a.Float("alpha", 1)), x)))
			}),
		floatUnaryDef("mish", "x * tanh(softplus(x))", func(x *Scalar) *Scalar {
			return Bin(SMul, x, Un(STanh, Un(SLog, Bin(SAdd, Un(SExp, x), c(x, 1)))))
		}),
		binaryDef("equal", "x == y, elementwise with numpy broadcasting", SEq),
		binaryDef("not_equal", "x != y, elementwise with numpy broadcasting", SNe),
		binaryDef("greater", "x > y, elementwise with numpy broadcasting", SGt),
		binaryDef("greater_equal", "x >= y, elementwise with numpy broadcasting", SGe),
		binaryDef("less", "x < y, elementwise with numpy broadcasting", SLt),
		binaryDef("less_equal", "x <= y, elementwise with numpy broadcasting", SLe),
		binaryDef("rem", "remainder with the sign of the dividend (C fmod), with numpy broadcasting", SRem),
		logicDef("and", "logical and of booleans with numpy broadcasting", SAnd),
		logicDef("or", "logical or of booleans with numpy broadcasting", SOr),
		logicDef("xor", "logical exclusive or of booleans with numpy broadcasting", SXor),
		intBinaryDef("bitwise_and", "bitwise and of integers with numpy broadcasting", SAnd),
		intBinaryDef("bitwise_or", "bitwise or of integers with numpy broadcasting", SOr),
		intBinaryDef("bitwise_xor", "bitwise exclusive or of integers with numpy broadcasting", SXor),
		intBinaryDef("shift_left", "x << y of integers with numpy broadcasting (0 for shifts by the width or more)", SShl),
		intBinaryDef("shift_right", "logical x >> y of integers with numpy broadcasting (0 for shifts by the width or more)", SShr),
		&OpDef{Name: "bitwise_not", Summary: "bitwise complement of integers", MinOperands: 1, MaxOperands: 1,
			Example: "%y = bitwise_not(%x) : i32[4, 3]",
			Build: func(b *Builder) error {
				if t := b.In(0).Elem; t.IsFloat() || t == Bool {
					return b.Errorf("operand must be an integer tensor, got %s", b.In(0))
				}
				return elementwise(b, Invalid, func(in []*Scalar) *Scalar { return Bin(SXor, in[0], ConstI(in[0].Type, -1)) })
			}},
		&OpDef{Name: "is_nan", Summary: "whether x is NaN", MinOperands: 1, MaxOperands: 1,
			Example: "%y = is_nan(%x) : i1[4, 3]",
			Build: func(b *Builder) error {
				if !b.In(0).Elem.IsFloat() {
					return b.Errorf("operand must be a float tensor, got %s", b.In(0))
				}
				return elementwise(b, Bool, func(in []*Scalar) *Scalar { return Un(SIsNaN, in[0]) })
			}},
		&OpDef{Name: "is_inf", Summary: "whether x is an infinity (of the signs selected)", MinOperands: 1, MaxOperands: 1,
			Example: "%y = is_inf(%x) {detect_negative = 0} : i1[4, 3]",
			Attrs: []AttrDef{
				{Name: "detect_positive", Kind: AttrInt, Default: dflt(IntAttr(1)), Doc: "1 detects +inf"},
				{Name: "detect_negative", Kind: AttrInt, Default: dflt(IntAttr(1)), Doc: "1 detects -inf"},
			},
			Build: func(b *Builder) error {
				if !b.In(0).Elem.IsFloat() {
					return b.Errorf("operand must be a float tensor, got %s", b.In(0))
				}
				pos, neg := b.Op.Attrs.Int("detect_positive", 1) != 0, b.Op.Attrs.Int("detect_negative", 1) != 0
				return elementwise(b, Bool, func(in []*Scalar) *Scalar {
					x := in[0]
					inf := Un(SIsInf, x)
					switch {
					case pos && neg:
						return inf
					case pos:
						return Bin(SAnd, inf, Bin(SGt, x, Const(x.Type, 0)))
					case neg:
						return Bin(SAnd, inf, Bin(SLt, x, Const(x.Type, 0)))
					}
					return Bin(SNe, x, x) // never true: NaN is not an infinity
				})
			}},
		&OpDef{Name: "mod", Summary: "remainder with the sign of the divisor (Python %), with numpy broadcasting",
			MinOperands: 2, MaxOperands: 2, Example: "%z = mod(%x, %y) : i32[4, 3]",
			Build: func(b *Builder) error {
				return elementwise(b, Invalid, func(in []*Scalar) *Scalar {
					r := Bin(SRem, in[0], in[1])
					zero := Const(r.Type, 0)
					fix := Bin(SAnd, Bin(SNe, r, zero), Bin(SNe, Bin(SLt, r, zero), Bin(SLt, in[1], zero)))
					return Select(fix, Bin(SAdd, r, in[1]), r)
				})
			}},
		&OpDef{Name: "where", Summary: "cond ? x : y, elementwise with numpy broadcasting of the three operands",
			MinOperands: 3, MaxOperands: 3, Example: "%z = where(%c, %x, %y) : f32[4, 3]",
			Build: buildWhere},
		&OpDef{Name: "bitcast", Summary: "reinterprets the bits of each element as another type of the same size",
			MinOperands: 1, MaxOperands: 1, Example: `%y = bitcast(%x) {to = "i32"} : i32[4, 3]`,
			Attrs: []AttrDef{{Name: "to", Kind: AttrString, Doc: "the result element type"}},
			Build: func(b *Builder) error {
				to, err := ParseDType(b.Op.Attrs.Str("to", ""))
				if err != nil {
					return b.Errorf("to: %v", err)
				}
				if from := b.In(0).Elem; from.Size() != to.Size() || from.IsSubByte() || to.IsSubByte() || to == Bool {
					return b.Errorf("cannot reinterpret %s as %s (sizes %d and %d bytes)", from, to, from.Size(), to.Size())
				}
				return elementwise(b, to, func(in []*Scalar) *Scalar { return Bitcast(in[0], to) })
			}},
		&OpDef{Name: "cast", Summary: "converts elements to another type (float to integer truncates; to bool is x != 0)",
			MinOperands: 1, MaxOperands: 1, Example: `%y = cast(%x) {to = "i64"} : i64[4, 3]`,
			Attrs: []AttrDef{{Name: "to", Kind: AttrString, Doc: "the result element type"},
				{Name: "saturate", Kind: AttrInt, Default: dflt(IntAttr(1)), Doc: "float8 results: 1 clamps values beyond the format's range to its largest value, 0 makes them infinite (e5m2) or NaN"}},
			Build: func(b *Builder) error {
				to, err := ParseDType(b.Op.Attrs.Str("to", ""))
				if err != nil {
					return b.Errorf("to: %v", err)
				}
				f, mini := MiniFloatOf(to)
				if mini && to != BF16 && b.Op.Attrs.Int("saturate", 1) != 0 && b.In(0).Elem.IsFloat() {
					return elementwise(b, to, func(in []*Scalar) *Scalar { return castSaturate(in[0], to, f) })
				}
				return elementwise(b, to, func(in []*Scalar) *Scalar { return Cast(in[0], to) })
			}},
	)
}

// castSaturate converts x to a float8 type with ONNX's saturation: magnitudes beyond the
// format's largest value (infinities too) become it; NaN stays NaN. (The conversion itself, as
// every rounding to float8, overflows to infinity (e5m2) or NaN.)
func castSaturate(x *Scalar, to DType, f MiniFloat) *Scalar {
	hi := f.Decode(f.MaxBits)
	c := Select(Bin(SGt, x, Const(x.Type, hi)), Const(x.Type, hi), Select(Bin(SLt, x, Const(x.Type, -hi)), Const(x.Type, -hi), x))
	return Cast(c, to)
}

// buildWhere selects between operands 1 and 2 by the boolean operand 0; the three broadcast.
func buildWhere(b *Builder) error {
	if b.In(0).Elem != Bool {
		return b.Errorf("condition must be a boolean tensor, got %s", b.In(0))
	}
	if b.In(1).Elem != b.In(2).Elem {
		return b.Errorf("operands #1 and #2 have different element types: %s and %s", b.In(1).Elem, b.In(2).Elem)
	}
	shape, err := broadcastShape(b)
	if err != nil {
		return err
	}
	b.SetBox(dimNames(len(shape)), shape, nil)
	b.Op.Access = make([]Access, 3)
	for k := range b.Op.Access {
		b.Op.Access[k] = broadcastAccess(b.In(k), shape)
	}
	b.Op.Out = AffAccess(identity(0, len(shape))...)
	e := b.In(1).Elem
	b.Op.Body = Select(Read(0, Bool), Read(1, e), Read(2, e))
	b.Result = TensorType{Elem: e, Shape: shape}
	exactWhere(b)
	return nil
}

// exactWhere gives a where whose condition is a constant with a known structure (a causal
// mask: ConstRegions) exact element maps: x is read only where the condition holds, y only
// where it does not, and the condition is not read at all.
func exactWhere(b *Builder) {
	cond := b.Op.Operands[0]
	if cond.Data == nil {
		return
	}
	rs, _ := ConstRegions(cond.Data, b.Params)
	if len(rs) == 0 {
		return
	}
	n := b.Op.NDim()
	where := map[bool]volume.Set{true: volume.EmptySet(b.Params, "", make([]string, cond.Type.Rank())), false: volume.EmptySet(b.Params, "", make([]string, cond.Type.Rank()))}
	covered := volume.EmptySet(b.Params, "", make([]string, cond.Type.Rank()))
	for _, r := range rs {
		where[r.I != 0] = where[r.I != 0].Union(r.Region)
		covered = covered.Union(r.Region)
	}
	if !volume.Box(b.Params, "", nil, cond.Type.Shape).IsSubset(covered).Or(false) { // unknown: no description
		return // a value without a description
	}
	at := b.Op.Access[0].Pieces[0].Index // the condition's element at each iteration
	var acc [2]Access
	for k, v := range []bool{true, false} {
		conj, ok := setConjunctions(where[v])
		if !ok {
			return
		}
		idx := b.Op.Access[k+1].Pieces[0].Index
		for _, c := range conj {
			var g []volume.Constraint
			for _, x := range c {
				g = append(g, volume.Constraint{Aff: x.Aff.SubstDims(at), Eq: x.Eq})
			}
			acc[k].Pieces = append(acc[k].Pieces, AccessPiece{Guard: g, Index: idx})
		}
		if len(acc[k].Pieces) == 0 {
			acc[k].Pieces = []AccessPiece{{Guard: falseGuard(), Index: idx}}
		}
	}
	_ = n
	b.Op.Access[1], b.Op.Access[2] = acc[0], acc[1]
	e := b.In(1).Elem
	b.Op.Body = Select(Avail(1), Read(1, e), Read(2, e))
}

// setConjunctions returns s as a union of conjunctions of constraints over its dims (floor
// divisions allowed), or false when some piece has an existential variable that is not one.
func setConjunctions(s volume.Set) (out [][]volume.Constraint, ok bool) {
	n := s.NDim()
	m := volume.MultiAff{Params: s.Params(), InDims: make([]string, n), Exprs: identity(0, n)}.Map().IntersectDomain(s)
	ps, err := m.AffPieces()
	if err != nil {
		return nil, false
	}
	for _, p := range ps {
		out = append(out, p.Guard)
	}
	return out, true
}
