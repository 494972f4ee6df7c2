// This file partially evaluates an op body when some of its leaves are known constants: the
// value is known (computed with the evaluator's own semantics) or unknown, together with the
// operands an unknown value still depends on. The known-values pass uses it to find where an
// op's result is a known constant (masked scores are -inf, their softmax weights 0) and which
// operand elements an iteration does not need.

package eval

import (
	"math"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// Partial is a partially evaluated scalar: Known with its value (F for floats, I for integers
// and bool), or unknown and depending on the operands in Deps (bit k: operand k).
type Partial struct {
	Known bool
	F     float64
	I     int64
	// AnyZero marks a known float zero whose sign is not known (0 times an unknown finite
	// value): it is the identity of a sum, but never substituted for an element.
	AnyZero bool
	Deps    uint64
	// Data marks an unknown value computed from tensor elements (not only from indices and
	// symbolic dims, which are always finite integers).
	Data bool
	// Aff, when set, is the value as an exact quasi-affine expression of the point (iteration
	// dims, or a tensor's index dims in a known region) and the symbolic dims: an index, a
	// position from arange(T), their sums. Integer-valued even in a float type.
	Aff *volume.Aff
	// Cond, when set, is a boolean value that is true exactly where the conjunction holds
	// (false where it does not; the opposite with CondNeg): a comparison of affine values.
	Cond    []volume.Constraint
	CondNeg bool
}

// Affine returns a value known to equal the quasi-affine expression a at each point.
func Affine(a volume.Aff) Partial {
	if c, ok := a.IsConst(); ok {
		return KnownI(c)
	}
	return Partial{Aff: &a}
}

// IsPointwise reports whether p is known at each point without being one constant: an affine
// value or a condition.
func (p Partial) IsPointwise() bool { return p.Aff != nil || p.Cond != nil }

// KnownF returns a known float.
func KnownF(f float64) Partial { return Partial{Known: true, F: f} }

// KnownI returns a known integer or bool.
func KnownI(i int64) Partial { return Partial{Known: true, I: i} }

// Unknown returns an unknown value depending on the operands in deps (data when deps is not
// empty).
func Unknown(deps uint64) Partial { return Partial{Deps: deps, Data: deps != 0} }

// SameAs reports whether p and q are the same known value (bit for bit: -0 and +0 differ,
// NaN equals NaN), or the same affine expression or condition.
func (p Partial) SameAs(q Partial) bool {
	if p.Aff != nil || q.Aff != nil {
		return p.Aff != nil && q.Aff != nil && p.Aff.Equal(*q.Aff)
	}
	if p.Cond != nil || q.Cond != nil {
		return p.Cond != nil && q.Cond != nil && p.CondNeg == q.CondNeg && sameConstraints(p.Cond, q.Cond)
	}
	if !p.Known || !q.Known || p.AnyZero != q.AnyZero {
		return false
	}
	return math.Float64bits(p.F) == math.Float64bits(q.F) && p.I == q.I
}

// IsZero reports whether p is a known zero (of either sign).
func (p Partial) IsZero(t ir.DType) bool {
	if !p.Known {
		return false
	}
	if t.IsFloat() {
		return p.F == 0
	}
	return p.I == 0
}

// FoldOptions configures Fold.
type FoldOptions struct {
	// AssumeFinite lets an unknown float operand be treated as finite (and a divisor as
	// non-zero): 0·x = 0, x + -inf = -inf, 0/x = 0. Without it only exact rules apply.
	AssumeFinite bool
}

// Fold partially evaluates s. leaf returns the value of a leaf (SRead, SAvail, SDynRead are
// asked; other leaves are constants, or unknown without operand dependence); it returns ok=false
// for an unknown leaf.
func Fold(s *ir.Scalar, leaf func(*ir.Scalar) (Partial, bool), opt FoldOptions) Partial {
	memo := map[*ir.Scalar]Partial{}
	var rec func(s *ir.Scalar) Partial
	rec = func(s *ir.Scalar) Partial {
		if p, ok := memo[s]; ok {
			return p
		}
		p := foldNode(s, rec, leaf, opt)
		memo[s] = p
		return p
	}
	return rec(s)
}

func foldNode(s *ir.Scalar, rec func(*ir.Scalar) Partial, leaf func(*ir.Scalar) (Partial, bool), opt FoldOptions) Partial {
	if p, ok := foldAffine(s, rec); ok {
		return p
	}
	switch s.Op {
	case ir.SConst:
		return Partial{Known: true, F: s.F, I: s.I}
	case ir.SRead, ir.SAvail:
		if p, ok := leaf(s); ok {
			return p
		}
		return Unknown(1 << uint(s.Arg))
	case ir.SDynRead:
		deps := uint64(1) << uint(s.Arg)
		for _, a := range s.Args {
			deps |= rec(a).Deps
		}
		return Unknown(deps)
	case ir.SIndex:
		return Affine(volume.AffDim(s.Arg))
	case ir.SParam:
		return Affine(volume.AffParam(s.Name))
	}
	if d := s.Op.Def(); d.Pick != nil {
		// a selection: the picked argument when the condition is known, else the value all
		// candidates share
		c := rec(s.Args[0])
		if c.Known {
			return rec(s.Args[d.Pick(ir.Num{F: c.F, I: c.I})])
		}
		deps := c.Deps
		first := rec(s.Args[1])
		same := true
		for _, a := range s.Args[1:] {
			p := rec(a)
			same = same && p.SameAs(first)
			deps |= p.Deps
		}
		if same {
			return first
		}
		return Unknown(deps)
	}
	args := make([]Partial, len(s.Args))
	known := true
	var deps uint64
	for i, a := range s.Args {
		args[i] = rec(a)
		known = known && args[i].Known
		deps |= args[i].Deps
	}
	for i, a := range args {
		if a.IsPointwise() {
			// an affine value or condition where no rule folds it: an unknown finite value
			// computed from indices, not from tensor data
			args[i] = Unknown(0)
			known = false
		}
	}
	if known {
		return foldKnown(s, args)
	}
	if p, ok := absorb(s, args, opt); ok {
		return p
	}
	return Unknown(deps)
}

// foldAffine folds integer arithmetic and comparisons on affine values (indices, arange(T)
// elements, known integers): sums, differences, negations and constant multiples stay affine;
// comparisons become conditions; not negates them. ok is false when s is not such a node.
func foldAffine(s *ir.Scalar, rec func(*ir.Scalar) Partial) (Partial, bool) {
	aff := func(p Partial) (volume.Aff, bool) {
		switch {
		case p.Aff != nil:
			return *p.Aff, true
		case p.Known && !p.AnyZero && p.Cond == nil:
			if p.I != 0 || p.F == 0 {
				return volume.AffConst(p.I), true
			}
			if f := p.F; f == math.Trunc(f) && math.Abs(f) < 1<<53 {
				return volume.AffConst(int64(f)), true
			}
		}
		return volume.Aff{}, false
	}
	d := s.Op.Def()
	switch {
	case d.KeepsValue:
		a := rec(s.Args[0])
		if a.Aff != nil && s.Type != ir.Bool {
			return a, true // indices and positions fit any integer or float type exactly
		}
		return Partial{}, false
	case d.NegatesCond || d.Arity == 1 && d.Affine != nil:
		a := rec(s.Args[0])
		if d.NegatesCond && a.Cond != nil {
			a.CondNeg = !a.CondNeg
			return a, true
		}
		if d.Affine != nil && a.Aff != nil {
			if r, ok := d.Affine(*a.Aff, volume.Aff{}); ok {
				return Affine(r), true
			}
		}
		return Partial{}, false
	}
	if !s.Op.IsBinary() || d.Affine == nil && d.Cond == nil {
		return Partial{}, false
	}
	pa, pb := rec(s.Args[0]), rec(s.Args[1])
	if pa.Aff == nil && pb.Aff == nil {
		return Partial{}, false
	}
	a, okA := aff(pa)
	b, okB := aff(pb)
	if !okA || !okB {
		return Partial{}, false
	}
	if d.Cond != nil {
		c, neg := d.Cond(a, b)
		return Partial{Cond: []volume.Constraint{c}, CondNeg: neg}, true
	}
	if r, ok := d.Affine(a, b); ok {
		return Affine(r), true
	}
	return Partial{}, false
}

func sameConstraints(a, b []volume.Constraint) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Eq != b[i].Eq || !a[i].Aff.Equal(b[i].Aff) {
			return false
		}
	}
	return true
}

// foldKnown computes s on known arguments. A zero of unknown sign is tried with both signs:
// the result is known when both agree (or both are zeros).
func foldKnown(s *ir.Scalar, args []Partial) Partial {
	anyZero := -1
	for i, a := range args {
		if a.AnyZero {
			anyZero = i
		}
	}
	if anyZero < 0 {
		v, ok := apply(s, args)
		if !ok {
			return Unknown(0)
		}
		return v
	}
	pos := append([]Partial(nil), args...)
	neg := append([]Partial(nil), args...)
	pos[anyZero] = KnownF(0)
	neg[anyZero] = KnownF(math.Copysign(0, -1))
	for i := range pos {
		if pos[i].AnyZero {
			pos[i], neg[i] = KnownF(0), KnownF(0)
		}
	}
	a, okA := apply(s, pos)
	b, okB := apply(s, neg)
	switch {
	case !okA || !okB:
		return Unknown(0)
	case a.SameAs(b):
		return a
	case s.Type.IsFloat() && a.F == 0 && b.F == 0:
		return Partial{Known: true, AnyZero: true}
	}
	return Unknown(0)
}

// apply evaluates one operation on constants with the evaluator's semantics; ok is false where
// the evaluator would fail (an integer division by zero).
func apply(s *ir.Scalar, args []Partial) (p Partial, ok bool) {
	d := s.Op.Def()
	if d == nil || d.Leaf || d.Pick != nil {
		return Partial{}, false
	}
	nums := make([]ir.Num, len(args))
	for i, a := range args {
		nums[i] = ir.Num{F: a.F, I: a.I}
	}
	r, err := d.Apply(nums, s.Args[0].Type, s.Type)
	if err != nil {
		return Partial{}, false
	}
	return Partial{Known: true, F: r.F, I: r.I}, true
}

// absorb applies the rules that decide an operation from some known arguments: exact ones
// (false and x, true or x, integer 0·x) always, and with AssumeFinite the ones that hold for
// every finite unknown x (0·x = ±0, x ± inf = ±inf, x/inf = ±0, max(x, +inf) = +inf,
// min(x, -inf) = -inf) and for every non-zero unknown tensor element d (0/d = ±0).
func absorb(s *ir.Scalar, args []Partial, opt FoldOptions) (Partial, bool) {
	rule := absorbRules[s.Op]
	if len(args) != 2 || rule == nil {
		return Partial{}, false
	}
	return rule(absorbArgs{a: args[0], b: args[1], t: s.Type, float: s.Args[0].Type.IsFloat(), finite: opt.AssumeFinite})
}

// absorbArgs are the arguments of an absorbing rule: the partial values of the operands, the
// result type, whether the operands are floats and whether unknowns may be assumed finite.
type absorbArgs struct {
	a, b          Partial
	t             ir.DType
	float, finite bool
}

func isInf(p Partial, sign int) bool { return p.Known && !p.AnyZero && math.IsInf(p.F, sign) }

// absorbRules are the absorbing rules by operation, as rewrite rules are kept apart from the
// operations' definitions (ir/scalar_ops.go): a rule is an optimisation, the row the meaning.
var absorbRules = map[ir.ScalarOp]func(x absorbArgs) (Partial, bool){
	ir.SAnd: func(x absorbArgs) (Partial, bool) {
		if !x.float && (x.a.Known && x.a.I == 0 || x.b.Known && x.b.I == 0) && x.t == ir.Bool {
			return KnownI(0), true
		}
		return Partial{}, false
	},
	ir.SOr: func(x absorbArgs) (Partial, bool) {
		if !x.float && (x.a.Known && x.a.I != 0 || x.b.Known && x.b.I != 0) && x.t == ir.Bool {
			return KnownI(1), true
		}
		return Partial{}, false
	},
	ir.SMul: func(x absorbArgs) (Partial, bool) {
		if !x.float && (x.a.Known && x.a.I == 0 || x.b.Known && x.b.I == 0) {
			return KnownI(0), true
		}
		if x.float && x.finite && (x.a.IsZero(x.t) || x.b.IsZero(x.t)) {
			return Partial{Known: true, AnyZero: true}, true
		}
		return Partial{}, false
	},
	ir.SAdd: func(x absorbArgs) (Partial, bool) {
		if x.float && x.finite {
			for _, p := range []Partial{x.a, x.b} {
				if isInf(p, 0) {
					return KnownF(p.F), true
				}
			}
		}
		return Partial{}, false
	},
	ir.SSub: func(x absorbArgs) (Partial, bool) {
		if x.float && x.finite {
			if isInf(x.a, 0) {
				return KnownF(x.a.F), true
			}
			if isInf(x.b, 0) {
				return KnownF(-x.b.F), true
			}
		}
		return Partial{}, false
	},
	ir.SDiv: func(x absorbArgs) (Partial, bool) {
		// the divisor must be tensor data: a count computed from indices may well be 0
		if x.float && x.finite && (x.a.IsZero(x.t) && !x.b.Known && x.b.Data || isInf(x.b, 0)) {
			return Partial{Known: true, AnyZero: true}, true
		}
		return Partial{}, false
	},
	ir.SMax: func(x absorbArgs) (Partial, bool) {
		if x.float && x.finite && (isInf(x.a, 1) || isInf(x.b, 1)) {
			return KnownF(math.Inf(1)), true
		}
		return Partial{}, false
	},
	ir.SMin: func(x absorbArgs) (Partial, bool) {
		if x.float && x.finite && (isInf(x.a, -1) || isInf(x.b, -1)) {
			return KnownF(math.Inf(-1)), true
		}
		return Partial{}, false
	},
}

// IsIdentity reports whether p, contributed by one iteration of a reduction, leaves every
// accumulator unchanged: ±0 for a sum whose init is not -0 (an accumulator that starts at +0 is
// never -0, and x + ±0 = x otherwise), 1 for a product, -inf for max, +inf for min (max and
// min are exact even with NaN accumulators: max(NaN, -inf) is NaN).
func IsIdentity(p Partial, r ir.ReduceKind, t ir.DType, init float64) bool {
	if !p.Known {
		return false
	}
	switch r {
	case ir.ReduceSum:
		if t.IsFloat() {
			return p.F == 0 && !(init == 0 && math.Signbit(init))
		}
		return p.I == 0
	case ir.ReduceProd:
		if t.IsFloat() {
			return !p.AnyZero && p.F == 1
		}
		return p.I == 1
	case ir.ReduceMax:
		return t.IsFloat() && !p.AnyZero && math.IsInf(p.F, -1)
	case ir.ReduceMin:
		return t.IsFloat() && !p.AnyZero && math.IsInf(p.F, 1)
	}
	return false
}
