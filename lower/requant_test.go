// This file tests requantization on integer vectors (requant.go) against the evaluator's float
// semantics, under qemu-hexagon as hexagonv67 HVX code: accumulators over the whole i32 range
// (24-bit boundaries, INT_MIN), multipliers tiny, denormal, large, negative, zero, infinite and
// NaN, per tensor and per column, every quantized result type, and rounding ties.

package lower_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/ir"
)

func TestIntRequantHVX(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 71))
	specials := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 1e-40, 1e-45, 3e38,
		0.5, 0.25, 1, 2, 1e-9, 1e5, -0.003, 0.0123, 1.0 / 3}
	var names []string
	var cases []*e2e.Case
	for _, c := range []struct {
		name     string
		zt       ir.DType
		perCol   bool
		rows, cc int64
	}{
		{"u8-tensor", ir.U8, false, 7, 100},
		{"i8-cols", ir.I8, true, 5, 67},
		{"u16-cols", ir.U16, true, 3, 40},
		{"i16-tensor", ir.I16, false, 4, 33},
	} {
		for _, m := range append(specials[:len(specials):len(specials)], r.Float64()*1e-3, r.Float64()*1e-6) {
			g := ir.NewGraph("rq")
			acc := g.AddInput("acc", ir.StaticType(ir.I32, c.rows, c.cc))
			mt := ir.StaticType(ir.F32)
			if c.perCol {
				mt = ir.StaticType(ir.F32, c.cc)
			}
			mv := g.AddInput("m", mt)
			zv := g.AddInput("z", ir.StaticType(c.zt))
			op, err := g.NewOp("requantize", "y", []*ir.Value{acc, mv, zv}, ir.Attrs{"axis": ir.IntAttr(1)})
			require.NoError(t, err)
			g.Outputs = []*ir.Value{op.Result}
			a := ir.NewTensor(ir.I32, []int64{c.rows, c.cc})
			for i := range a.I {
				switch r.IntN(6) {
				case 0:
					a.I[i] = int64(int32(r.Uint32()))
				case 1:
					a.I[i] = []int64{math.MinInt32, math.MaxInt32, 0, 1 << 24, 1<<24 + 1, -(1<<24 + 3), 1<<24 - 1}[r.IntN(7)]
				default:
					a.I[i] = r.Int64N(1<<18) - 1<<17
				}
			}
			ms, _ := mt.StaticShape()
			mm := ir.NewTensor(ir.F32, ms)
			for i := range mm.F {
				mm.F[i] = float64(float32(m))
				if c.perCol && i%3 == 1 {
					mm.F[i] = float64(float32(specials[r.IntN(len(specials))]))
				}
			}
			z := ir.NewTensor(c.zt, nil)
			lo, hi, _ := ir.QuantRange(c.zt)
			z.I[0] = int64(lo) + r.Int64N(int64(hi-lo)+1)
			names = append(names, c.name)
			cases = append(cases, &e2e.Case{Graph: g, Inputs: []*ir.Tensor{a, mm, z}})
		}
	}
	// requantize runs on HVX integer vectors (testdata/lowering/requant_hvx.graph checks the
	// first graph's strategy)
	runCases(t, e2e.HexagonHVX(), names, cases)
}
