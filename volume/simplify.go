// This file holds simplifications that rewrite constraints into equivalent, more readable ones.

package volume

// divsOutOfIneqs rewrites inequalities that use a div defined through an equality: when an
// equality pins d·q (q a div) to an expression E, an inequality c·q + r >= 0 is equivalent to
// (d/g)·(c·q + r) − (c/g)·(d·q − E) >= 0 with g = gcd(c, d), which no longer mentions q. So
// "i = 2q and 0 <= q <= 2" becomes "i = 2q and 0 <= i <= 4".
func (b *basic) divsOutOfIneqs() {
	ds := b.divStart()
	for _, e := range b.eqs {
		for k := len(b.divs) - 1; k >= 0; k-- {
			col := ds + k
			d := e[col]
			if d == 0 {
				continue
			}
			// the equality must not involve a later div (which could depend on q)
			if !isZeroFrom(e[:b.exStart()], col+1) {
				continue
			}
			for i, r := range b.ineqs {
				c := r[col]
				if c == 0 {
					continue
				}
				g := gcd(c, d)
				fr, fe := abs64(d)/g, c/g
				// the coefficient of q in fr*r - fe*e (e scaled to +|d|) is fr*c - fe*|d| = 0
				n := combine(fr, r, -fe, normSign(e, d))
				if n[col] != 0 {
					continue
				}
				b.ineqs[i] = n
			}
			break
		}
	}
}

// normSign returns e scaled so that its coefficient d has positive sign.
func normSign(e []int64, d int64) []int64 {
	if d > 0 {
		return e
	}
	return negRow(e)
}

// foldConstantDivs replaces every div whose numerator is a constant by its value.
func (b *basic) foldConstantDivs() {
	ds := b.divStart()
	for k, d := range b.divs {
		if !isZeroFrom(d.num, 1) {
			continue
		}
		v := floorDiv(d.num[0], d.den)
		col := ds + k
		fold := func(r []int64) {
			if r[col] != 0 {
				r[0] = addc(r[0], mulc(r[col], v))
				r[col] = 0
			}
		}
		for _, r := range b.eqs {
			fold(r)
		}
		for _, r := range b.ineqs {
			fold(r)
		}
		for j := k + 1; j < len(b.divs); j++ {
			fold(b.divs[j].num)
		}
	}
}
