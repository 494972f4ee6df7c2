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

// TestSubBytePacking: ONNX packs 4-bit elements two to a byte and 2-bit ones four, the first
// in the low bits; signed ones sign-extend when unpacked; float4 codes decode to its eight
// magnitudes and saturate (NaN becomes -0, as ONNX's reference does).
func TestSubBytePacking(t *testing.T) {
	i4 := ir.NewTensor(ir.I4, []int64{3})
	copy(i4.I, []int64{-8, 7, -1})
	require.Equal(t, []byte{0x78, 0x0f}, i4.PackSubByte())
	back, err := ir.UnpackSubByte(ir.I4, []int64{3}, []byte{0x78, 0x0f})
	require.NoError(t, err)
	require.Equal(t, i4.I, back.I)
	u2, err := ir.UnpackSubByte(ir.U2, []int64{5}, []byte{0b11100100, 0b10})
	require.NoError(t, err)
	require.Equal(t, []int64{0, 1, 2, 3, 2}, u2.I)
	require.Equal(t, int64(-7), ir.I4.WrapInt(9))
	require.Equal(t, int64(1), ir.I2.WrapInt(-3))
	f4, _ := ir.MiniFloatOf(ir.F4E2M1)
	var vals []float64
	for code := uint32(0); code < 8; code++ {
		vals = append(vals, f4.Decode(code))
	}
	require.Equal(t, []float64{0, 0.5, 1, 1.5, 2, 3, 4, 6}, vals)
	require.Equal(t, uint32(0x7), f4.Encode(float32(math.Inf(1)), false), "always saturates")
	require.Equal(t, uint32(0x8), f4.Encode(float32(math.NaN()), false))
	require.Equal(t, uint32(0xe), f4.Encode(-3.5, false), "a tie goes to the even code (4)")
}

// TestE8M0: the MX scale format is 2^(code - 127); conversions round up to a power of two and
// saturate; zero and negatives take the smallest code.
func TestE8M0(t *testing.T) {
	f, ok := ir.MiniFloatOf(ir.F8E8M0)
	require.True(t, ok)
	require.Equal(t, 0.125, f.Decode(124))
	require.True(t, math.IsNaN(f.Decode(255)))
	for _, c := range []struct {
		x    float32
		code uint32
	}{{0, 0}, {-3, 0}, {0.124, 124}, {0.25, 125}, {1.1, 128}, {2, 128}, {float32(math.Inf(1)), 254}, {float32(math.NaN()), 255}} {
		require.Equal(t, c.code, f.Encode(c.x, true), "%g", c.x)
	}
}
