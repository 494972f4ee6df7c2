package onnx_test

// This file tests DFT by round trips: the inverse of the forward transform, and the real
// inverse of the one-sided transform, give the signal back (along a middle axis, with an odd
// and an even length).

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
)

func TestDFTRoundTrips(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 20))
	for _, n := range []int{7, 8} {
		for _, onesided := range []int64{0, 1} {
			m := onnxgen.New("dft", 20)
			m.Input("X", ir.F32, 2, n, 3, 1)
			m.Init("axis", tensor(ir.I64, []int64{}, 1))
			m.Init("len", tensor(ir.I64, []int64{}, float64(n)))
			m.Node("DFT", "fwd", []string{"X", "", "axis"}, []string{"F"}, onnxgen.IntAttr("onesided", onesided))
			m.Node("DFT", "inv", []string{"F", "len", "axis"}, []string{"Y"}, onnxgen.IntAttr("inverse", 1), onnxgen.IntAttr("onesided", onesided))
			comps := 2 - int(onesided) // the real inverse gives real samples
			m.Output("Y", ir.F32, 2, n, 3, comps)
			x := randF32(r, 2, int64(n), 3, 1)
			y := runModel(t, m.Proto(), map[string]*ir.Tensor{"X": x})[0]
			for i, v := range x.F {
				require.InDelta(t, v, y.F[i*comps], 1e-5, "n = %d, onesided = %d, element %d", n, onesided, i)
				if comps == 2 {
					require.InDelta(t, 0, y.F[i*2+1], 1e-5)
				}
			}
		}
	}
}
