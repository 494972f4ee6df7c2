// This file fits integer tables with quasi-affine expressions: given t[x] for x in [0, n), it
// finds segments [lo, hi) on which t[x] = floor((p·x + b) / q) exactly. Resize computes its
// source indices with the floating-point formulas of the ONNX reference and turns them into
// exact access maps this way, so that its element map is exact and its indices bit-for-bit
// those of the reference.

package ir

import (
	"math"

	"github.com/graphc/graphc/volume"
)

// tableSegment is a run [lo, hi) of a table: t[x] = floor((p·x + b)/q), or no entry (none).
type tableSegment struct {
	lo, hi  int64
	p, b, q int64
	none    bool
}

// expr returns the segment's expression of iteration dim d.
func (s tableSegment) expr(d int) volume.Aff {
	return volume.AffDim(d).Mul(s.p).AddConst(s.b).FloorDiv(s.q)
}

// guard returns lo <= x < hi, leaving out the bounds that the whole range [0, n) implies.
func (s tableSegment) guard(d int, n int64) []volume.Constraint {
	var g []volume.Constraint
	if s.lo > 0 {
		g = append(g, volume.GE(volume.AffDim(d), volume.AffConst(s.lo)))
	}
	if s.hi < n {
		g = append(g, volume.LT(volume.AffDim(d), volume.AffConst(s.hi)))
	}
	return g
}

// slopeCandidates returns slopes p/q near alpha: the convergents of its continued fraction
// with q <= maxDen, and 0 (constant runs).
func slopeCandidates(alpha float64, maxDen int64) [][2]int64 {
	out := [][2]int64{{0, 1}}
	if math.IsNaN(alpha) || math.IsInf(alpha, 0) || alpha <= 0 {
		return out
	}
	// convergents h/k of alpha
	h0, h1 := int64(1), int64(math.Floor(alpha))
	k0, k1 := int64(0), int64(1)
	x := alpha - math.Floor(alpha)
	out = append(out, [2]int64{h1, k1})
	for i := 0; i < 40 && x > 1e-12; i++ {
		x = 1 / x
		a := int64(math.Floor(x))
		x -= math.Floor(x)
		h0, h1 = h1, a*h1+h0
		k0, k1 = k1, a*k1+k0
		if k1 > maxDen || h1 < 0 {
			break
		}
		out = append(out, [2]int64{h1, k1})
	}
	return out
}

// fitTable splits t into segments each given exactly by one floor((p·x + b)/q) with p/q among
// the candidates (entries < 0 mean "no entry" and form none segments). Greedy: each segment
// is the longest any candidate achieves from its start.
func fitTable(t []int64, cands [][2]int64) []tableSegment {
	var out []tableSegment
	n := int64(len(t))
	for x0 := int64(0); x0 < n; {
		if t[x0] < 0 {
			x1 := x0
			for x1 < n && t[x1] < 0 {
				x1++
			}
			out = append(out, tableSegment{lo: x0, hi: x1, none: true})
			x0 = x1
			continue
		}
		best := tableSegment{lo: x0, hi: x0 + 1, p: 0, b: t[x0], q: 1}
		for _, c := range cands {
			p, q := c[0], c[1]
			// b must satisfy q·t[x] <= p·x + b <= q·t[x] + q - 1 on the whole run
			bLo, bHi := int64(math.MinInt64), int64(math.MaxInt64)
			x := x0
			for ; x < n && t[x] >= 0; x++ {
				lo := q*t[x] - p*x
				hi := lo + q - 1
				nlo, nhi := max(bLo, lo), min(bHi, hi)
				if nlo > nhi {
					break
				}
				bLo, bHi = nlo, nhi
			}
			if x > best.hi {
				best = tableSegment{lo: x0, hi: x, p: p, b: bLo, q: q}
			}
		}
		out = append(out, best)
		x0 = best.hi
	}
	return out
}
