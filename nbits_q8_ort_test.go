package graphc_test

// This file compares MatMulNBits at accuracy_level 4 (A quantized to int8 per block, as
// onnxruntime's MLAS CompInt8 does; frontend/onnx's quantizeBlocks and ir's matmul_nbits_q8)
// with onnxruntime, in the evaluator and as compiled code for the host (x86-64-v3 besides,
// built and run where the host can): 4-bit blocks of 32 and 128, with and without zero
// points, one row and several, and K not a multiple of the block (a zero-padded tail block,
// zero points ending in half a byte). Level 4 differs from level 0 by A's quantization error
// (about 1/254 of a block's largest |a| per element); the tolerance against onnxruntime is a
// float summation-order bound far below that, and the test requires the gap to level 0 to be
// over ten times the tolerance, so that it tells the two semantics apart.

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/internal/ortref"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
)

func TestNBitsAccuracyLevel4MatchesORT(t *testing.T) {
	if why := ortref.Missing(); why != "" {
		t.Skip(why)
	}
	ctx := context.Background()
	r := rand.New(rand.NewPCG(34, 4))
	for _, c := range []onnxgen.NBits{
		{M: 1, K: 256, N: 40, Block: 32, ZeroPoints: true},
		{M: 1, K: 256, N: 40, Block: 32},
		{M: 3, K: 512, N: 24, Block: 128, ZeroPoints: true},
		{M: 2, K: 512, N: 24, Block: 128},
		{M: 2, K: 200, N: 16, Block: 32, ZeroPoints: true}, // 7 blocks, the last of 8 values
		{M: 1, K: 1024, N: 72, Block: 32, ZeroPoints: true, Seed: 1},
	} {
		name := fmt.Sprintf("%dx%dx%d_b%d_zp%v", c.M, c.K, c.N, c.Block, c.ZeroPoints)
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			c.AccuracyLevel = 4
			p4 := filepath.Join(dir, "l4.onnx")
			require.NoError(t, c.Model().Write(p4))
			c.AccuracyLevel = 0
			p0 := filepath.Join(dir, "l0.onnx")
			require.NoError(t, c.Model().Write(p0))
			a := ir.NewTensor(ir.F32, []int64{int64(c.M), int64(c.K)})
			for i := range a.F {
				a.F[i] = float64(float32(r.NormFloat64()))
			}
			a.F[3] = 0 // a zero and a block of zeros (scale 0)
			for k := 0; k < min(c.K, c.Block); k++ {
				a.F[(c.M-1)*c.K+k] = 0
			}
			ins := []*ir.Tensor{a}
			want4, err := ortref.Run(ctx, p4, []string{"A"}, ins)
			require.NoError(t, err)
			want0, err := ortref.Run(ctx, p0, []string{"A"}, ins)
			require.NoError(t, err)
			g, err := graphc.Load(ctx, p4)
			require.NoError(t, err)
			kinds := opKinds(g)
			require.True(t, kinds["matmul_nbits_q8"] && !kinds["matmul_nbits"], "accuracy_level 4 imports as matmul_nbits_q8")
			got, err := eval.Run(g, map[string]*ir.Tensor{"A": a})
			require.NoError(t, err)
			// the tolerance: a few float roundings of the largest term sums (each output's
			// terms are bounded by Σ|a|·max|w|), far below the quantization gap to level 0
			tol := 0.0
			for _, y := range want4[0].F {
				tol = max(tol, math.Abs(y))
			}
			tol *= 2e-6
			gap := maxDiff(want4[0].F, want0[0].F)
			require.Greater(t, gap, 10*tol, "accuracy levels 0 and 4 differ by A's quantization")
			require.LessOrEqual(t, maxDiff(got[0].F, want4[0].F), tol, "the evaluator against onnxruntime (gap to level 0 %g)", gap)
			t.Logf("tolerance %.3g, evaluator %.3g, gap to level 0 %.3g", tol, maxDiff(got[0].F, want4[0].F), gap)
			for _, cpu := range []string{"native", "x86-64-v3"} {
				res, err := graphc.Compile(ctx, p4, graphc.WithCPU(cpu))
				require.NoError(t, err)
				prog, err := e2e.Build(ctx, t.TempDir(), res.Graph, res.Module)
				require.NoError(t, err)
				if ok, why := prog.CanExecute(); !ok {
					t.Logf("%s: built, not run: %s", cpu, why)
					continue
				}
				out, _, err := prog.Run(ctx, ins, nil, 1)
				require.NoError(t, err)
				require.LessOrEqual(t, maxDiff(out[0].F, want4[0].F), tol, "%s against onnxruntime", cpu)
				require.LessOrEqual(t, maxDiff(out[0].F, got[0].F), tol, "%s against the evaluator", cpu)
			}
		})
	}
}

// maxDiff is the largest |x[i] - y[i]|.
func maxDiff(x, y []float64) float64 {
	d := 0.0
	for i := range x {
		d = max(d, math.Abs(x[i]-y[i]))
	}
	return d
}
