package ir_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/ir"
)

// TestMiniFloatCodes: every finite encoding decodes to a value that encodes back to it; the
// largest values and the NaN encodings are the ONNX ones (E4M3FN 448, E4M3FNUZ 240, E5M2 and
// E5M2FNUZ 57344), and halfway values round to the even code.
func TestMiniFloatCodes(t *testing.T) {
	for ty, max := range map[ir.DType]float64{ir.F8E4M3FN: 448, ir.F8E4M3FNUZ: 240, ir.F8E5M2: 57344, ir.F8E5M2FNUZ: 57344, ir.BF16: 3.3895313892515355e38} {
		f, ok := ir.MiniFloatOf(ty)
		require.True(t, ok)
		require.Equal(t, max, f.Decode(f.MaxBits), "%s", ty)
		require.True(t, math.IsNaN(f.Decode(f.NaNBits)), "%s", ty)
		for code := uint32(0); code < 1<<f.Bits; code++ {
			v := f.Decode(code)
			if math.IsNaN(v) || math.IsInf(v, 0) || f.UZ && code == 0x80 {
				continue
			}
			require.Equal(t, code, f.Encode(float32(v), false), "%s code %#x (%g)", ty, code, v)
		}
		// beyond the largest value: saturation, or infinity / NaN
		require.Equal(t, f.MaxBits, f.Encode(float32(2*max), true), "%s", ty)
		if f.Inf {
			require.True(t, math.IsInf(f.Decode(f.Encode(float32(2*max), false)), 1), "%s", ty)
		} else {
			require.True(t, math.IsNaN(f.Decode(f.Encode(float32(2*max), false))), "%s", ty)
		}
	}
	e4, _ := ir.MiniFloatOf(ir.F8E4M3FN)
	// 1.0625 lies halfway between 1 (0x38) and 1.125 (0x39): the even code wins; 1.1875 rounds to 1.25
	require.Equal(t, uint32(0x38), e4.Encode(1.0625, true))
	require.Equal(t, uint32(0x3a), e4.Encode(1.1875, true))
	// the smallest subnormal is 2^-9; a quarter of it rounds to 0, three quarters to it
	require.Equal(t, uint32(0), e4.Encode(float32(math.Ldexp(1, -11)), true))
	require.Equal(t, uint32(1), e4.Encode(float32(3*math.Ldexp(1, -11)), true))
	uz, _ := ir.MiniFloatOf(ir.F8E4M3FNUZ)
	require.Equal(t, uint32(0), uz.Encode(float32(math.Copysign(0, -1)), true), "no negative zero")
}
