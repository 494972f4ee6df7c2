package lower_test

// This file checks the runtime's float8 and bfloat16 conversions bit for bit against ir's:
// casts from float32 (both saturation modes) over a sweep with every special value, as
// compiled x86-64 code.

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

// miniSweep returns float32 values around every encoding of f (below, at and between codes),
// the specials and random magnitudes.
func miniSweep(r *rand.Rand, f ir.MiniFloat) []float64 {
	out := []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), 1e-45, -1e-45, 3e38, -3e38}
	for code := uint32(0); code < 1<<f.Bits && code < 1<<12; code++ {
		v := f.Decode(code)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		next := f.Decode(code + 1)
		out = append(out, v, float64(math.Nextafter32(float32(v), float32(math.Inf(1)))))
		if !math.IsNaN(next) && !math.IsInf(next, 0) && math.Abs(next) > math.Abs(v) {
			out = append(out, (v+next)/2)
		}
	}
	for i := 0; i < 1000; i++ {
		out = append(out, math.Ldexp(r.Float64()*2-1, r.IntN(60)-30))
	}
	for i := range out {
		out[i] = float64(float32(out[i]))
	}
	return out
}

func TestMiniFloatConversions(t *testing.T) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	r := rand.New(rand.NewPCG(8, 16))
	var cases []*e2e.Case
	var wants []*ir.Tensor
	var names []string
	for _, ty := range []ir.DType{ir.BF16, ir.F8E4M3FN, ir.F8E4M3FNUZ, ir.F8E5M2, ir.F8E5M2FNUZ} {
		f, _ := ir.MiniFloatOf(ty)
		xs := miniSweep(r, f)
		for _, sat := range []int64{1, 0} {
			n := int64(len(xs))
			g := ir.NewGraph("cast")
			x := g.AddInput("x", ir.StaticType(ir.F32, n))
			op, err := g.NewOp("cast", "c", []*ir.Value{x}, ir.Attrs{"to": ir.StringAttr(ty.String()), "saturate": ir.IntAttr(sat)})
			require.NoError(t, err)
			g.Outputs = []*ir.Value{op.Result}
			in := ir.NewTensor(ir.F32, []int64{n})
			copy(in.F, xs)
			want, err := eval.Run(g, map[string]*ir.Tensor{"x": in})
			require.NoError(t, err)
			cases = append(cases, &e2e.Case{Graph: g, Inputs: []*ir.Tensor{in}})
			wants = append(wants, want[0])
			names = append(names, ty.String())
		}
	}
	ctx := context.Background()
	p, err := e2e.BuildBatch(ctx, t.TempDir(), e2e.Host(), cases)
	require.NoError(t, err)
	res := p.Run(ctx)
	for i := range cases {
		require.NoError(t, res[i].Err, names[i])
		require.Zero(t, res[i].Status, names[i])
		require.Equal(t, wants[i].Bytes(), res[i].Outputs[0].Bytes(), "%s (saturate %d)", names[i], 1-i%2)
	}
}
