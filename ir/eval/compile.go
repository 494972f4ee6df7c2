// This file compiles an op body into Go closures evaluated at each iteration point.

package eval

import (
	"fmt"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// num is a scalar value: F for floats, I for integers and bool.
type num = ir.Num

type fn func(x []int64) num

type compiler struct {
	op       *ir.Op
	params   map[string]int64
	operands []*ir.Tensor
}

func fail(format string, args ...any) { panic(evalError{fmt.Errorf(format, args...)}) }

// guardHolds evaluates a conjunction at x.
func guardHolds(g []volume.Constraint, x []int64, params map[string]int64) bool {
	for _, c := range g {
		v := c.Aff.EvalFast(x, params)
		if c.Eq && v != 0 || !c.Eq && v < 0 {
			return false
		}
	}
	return true
}

// reader returns the flat offset of operand k read at x (ok=false where its access is undefined).
func (c *compiler) reader(k int) func(x []int64) (int64, bool) {
	acc := c.op.Access[k]
	t := c.operands[k]
	st := strides(t.Shape)
	params := c.params
	return func(x []int64) (int64, bool) {
		for _, p := range acc.Pieces {
			if !guardHolds(p.Guard, x, params) {
				continue
			}
			off := int64(0)
			for d, a := range p.Index {
				v := a.EvalFast(x, params)
				if v < 0 || v >= t.Shape[d] {
					fail("iteration %v reads operand #%d %%%s at index %d = %d outside [0, %d): %w", x, k, c.op.Operands[k].Name, d, v, t.Shape[d], ErrOutOfBounds)
				}
				off += v * st[d]
			}
			return off, true
		}
		return 0, false
	}
}

func (c *compiler) compile(s *ir.Scalar) fn {
	switch s.Op {
	case ir.SRead:
		rd := c.reader(s.Arg)
		t := c.operands[s.Arg]
		k := s.Arg
		if t.IsRaw() { // a weight read in place, element by element
			return func(x []int64) num {
				off, ok := rd(x)
				if !ok {
					fail("iteration %v reads operand #%d where its access is undefined", x, k)
				}
				if t.Elem.IsFloat() {
					return num{F: t.Float(int(off))}
				}
				return num{I: t.Int(int(off))}
			}
		}
		if t.Elem.IsFloat() {
			return func(x []int64) num {
				off, ok := rd(x)
				if !ok {
					fail("iteration %v reads operand #%d where its access is undefined", x, k)
				}
				return num{F: t.F[off]}
			}
		}
		return func(x []int64) num {
			off, ok := rd(x)
			if !ok {
				fail("iteration %v reads operand #%d where its access is undefined", x, k)
			}
			return num{I: t.I[off]}
		}
	case ir.SAvail:
		rd := c.reader(s.Arg)
		acc := c.op.Access[s.Arg]
		params := c.params
		_ = rd
		return func(x []int64) num {
			for _, p := range acc.Pieces {
				if guardHolds(p.Guard, x, params) {
					return num{I: 1}
				}
			}
			return num{}
		}
	case ir.SDynRead:
		t := c.operands[s.Arg]
		st := strides(t.Shape)
		idx := make([]fn, len(s.Args))
		for i, a := range s.Args {
			idx[i] = c.compile(a)
		}
		k := s.Arg
		if len(idx) != len(t.Shape) {
			fail("dynamic read of operand #%d with %d indices, it has rank %d", k, len(idx), len(t.Shape))
		}
		return func(x []int64) num {
			off := int64(0)
			for d, f := range idx {
				v := f(x).I
				if v < 0 || v >= t.Shape[d] {
					fail("iteration %v reads operand #%d at data-dependent index %d = %d outside [0, %d): %w", x, k, d, v, t.Shape[d], ErrOutOfBounds)
				}
				off += v * st[d]
			}
			if t.IsRaw() {
				if t.Elem.IsFloat() {
					return num{F: t.Float(int(off))}
				}
				return num{I: t.Int(int(off))}
			}
			if t.Elem.IsFloat() {
				return num{F: t.F[off]}
			}
			return num{I: t.I[off]}
		}
	case ir.SIndex:
		d := s.Arg
		return func(x []int64) num { return num{I: x[d]} }
	case ir.SParam:
		v, ok := c.params[s.Name]
		if !ok {
			fail("parameter %s is not bound", s.Name)
		}
		return func([]int64) num { return num{I: v} }
	case ir.SConst:
		v := num{F: s.F, I: s.I}
		return func([]int64) num { return v }
	}
	return c.compileDef(s)
}

// compileDef compiles a computing operation from its row of the scalar table.
func (c *compiler) compileDef(s *ir.Scalar) fn {
	d := s.Op.Def()
	if d == nil || d.Leaf {
		fail("cannot evaluate %s", s.Op)
	}
	args := make([]fn, len(s.Args))
	for i, a := range s.Args {
		args[i] = c.compile(a)
	}
	if len(args) != d.Arity {
		fail("%s of %d arguments", s.Op, len(args))
	}
	switch {
	case d.Pick != nil:
		cond, pick := args[0], d.Pick
		return func(x []int64) num { return args[pick(cond(x))](x) }
	case d.Convert != nil:
		a, conv := args[0], d.Convert
		from, to := s.Args[0].Type, s.Type
		return func(x []int64) num {
			v, err := conv(a(x), from, to)
			if err != nil {
				fail("%w", err)
			}
			return v
		}
	case d.Arity == 1:
		f, err := d.Unary(s.Args[0].Type, s.Type)
		if err != nil {
			return func([]int64) num { fail("%w", err); return num{} }
		}
		a := args[0]
		return func(x []int64) num { return f(a(x)) }
	case d.Arity == 2:
		f, err := d.Binary(s.Args[0].Type, s.Type)
		if err != nil {
			return func([]int64) num { fail("%w", err); return num{} }
		}
		a, b := args[0], args[1]
		return func(x []int64) num {
			v, err := f(a(x), b(x))
			if err != nil {
				fail("%w", err)
			}
			return v
		}
	}
	fail("cannot evaluate %s", s.Op)
	return nil
}
