// This file holds the checked integer arithmetic every constraint manipulation goes through.

package volume

import "math/bits"

// overflow is the panic value raised when a coefficient leaves the int64 range.
// The arithmetic panics with ErrOverflow inside the package; guard.go turns it into an error value.
//
// The range is symmetric, [-(2^63-1), 2^63-1]: -2^63 counts as an overflow, so that every
// coefficient can be negated (printing x + c >= 0 as x >= -c, moving a term to the other side
// of a constraint). { [i] : i != 9223372036854775807 } once printed its second piece,
// i - 2^63 >= 0, as i >= -9223372036854775808 (FuzzParse).
type overflow struct{}

func addc(a, b int64) int64 {
	s := a + b
	if (s > a) != (b > 0) || s == -1<<63 {
		panic(overflow{})
	}
	return s
}

func subc(a, b int64) int64 {
	s := a - b
	if (s < a) != (b > 0) || s == -1<<63 {
		panic(overflow{})
	}
	return s
}

func mulc(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(abs64(a)), uint64(abs64(b)))
	if hi != 0 || lo > 1<<63-1 {
		panic(overflow{})
	}
	if (a < 0) != (b < 0) {
		return -int64(lo)
	}
	return int64(lo)
}

func negc(a int64) int64 {
	if a == -1<<63 {
		panic(overflow{})
	}
	return -a
}

func abs64(a int64) int64 {
	if a < 0 {
		if a == -1<<63 {
			panic(overflow{})
		}
		return -a
	}
	return a
}

func gcd(a, b int64) int64 {
	a, b = abs64(a), abs64(b)
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func lcm(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	return mulc(abs64(a)/gcd(a, b), abs64(b))
}

// floorDiv returns floor(a/b) for b > 0.
func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// ceilDiv returns ceil(a/b) for b > 0.
func ceilDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) == (b < 0)) {
		q++
	}
	return q
}

// modFloor returns a - b*floor(a/b), in [0, b) for b > 0.
func modFloor(a, b int64) int64 {
	m := a % b
	if m < 0 {
		m += b
	}
	return m
}

// rowGCD returns the gcd of row[from:].
func rowGCD(row []int64, from int) int64 {
	var g int64
	for _, v := range row[from:] {
		if v != 0 {
			g = gcd(g, v)
			if g == 1 {
				return 1
			}
		}
	}
	return g
}

// combine returns a*x + b*y elementwise (checked).
func combine(a int64, x []int64, b int64, y []int64) []int64 {
	r := make([]int64, len(x))
	for i := range x {
		r[i] = addc(mulc(a, x[i]), mulc(b, y[i]))
	}
	return r
}

// combineInto writes a*x + b*y elementwise (checked) into r.
func combineInto(r []int64, a int64, x []int64, b int64, y []int64) {
	for i := range x {
		r[i] = addc(mulc(a, x[i]), mulc(b, y[i]))
	}
}

func isZeroFrom(row []int64, from int) bool {
	for _, v := range row[from:] {
		if v != 0 {
			return false
		}
	}
	return true
}

func negRow(row []int64) []int64 {
	r := make([]int64, len(row))
	for i, v := range row {
		r[i] = negc(v)
	}
	return r
}

func cloneRow(row []int64) []int64 { return append([]int64(nil), row...) }

func equalRows(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
