// This file measures the accuracy of the math runtime: each function runs as compiled code over
// a sweep of arguments and is compared with Go's math package in ulps (f32 results against
// Go's float64 result rounded to float32). The bounds asserted here are the figures stated in
// lower/doc.go, for targets without a fused multiply-add (baseline x86-64) and with one
// (x86-64-v3). Targets of the same FMA capability must give the same bits: Hexagon (under
// qemu-hexagon) as baseline x86-64, AArch64 (under qemu-aarch64) as x86-64-v3.

package lower_test

import (
	"context"
	"flag"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/ir"
)

var mathSweep = flag.Int("math-sweep", 0, "arguments per function in TestMathAccuracy (default 65536)")

// mathFn is one runtime function under test.
type mathFn struct {
	name   string
	body   string // body over in0 (and in1)
	ref    func(x, y float64) float64
	lo, hi float64 // sweep range of in0
	ylo    float64 // sweep range of in1 (binary functions)
	yhi    float64
	binary bool
	// maximum ulp errors asserted for f64 and f32 results, and for f32 results whose vectors
	// divide through a Newton reciprocal (HVX; 0: ulp32)
	ulp64, ulp32, ulpNewton float64
	// only, when set, is the one type swept (float32 sweeps of the range where the float32
	// function is neither constant nor overflowing)
	only ir.DType
}

var mathFns = []mathFn{
	// float32 exp, log, tanh, sigmoid and erf are graphc's polynomials (math_vec.go); their
	// bounds are the ones stated there and in lower/doc.go
	{name: "exp", body: "exp(in0)", ref: func(x, _ float64) float64 { return math.Exp(x) }, lo: -745, hi: 709.4, ulp64: 2, ulp32: 1},
	{name: "exp32", body: "exp(in0)", ref: func(x, _ float64) float64 { return math.Exp(x) }, lo: -104, hi: 89, ulp32: 1, only: ir.F32},
	{name: "exp32-small", body: "exp(in0)", ref: func(x, _ float64) float64 { return math.Exp(x) }, lo: -2, hi: 2, ulp32: 1, only: ir.F32},
	{name: "log", body: "log(in0)", ref: func(x, _ float64) float64 { return math.Log(x) }, lo: 1e-300, hi: 1e300, ulp64: 1, ulp32: 1},
	{name: "log32", body: "log(in0)", ref: func(x, _ float64) float64 { return math.Log(x) }, lo: 0, hi: 3e38, ulp32: 1, only: ir.F32},
	{name: "log32-near1", body: "log(in0)", ref: func(x, _ float64) float64 { return math.Log(x) }, lo: 0.5, hi: 2, ulp32: 1, only: ir.F32},
	{name: "tanh", body: "tanh(in0)", ref: func(x, _ float64) float64 { return math.Tanh(x) }, lo: -25, hi: 25, ulp64: 2, ulp32: 1, ulpNewton: 2},
	{name: "tanh32", body: "tanh(in0)", ref: func(x, _ float64) float64 { return math.Tanh(x) }, lo: -10, hi: 10, ulp32: 1, ulpNewton: 2, only: ir.F32},
	// (sigmoid's argument stays above -709.4: Go's amd64 assembly Exp, the reference here and the
	// evaluator's, overflows to +Inf for arguments in (709.44, 709.78))
	{name: "sigmoid", body: "sigmoid(in0)", ref: func(x, _ float64) float64 { return 1 / (1 + math.Exp(-x)) }, lo: -709.4, hi: 40, ulp64: 4, ulp32: 2, ulpNewton: 3},
	{name: "sigmoid32", body: "sigmoid(in0)", ref: func(x, _ float64) float64 { return 1 / (1 + math.Exp(-x)) }, lo: -104, hi: 20, ulp32: 2, ulpNewton: 3, only: ir.F32},
	{name: "erf", body: "erf(in0)", ref: func(x, _ float64) float64 { return math.Erf(x) }, lo: -7, hi: 7, ulp64: 2, ulp32: 2},
	{name: "erf32", body: "erf(in0)", ref: func(x, _ float64) float64 { return math.Erf(x) }, lo: -4.5, hi: 4.5, ulp32: 2, only: ir.F32},
	{name: "sin", body: "sin(in0)", ref: func(x, _ float64) float64 { return math.Sin(x) }, lo: -1e6, hi: 1e6, ulp64: 1, ulp32: 1},
	{name: "cos", body: "cos(in0)", ref: func(x, _ float64) float64 { return math.Cos(x) }, lo: -1e6, hi: 1e6, ulp64: 1, ulp32: 1},
	{name: "atan", body: "atan(in0)", ref: func(x, _ float64) float64 { return math.Atan(x) }, lo: -1e300, hi: 1e300, ulp64: 0, ulp32: 0},
	{name: "sin-huge", body: "sin(in0)", ref: func(x, _ float64) float64 { return math.Sin(x) }, lo: 1e9, hi: 1e300, ulp64: 1, ulp32: 1},
	{name: "sqrt", body: "sqrt(in0)", ref: func(x, _ float64) float64 { return math.Sqrt(x) }, lo: 0, hi: 1e300, ulp64: 0, ulp32: 0},
	{name: "floor", body: "floor(in0)", ref: func(x, _ float64) float64 { return math.Floor(x) }, lo: -1e17, hi: 1e17, ulp64: 0, ulp32: 0},
	{name: "ceil", body: "ceil(in0)", ref: func(x, _ float64) float64 { return math.Ceil(x) }, lo: -1e6, hi: 1e6, ulp64: 0, ulp32: 0},
	{name: "round", body: "round(in0)", ref: func(x, _ float64) float64 { return math.RoundToEven(x) }, lo: -1e3, hi: 1e3, ulp64: 0, ulp32: 0},
	{name: "pow", body: "pow(in0, in1)", ref: math.Pow, lo: 0, hi: 50, ylo: -30, yhi: 30, binary: true, ulp64: 8, ulp32: 1},
	{name: "pow-int", body: "pow(in0, floor(in1))", ref: func(x, y float64) float64 { return math.Pow(x, math.Floor(y)) }, lo: -3, hi: 3, ylo: -60, yhi: 60, binary: true, ulp64: 8, ulp32: 1},
	{name: "fmod", body: "rem(in0, in1)", ref: math.Mod, lo: -1e10, hi: 1e10, ylo: -1e3, yhi: 1e3, binary: true, ulp64: 0, ulp32: 0},
	{name: "div", body: "div(in0, in1)", ref: func(x, y float64) float64 { return x / y }, lo: -1e300, hi: 1e300, ylo: -1e300, yhi: 1e300, binary: true, ulp64: 0, ulp32: 0},
}

// sweep returns n arguments: uniform in [lo, hi] and, for wide ranges, log-uniform in magnitude.
func sweep(r *rand.Rand, lo, hi float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		switch {
		case i%2 == 0 || lo == hi:
			out[i] = lo + (hi-lo)*r.Float64()
		default:
			// log-uniform magnitude within the range
			m := math.Max(math.Abs(lo), math.Abs(hi))
			v := math.Exp(r.Float64()*math.Log(m/1e-300+1)) * 1e-300
			if lo < 0 && r.IntN(2) == 0 {
				v = -v
			}
			out[i] = math.Max(lo, math.Min(hi, v))
		}
	}
	return out
}

// ulps returns the distance in units in the last place between a and b of type t.
func ulps(a, b float64, t ir.DType) float64 {
	if math.IsNaN(a) && math.IsNaN(b) || a == b {
		return 0
	}
	if math.IsNaN(a) || math.IsNaN(b) || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return math.Inf(1)
	}
	// distance between the two values on the ordered line of bit patterns
	ord := func(v float64) int64 {
		if t == ir.F32 {
			b := int64(math.Float32bits(float32(v)))
			if b&(1<<31) != 0 {
				b = (1 << 31) - b
			}
			return b
		}
		b := int64(math.Float64bits(v))
		if b < 0 {
			b = math.MinInt64 - b
		}
		return b
	}
	x, y := ord(a), ord(b)
	if (x < 0) != (y < 0) {
		return float64(x) - float64(y) // opposite signs: far apart, precision does not matter
	}
	d := x - y
	if d < 0 {
		d = -d
	}
	return float64(d)
}

// mathCases builds one case per function and type over n arguments.
func mathCases(t *testing.T, n int, seed uint64) ([]string, []*e2e.Case, []mathFn) {
	r := rand.New(rand.NewPCG(seed, 7))
	var names []string
	var cases []*e2e.Case
	var fns []mathFn
	for _, f := range mathFns {
		for _, ty := range []ir.DType{ir.F64, ir.F32} {
			if f.only != 0 && f.only != ty {
				continue
			}
			nargs := 1
			if f.binary {
				nargs = 2
			}
			s := genericSpec{domain: "{ [i] : 0 <= i < " + itoa(int64(n)) + " }", out: "{ [i] -> [i] }", body: f.body, typ: ir.StaticType(ty, int64(n)).String()}
			for k := 0; k < nargs; k++ {
				s.inputs = append(s.inputs, ir.StaticType(ty, int64(n)))
				s.access = append(s.access, "{ [i] -> [i] }")
			}
			g, err := genericGraph(s)
			require.NoError(t, err)
			var ins []*ir.Tensor
			for k := 0; k < nargs; k++ {
				lo, hi := f.lo, f.hi
				if k == 1 {
					lo, hi = f.ylo, f.yhi
				}
				x := ir.NewTensor(ty, []int64{int64(n)})
				for i, v := range sweep(r, lo, hi, n) {
					x.F[i] = ir.RoundFloat(ty, v)
				}
				ins = append(ins, x)
			}
			names = append(names, f.name+"/"+ty.String())
			cases = append(cases, &e2e.Case{Graph: g, Inputs: ins})
			fns = append(fns, f)
		}
	}
	return names, cases, fns
}

func TestMathAccuracy(t *testing.T) {
	mathAccuracy(t, e2e.Host(), false)
}

// fusedX86 is x86-64 code with FMA3: float32 math fuses its multiply-adds (llvm.fma).
var fusedX86 = e2e.Machine{Target: "x86-64", CPU: "x86-64-v3"}

// TestMathAccuracyFused sweeps float32 math as CPUs with a fused multiply-add compute it.
func TestMathAccuracyFused(t *testing.T) {
	if e2e.SkipUncapped(t, fusedX86) || !e2e.CanRun(t, fusedX86) {
		return
	}
	mathAccuracy(t, fusedX86, false)
}

// TestMathAccuracyNewton sweeps float32 math as HVX vectors compute it: quotients through a
// Newton reciprocal.
func TestMathAccuracyNewton(t *testing.T) {
	m := e2e.Host()
	m.NewtonReciprocal = true
	mathAccuracy(t, m, true)
}

func mathAccuracy(t *testing.T, m e2e.Machine, newton bool) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	n := 1 << 16
	if *mathSweep > 0 {
		n = *mathSweep
	}
	if testing.Short() {
		n = 1 << 12
	}
	names, cases, fns := mathCases(t, n, 1)
	ctx := context.Background()
	p, err := e2e.BuildBatch(ctx, t.TempDir(), m, cases)
	require.NoError(t, err)
	res := p.Run(ctx)
	for i, c := range cases {
		require.NoError(t, res[i].Err, names[i])
		require.Zero(t, res[i].Status, names[i])
		ty := c.Graph.Outputs[0].Type.Elem
		got := res[i].Outputs[0]
		worst, at := 0.0, 0
		for j := range got.F {
			y := 0.0
			if len(c.Inputs) > 1 {
				y = c.Inputs[1].F[j]
			}
			want := fns[i].ref(c.Inputs[0].F[j], y)
			if fns[i].name == "pow-int" {
				want = fns[i].ref(c.Inputs[0].F[j], y)
			}
			want = ir.RoundFloat(ty, want)
			if u := ulps(got.F[j], want, ty); u > worst {
				worst, at = u, j
			}
		}
		bound := fns[i].ulp64
		if ty == ir.F32 {
			bound = fns[i].ulp32
			if newton && fns[i].ulpNewton > 0 {
				bound = fns[i].ulpNewton
			}
		}
		t.Logf("%-14s max error %g ulp (at x = %g)", names[i], worst, c.Inputs[0].F[at])
		if worst > bound {
			y := 0.0
			if len(c.Inputs) > 1 {
				y = c.Inputs[1].F[at]
			}
			t.Errorf("%s: %g ulp at (%g, %g): got %g, Go gives %g (bound %g)", names[i], worst, c.Inputs[0].F[at], y, got.F[at], fns[i].ref(c.Inputs[0].F[at], y), bound)
		}
	}
}

// TestMathBitsEqualAcrossTargets runs the sweep on pairs of targets of the same FMA capability,
// which must give the same bits: Hexagon keeps mul and add (no HVX vector FMA) as baseline
// x86-64 does; AArch64 fuses as x86-64-v3 does (one correctly rounded llvm.fma each).
func TestMathBitsEqualAcrossTargets(t *testing.T) {
	if testing.Short() {
		t.Skip("qemu run")
	}
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	for _, pair := range [][2]e2e.Machine{{e2e.Host(), e2e.HexagonScalar()}, {fusedX86, e2e.AArch64("generic")}} {
		t.Run(pair[1].Target, func(t *testing.T) {
			if !e2e.CanRun(t, pair[0]) || !e2e.CanRun(t, pair[1]) {
				return
			}
			mathBitsEqual(t, pair[0], pair[1])
		})
	}
}

// TestMathFusesWhereTargetsFMA checks which modules' float32 math calls llvm.fma: those of
// CPUs with a hardware fused multiply-add for floats and their vectors, and no other (an
// --mattr that removes FMA3 keeps mul and add, as llvm.fma would become a libm call there).
func TestMathFusesWhereTargetsFMA(t *testing.T) {
	n := int64(256)
	g, err := genericGraph(genericSpec{domain: "{ [i] : 0 <= i < 256 }", out: "{ [i] -> [i] }", body: "mul(in0, sigmoid(in0))",
		typ: ir.StaticType(ir.F32, n).String(), inputs: []ir.TensorType{ir.StaticType(ir.F32, n)}, access: []string{"{ [i] -> [i] }"}})
	require.NoError(t, err)
	for _, c := range []struct {
		m     e2e.Machine
		fused bool
	}{
		{e2e.Host(), false},
		{e2e.Machine{Target: "x86-64", CPU: "x86-64-v2"}, false},
		{fusedX86, true},
		{e2e.Machine{Target: "x86-64", CPU: "znver3"}, true},
		{e2e.Machine{Target: "x86-64", CPU: "x86-64-v4"}, true},
		{e2e.Machine{Target: "x86-64", CPU: "x86-64-v3", Attrs: "-fma"}, false},
		{e2e.AArch64("generic"), true},
		{e2e.HexagonScalar(), false},
		{e2e.Machine{Target: "hexagon"}, false},
	} {
		cfg, err := c.m.Config()
		require.NoError(t, err)
		text := loweredModule(t, g, cfg)
		require.Equal(t, c.fused, strings.Contains(text, "@llvm.fma."), "%s %s", c.m, c.m.Attrs)
	}
}

// mathBitsEqual checks that machines a and b compute the sweep's float math to the same bits.
func mathBitsEqual(t *testing.T, ma, mb e2e.Machine) {
	names, cases, _ := mathCases(t, 1<<11, 2)
	ctx := context.Background()
	pa, err := e2e.BuildBatch(ctx, t.TempDir(), ma, cases)
	require.NoError(t, err)
	pb, err := e2e.BuildBatch(ctx, t.TempDir(), mb, cases)
	require.NoError(t, err)
	ra, rb := pa.Run(ctx), pb.Run(ctx)
	for i := range cases {
		require.NoError(t, ra[i].Err, names[i])
		require.NoError(t, rb[i].Err, names[i])
		a, b := ra[i].Outputs[0], rb[i].Outputs[0]
		for j := range a.F {
			nan := math.IsNaN(a.F[j]) && math.IsNaN(b.F[j]) // NaN signs may differ
			if !nan && (a.F[j] != b.F[j] || math.Signbit(a.F[j]) != math.Signbit(b.F[j])) {
				t.Errorf("%s: element %d (x = %g): %s %v, %s %v", names[i], j, cases[i].Inputs[0].F[j], ma, a.F[j], mb, b.F[j])
				break
			}
		}
	}
}

// bigExp returns e^x correctly rounded to float64, computed with 300-bit arithmetic.
func bigExp(x float64) float64 {
	const prec = 300
	if x == 0 {
		return 1
	}
	// e^x = (e^(x/2^s))^(2^s) with |x/2^s| < 2^-10, Taylor series for the small argument
	s := 0
	for math.Abs(x)/math.Pow(2, float64(s)) > 1.0/1024 {
		s++
	}
	r := new(big.Float).SetPrec(prec).SetFloat64(x)
	r.SetMantExp(r, -s)
	sum := new(big.Float).SetPrec(prec).SetInt64(1)
	term := new(big.Float).SetPrec(prec).SetInt64(1)
	for n := int64(1); n < 60; n++ {
		term.Mul(term, r)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(n))
		sum.Add(sum, term)
	}
	for i := 0; i < s; i++ {
		sum.Mul(sum, sum)
	}
	v, _ := sum.Float64()
	return v
}

func TestExpAgainstBigFloat(t *testing.T) {
	// the error of the runtime's exp against the correctly rounded value (not Go's)
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	n := 1 << 12
	g, err := genericGraph(genericSpec{inputs: []ir.TensorType{ir.StaticType(ir.F64, int64(n))}, domain: "{ [i] : 0 <= i < " + itoa(int64(n)) + " }",
		access: []string{"{ [i] -> [i] }"}, out: "{ [i] -> [i] }", body: "exp(in0)", typ: ir.StaticType(ir.F64, int64(n)).String()})
	require.NoError(t, err)
	x := ir.NewTensor(ir.F64, []int64{int64(n)})
	copy(x.F, sweep(rand.New(rand.NewPCG(11, 11)), -700, 700, n))
	ctx := context.Background()
	p, err := e2e.BuildBatch(ctx, t.TempDir(), e2e.Host(), []*e2e.Case{{Graph: g, Inputs: []*ir.Tensor{x}}})
	require.NoError(t, err)
	res := p.Run(ctx)[0]
	require.NoError(t, res.Err)
	worst, worstGo := 0.0, 0.0
	for i, v := range x.F {
		want := bigExp(v)
		worst = math.Max(worst, ulps(res.Outputs[0].F[i], want, ir.F64))
		worstGo = math.Max(worstGo, ulps(math.Exp(v), want, ir.F64))
	}
	t.Logf("exp/f64 against the correctly rounded value: graphc %g ulp, Go's math.Exp %g ulp", worst, worstGo)
	require.LessOrEqual(t, worst, 1.0)
}

// TestSigmoidTailIsExp checks float32 sigmoid's exp, which knows its argument is at most 0
// and scales once by 2^(k+64)·2^-64, against exp's two half scalings: below -17, 1 + e^x
// rounds to 1, so sigmoid(x) is e^x itself and must have exp's bits, subnormals included.
func TestSigmoidTailIsExp(t *testing.T) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	n := 1 << 12
	x := ir.NewTensor(ir.F32, []int64{int64(n)})
	for i, v := range sweep(rand.New(rand.NewPCG(12, 12)), -120, -17, n) {
		x.F[i] = ir.RoundFloat(ir.F32, v)
	}
	var cases []*e2e.Case
	for _, body := range []string{"sigmoid(in0)", "exp(in0)"} {
		g, err := genericGraph(genericSpec{inputs: []ir.TensorType{ir.StaticType(ir.F32, int64(n))}, domain: "{ [i] : 0 <= i < " + itoa(int64(n)) + " }",
			access: []string{"{ [i] -> [i] }"}, out: "{ [i] -> [i] }", body: body, typ: ir.StaticType(ir.F32, int64(n)).String()})
		require.NoError(t, err)
		cases = append(cases, &e2e.Case{Graph: g, Inputs: []*ir.Tensor{x}})
	}
	ctx := context.Background()
	p, err := e2e.BuildBatch(ctx, t.TempDir(), e2e.Host(), cases)
	require.NoError(t, err)
	res := p.Run(ctx)
	require.NoError(t, res[0].Err)
	require.NoError(t, res[1].Err)
	sub := 0
	for i, v := range x.F {
		s, e := res[0].Outputs[0].F[i], res[1].Outputs[0].F[i]
		require.Equal(t, math.Float32bits(float32(e)), math.Float32bits(float32(s)), "x = %g: sigmoid %g, exp %g", v, s, e)
		if e != 0 && math.Abs(e) < 0x1p-126 {
			sub++
		}
	}
	require.Positive(t, sub, "the sweep reaches subnormal results")
}
