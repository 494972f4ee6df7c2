// This file applies the semantics of a scalar table row (scalar_ops.go) to values: the
// functions the evaluator compiles bodies into and constant folding calls.

package ir

import (
	"errors"
	"fmt"
)

// Unary returns the function computing d (a unary operation or test) on an argument of type at,
// with its result rounded or wrapped to rt; an error when d is not defined on at.
func (d *ScalarDef) Unary(at, rt DType) (func(x Num) Num, error) {
	float := at.IsFloat()
	switch {
	case float && d.Test1F != nil:
		f := d.Test1F
		return func(x Num) Num { return BoolNum(f(x.F)) }, nil
	case !float && d.Test1I != nil:
		f := d.Test1I
		return func(x Num) Num { return BoolNum(f(x.I, at)) }, nil
	case float && d.Float1 != nil:
		f := d.Float1
		return func(x Num) Num { return Num{F: RoundFloat(rt, f(x.F))} }, nil
	case !float && d.Int1 != nil:
		f := d.Int1
		return func(x Num) Num { return Num{I: rt.WrapInt(f(x.I, at))} }, nil
	}
	return nil, fmt.Errorf("%s is not defined on %s", d.Name, at)
}

// Binary returns the function computing d (a binary operation or comparison) on arguments of
// type at, with its result rounded or wrapped to rt; the function fails with d.ZeroDivisor on an
// integer division by zero. The error is returned when d is not defined on at.
func (d *ScalarDef) Binary(at, rt DType) (func(x, y Num) (Num, error), error) {
	float := at.IsFloat()
	switch {
	case float && d.CmpF != nil:
		f := d.CmpF
		return func(x, y Num) (Num, error) { return BoolNum(f(x.F, y.F)), nil }, nil
	case !float && d.CmpI != nil:
		f := d.CmpI
		return func(x, y Num) (Num, error) { return BoolNum(f(x.I, y.I, at)), nil }, nil
	case float && d.Float2 != nil:
		f := d.Float2
		return func(x, y Num) (Num, error) { return Num{F: RoundFloat(rt, f(x.F, y.F))}, nil }, nil
	case !float && d.Int2 != nil:
		f := d.Int2
		if d.ZeroDivisor != "" {
			errZero := errors.New(d.ZeroDivisor)
			return func(x, y Num) (Num, error) {
				if y.I == 0 {
					return Num{}, errZero
				}
				return Num{I: rt.WrapInt(f(x.I, y.I, at))}, nil
			}, nil
		}
		return func(x, y Num) (Num, error) { return Num{I: rt.WrapInt(f(x.I, y.I, at))}, nil }, nil
	}
	return nil, fmt.Errorf("%s is not defined on %s", d.Name, at)
}

// Apply computes d on argument values of type at giving type rt: a unary or binary operation,
// a test, a comparison or a conversion (selection and leaves are not values of their arguments).
func (d *ScalarDef) Apply(args []Num, at, rt DType) (Num, error) {
	switch {
	case d.Convert != nil && len(args) == 1:
		return d.Convert(args[0], at, rt)
	case d.Arity == 1 && len(args) == 1 && !d.Leaf:
		f, err := d.Unary(at, rt)
		if err != nil {
			return Num{}, err
		}
		return f(args[0]), nil
	case d.Arity == 2 && len(args) == 2:
		f, err := d.Binary(at, rt)
		if err != nil {
			return Num{}, err
		}
		return f(args[0], args[1])
	}
	return Num{}, fmt.Errorf("%s of %d values cannot be applied", d.Name, len(args))
}
