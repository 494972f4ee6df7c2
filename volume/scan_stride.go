// This file holds stride detection: a congruence of the scanned dimension (an equality with
// divs of that dimension, as (i + j) mod 2 = 0 or i = 4e + 1 give) becomes the step of its loop
// and an offset its first value is aligned to.

package volume

// strideOf reads the stride of dim d from the equality row of j: c·x + Σ m_k·q_k + g = 0 with
// q_k divs of d gives c·x + g ≡ 0 (mod m), m = gcd(m_k), that is x ≡ off (mod m) when gcd(c, m)
// = 1. It also returns the congruence as an equality over j's columns plus one free integer
// column (c·x + g − m·e = 0), for the implication tests. ok is false when row gives no stride.
func strideOf(j *basic, lv []int, row []int64, d int, params []string) (m int64, off Aff, cong []int64, ok bool) {
	colD := 1 + j.nParam + d
	c := row[colD]
	g := cloneRow(row)
	g[colD] = 0
	for k, l := range lv {
		if l == d && row[j.divStart()+k] != 0 {
			m = gcd(m, row[j.divStart()+k])
			g[j.divStart()+k] = 0
		}
	}
	if c == 0 || m <= 1 || gcd(c, m) != 1 {
		return 0, Aff{}, nil, false
	}
	inv := modInverse(modFloor(c, m), m)
	off = reduceMod(j.rowAff(g, params).mul(-inv), m)
	cong = append(cloneRow(row), 0)
	for k, l := range lv {
		if l == d {
			cong[j.divStart()+k] = 0
		}
	}
	cong[len(cong)-1] = -m
	return m, off, cong, true
}

// modInverse returns the inverse of a modulo m (gcd(a, m) = 1, m > 1).
func modInverse(a, m int64) int64 {
	// extended Euclid
	g, x := m, int64(0)
	r, y := a, int64(1)
	for r != 0 {
		q := g / r
		g, r = r, g-q*r
		x, y = y, x-q*y
	}
	return modFloor(x, m)
}

// reduceMod returns an expression congruent to a modulo m with every coefficient in [0, m).
func reduceMod(a Aff, m int64) Aff {
	r := Aff{Const: modFloor(a.Const, m)}
	for _, c := range a.Dims {
		r.Dims = append(r.Dims, modFloor(c, m))
	}
	for _, p := range a.Params {
		r.Params = append(r.Params, ParamTerm{p.Name, modFloor(p.Coef, m)})
	}
	for _, f := range a.Floors {
		r.Floors = append(r.Floors, FloorTerm{modFloor(f.Coef, m), f.Num, f.Den})
	}
	return r.canon()
}
