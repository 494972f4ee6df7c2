// This file holds the brute-force property tests: every operation on random bounded sets and maps
// (several dims, parameters fixed to several values, strides, mods, existentials, negations) is
// compared with the oracle, which evaluates the generated formulas point by point.

package volume

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func (g *gen) set(nsp int) (oval, Set) {
	v := g.value(setPool, nsp)
	return v, MustParseSet(v.text)
}

func (g *gen) mapv(nsp int) (oval, Map) {
	v := g.value(mapPool, nsp)
	return v, MustParseMap(v.text)
}

func TestOracleParseSet(t *testing.T) {
	cases(t, 1, func(t *testing.T, g *gen) bool {
		v, s := g.set(len(setPool))
		return checkSet(t, "parse "+v.text, s, v.spaces(), v.points())
	})
}

func TestOracleParseMap(t *testing.T) {
	cases(t, 2, func(t *testing.T, g *gen) bool {
		v, m := g.mapv(len(mapPool))
		return checkMap(t, "parse "+v.text, m, v.spaces(), v.points())
	})
}

func TestOraclePrintSet(t *testing.T) {
	cases(t, 3, func(t *testing.T, g *gen) bool {
		v, s := g.set(len(setPool))
		text := s.String()
		r, err := ParseSet(text)
		if err != nil {
			t.Errorf("printed set does not parse: %v\ninput: %s\nprinted: %s", err, v.text, text)
			return false
		}
		if again := r.String(); again != text {
			t.Errorf("print/parse/print unstable:\n%s\n%s", text, again)
			return false
		}
		return checkSet(t, "reparse of "+text, r, v.spaces(), v.points())
	})
}

func TestOraclePrintMap(t *testing.T) {
	cases(t, 4, func(t *testing.T, g *gen) bool {
		v, m := g.mapv(len(mapPool))
		text := m.String()
		r, err := ParseMap(text)
		if err != nil {
			t.Errorf("printed map does not parse: %v\ninput: %s\nprinted: %s", err, v.text, text)
			return false
		}
		if again := r.String(); again != text {
			t.Errorf("print/parse/print unstable:\n%s\n%s", text, again)
			return false
		}
		return checkMap(t, "reparse of "+text, r, v.spaces(), v.points())
	})
}

// binarySet checks a binary set operation against its pointwise definition.
func binarySet(t *testing.T, salt uint64, name string, op func(a, b Set) Set, want func(a, b bool) bool) {
	cases(t, salt, func(t *testing.T, g *gen) bool {
		va, a := g.set(2)
		vb, b := g.set(2)
		pa, pb := va.points(), vb.points()
		sps := unionSpaces(va.spaces(), vb.spaces())
		w := pset{}
		for _, sp := range sps {
			inA, inB := containsSpace(va.spaces(), sp), containsSpace(vb.spaces(), sp)
			forAllPoints(sp, func(pv map[string]int64, x []int64) {
				k := mkKey(sp, pv, x)
				r := want(pa[k], pb[k])
				if name == "intersect" && !(inA && inB) {
					r = false
				}
				if r {
					w[k] = true
				}
			})
		}
		before := rowsOf(a) + rowsOf(b)
		got := op(a, b)
		if after := rowsOf(a) + rowsOf(b); after != before {
			t.Errorf("%s modified its operands\n %s\n %s\nrows before %s\nrows after  %s", name, va.text, vb.text, before, after)
			return false
		}
		return checkSet(t, name+"\n "+va.text+"\n "+vb.text, got, sps, w)
	})
}

// rowsOf prints the rows of every piece of s: operations must not modify their operands, whose
// rows their results may share.
func rowsOf(s Set) string {
	var b strings.Builder
	for _, p := range s.u.pieces {
		fmt.Fprint(&b, p.eqs, p.ineqs, p.divs, ";")
	}
	return b.String()
}

func TestOracleIntersect(t *testing.T) {
	binarySet(t, 10, "intersect", Set.Intersect, func(a, b bool) bool { return a && b })
}

func TestOracleUnion(t *testing.T) {
	binarySet(t, 11, "union", Set.Union, func(a, b bool) bool { return a || b })
}

func TestOracleSubtract(t *testing.T) {
	binarySet(t, 12, "subtract", Set.Subtract, func(a, b bool) bool { return a && !b })
}

func TestOracleComplement(t *testing.T) {
	cases(t, 13, func(t *testing.T, g *gen) bool {
		v, s := g.set(len(setPool))
		p := v.points()
		w := pset{}
		for _, sp := range v.spaces() {
			forAllPoints(sp, func(pv map[string]int64, x []int64) {
				if k := mkKey(sp, pv, x); !p[k] {
					w[k] = true
				}
			})
		}
		return checkSet(t, "complement "+v.text, s.Complement(), v.spaces(), w)
	})
}

// emptyIn reports whether the oracle set has no point on the given spaces.
func emptyIn(p pset) bool { return len(p) == 0 }

func TestOracleIsEmpty(t *testing.T) {
	cases(t, 14, func(t *testing.T, g *gen) bool {
		va, a := g.set(2)
		vb, b := g.set(2)
		// intersections are often empty, single values rarely
		pa, pb := va.points(), vb.points()
		w := pset{}
		for k := range pa {
			if pb[k] {
				w[k] = true
			}
		}
		if got, want := a.Intersect(b).IsEmpty().holds(), emptyIn(w); got != want {
			t.Errorf("IsEmpty(%s * %s) = %v, want %v", va.text, vb.text, got, want)
			return false
		}
		if got, want := a.IsEmpty().holds(), emptyIn(pa); got != want {
			t.Errorf("IsEmpty(%s) = %v, want %v", va.text, got, want)
			return false
		}
		return true
	})
}

func subsetOf(a, b pset) bool {
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

func TestOracleIsSubsetIsEqual(t *testing.T) {
	cases(t, 15, func(t *testing.T, g *gen) bool {
		va, a := g.set(2)
		vb, b := g.set(2)
		pa, pb := va.points(), vb.points()
		// a ∩ b ⊆ a always; a ⊆ b rarely
		ab := a.Intersect(b)
		if !ab.IsSubset(a).holds() {
			t.Errorf("a * b not a subset of a: %s, %s", va.text, vb.text)
			return false
		}
		if got, want := a.IsSubset(b).holds(), subsetOf(pa, pb); got != want {
			t.Errorf("IsSubset(%s, %s) = %v, want %v", va.text, vb.text, got, want)
			return false
		}
		u := a.Union(b)
		if got, want := u.IsEqual(a).holds(), subsetOf(pb, pa); got != want {
			t.Errorf("IsEqual(a + b, a) = %v, want %v for %s, %s", got, want, va.text, vb.text)
			return false
		}
		return true
	})
}

func TestOracleSimplifyCoalesce(t *testing.T) {
	cases(t, 16, func(t *testing.T, g *gen) bool {
		v, s := g.set(len(setPool))
		p := v.points()
		c := s.Coalesce()
		if c.NPieces() > s.NPieces() {
			t.Errorf("coalesce grew %d pieces to %d: %s -> %s", s.NPieces(), c.NPieces(), s, c)
			return false
		}
		return checkSet(t, "simplify "+v.text, s.Simplify(), v.spaces(), p) &&
			checkSet(t, "coalesce "+v.text, c, v.spaces(), p)
	})
}

func TestOracleProjectOut(t *testing.T) {
	cases(t, 17, func(t *testing.T, g *gen) bool {
		v, s := g.set(1) // single space A[2]
		sp := v.spaces()[0]
		first := g.r.IntN(sp.ndim())
		n := g.r.IntN(sp.ndim()-first) + 1
		p := v.points()
		rsp := ospace{"", -1, sp.outName, sp.ndim() - n}
		w := pset{}
		for k := range p {
			x := append(append([]int64(nil), k.x[:first]...), k.x[first+n:sp.ndim()]...)
			w[mkKey(rsp, map[string]int64{"N": k.n, "M": k.m}, x)] = true
		}
		return checkSet(t, "project out "+v.text, s.ProjectOut(first, n), []ospace{rsp}, w)
	})
}

func TestOracleFixParam(t *testing.T) {
	cases(t, 18, func(t *testing.T, g *gen) bool {
		v, s := g.set(2)
		val := int64(g.r.IntN(3) - 1)
		p := v.points()
		w := pset{}
		for k := range p {
			if k.n == val {
				for m := int64(-pbox - 1); m <= pbox+1; m++ {
					k2 := k
					k2.n = m
					w[k2] = true
				}
			}
		}
		return checkSet(t, "fix N in "+v.text, s.FixParam("N", val), v.spaces(), w)
	})
}

func TestOracleIntersectParams(t *testing.T) {
	cases(t, 19, func(t *testing.T, g *gen) bool {
		v, s := g.set(2)
		lo := g.r.IntN(3) - 1
		ps := MustParseSet("[N] -> { [] : N >= " + itoa(lo) + " }")
		p := v.points()
		w := pset{}
		for k := range p {
			if k.n >= int64(lo) {
				w[k] = true
			}
		}
		return checkSet(t, "intersect params "+v.text, s.IntersectParams(ps), v.spaces(), w)
	})
}

func itoa(i int) string { return string(appendInt(nil, int64(i))) }

func appendInt(b []byte, v int64) []byte {
	if v < 0 {
		b = append(b, '-')
		v = -v
	}
	if v >= 10 {
		b = appendInt(b, v/10)
	}
	return append(b, byte('0'+v%10))
}

// image computes the oracle image of the points of s under the pairs of m.
func image(ps, pm pset, rev bool) pset {
	w := pset{}
	for k := range pm {
		sp := k.sp
		inSp := ospace{"", -1, sp.inName, sp.nIn}
		outSp := ospace{"", -1, sp.outName, sp.nOut}
		xin, xout := k.x[:sp.nIn], k.x[sp.nIn:sp.nIn+sp.nOut]
		if rev {
			inSp, outSp, xin, xout = outSp, inSp, xout, xin
		}
		if ps[mkKey(inSp, map[string]int64{"N": k.n, "M": k.m}, xin)] {
			w[mkKey(outSp, map[string]int64{"N": k.n, "M": k.m}, xout)] = true
		}
	}
	return w
}

func mapRangeSpaces(vm oval, rev bool) []ospace {
	var out []ospace
	for _, sp := range vm.spaces() {
		o := ospace{"", -1, sp.outName, sp.nOut}
		if rev {
			o = ospace{"", -1, sp.inName, sp.nIn}
		}
		if !containsSpace(out, o) {
			out = append(out, o)
		}
	}
	return out
}

func TestOracleApply(t *testing.T) {
	cases(t, 20, func(t *testing.T, g *gen) bool {
		vs, s := g.set(2)
		vm, m := g.mapv(3)
		w := image(vs.points(), vm.points(), false)
		return checkSet(t, "apply\n "+vs.text+"\n "+vm.text, s.Apply(m), mapRangeSpaces(vm, false), w)
	})
}

func TestOraclePreimage(t *testing.T) {
	cases(t, 21, func(t *testing.T, g *gen) bool {
		vs, s := g.set(2)
		vm, m := g.mapv(3)
		w := image(vs.points(), vm.points(), true)
		return checkSet(t, "preimage\n "+vs.text+"\n "+vm.text, s.Preimage(m), mapRangeSpaces(vm, true), w)
	})
}

func TestOracleSample(t *testing.T) {
	cases(t, 22, func(t *testing.T, g *gen) bool {
		v, s := g.set(len(setPool))
		p := v.points()
		pt, found := s.Sample()
		ok := found.holds()
		if ok != !emptyIn(p) {
			t.Errorf("Sample of %s: ok=%v, want %v", v.text, ok, !emptyIn(p))
			return false
		}
		if !ok {
			return true
		}
		pv := map[string]int64{"N": 0, "M": 0}
		for i, n := range s.Params() {
			pv[n] = pt.Params[i]
		}
		for _, sp := range v.spaces() {
			if sp.outName == pt.Tuple && sp.nOut == len(pt.Coords) && p[mkKey(sp, pv, pt.Coords)] {
				return true
			}
		}
		t.Errorf("Sample of %s = %+v, not a point of the set", v.text, pt)
		return false
	})
}

// fixAll binds the parameters of a generated set to values and returns the set and its oracle.
func fixAll(g *gen, v oval, s Set) (Set, pset, map[string]int64) {
	pv := map[string]int64{"N": int64(g.r.IntN(3) - 1), "M": int64(g.r.IntN(3) - 1)}
	for _, n := range s.Params() {
		s = s.FixParam(n, pv[n])
	}
	w := pset{}
	for k := range v.points() {
		if k.n == pv["N"] && k.m == pv["M"] {
			w[k] = true
		}
	}
	return s, w, pv
}

func TestOracleLexminLexmaxPoints(t *testing.T) {
	cases(t, 23, func(t *testing.T, g *gen) bool {
		v, s := g.set(len(setPool))
		fs, w, pv := fixAll(g, v, s)
		for _, sp := range v.spaces() {
			var pts [][]int64
			for k := range w {
				if k.sp == sp {
					pts = append(pts, append([]int64(nil), k.x[:sp.ndim()]...))
				}
			}
			slices.SortFunc(pts, slices.Compare[[]int64])
			one := Set{union{params: fs.u.params}}
			one.u.addSpace(space{tuple{}, tuple{sp.outName, make([]string, sp.ndim())}})
			for _, p := range fs.u.pieces {
				if p.out.name == sp.outName && p.nOut() == sp.ndim() {
					one.u.pieces = append(one.u.pieces, p)
				}
			}
			got, err := one.Points(nil, 0)
			if errors.Is(err, ErrTooComplex) {
				panic(err) // counted as a skipped case by cases()
			}
			if err != nil {
				t.Errorf("Points(%s): %v", one, err)
				return false
			}
			if !slices.EqualFunc(got, pts, slices.Equal[[]int64]) {
				t.Errorf("Points(%s) = %v, want %v", one, got, pts)
				return false
			}
			n, err := one.Card(nil)
			if errors.Is(err, ErrTooComplex) {
				panic(err)
			}
			if err != nil || n != int64(len(pts)) {
				t.Errorf("Card(%s) = %d, %v; want %d", one, n, err, len(pts))
				return false
			}
			lmin, err := one.Lexmin()
			if errors.Is(err, ErrTooComplex) {
				panic(err)
			}
			if err != nil {
				t.Errorf("Lexmin(%s): %v", one, err)
				return false
			}
			lmax, err := one.Lexmax()
			if errors.Is(err, ErrTooComplex) {
				panic(err)
			}
			if err != nil {
				t.Errorf("Lexmax(%s): %v", one, err)
				return false
			}
			wmin, wmax := pset{}, pset{}
			if len(pts) > 0 {
				wmin[mkKey(sp, pv, pts[0])] = true
				wmax[mkKey(sp, pv, pts[len(pts)-1])] = true
			}
			fixed := func(p pset) pset { // the fixed set holds for every parameter value
				out := pset{}
				for k := range p {
					for n := int64(-pbox - 1); n <= pbox+1; n++ {
						for m := int64(-pbox - 1); m <= pbox+1; m++ {
							k2 := k
							k2.n, k2.m = n, m
							out[k2] = true
						}
					}
				}
				return out
			}
			if !checkSet(t, "lexmin "+one.String(), lmin, []ospace{sp}, fixed(wmin)) ||
				!checkSet(t, "lexmax "+one.String(), lmax, []ospace{sp}, fixed(wmax)) {
				return false
			}
		}
		_ = pv
		return true
	})
}

func TestOracleDimBounds(t *testing.T) {
	cases(t, 24, func(t *testing.T, g *gen) bool {
		v, s := g.set(1)
		sp := v.spaces()[0]
		d := g.r.IntN(sp.ndim())
		p := v.points()
		bs, err := s.DimBounds(d)
		if err != nil {
			t.Errorf("DimBounds(%s, %d): %v", v.text, d, err)
			return false
		}
		proj := pset{}
		rsp := ospace{"", -1, sp.outName, d + 1}
		for k := range p {
			proj[mkKey(rsp, map[string]int64{"N": k.n, "M": k.m}, k.x[:d+1])] = true
		}
		ok := true
		forAllPoints(rsp, func(pv map[string]int64, x []int64) {
			if !ok {
				return
			}
			pf := func(n string) (int64, bool) { v, ok := pv[n]; return v, ok }
			holds := func(c Constraint) bool {
				val, err := c.Aff.Eval(x, pf)
				if err != nil {
					t.Fatal(err)
				}
				return c.Eq && val == 0 || !c.Eq && val >= 0
			}
			in := false
			for _, b := range bs {
				good := true
				for _, c := range append(append([]Constraint(nil), b.Guard...), b.Other...) {
					good = good && holds(c)
				}
				for _, l := range b.Lower {
					val, _ := l.Eval(x, pf)
					good = good && x[d] >= val
				}
				for _, u := range b.Upper {
					val, _ := u.Eval(x, pf)
					good = good && x[d] <= val
				}
				in = in || good
			}
			if in != proj[mkKey(rsp, pv, x)] {
				t.Errorf("DimBounds(%s, %d) at %v N=%d M=%d: %v, want %v\n%v", v.text, d, x, pv["N"], pv["M"], in, !in, bs)
				ok = false
			}
		})
		return ok
	})
}

// ---- maps ----

func binaryMap(t *testing.T, salt uint64, name string, op func(a, b Map) Map, want func(a, b bool) bool) {
	cases(t, salt, func(t *testing.T, g *gen) bool {
		va, a := g.mapv(2)
		vb, b := g.mapv(2)
		pa, pb := va.points(), vb.points()
		sps := unionSpaces(va.spaces(), vb.spaces())
		w := pset{}
		for _, sp := range sps {
			forAllPoints(sp, func(pv map[string]int64, x []int64) {
				k := mkKey(sp, pv, x)
				if want(pa[k], pb[k]) {
					w[k] = true
				}
			})
		}
		return checkMap(t, name+"\n "+va.text+"\n "+vb.text, op(a, b), sps, w)
	})
}

func TestOracleMapIntersect(t *testing.T) {
	binaryMap(t, 30, "intersect", Map.Intersect, func(a, b bool) bool { return a && b })
}

func TestOracleMapUnion(t *testing.T) {
	binaryMap(t, 31, "union", Map.Union, func(a, b bool) bool { return a || b })
}

func TestOracleMapSubtract(t *testing.T) {
	binaryMap(t, 32, "subtract", Map.Subtract, func(a, b bool) bool { return a && !b })
}

func revSpace(sp ospace) ospace { return ospace{sp.outName, sp.nOut, sp.inName, sp.nIn} }

func TestOracleReverse(t *testing.T) {
	cases(t, 33, func(t *testing.T, g *gen) bool {
		v, m := g.mapv(len(mapPool))
		w := pset{}
		var sps []ospace
		for k := range v.points() {
			k2 := k
			k2.sp = revSpace(k.sp)
			copy(k2.x[:], append(append([]int64(nil), k.x[k.sp.nIn:k.sp.ndim()]...), k.x[:k.sp.nIn]...))
			w[k2] = true
		}
		for _, sp := range v.spaces() {
			sps = append(sps, revSpace(sp))
		}
		return checkMap(t, "reverse "+v.text, m.Reverse(), sps, w)
	})
}

func TestOracleDomainRange(t *testing.T) {
	cases(t, 34, func(t *testing.T, g *gen) bool {
		v, m := g.mapv(len(mapPool))
		dom, ran := pset{}, pset{}
		for k := range v.points() {
			pv := map[string]int64{"N": k.n, "M": k.m}
			dom[mkKey(ospace{"", -1, k.sp.inName, k.sp.nIn}, pv, k.x[:k.sp.nIn])] = true
			ran[mkKey(ospace{"", -1, k.sp.outName, k.sp.nOut}, pv, k.x[k.sp.nIn:k.sp.ndim()])] = true
		}
		return checkSet(t, "domain "+v.text, m.Domain(), mapRangeSpaces(v, true), dom) &&
			checkSet(t, "range "+v.text, m.Range(), mapRangeSpaces(v, false), ran)
	})
}

func TestOracleApplyRange(t *testing.T) {
	cases(t, 35, func(t *testing.T, g *gen) bool {
		va, a := g.mapv(len(mapPool))
		vb, b := g.mapv(len(mapPool))
		w := pset{}
		var sps []ospace
		pb := vb.points()
		for ka := range va.points() {
			for kb := range pb {
				sa, sb := ka.sp, kb.sp
				if ka.n != kb.n || ka.m != kb.m || sa.outName != sb.inName || sa.nOut != sb.nIn ||
					!slices.Equal(ka.x[sa.nIn:sa.ndim()], kb.x[:sb.nIn]) {
					continue
				}
				sp := ospace{sa.inName, sa.nIn, sb.outName, sb.nOut}
				x := append(append([]int64(nil), ka.x[:sa.nIn]...), kb.x[sb.nIn:sb.ndim()]...)
				w[mkKey(sp, map[string]int64{"N": ka.n, "M": ka.m}, x)] = true
			}
		}
		for _, sa := range va.spaces() {
			for _, sb := range vb.spaces() {
				if sa.outName == sb.inName && sa.nOut == sb.nIn {
					sps = unionSpaces(sps, []ospace{{sa.inName, sa.nIn, sb.outName, sb.nOut}})
				}
			}
		}
		return checkMap(t, "apply range\n "+va.text+"\n "+vb.text, a.ApplyRange(b), sps, w)
	})
}

func TestOracleIntersectDomainRange(t *testing.T) {
	cases(t, 36, func(t *testing.T, g *gen) bool {
		vm, m := g.mapv(len(mapPool))
		vs, s := g.set(2)
		ps := vs.points()
		wd, wr := pset{}, pset{}
		for k := range vm.points() {
			pv := map[string]int64{"N": k.n, "M": k.m}
			if ps[mkKey(ospace{"", -1, k.sp.inName, k.sp.nIn}, pv, k.x[:k.sp.nIn])] {
				wd[k] = true
			}
			if ps[mkKey(ospace{"", -1, k.sp.outName, k.sp.nOut}, pv, k.x[k.sp.nIn:k.sp.ndim()])] {
				wr[k] = true
			}
		}
		return checkMap(t, "intersect domain\n "+vm.text+"\n "+vs.text, m.IntersectDomain(s), vm.spaces(), wd) &&
			checkMap(t, "intersect range\n "+vm.text+"\n "+vs.text, m.IntersectRange(s), vm.spaces(), wr)
	})
}

func TestOracleMapCoalesceEmpty(t *testing.T) {
	cases(t, 37, func(t *testing.T, g *gen) bool {
		v, m := g.mapv(len(mapPool))
		p := v.points()
		if m.IsEmpty().holds() != emptyIn(p) {
			t.Errorf("IsEmpty(%s) = %v", v.text, m.IsEmpty().holds())
			return false
		}
		return checkMap(t, "coalesce "+v.text, m.Coalesce(), v.spaces(), p)
	})
}
