// This file compiles an op body into Go closures evaluated at each iteration point.

package eval

import (
	"fmt"
	"math"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// num is a scalar value: f for floats, i for integers and bool.
type num struct {
	f float64
	i int64
}

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
					return num{f: t.Float(int(off))}
				}
				return num{i: t.Int(int(off))}
			}
		}
		if t.Elem.IsFloat() {
			return func(x []int64) num {
				off, ok := rd(x)
				if !ok {
					fail("iteration %v reads operand #%d where its access is undefined", x, k)
				}
				return num{f: t.F[off]}
			}
		}
		return func(x []int64) num {
			off, ok := rd(x)
			if !ok {
				fail("iteration %v reads operand #%d where its access is undefined", x, k)
			}
			return num{i: t.I[off]}
		}
	case ir.SAvail:
		rd := c.reader(s.Arg)
		acc := c.op.Access[s.Arg]
		params := c.params
		_ = rd
		return func(x []int64) num {
			for _, p := range acc.Pieces {
				if guardHolds(p.Guard, x, params) {
					return num{i: 1}
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
				v := f(x).i
				if v < 0 || v >= t.Shape[d] {
					fail("iteration %v reads operand #%d at data-dependent index %d = %d outside [0, %d): %w", x, k, d, v, t.Shape[d], ErrOutOfBounds)
				}
				off += v * st[d]
			}
			if t.IsRaw() {
				if t.Elem.IsFloat() {
					return num{f: t.Float(int(off))}
				}
				return num{i: t.Int(int(off))}
			}
			if t.Elem.IsFloat() {
				return num{f: t.F[off]}
			}
			return num{i: t.I[off]}
		}
	case ir.SIndex:
		d := s.Arg
		return func(x []int64) num { return num{i: x[d]} }
	case ir.SParam:
		v, ok := c.params[s.Name]
		if !ok {
			fail("parameter %s is not bound", s.Name)
		}
		return func([]int64) num { return num{i: v} }
	case ir.SConst:
		v := num{f: s.F, i: s.I}
		return func([]int64) num { return v }
	case ir.SCast:
		a := c.compile(s.Args[0])
		from, to := s.Args[0].Type, s.Type
		return func(x []int64) num { return cast(a(x), from, to) }
	case ir.SBitcast:
		a := c.compile(s.Args[0])
		from, to := s.Args[0].Type, s.Type
		return func(x []int64) num { return bitcast(a(x), from, to) }
	case ir.SSelect:
		cond, a, b := c.compile(s.Args[0]), c.compile(s.Args[1]), c.compile(s.Args[2])
		return func(x []int64) num {
			if cond(x).i != 0 {
				return a(x)
			}
			return b(x)
		}
	}
	if s.Op.IsUnary() {
		a := c.compile(s.Args[0])
		t, at := s.Type, s.Args[0].Type
		op := s.Op
		if at.IsFloat() {
			return func(x []int64) num {
				v := a(x).f
				switch op {
				case ir.SIsNaN:
					return boolNum(math.IsNaN(v))
				case ir.SIsInf:
					return boolNum(math.IsInf(v, 0))
				}
				return num{f: ir.RoundFloat(t, unaryF(op, v))}
			}
		}
		return func(x []int64) num { return num{i: t.WrapInt(unaryI(op, a(x).i, at))} }
	}
	if s.Op.IsBinary() {
		a, b := c.compile(s.Args[0]), c.compile(s.Args[1])
		t, at := s.Type, s.Args[0].Type
		op := s.Op
		if op.IsCompare() {
			if at.IsFloat() {
				return func(x []int64) num { return boolNum(compareF(op, a(x).f, b(x).f)) }
			}
			return func(x []int64) num { return boolNum(compareI(op, a(x).i, b(x).i, at)) }
		}
		if at.IsFloat() {
			return func(x []int64) num { return num{f: ir.RoundFloat(t, binaryF(op, a(x).f, b(x).f))} }
		}
		return func(x []int64) num { return num{i: t.WrapInt(binaryI(op, a(x).i, b(x).i, t))} }
	}
	fail("cannot evaluate %s", s.Op)
	return nil
}

func boolNum(b bool) num {
	if b {
		return num{i: 1}
	}
	return num{}
}

func unaryF(op ir.ScalarOp, v float64) float64 {
	switch op {
	case ir.SNeg:
		return -v
	case ir.SAbs:
		return math.Abs(v)
	case ir.SExp:
		return math.Exp(v)
	case ir.SLog:
		return math.Log(v)
	case ir.SSqrt:
		return math.Sqrt(v)
	case ir.STanh:
		return math.Tanh(v)
	case ir.SSigmoid:
		return 1 / (1 + math.Exp(-v))
	case ir.SErf:
		return math.Erf(v)
	case ir.SFloor:
		return math.Floor(v)
	case ir.SCeil:
		return math.Ceil(v)
	case ir.SRound:
		return math.RoundToEven(v)
	case ir.SSin:
		return math.Sin(v)
	case ir.SCos:
		return math.Cos(v)
	case ir.SAtan:
		return math.Atan(v)
	case ir.SSign:
		switch {
		case v > 0:
			return 1
		case v < 0:
			return -1
		}
		return v
	case ir.SNot:
		if v == 0 {
			return 1
		}
		return 0
	}
	fail("unsupported float operation %s", op)
	return 0
}

func unaryI(op ir.ScalarOp, v int64, t ir.DType) int64 {
	switch op {
	case ir.SNeg:
		return -v
	case ir.SAbs:
		if v < 0 && !t.IsUnsigned() {
			return -v
		}
		return v
	case ir.SNot:
		if v == 0 {
			return 1
		}
		return 0
	case ir.SSign:
		switch {
		case v > 0 || v < 0 && t.IsUnsigned():
			return 1
		case v < 0:
			return -1
		}
		return 0
	case ir.SFloor, ir.SCeil, ir.SRound:
		return v
	}
	fail("unsupported integer operation %s", op)
	return 0
}

func binaryF(op ir.ScalarOp, a, b float64) float64 {
	switch op {
	case ir.SAdd:
		return a + b
	case ir.SSub:
		return a - b
	case ir.SMul:
		return a * b
	case ir.SDiv:
		return a / b
	case ir.SRem:
		return math.Mod(a, b)
	case ir.SMax:
		if math.IsNaN(a) || math.IsNaN(b) {
			return math.NaN()
		}
		return math.Max(a, b)
	case ir.SMin:
		if math.IsNaN(a) || math.IsNaN(b) {
			return math.NaN()
		}
		return math.Min(a, b)
	case ir.SPow:
		return math.Pow(a, b)
	case ir.SAnd:
		return b2f(a != 0 && b != 0)
	case ir.SOr:
		return b2f(a != 0 || b != 0)
	case ir.SXor:
		return b2f((a != 0) != (b != 0))
	}
	fail("unsupported float operation %s", op)
	return 0
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func binaryI(op ir.ScalarOp, a, b int64, t ir.DType) int64 {
	if t == ir.U64 {
		// u64 values above 2^63 are held as negative int64s: divide and compare unsigned
		switch op {
		case ir.SDiv, ir.SRem:
			if b == 0 {
				fail("integer division by zero")
			}
			if op == ir.SDiv {
				return int64(uint64(a) / uint64(b))
			}
			return int64(uint64(a) % uint64(b))
		case ir.SMax, ir.SMin:
			if (uint64(a) > uint64(b)) == (op == ir.SMax) {
				return a
			}
			return b
		}
	}
	switch op {
	case ir.SAdd:
		return a + b
	case ir.SSub:
		return a - b
	case ir.SMul:
		return a * b
	case ir.SDiv:
		if b == 0 {
			fail("integer division by zero")
		}
		return a / b
	case ir.SRem:
		if b == 0 {
			fail("integer remainder by zero")
		}
		return a % b
	case ir.SMax:
		return max(a, b)
	case ir.SMin:
		return min(a, b)
	case ir.SPow:
		r := int64(1)
		for e := b; e > 0; e-- {
			r *= a
		}
		return r
	case ir.SAnd:
		if t == ir.Bool {
			return b2i(a != 0 && b != 0)
		}
		return a & b
	case ir.SOr:
		if t == ir.Bool {
			return b2i(a != 0 || b != 0)
		}
		return a | b
	case ir.SXor:
		if t == ir.Bool {
			return b2i((a != 0) != (b != 0))
		}
		return a ^ b
	case ir.SShl, ir.SShr:
		w := uint64(8 * t.Size())
		if b < 0 || uint64(b) >= w {
			return 0
		}
		if op == ir.SShl {
			return a << uint64(b)
		}
		// logical: the bits of the type's width, shifted in as zeros
		return int64(uint64(a) & (1<<w - 1) >> uint64(b))
	}
	fail("unsupported integer operation %s", op)
	return 0
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func compareF(op ir.ScalarOp, a, b float64) bool {
	switch op {
	case ir.SEq:
		return a == b
	case ir.SNe:
		return a != b
	case ir.SLt:
		return a < b
	case ir.SLe:
		return a <= b
	case ir.SGt:
		return a > b
	}
	return a >= b
}

func compareI(op ir.ScalarOp, a, b int64, t ir.DType) bool {
	if t == ir.U64 {
		// unsigned order: flipping the sign bit maps it onto the signed order
		a, b = a^math.MinInt64, b^math.MinInt64
	}
	switch op {
	case ir.SEq:
		return a == b
	case ir.SNe:
		return a != b
	case ir.SLt:
		return a < b
	case ir.SLe:
		return a <= b
	case ir.SGt:
		return a > b
	}
	return a >= b
}

// cast converts between element types with ONNX Cast semantics (float to integer truncates;
// to bool is != 0).
func cast(v num, from, to ir.DType) num {
	switch {
	case from.IsFloat() && to.IsFloat():
		return num{f: ir.RoundFloat(to, v.f)}
	case from.IsFloat():
		if to == ir.Bool {
			return boolNum(v.f != 0)
		}
		if math.IsNaN(v.f) || math.IsInf(v.f, 0) {
			return num{i: to.WrapInt(math.MinInt64)}
		}
		if to == ir.U64 && v.f >= 1<<63 && v.f < 1<<64 {
			return num{i: int64(uint64(v.f))}
		}
		return num{i: to.WrapInt(int64(math.Trunc(v.f)))}
	case to.IsFloat():
		if from == ir.U64 {
			return num{f: ir.RoundFloat(to, float64(uint64(v.i)))}
		}
		return num{f: ir.RoundFloat(to, float64(v.i))}
	}
	return num{i: to.WrapInt(v.i)}
}

// bitcast reinterprets the in-memory bits of v (type from) as type to, of the same size.
func bitcast(v num, from, to ir.DType) num {
	src := ir.NewTensor(from, []int64{1})
	if from.IsFloat() {
		src.F[0] = v.f
	} else {
		src.I[0] = v.i
	}
	dst, err := ir.TensorFromBytes(to, []int64{1}, src.Bytes())
	if err != nil {
		fail("bitcast %s to %s: %v", from, to, err)
	}
	if to.IsFloat() {
		return num{f: dst.F[0]}
	}
	return num{i: dst.I[0]}
}
