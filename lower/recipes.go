// This file holds the vocabulary in which the scalar table (ir/scalar_ops.go) says how each
// operation lowers: recipes that emit LLVM IR for one class of operand types (float, signed,
// unsigned, bool), and the special forms that emit their arguments themselves (select, casts,
// expansions). The body emitter (body.go) looks an operation's recipe up in its row and calls
// it; it knows no operation by name.
//
// A recipe is a name and an optional argument: "fcmp olt" (an LLVM float compare), "runtime exp"
// (graphc's math runtime in float64, lane by lane on vectors), "fminmax max". Every recipe the
// table names must be here (TestScalarRecipes).

package lower

import (
	"fmt"
	"strings"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/ir"
)

// recipe emits one operation d on emitted arguments x of element type t; arg is the recipe's
// argument ("olt" in "fcmp olt").
type recipe func(bc *bodyCtx, d *ir.ScalarDef, t ir.DType, arg string, x []value.Value) (value.Value, error)

// special is a recipe that emits the node's arguments itself; vector says whether the node has
// a lowering on vectors (ir.LanesRule).
type special struct {
	emit   func(bc *bodyCtx, s *ir.Scalar) (value.Value, error)
	vector func(s *ir.Scalar) bool
}

// splitRecipe splits "fcmp olt" into its name and argument.
func splitRecipe(r string) (name, arg string) {
	name, arg, _ = strings.Cut(r, " ")
	return name, arg
}

// inst2 is a binary LLVM instruction.
func inst2[T value.Value](f func(b *llvm.Block, x, y value.Value) T) recipe {
	return func(bc *bodyCtx, _ *ir.ScalarDef, _ ir.DType, _ string, x []value.Value) (value.Value, error) {
		return f(bc.cur(), x[0], x[1]), nil
	}
}

// unary1 is an emitter of one argument that needs no type information.
func unary1(f func(bc *bodyCtx, x value.Value) value.Value) recipe {
	return func(bc *bodyCtx, _ *ir.ScalarDef, _ ir.DType, _ string, x []value.Value) (value.Value, error) {
		return f(bc, x[0]), nil
	}
}

var fpreds = func() map[string]enum.FPred {
	m := map[string]enum.FPred{}
	for p := enum.FPredFalse; p <= enum.FPredUNO; p++ {
		m[p.String()] = p
	}
	return m
}()

var ipreds = func() map[string]enum.IPred {
	m := map[string]enum.IPred{}
	for p := enum.IPredEQ; p <= enum.IPredULT; p++ {
		m[p.String()] = p
	}
	return m
}()

// polys are graphc's float32 vector polynomials (math_vec.go), by the name rows give them.
var polys = map[string]func(v vf, x value.Value) value.Value{
	"exp": vf.exp, "log": vf.log, "tanh": vf.tanh, "sigmoid": vf.sigmoid, "erf": vf.erf,
}

// recipes are the recipes of one class of operand types, by name.
var recipes map[string]recipe

func init() {
	recipes = map[string]recipe{
		"id": func(_ *bodyCtx, _ *ir.ScalarDef, _ ir.DType, _ string, x []value.Value) (value.Value, error) {
			return x[0], nil
		},
		"false": func(bc *bodyCtx, _ *ir.ScalarDef, _ ir.DType, _ string, _ []value.Value) (value.Value, error) {
			return bc.cnst(ir.Bool, 0, 0), nil
		},
		// LLVM instructions
		"fadd": inst2((*llvm.Block).NewFAdd), "fsub": inst2((*llvm.Block).NewFSub), "fmul": inst2((*llvm.Block).NewFMul),
		"add": inst2((*llvm.Block).NewAdd), "sub": inst2((*llvm.Block).NewSub), "mul": inst2((*llvm.Block).NewMul),
		"and": inst2((*llvm.Block).NewAnd), "or": inst2((*llvm.Block).NewOr), "xor": inst2((*llvm.Block).NewXor),
		"fneg": unary1(func(bc *bodyCtx, x value.Value) value.Value { return bc.cur().NewFNeg(x) }),
		"fcmp": func(bc *bodyCtx, _ *ir.ScalarDef, _ ir.DType, arg string, x []value.Value) (value.Value, error) {
			p, ok := fpreds[arg]
			if !ok {
				return nil, fmt.Errorf("fcmp %q: unknown predicate", arg)
			}
			return bc.cur().NewFCmp(p, x[0], x[1]), nil
		},
		"icmp": func(bc *bodyCtx, _ *ir.ScalarDef, _ ir.DType, arg string, x []value.Value) (value.Value, error) {
			p, ok := ipreds[arg]
			if !ok {
				return nil, fmt.Errorf("icmp %q: unknown predicate", arg)
			}
			return bc.cur().NewICmp(p, x[0], x[1]), nil
		},
		// pick PRED: the first argument where icmp PRED holds, else the second (integer max, min)
		"pick": func(bc *bodyCtx, _ *ir.ScalarDef, _ ir.DType, arg string, x []value.Value) (value.Value, error) {
			p, ok := ipreds[arg]
			if !ok {
				return nil, fmt.Errorf("pick %q: unknown predicate", arg)
			}
			c := bc.cur()
			return c.NewSelect(c.NewICmp(p, x[0], x[1]), x[0], x[1]), nil
		},

		// graphc's float emitters
		"fabs": unary1(func(bc *bodyCtx, x value.Value) value.Value { return bc.fb.fabs(x) }),
		"sqrt": unary1(func(bc *bodyCtx, x value.Value) value.Value { return bc.fb.sqrt(x) }),
		"fdiv": func(bc *bodyCtx, _ *ir.ScalarDef, _ ir.DType, _ string, x []value.Value) (value.Value, error) {
			return bc.fb.fdiv(x[0], x[1]), nil
		},
		"fpow": func(bc *bodyCtx, _ *ir.ScalarDef, _ ir.DType, _ string, x []value.Value) (value.Value, error) {
			return bc.fpow(x[0], x[1]), nil
		},
		"fminmax": func(bc *bodyCtx, _ *ir.ScalarDef, _ ir.DType, arg string, x []value.Value) (value.Value, error) {
			return bc.fminmax(arg == "max", x[0], x[1]), nil
		},
		// flogic: the row's bool recipe on x != 0 and y != 0, as 0.0 or 1.0
		"flogic": func(bc *bodyCtx, d *ir.ScalarDef, _ ir.DType, _ string, x []value.Value) (value.Value, error) {
			c := bc.cur()
			zero := floatConstOf(x[0].Type(), 0)
			b := []value.Value{c.NewFCmp(enum.FPredUNE, x[0], zero), c.NewFCmp(enum.FPredUNE, x[1], zero)}
			r, err := bc.apply(d, ir.Bool, d.Lower.Bool, b)
			if err != nil {
				return nil, err
			}
			return bc.boolToFloat(r, x[0].Type()), nil
		},
		"fnot": unary1(func(bc *bodyCtx, x value.Value) value.Value {
			ft := x.Type()
			return bc.boolToFloat(bc.cur().NewFCmp(enum.FPredOEQ, x, floatConstOf(ft, 0)), ft)
		}),
		"fsign": unary1(func(bc *bodyCtx, x value.Value) value.Value {
			c, fb, ft := bc.cur(), bc.fb, x.Type()
			r := fb.sel(c.NewFCmp(enum.FPredOLT, x, floatConstOf(ft, 0)), floatConstOf(ft, -1), x)
			return fb.sel(c.NewFCmp(enum.FPredOGT, x, floatConstOf(ft, 0)), floatConstOf(ft, 1), r)
		}),
		"isnan": unary1((*bodyCtx).isNaN),
		"isinf": unary1(func(bc *bodyCtx, x value.Value) value.Value {
			return bc.cur().NewFCmp(enum.FPredOEQ, bc.fb.fabs(x), floatConstOf(x.Type(), posInf))
		}),
		// runtime NAME: graphc's math runtime function graphc.NAME, in float64
		"runtime": func(bc *bodyCtx, _ *ir.ScalarDef, _ ir.DType, arg string, x []value.Value) (value.Value, error) {
			fb := bc.fb
			f := fb.mc.rtFunc("graphc." + arg)
			return bc.viaF64(x[0], func(a value.Value) value.Value {
				args := []value.Value{a}
				for _, y := range x[1:] {
					args = append(args, fb.toF64(y))
				}
				return fb.call(f, args...)
			}), nil
		},

		// graphc's integer emitters
		"ineg": unary1(func(bc *bodyCtx, x value.Value) value.Value {
			return bc.cur().NewSub(intConstOf(x.Type(), 0), x)
		}),
		"iabs": unary1(func(bc *bodyCtx, x value.Value) value.Value {
			c, zero := bc.cur(), intConstOf(x.Type(), 0)
			return c.NewSelect(c.NewICmp(enum.IPredSLT, x, zero), c.NewSub(zero, x), x)
		}),
		"inot": unary1(func(bc *bodyCtx, x value.Value) value.Value {
			c := bc.cur()
			return c.NewZExt(c.NewICmp(enum.IPredEQ, x, intConstOf(x.Type(), 0)), x.Type())
		}),
		"not1": unary1(func(bc *bodyCtx, x value.Value) value.Value {
			return bc.cur().NewXor(x, bc.cnst(ir.Bool, 0, 1))
		}),
		"isign": func(bc *bodyCtx, _ *ir.ScalarDef, t ir.DType, _ string, x []value.Value) (value.Value, error) {
			c, xt := bc.cur(), x[0].Type()
			zero := intConstOf(xt, 0)
			if t.IsUnsigned() {
				return c.NewZExt(c.NewICmp(enum.IPredNE, x[0], zero), xt), nil
			}
			pos := c.NewZExt(c.NewICmp(enum.IPredSGT, x[0], zero), xt)
			neg := c.NewZExt(c.NewICmp(enum.IPredSLT, x[0], zero), xt)
			return c.NewSub(pos, neg), nil
		},
		// shift shl|lshr: LLVM's shifts by the width or more are poison: those give 0, as in
		// the evaluator
		"shift": func(bc *bodyCtx, _ *ir.ScalarDef, t ir.DType, arg string, x []value.Value) (value.Value, error) {
			c := bc.cur()
			w := bc.cnst(t, 0, int64(8*t.Size()))
			over := c.NewICmp(enum.IPredUGE, x[1], w)
			amt := c.NewSelect(over, bc.cnst(t, 0, 0), x[1])
			var r value.Value
			switch arg {
			case "shl":
				r = c.NewShl(x[0], amt)
			case "lshr":
				r = c.NewLShr(x[0], amt)
			default:
				return nil, fmt.Errorf("shift %q: not shl or lshr", arg)
			}
			return c.NewSelect(over, bc.cnst(t, 0, 0), r), nil
		},
		// checked integer division and remainder (a zero divisor: statusDivZero), in int64
		"sdiv": divRem(true, false), "udiv": divRem(true, true),
		"srem": divRem(false, false), "urem": divRem(false, true),
		"ipow": func(bc *bodyCtx, _ *ir.ScalarDef, t ir.DType, _ string, x []value.Value) (value.Value, error) {
			if bc.vl > 0 {
				return nil, fmt.Errorf("integer pow in a vector loop")
			}
			fb := bc.fb
			unsigned := t.IsUnsigned()
			r := fb.call(fb.mc.rtFunc(rtIPow), fb.widen64(x[0], unsigned), fb.widen64(x[1], unsigned))
			return fb.narrow(r, x[0].Type()), nil
		},
		// widen: bool operands computed as 0/1 in i64 with the row's Int recipe, then != 0 (the
		// evaluator's rule for bool arithmetic)
		"widen": func(bc *bodyCtx, d *ir.ScalarDef, _ ir.DType, _ string, x []value.Value) (value.Value, error) {
			w := make([]value.Value, len(x))
			for i, v := range x {
				w[i] = bc.cur().NewZExt(v, bc.ty(ir.I64))
			}
			r, err := bc.apply(d, ir.I64, d.Lower.Int, w)
			if err != nil {
				return nil, err
			}
			return bc.cur().NewICmp(enum.IPredNE, r, bc.cnst(ir.I64, 0, 0)), nil
		},
	}
}

// divRem is the checked integer division or remainder recipe (scalar only: the zero check
// branches).
func divRem(div, unsigned bool) recipe {
	return func(bc *bodyCtx, d *ir.ScalarDef, _ ir.DType, _ string, x []value.Value) (value.Value, error) {
		if bc.vl > 0 {
			return nil, fmt.Errorf("integer %s in a vector loop", d.Name)
		}
		return bc.fb.intDivRem(div, unsigned, x[0], x[1]), nil
	}
}

// specials are the recipes that emit their node's arguments themselves.
var specials map[string]special

func init() {
	specials = map[string]special{
		"select":  {emit: (*bodyCtx).emitSelect},
		"cast":    {emit: (*bodyCtx).emitCast, vector: castVectorizable},
		"bitcast": {emit: (*bodyCtx).emitBitcast},
	}
}

// apply emits recipe r of operation d on arguments x of element type t.
func (bc *bodyCtx) apply(d *ir.ScalarDef, t ir.DType, r string, x []value.Value) (value.Value, error) {
	name, arg := splitRecipe(r)
	f := recipes[name]
	if f == nil {
		return nil, fmt.Errorf("%s of %s has no lowering", d.Name, t)
	}
	return f(bc, d, t, arg, x)
}

// emitDef emits a computing node from its row of the scalar table: a special form, or its
// arguments and then the operation on them (compute), or the row's expansion.
func (bc *bodyCtx) emitDef(s *ir.Scalar, d *ir.ScalarDef) (value.Value, error) {
	if sp, ok := specials[d.Lower.All]; ok {
		return sp.emit(bc, s)
	}
	if len(s.Args) == 0 || len(s.Args) != d.Arity {
		return nil, fmt.Errorf("scalar operation %s (%d arguments) has no lowering", s.Op, len(s.Args))
	}
	args := make([]value.Value, len(s.Args))
	for i, a := range s.Args {
		v, err := bc.emit(a)
		if err != nil {
			return nil, err
		}
		args[i] = v
	}
	v, err := bc.compute(d, s.Args[0].Type, args)
	if v == nil && err == nil {
		// the expansion's nodes round their own results
		return bc.emit(d.Expand(s.Args))
	}
	return v, err
}

// compute emits operation d on emitted arguments of element type t: the first of the row's
// float32 polynomial, LLVM intrinsic (where the target is not freestanding) and recipe for t
// that applies. Float results are rounded to their type (f16, minifloats) after every
// operation. It returns nil and no error when the row expands the operation instead.
func (bc *bodyCtx) compute(d *ir.ScalarDef, t ir.DType, args []value.Value) (value.Value, error) {
	r := d.Lower.For(t)
	var v value.Value
	if t.IsFloat() {
		ft := args[0].Type()
		switch {
		case d.Lower.Poly != "" && isF32(ft) && polys[d.Lower.Poly] != nil:
			// float32 (and f16, computed in float): graphc's polynomial math (math_vec.go)
			v = polys[d.Lower.Poly](newVF(bc.fb, ft), args[0])
		case d.Lower.Intrinsic != "" && !bc.fb.mc.tgt.Freestanding && (ft == types.Float || ft == types.Double || isFloatVector(ft)):
			// one instruction where SSE4.1/AVX-512 have it (roundps, vrndscaleps), else libm:
			// exact, as the runtime's
			v = bc.cur().NewCall(bc.fb.mc.intrinsic(d.Lower.Intrinsic+"."+overloadSuffix(ft), ft, ft), args...)
		}
	}
	if v == nil {
		switch {
		case r == "expand" && d.Expand != nil:
			return nil, nil
		case r == "":
			return nil, fmt.Errorf("%s of %s has no lowering", d.Name, t)
		}
		var err error
		if v, err = bc.apply(d, t, r, args); err != nil {
			return nil, err
		}
	}
	if t.IsFloat() && d.Result != ir.ResultBool {
		v = bc.roundHalf(v, t)
	}
	return v, nil
}

// computeOp emits operation o of the scalar table on emitted arguments of element type t (the
// combining step of reductions).
func (bc *bodyCtx) computeOp(o ir.ScalarOp, t ir.DType, args ...value.Value) (value.Value, error) {
	v, err := bc.compute(o.Def(), t, args)
	if v == nil && err == nil {
		return nil, fmt.Errorf("%s of %s expands: it has no lowering on values", o, t)
	}
	return v, err
}

// vectorizableDef reports whether the table gives node s a lowering on vectors.
func vectorizableDef(s *ir.Scalar) bool {
	d := s.Op.Def()
	if d == nil {
		return false
	}
	switch d.Lower.Lanes {
	case ir.LanesAny:
		return true
	case ir.LanesFloat:
		return s.Type.IsFloat()
	case ir.LanesRule:
		sp, ok := specials[d.Lower.All]
		return ok && sp.vector != nil && sp.vector(s)
	}
	return false
}
