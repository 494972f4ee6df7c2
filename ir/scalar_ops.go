// This file is the table of scalar operations: one row per operation of op bodies, with its
// name in the body syntax, its arity and typing rule, its semantics (the functions the evaluator
// and constant folding call), its meaning on affine values, and how lowering emits it. The IR,
// the evaluator (ir/eval) and lowering (lower) read the table; none of them switches on the
// operations it defines beyond the leaves, which name where a value comes from rather than what
// is computed. Adding a primitive is one row here: the scalar tests of the evaluator and of
// both targets iterate over the table.

package ir

import (
	"fmt"
	"math"
	"strconv"

	"github.com/graphc/graphc/volume"
)

// ScalarOp is the operation of a Scalar node.
type ScalarOp uint8

// Scalar operations. Their names, arities, typing rules, semantics and lowerings are rows of
// scalarTable below; the order here means nothing (new operations go before numScalarOps).
const (
	SRead    ScalarOp = iota + 1 // element of operand Arg at its access map
	SDynRead                     // element of operand Arg at the indices computed by Args (data-dependent)
	SAvail                       // i1: whether operand Arg's access is defined at this iteration
	SIndex                       // i64: iteration dimension Arg
	SParam                       // i64: value of symbolic dimension Name
	SConst                       // constant F (floats) or I (integers)

	SNeg
	SAbs
	SExp
	SLog
	SSqrt
	STanh
	SSigmoid
	SErf
	SFloor
	SCeil
	SRound // half to even
	SNot
	SSin
	SCos
	SSign
	SIsNaN
	SIsInf
	SAtan

	SAdd
	SSub
	SMul
	SDiv
	SRem // remainder with the sign of the dividend (C fmod / integer %)
	SMax
	SMin
	SPow
	SAnd
	SOr
	SXor
	SShl // a << b (0 once b reaches the width)
	SShr // a >> b, logical (0 once b reaches the width)
	SEq
	SNe
	SLt
	SLe
	SGt
	SGe

	SSelect  // Args[0] ? Args[1] : Args[2]
	SCast    // convert Args[0] to Type
	SBitcast // reinterpret the bits of Args[0] (of the same size) as Type
	STrunc   // rounding toward zero

	numScalarOps
)

// String returns the operation's name in the body syntax.
func (o ScalarOp) String() string {
	if d := o.Def(); d != nil {
		return d.Name
	}
	return "op" + strconv.Itoa(int(o))
}

// IsUnary, IsBinary report the arity class of a computing (non-leaf) operation.
func (o ScalarOp) IsUnary() bool  { d := o.Def(); return d != nil && !d.Leaf && d.Arity == 1 }
func (o ScalarOp) IsBinary() bool { d := o.Def(); return d != nil && !d.Leaf && d.Arity == 2 }

// IsCompare reports whether o is a comparison or test: its result is i1 whatever its operands.
func (o ScalarOp) IsCompare() bool {
	d := o.Def()
	return d != nil && d.Result == ResultBool && !d.Leaf
}

// ResultRule is the typing rule of a scalar operation: the type of its result.
type ResultRule uint8

// Typing rules.
const (
	ResultOperand ResultRule = iota // the type of Args[0] (which every argument shares)
	ResultBool                      // i1: comparisons and tests
	ResultArm                       // the type of Args[1] (select's arms, which share it)
	ResultGiven                     // set by the node (leaves, casts)
)

// LaneRule says whether lowering may compute an operation on vectors of lanes.
type LaneRule uint8

// Lane rules.
const (
	LanesNone  LaneRule = iota // one point at a time
	LanesAny                   // every element type
	LanesFloat                 // float results only (integer forms keep scalar checks)
	LanesRule                  // the Lowering.All recipe decides (lower/recipes.go)
)

// Lowering says how lower emits an operation, per class of operand type, in the vocabulary of
// lower's recipes (lower/recipes.go): LLVM instructions ("fadd", "icmp slt"), graphc's emitters
// ("fminmax max", "sdiv" with its zero check), "runtime NAME" (graphc's math runtime in float64,
// lane by lane on vectors), "id" (the operand itself), "false", "widen" (bool operands computed
// as i64 with the Int recipe, then != 0), "expand" (the row's Expand, lowered op by op).
type Lowering struct {
	// All, when set, is the recipe for every type; it emits its arguments itself (select
	// evaluates one arm lazily where the other may fail; casts match requantizations).
	All string
	// Float, Int, Unsigned and Bool are the recipes for float operands (computed in float for
	// f16 and the minifloats, rounded after every operation), signed integers, unsigned ones
	// (Int when empty) and i1.
	Float, Int, Unsigned, Bool string
	// Poly names graphc's float32 vector polynomial (lower/math_vec.go) tried before Float.
	Poly string
	// Intrinsic names the overloaded LLVM intrinsic tried before Float on f32 and f64 where the
	// target is not freestanding (libm-class code generation: roundps, vrndscaleps).
	Intrinsic string
	Lanes     LaneRule
}

// For returns the recipe for operands of type t ("" when the operation is not defined on it).
func (l Lowering) For(t DType) string {
	switch {
	case l.All != "":
		return l.All
	case t.IsFloat():
		return l.Float
	case t == Bool:
		return l.Bool
	case t.IsUnsigned() && l.Unsigned != "":
		return l.Unsigned
	}
	return l.Int
}

// ScalarDef defines a scalar operation. The semantic functions take float values as float64
// (the evaluator rounds results to the node's float type) and integer values as int64 in the
// evaluator's representation (sign-extended; u64 above 2^63 as negative numbers; bool 0 or 1;
// results are wrapped to the type's width); t is the operands' type.
type ScalarDef struct {
	Op   ScalarOp
	Name string // in the body syntax
	Doc  string
	// Arity is the number of Args (leaves: 0, but read takes its indices).
	Arity int
	// Leaf operations say where a value comes from (an operand, an index, a symbolic dim, a
	// constant); the evaluator and lowering reach them structurally.
	Leaf   bool
	Result ResultRule

	// Float1 and Int1 compute a unary operation; Test1F and Test1I a unary test (ResultBool).
	Float1 func(x float64) float64
	Int1   func(x int64, t DType) int64
	Test1F func(x float64) bool
	Test1I func(x int64, t DType) bool
	// Float2 and Int2 compute a binary operation; CmpF and CmpI a comparison (ResultBool).
	Float2 func(x, y float64) float64
	Int2   func(x, y int64, t DType) int64
	CmpF   func(x, y float64) bool
	CmpI   func(x, y int64, t DType) bool
	// ZeroDivisor is the error of an integer operation whose second operand is 0 (Int2 is not
	// called then): the evaluator fails with it, compiled code returns status 3, and lowering
	// evaluates such subexpressions only where they are selected.
	ZeroDivisor string
	// Pick chooses, from the value of Args[0], the argument that is the result; only it is
	// evaluated.
	Pick func(c Num) int
	// Convert changes the type of its argument (casts).
	Convert func(v Num, from, to DType) (Num, error)

	// Affine and Cond give the operation on quasi-affine integer values (indices, symbolic
	// dims, integer constants): an affine value, or a condition (a constraint, negated when neg).
	// ok is false where the result is not affine (a product of two non-constants).
	Affine func(a, b volume.Aff) (r volume.Aff, ok bool)
	Cond   func(a, b volume.Aff) (c volume.Constraint, neg bool)
	// NegatesCond marks logical negation (a negated condition); KeepsValue a conversion that
	// keeps every integer value its target type holds (casts of indices stay affine).
	NegatesCond, KeepsValue bool

	// Expand rewrites the operation into others of the table (the "expand" recipe). It builds
	// nodes with node, which does not consult the table (the table cannot refer to itself).
	Expand func(args []*Scalar) *Scalar
	Lower  Lowering
}

// Num is a scalar value of the evaluator: F for floats, I for integers and bool.
type Num struct {
	F float64
	I int64
}

// BoolNum returns 1 for true and 0 for false.
func BoolNum(b bool) Num {
	if b {
		return Num{I: 1}
	}
	return Num{}
}

// Def returns the table row of o (nil for an invalid operation).
func (o ScalarOp) Def() *ScalarDef {
	if int(o) < len(scalarDefByOp) {
		return scalarDefByOp[o]
	}
	return nil
}

// ScalarDefs returns the rows of the table, in operation order.
func ScalarDefs() []*ScalarDef {
	var out []*ScalarDef
	for _, d := range scalarDefByOp {
		if d != nil {
			out = append(out, d)
		}
	}
	return out
}

// scalarDefByOp indexes the table by operation and scalarByName by name.
var scalarDefByOp, scalarByName = func() ([]*ScalarDef, map[string]ScalarOp) {
	byOp := make([]*ScalarDef, numScalarOps)
	byName := map[string]ScalarOp{}
	for i := range scalarTable {
		d := &scalarTable[i]
		if byOp[d.Op] != nil {
			panic(fmt.Sprintf("ir: scalar operation %d defined twice", d.Op))
		}
		byOp[d.Op] = d
		byName[d.Name] = d.Op
	}
	for o := SRead; o < numScalarOps; o++ {
		if byOp[o] == nil {
			panic(fmt.Sprintf("ir: scalar operation %d has no row", o))
		}
	}
	return byOp, byName
}()

// The rows below share these small functions.

// node returns a node of operation op and type t.
func node(op ScalarOp, t DType, args ...*Scalar) *Scalar {
	return &Scalar{Op: op, Type: t, Args: args}
}

func id(x int64, _ DType) int64 { return x }

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func never(int64, DType) bool { return false }

func affAdd(a, b volume.Aff) (volume.Aff, bool) { return a.Add(b), true }
func affSub(a, b volume.Aff) (volume.Aff, bool) { return a.Sub(b), true }
func affMul(a, b volume.Aff) (volume.Aff, bool) {
	if k, ok := b.IsConst(); ok {
		return a.Mul(k), true
	}
	if k, ok := a.IsConst(); ok {
		return b.Mul(k), true
	}
	return volume.Aff{}, false
}

// unsigned64 reports whether int64 values of t are the bits of uint64 ones.
func unsigned64(t DType) bool { return t == U64 }

// cmpI orders integers of type t: u64 compares as unsigned (flipping the sign bit maps it
// onto the signed order).
func cmpI(f func(a, b int64) bool) func(a, b int64, t DType) bool {
	return func(a, b int64, t DType) bool {
		if unsigned64(t) {
			a, b = a^math.MinInt64, b^math.MinInt64
		}
		return f(a, b)
	}
}

// logicF is a logical operation on floats (non-zero is true) giving 0 or 1.
func logicF(f func(a, b bool) bool) func(x, y float64) float64 {
	return func(x, y float64) float64 { return b2f(f(x != 0, y != 0)) }
}

// logicI is a bitwise operation on integers and the logical one on bool.
func logicI(bits func(a, b int64) int64, f func(a, b bool) bool) func(x, y int64, t DType) int64 {
	return func(x, y int64, t DType) int64 {
		if t == Bool {
			return b2i(f(x != 0, y != 0))
		}
		return bits(x, y)
	}
}

// minMaxF is math.Max or math.Min with NaN propagation.
func minMaxF(f func(a, b float64) float64) func(x, y float64) float64 {
	return func(x, y float64) float64 {
		if math.IsNaN(x) || math.IsNaN(y) {
			return math.NaN()
		}
		return f(x, y)
	}
}

// minMaxI is max or min of integers of type t (u64 ordered as unsigned).
func minMaxI(isMax bool) func(x, y int64, t DType) int64 {
	return func(x, y int64, t DType) int64 {
		greater := x > y
		if unsigned64(t) {
			greater = uint64(x) > uint64(y)
		}
		if greater == isMax {
			return x
		}
		return y
	}
}

// shiftI shifts integers of type t by b bits: 0 once b reaches the width (or is negative).
func shiftI(left bool) func(a, b int64, t DType) int64 {
	return func(a, b int64, t DType) int64 {
		w := uint64(8 * t.Size())
		if b < 0 || uint64(b) >= w {
			return 0
		}
		if left {
			return a << uint64(b)
		}
		// logical: the bits of the type's width, shifted in as zeros
		return int64(uint64(a) & (1<<w - 1) >> uint64(b))
	}
}

// unaryRow is a float unary function computed in float64 by graphc's math runtime (and by a
// float32 vector polynomial when poly is set); it is not defined on integers.
func unaryRow(op ScalarOp, name, doc string, f func(float64) float64, poly string) ScalarDef {
	return ScalarDef{Op: op, Name: name, Doc: doc, Arity: 1, Float1: f,
		Lower: Lowering{Poly: poly, Float: "runtime " + name, Lanes: LanesFloat}}
}

// roundingRow is a rounding function: the identity on integers and bool.
func roundingRow(op ScalarOp, name, doc string, f func(float64) float64, intrinsic, runtime string) ScalarDef {
	return ScalarDef{Op: op, Name: name, Doc: doc, Arity: 1, Float1: f, Int1: id,
		Lower: Lowering{Intrinsic: intrinsic, Float: runtime, Int: "id", Bool: "id", Lanes: LanesAny}}
}

// compareRow is a comparison; pred names the LLVM predicates: ordered float ones (une for ne:
// NaN is unequal), signed and unsigned integer ones.
func compareRow(op ScalarOp, name, doc string, f func(a, b float64) bool, i func(a, b int64) bool,
	cond func(a, b volume.Aff) (volume.Constraint, bool), fpred, spred, upred string) ScalarDef {
	return ScalarDef{Op: op, Name: name, Doc: doc, Arity: 2, Result: ResultBool, CmpF: f, CmpI: cmpI(i), Cond: cond,
		Lower: Lowering{Float: "fcmp " + fpred, Int: "icmp " + spred, Unsigned: "icmp " + upred, Bool: "icmp " + upred, Lanes: LanesAny}}
}

// logicRow is and, or, xor: bitwise on integers, logical on bool and floats (non-zero is
// true, giving 0 or 1).
func logicRow(op ScalarOp, name, doc string, bits func(a, b int64) int64, f func(a, b bool) bool) ScalarDef {
	return ScalarDef{Op: op, Name: name, Doc: doc, Arity: 2, Float2: logicF(f), Int2: logicI(bits, f),
		Lower: Lowering{Float: "flogic", Int: name, Bool: name, Lanes: LanesAny}}
}

// scalarTable is the table of scalar operations.
var scalarTable = [...]ScalarDef{
	// Leaves.
	{Op: SRead, Name: "in", Doc: "element of operand Arg at its access map", Leaf: true, Result: ResultGiven,
		Lower: Lowering{Lanes: LanesAny}},
	{Op: SDynRead, Name: "read", Doc: "element of operand Arg at the indices Args compute (data-dependent)", Leaf: true, Result: ResultGiven},
	{Op: SAvail, Name: "avail", Doc: "whether operand Arg's access is defined at this iteration", Leaf: true, Result: ResultGiven},
	{Op: SIndex, Name: "idx", Doc: "iteration dimension Arg, as i64", Leaf: true, Result: ResultGiven,
		Lower: Lowering{Lanes: LanesAny}},
	{Op: SParam, Name: "param", Doc: "value of symbolic dimension Name, as i64", Leaf: true, Result: ResultGiven,
		Lower: Lowering{Lanes: LanesAny}},
	{Op: SConst, Name: "const", Doc: "constant F (floats) or I (integers)", Leaf: true, Result: ResultGiven,
		Lower: Lowering{Lanes: LanesAny}},

	// Unary operations.
	{Op: SNeg, Name: "neg", Doc: "negation", Arity: 1,
		Float1: func(x float64) float64 { return -x }, Int1: func(x int64, _ DType) int64 { return -x },
		Affine: func(a, _ volume.Aff) (volume.Aff, bool) { return a.Neg(), true },
		Lower:  Lowering{Float: "fneg", Int: "ineg", Bool: "id", Lanes: LanesAny}},
	{Op: SAbs, Name: "abs", Doc: "absolute value (the identity on unsigned integers)", Arity: 1,
		Float1: math.Abs,
		Int1: func(x int64, t DType) int64 {
			if x < 0 && !t.IsUnsigned() {
				return -x
			}
			return x
		},
		Lower: Lowering{Float: "fabs", Int: "iabs", Unsigned: "id", Bool: "id", Lanes: LanesAny}},
	unaryRow(SExp, "exp", "e^x", math.Exp, "exp"),
	unaryRow(SLog, "log", "natural logarithm", math.Log, "log"),
	{Op: SSqrt, Name: "sqrt", Doc: "square root (correctly rounded)", Arity: 1, Float1: math.Sqrt,
		Lower: Lowering{Float: "sqrt", Lanes: LanesFloat}},
	unaryRow(STanh, "tanh", "hyperbolic tangent", math.Tanh, "tanh"),
	unaryRow(SSigmoid, "sigmoid", "1 / (1 + e^-x)", func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }, "sigmoid"),
	unaryRow(SErf, "erf", "error function", math.Erf, "erf"),
	roundingRow(SFloor, "floor", "rounding toward -inf", math.Floor, "llvm.floor", "runtime floor"),
	roundingRow(SCeil, "ceil", "rounding toward +inf", math.Ceil, "llvm.ceil", "runtime ceil"),
	roundingRow(SRound, "round", "rounding to the nearest integer, half to even", math.RoundToEven, "llvm.roundeven", "runtime roundeven"),
	{Op: STrunc, Name: "trunc", Doc: "rounding toward zero", Arity: 1, Float1: math.Trunc, Int1: id,
		Expand: func(a []*Scalar) *Scalar {
			x := a[0]
			neg := node(SLt, Bool, x, ConstF(x.Type, 0))
			return node(SSelect, x.Type, neg, node(SCeil, x.Type, x), node(SFloor, x.Type, x))
		},
		Lower: Lowering{Intrinsic: "llvm.trunc", Float: "expand", Int: "id", Bool: "id", Lanes: LanesAny}},
	{Op: SNot, Name: "not", Doc: "logical negation: 1 where x is 0, else 0", Arity: 1,
		Float1: func(x float64) float64 { return b2f(x == 0) }, Int1: func(x int64, _ DType) int64 { return b2i(x == 0) },
		NegatesCond: true, Lower: Lowering{Float: "fnot", Int: "inot", Bool: "not1", Lanes: LanesAny}},
	unaryRow(SSin, "sin", "sine", math.Sin, ""),
	unaryRow(SCos, "cos", "cosine", math.Cos, ""),
	{Op: SSign, Name: "sign", Doc: "-1, 0 or 1 (a zero or NaN is itself)", Arity: 1,
		Float1: func(x float64) float64 {
			switch {
			case x > 0:
				return 1
			case x < 0:
				return -1
			}
			return x
		},
		Int1: func(x int64, t DType) int64 {
			switch {
			case x > 0 || x < 0 && t.IsUnsigned():
				return 1
			case x < 0:
				return -1
			}
			return 0
		},
		Lower: Lowering{Float: "fsign", Int: "isign", Bool: "id", Lanes: LanesAny}},
	{Op: SIsNaN, Name: "isnan", Doc: "whether x is NaN (never for integers)", Arity: 1, Result: ResultBool,
		Test1F: math.IsNaN, Test1I: never,
		Lower: Lowering{Float: "isnan", Int: "false", Bool: "false", Lanes: LanesAny}},
	{Op: SIsInf, Name: "isinf", Doc: "whether x is ±inf (never for integers)", Arity: 1, Result: ResultBool,
		Test1F: func(x float64) bool { return math.IsInf(x, 0) }, Test1I: never,
		Lower: Lowering{Float: "isinf", Int: "false", Bool: "false", Lanes: LanesAny}},
	unaryRow(SAtan, "atan", "arctangent", math.Atan, ""),

	// Binary operations.
	{Op: SAdd, Name: "add", Doc: "sum", Arity: 2,
		Float2: func(x, y float64) float64 { return x + y }, Int2: func(x, y int64, _ DType) int64 { return x + y },
		Affine: affAdd, Lower: Lowering{Float: "fadd", Int: "add", Bool: "widen", Lanes: LanesAny}},
	{Op: SSub, Name: "sub", Doc: "difference", Arity: 2,
		Float2: func(x, y float64) float64 { return x - y }, Int2: func(x, y int64, _ DType) int64 { return x - y },
		Affine: affSub, Lower: Lowering{Float: "fsub", Int: "sub", Bool: "widen", Lanes: LanesAny}},
	{Op: SMul, Name: "mul", Doc: "product", Arity: 2,
		Float2: func(x, y float64) float64 { return x * y }, Int2: func(x, y int64, _ DType) int64 { return x * y },
		Affine: affMul, Lower: Lowering{Float: "fmul", Int: "mul", Bool: "widen", Lanes: LanesAny}},
	{Op: SDiv, Name: "div", Doc: "quotient (integers: truncated)", Arity: 2,
		Float2: func(x, y float64) float64 { return x / y },
		Int2: func(x, y int64, t DType) int64 {
			if unsigned64(t) {
				return int64(uint64(x) / uint64(y))
			}
			return x / y
		},
		ZeroDivisor: "integer division by zero",
		Lower:       Lowering{Float: "fdiv", Int: "sdiv", Unsigned: "udiv", Bool: "widen", Lanes: LanesFloat}},
	{Op: SRem, Name: "rem", Doc: "remainder with the sign of the dividend (C fmod / integer %)", Arity: 2,
		Float2: math.Mod,
		Int2: func(x, y int64, t DType) int64 {
			if unsigned64(t) {
				return int64(uint64(x) % uint64(y))
			}
			return x % y
		},
		ZeroDivisor: "integer remainder by zero",
		Lower:       Lowering{Float: "runtime fmod", Int: "srem", Unsigned: "urem", Bool: "widen", Lanes: LanesFloat}},
	{Op: SMax, Name: "max", Doc: "maximum (NaN if either is NaN; max(+0, -0) = +0)", Arity: 2,
		Float2: minMaxF(math.Max), Int2: minMaxI(true),
		Lower: Lowering{Float: "fminmax max", Int: "pick sgt", Unsigned: "pick ugt", Bool: "widen", Lanes: LanesAny}},
	{Op: SMin, Name: "min", Doc: "minimum (NaN if either is NaN; min(+0, -0) = -0)", Arity: 2,
		Float2: minMaxF(math.Min), Int2: minMaxI(false),
		Lower: Lowering{Float: "fminmax min", Int: "pick slt", Unsigned: "pick ult", Bool: "widen", Lanes: LanesAny}},
	{Op: SPow, Name: "pow", Doc: "x^y (integers: y ≤ 0 gives 1)", Arity: 2,
		Float2: math.Pow,
		Int2: func(x, y int64, _ DType) int64 {
			r := int64(1)
			for e := y; e > 0; e-- {
				r *= x
			}
			return r
		},
		Lower: Lowering{Float: "fpow", Int: "ipow", Bool: "widen", Lanes: LanesFloat}},
	logicRow(SAnd, "and", "conjunction", func(a, b int64) int64 { return a & b }, func(a, b bool) bool { return a && b }),
	logicRow(SOr, "or", "disjunction", func(a, b int64) int64 { return a | b }, func(a, b bool) bool { return a || b }),
	logicRow(SXor, "xor", "exclusive or", func(a, b int64) int64 { return a ^ b }, func(a, b bool) bool { return a != b }),
	{Op: SShl, Name: "shl", Doc: "x << y (0 once y reaches the width)", Arity: 2, Int2: shiftI(true),
		Lower: Lowering{Int: "shift shl", Bool: "widen"}},
	{Op: SShr, Name: "shr", Doc: "x >> y, logical (0 once y reaches the width)", Arity: 2, Int2: shiftI(false),
		Lower: Lowering{Int: "shift lshr", Bool: "widen"}},
	compareRow(SEq, "eq", "equality", func(a, b float64) bool { return a == b }, func(a, b int64) bool { return a == b },
		func(a, b volume.Aff) (volume.Constraint, bool) {
			return volume.Constraint{Aff: a.Sub(b), Eq: true}, false
		},
		"oeq", "eq", "eq"),
	compareRow(SNe, "ne", "inequality (NaN is unequal to everything)", func(a, b float64) bool { return a != b }, func(a, b int64) bool { return a != b },
		func(a, b volume.Aff) (volume.Constraint, bool) {
			return volume.Constraint{Aff: a.Sub(b), Eq: true}, true
		},
		"une", "ne", "ne"),
	compareRow(SLt, "lt", "less than", func(a, b float64) bool { return a < b }, func(a, b int64) bool { return a < b },
		func(a, b volume.Aff) (volume.Constraint, bool) { return volume.LT(a, b), false },
		"olt", "slt", "ult"),
	compareRow(SLe, "le", "less than or equal", func(a, b float64) bool { return a <= b }, func(a, b int64) bool { return a <= b },
		func(a, b volume.Aff) (volume.Constraint, bool) { return volume.GE(b, a), false },
		"ole", "sle", "ule"),
	compareRow(SGt, "gt", "greater than", func(a, b float64) bool { return a > b }, func(a, b int64) bool { return a > b },
		func(a, b volume.Aff) (volume.Constraint, bool) { return volume.LT(b, a), false },
		"ogt", "sgt", "ugt"),
	compareRow(SGe, "ge", "greater than or equal", func(a, b float64) bool { return a >= b }, func(a, b int64) bool { return a >= b },
		func(a, b volume.Aff) (volume.Constraint, bool) { return volume.GE(a, b), false },
		"oge", "sge", "uge"),

	// Selection and conversions.
	{Op: SSelect, Name: "select", Doc: "c ? a : b, evaluating only the chosen arm", Arity: 3, Result: ResultArm,
		Pick: func(c Num) int {
			if c.I != 0 {
				return 1
			}
			return 2
		},
		Lower: Lowering{All: "select", Lanes: LanesAny}},
	{Op: SCast, Name: "cast", Doc: "x converted to TYPE (ONNX Cast semantics)", Arity: 1, Result: ResultGiven,
		Convert: CastNum, KeepsValue: true, Lower: Lowering{All: "cast", Lanes: LanesRule}},
	{Op: SBitcast, Name: "bitcast", Doc: "the bits of x read as TYPE (of the same size)", Arity: 1, Result: ResultGiven,
		Convert: BitcastNum, Lower: Lowering{All: "bitcast"}},
}

// CastNum converts v from type from to type to with ONNX Cast semantics: float to integer
// truncates toward zero to int64 and wraps to the width (NaN and ±inf give INT64_MIN; u64
// takes [2^63, 2^64) unsigned); to bool is != 0.
func CastNum(v Num, from, to DType) (Num, error) {
	switch {
	case from.IsFloat() && to.IsFloat():
		return Num{F: RoundFloat(to, v.F)}, nil
	case from.IsFloat():
		if to == Bool {
			return BoolNum(v.F != 0), nil
		}
		if math.IsNaN(v.F) || math.IsInf(v.F, 0) {
			return Num{I: to.WrapInt(math.MinInt64)}, nil
		}
		if to == U64 && v.F >= 1<<63 && v.F < 1<<64 {
			return Num{I: int64(uint64(v.F))}, nil
		}
		return Num{I: to.WrapInt(int64(math.Trunc(v.F)))}, nil
	case to.IsFloat():
		if from == U64 {
			return Num{F: RoundFloat(to, float64(uint64(v.I)))}, nil
		}
		return Num{F: RoundFloat(to, float64(v.I))}, nil
	}
	return Num{I: to.WrapInt(v.I)}, nil
}

// BitcastNum reinterprets the in-memory bits of v (type from) as type to, of the same size.
func BitcastNum(v Num, from, to DType) (Num, error) {
	src := NewTensor(from, []int64{1})
	if from.IsFloat() {
		src.F[0] = v.F
	} else {
		src.I[0] = v.I
	}
	dst, err := TensorFromBytes(to, []int64{1}, src.Bytes())
	if err != nil {
		return Num{}, fmt.Errorf("bitcast %s to %s: %w", from, to, err)
	}
	if to.IsFloat() {
		return Num{F: dst.F[0]}, nil
	}
	return Num{I: dst.I[0]}, nil
}
