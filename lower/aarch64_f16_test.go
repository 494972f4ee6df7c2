package lower_test

// This file checks AArch64's hardware binary16 conversions (f16_hw.go) bit for bit against
// ir's: every f16 code widened to f32, a sweep of f32 values with every special rounded to f16,
// and f16 arithmetic (vector and scalar loops) against the evaluator, under qemu-aarch64.

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
)

func TestAArch64HalfConversions(t *testing.T) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	if why := e2e.AArch64Missing(); why != "" {
		t.Skip("AArch64 under qemu: " + why)
	}
	cast := func(from, to ir.DType, n int64) *ir.Graph {
		g := ir.NewGraph("cast")
		x := g.AddInput("x", ir.StaticType(from, n))
		op, err := g.NewOp("cast", "c", []*ir.Value{x}, ir.Attrs{"to": ir.StringAttr(to.String())})
		require.NoError(t, err)
		g.Outputs = []*ir.Value{op.Result}
		return g
	}
	// every f16 code
	codes := make([]byte, 2<<16)
	for c := 0; c < 1<<16; c++ {
		codes[2*c], codes[2*c+1] = byte(c), byte(c>>8)
	}
	all, err := ir.TensorFromBytes(ir.F16, []int64{1 << 16}, codes)
	require.NoError(t, err)
	// f32 values around every f16 code, ties, specials, NaNs with payloads
	r := rand.New(rand.NewPCG(3, 9))
	var xs []float64
	for c := 0; c < 1<<15; c += 7 {
		v := all.F[c]
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		next := all.F[c+1]
		xs = append(xs, v, -v, float64(math.Nextafter32(float32(v), float32(math.Inf(1)))))
		if !math.IsNaN(next) && !math.IsInf(next, 0) {
			xs = append(xs, (v+next)/2)
		}
	}
	xs = append(xs, 0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), 65504, 65520, 65519.99, 1e-45, 3e38, -3e38)
	for i := 0; i < 2000; i++ {
		xs = append(xs, math.Ldexp(r.Float64()*2-1, r.IntN(50)-30))
	}
	for i := range xs {
		xs[i] = float64(float32(xs[i]))
	}
	f32 := ir.NewTensor(ir.F32, []int64{int64(len(xs)) + 3})
	copy(f32.F, xs)
	raw := f32.Bytes()
	// NaNs with payloads and signs, as bits
	for k, bits := range []uint32{0x7fc00001, 0xffa00000, 0x7f800001} {
		i := len(xs) + k
		raw[4*i], raw[4*i+1], raw[4*i+2], raw[4*i+3] = byte(bits), byte(bits>>8), byte(bits>>16), byte(bits>>24)
	}
	f32, err = ir.TensorFromBytes(ir.F32, f32.Shape, raw)
	require.NoError(t, err)
	cases := []*e2e.Case{
		{Graph: cast(ir.F16, ir.F32, 1<<16), Inputs: []*ir.Tensor{all}},
		{Graph: cast(ir.F32, ir.F16, f32.Shape[0]), Inputs: []*ir.Tensor{f32}},
	}
	for _, cpu := range []string{"generic", "cortex-a76"} {
		t.Run(cpu, func(t *testing.T) {
			ctx := context.Background()
			p, err := e2e.BuildBatch(ctx, t.TempDir(), e2e.AArch64(cpu), cases)
			require.NoError(t, err)
			res := p.Run(ctx)
			for i, c := range cases {
				want, err := eval.Run(c.Graph, map[string]*ir.Tensor{"x": c.Inputs[0]})
				require.NoError(t, err)
				require.NoError(t, res[i].Err)
				require.Zero(t, res[i].Status)
				// bit for bit; a NaN only as a NaN (the f16 inputs travel as ir.Tensor bytes,
				// which encode every NaN as 0x7e00 with its sign)
				got, exp := res[i].Outputs[0].Bytes(), want[0].Bytes()
				require.Len(t, got, len(exp))
				w := len(exp) / len(want[0].F)
				for k, v := range want[0].F {
					if math.IsNaN(v) {
						require.True(t, math.IsNaN(res[i].Outputs[0].F[k]), "case %d element %d: NaN", i, k)
						continue
					}
					require.Equal(t, exp[k*w:(k+1)*w], got[k*w:(k+1)*w], "case %d element %d (%g): bit for bit", i, k, v)
				}
			}
		})
	}
}

// TestAArch64HalfArithmetic runs f16 elementwise chains, a reduction and a matmul against the
// evaluator on cortex-a76.
func TestAArch64HalfArithmetic(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	var names []string
	var cases []*e2e.Case
	for _, src := range []string{
		`graph @ew(%a: f16[7, 37], %b: f16[7, 37]) {
  %c = add(%a, %b) : f16[7, 37]
  %d = mul(%c, %b) : f16[7, 37]
  %e = exp(%d) : f16[7, 37]
  return %e
}`,
		`graph @red(%a: f16[5, 300]) {
  %s = reduce_sum(%a) {axes = [1], keepdims = 0} : f16[5]
  return %s
}`,
		`graph @mm(%a: f16[9, 40], %b: f16[40, 19]) {
  %c = matmul(%a, %b) : f16[9, 19]
  return %c
}`,
	} {
		g, err := ir.Parse(src)
		require.NoError(t, err)
		names = append(names, g.Name)
		cases = append(cases, &e2e.Case{Graph: g, Inputs: inputsFor(r, g, nil, false)})
	}
	runCasesTol(t, e2e.AArch64("cortex-a76"), names, cases, func(ir.DType) (float64, float64) { return 2e-3, 2e-3 })
}
