// This file holds the narrow floating-point storage formats (bfloat16 and the four float8
// variants of ONNX): their encodings, conversions from float32 with round-to-nearest-even and
// ONNX's saturation, and decoding. Values of these types are computed in float32 and rounded
// to the format after every operation (RoundFloat, which does not saturate: Cast clamps first
// when ONNX's saturate asks for it), as float16 is.

package ir

import "math"

// MiniFloat describes a narrow float format: Bits wide, Exp exponent bits, Mant mantissa bits
// and exponent bias Bias; Inf formats have IEEE infinities and NaNs (exponent all ones), the
// others none (their NaN is NaNBits); UZ formats have no negative zero (0x80 is their NaN).
// MaxBits is the encoding of the largest finite magnitude.
type MiniFloat struct {
	Bits, Exp, Mant, Bias int
	Inf, UZ               bool
	MaxBits, NaNBits      uint32
}

// MiniFloatOf returns the format of a narrow float type (ok=false for other types).
func MiniFloatOf(t DType) (MiniFloat, bool) {
	switch t {
	case BF16:
		return MiniFloat{Bits: 16, Exp: 8, Mant: 7, Bias: 127, Inf: true, MaxBits: 0x7f7f, NaNBits: 0x7fc0}, true
	case F8E4M3FN:
		return MiniFloat{Bits: 8, Exp: 4, Mant: 3, Bias: 7, MaxBits: 0x7e, NaNBits: 0x7f}, true
	case F8E4M3FNUZ:
		return MiniFloat{Bits: 8, Exp: 4, Mant: 3, Bias: 8, UZ: true, MaxBits: 0x7f, NaNBits: 0x80}, true
	case F8E5M2:
		return MiniFloat{Bits: 8, Exp: 5, Mant: 2, Bias: 15, Inf: true, MaxBits: 0x7b, NaNBits: 0x7e}, true
	case F8E5M2FNUZ:
		return MiniFloat{Bits: 8, Exp: 5, Mant: 2, Bias: 16, UZ: true, MaxBits: 0x7f, NaNBits: 0x80}, true
	}
	return MiniFloat{}, false
}

// signBit returns the sign bit of the format's encoding.
func (f MiniFloat) signBit() uint32 { return 1 << (f.Bits - 1) }

// Encode converts a float32 to the format, rounding to nearest even. With saturate, values
// beyond the largest finite one (infinities too) become it; without, they become infinities
// (formats that have them) or NaN. NaN stays NaN; UZ formats lose the sign of zero.
func (f MiniFloat) Encode(x float32, saturate bool) uint32 {
	b := math.Float32bits(x)
	sign := (b >> 31) * f.signBit()
	e8 := int((b >> 23) & 0xff)
	m23 := b & 0x7fffff
	nan := f.NaNBits
	if !f.UZ {
		nan |= sign
	}
	overflow := func() uint32 {
		switch {
		case saturate:
			return sign | f.MaxBits
		case f.Inf:
			return sign | (f.MaxBits + 1) // the IEEE infinity follows the largest finite value
		}
		return nan
	}
	if e8 == 0xff {
		if m23 != 0 {
			return nan
		}
		return overflow()
	}
	M := uint(f.Mant)
	exp := e8 - 127 + f.Bias
	var h uint32
	if exp >= 1 && e8 != 0 {
		h = uint32(exp)<<M | m23>>(23-M)
		rem := m23 & (1<<(23-M) - 1)
		half := uint32(1) << (22 - M)
		if rem > half || rem == half && h&1 == 1 {
			h++
		}
	} else {
		// a subnormal of the format (f32 subnormals have no implicit bit)
		mi := m23
		if e8 != 0 {
			mi |= 1 << 23
		} else {
			exp = 1 - 127 + f.Bias
		}
		shift := int(23-M) + 1 - exp
		if shift > 31 {
			h = 0
		} else {
			h = mi >> uint(shift)
			rem := mi & (1<<uint(shift) - 1)
			half := uint32(1) << uint(shift-1)
			if rem > half || rem == half && h&1 == 1 {
				h++
			}
		}
	}
	if h > f.MaxBits {
		return overflow()
	}
	if h == 0 && f.UZ {
		return 0
	}
	return sign | h
}

// Decode returns the value of an encoding.
func (f MiniFloat) Decode(bits uint32) float64 {
	sign := bits&f.signBit() != 0
	h := bits &^ f.signBit()
	nan := math.NaN()
	if sign {
		nan = -nan
	}
	switch {
	case f.UZ && bits == f.NaNBits, !f.UZ && !f.Inf && h == f.NaNBits:
		return nan
	case f.Inf && h > f.MaxBits+1:
		return nan
	case f.Inf && h == f.MaxBits+1:
		if sign {
			return math.Inf(-1)
		}
		return math.Inf(1)
	}
	M := uint(f.Mant)
	e := int(h >> M)
	m := float64(h & (1<<M - 1))
	var v float64
	if e == 0 {
		v = math.Ldexp(m, 1-f.Bias-int(M))
	} else {
		v = math.Ldexp(m+float64(uint32(1)<<M), e-f.Bias-int(M))
	}
	if sign {
		v = -v
	}
	return v
}
