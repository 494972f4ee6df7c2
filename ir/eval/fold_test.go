package eval_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
)

// TestFold checks the partial evaluation of bodies: known leaves computed with the evaluator's
// semantics, the absorbing rules (exact ones always, the finite-value ones only with
// AssumeFinite), the operands an unknown result still depends on, and a zero of unknown sign.
func TestFold(t *testing.T) {
	ninf := math.Inf(-1)
	f32 := []ir.DType{ir.F32, ir.F32, ir.F32}
	cases := []struct {
		body   string
		types  []ir.DType
		known  map[int]eval.Partial // operand -> value
		finite bool
		want   eval.Partial
	}{
		// known leaves: exact arithmetic, special values included
		{"exp(in0)", f32, map[int]eval.Partial{0: eval.KnownF(ninf)}, false, eval.KnownF(0)},
		{"sub(in0, in1)", f32, map[int]eval.Partial{0: eval.KnownF(ninf), 1: eval.KnownF(ninf)}, false, eval.KnownF(math.NaN())},
		{"select(in0, in1, in2)", []ir.DType{ir.Bool, ir.F32, ir.F32}, map[int]eval.Partial{0: eval.KnownI(1), 1: eval.KnownF(ninf)}, false, eval.KnownF(ninf)},
		// a known condition picks its arm: the other operand is not needed
		{"select(in0, in1, in2)", []ir.DType{ir.Bool, ir.F32, ir.F32}, map[int]eval.Partial{0: eval.KnownI(0)}, false, eval.Unknown(1 << 2)},
		// finite-value rules: only with the assumption
		{"add(in0, in1)", f32, map[int]eval.Partial{1: eval.KnownF(ninf)}, true, eval.KnownF(ninf)},
		{"add(in0, in1)", f32, map[int]eval.Partial{1: eval.KnownF(ninf)}, false, eval.Unknown(1 << 0)},
		{"mul(in0, in1)", f32, map[int]eval.Partial{0: eval.KnownF(0)}, true, eval.Partial{Known: true, AnyZero: true}},
		{"mul(in0, in1)", f32, map[int]eval.Partial{0: eval.KnownF(0)}, false, eval.Unknown(1 << 1)},
		{"div(in0, in1)", f32, map[int]eval.Partial{0: eval.KnownF(0)}, true, eval.Partial{Known: true, AnyZero: true}},
		// a divisor computed from indices may be 0: no rule
		{"div(in0, cast<f32>(idx(0)))", f32, map[int]eval.Partial{0: eval.KnownF(0)}, true, eval.Unknown(0)},
		// a zero of unknown sign: exp gives 1 for both signs, 1/x does not
		{"exp(mul(in0, in1))", f32, map[int]eval.Partial{0: eval.KnownF(0)}, true, eval.KnownF(1)},
		{"div(1:f32, mul(in0, in1))", f32, map[int]eval.Partial{0: eval.KnownF(0)}, true, eval.Unknown(0)},
		// exact rules on booleans and integers hold without the assumption
		{"and(in0, in1)", []ir.DType{ir.Bool, ir.Bool}, map[int]eval.Partial{1: eval.KnownI(0)}, false, eval.KnownI(0)},
		{"mul(in0, in1)", []ir.DType{ir.I64, ir.I64}, map[int]eval.Partial{0: eval.KnownI(0)}, false, eval.KnownI(0)},
		// an integer division by a known zero is the evaluator's failure: unknown
		{"div(in0, in1)", []ir.DType{ir.I64, ir.I64}, map[int]eval.Partial{0: eval.KnownI(5), 1: eval.KnownI(0)}, false, eval.Unknown(0)},
	}
	for _, c := range cases {
		s, err := ir.ParseScalar(c.body, c.types)
		require.NoError(t, err, c.body)
		got := eval.Fold(s, func(n *ir.Scalar) (eval.Partial, bool) {
			if n.Op != ir.SRead {
				return eval.Partial{}, false
			}
			p, ok := c.known[n.Arg]
			return p, ok
		}, eval.FoldOptions{AssumeFinite: c.finite})
		if c.want.Known && !c.want.AnyZero && math.IsNaN(c.want.F) {
			require.True(t, got.Known && math.IsNaN(got.F), "%s: %+v", c.body, got)
			continue
		}
		require.Equal(t, c.want.Known, got.Known, "%s: %+v", c.body, got)
		if c.want.Known {
			require.True(t, got.SameAs(c.want), "%s: got %+v, want %+v", c.body, got, c.want)
		} else {
			require.Equal(t, c.want.Deps, got.Deps, "%s", c.body)
		}
	}
}

// TestIsIdentity: the identities of each reduction, and -0 init excluded for sums.
func TestIsIdentity(t *testing.T) {
	zero := eval.Partial{Known: true, AnyZero: true}
	require.True(t, eval.IsIdentity(zero, ir.ReduceSum, ir.F32, 0))
	require.False(t, eval.IsIdentity(zero, ir.ReduceSum, ir.F32, math.Copysign(0, -1)))
	require.True(t, eval.IsIdentity(eval.KnownF(math.Inf(-1)), ir.ReduceMax, ir.F32, math.Inf(-1)))
	require.False(t, eval.IsIdentity(eval.KnownF(0), ir.ReduceMax, ir.F32, math.Inf(-1)))
	require.True(t, eval.IsIdentity(eval.KnownF(1), ir.ReduceProd, ir.F32, 1))
	require.False(t, eval.IsIdentity(zero, ir.ReduceProd, ir.F32, 1))
	require.False(t, eval.IsIdentity(eval.Unknown(1), ir.ReduceSum, ir.F32, 0))
}
