// This file holds the random generator of bounded sets and maps used by the property tests, and
// the brute-force oracle that decides membership by evaluating the generated formula directly.

package volume

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

var (
	flagCases = flag.Int("volume.cases", 150, "random cases per property test (use >= 10000 for a thorough local run)")
	flagSeed  = flag.Uint64("volume.seed", 1, "seed of the random property tests")
)

// Geometry of the generated values: every dimension lies in [-box, box] and every parameter in
// [-pbox, pbox]; the oracle checks one more unit around the box, so escaping points are caught.
const (
	box  = 3
	pbox = 1
)

// ospace is a space of a generated value: a set tuple (nIn < 0) or a pair of tuples.
type ospace struct {
	inName  string
	nIn     int
	outName string
	nOut    int
}

func (s ospace) isSet() bool { return s.nIn < 0 }
func (s ospace) ndim() int {
	if s.isSet() {
		return s.nOut
	}
	return s.nIn + s.nOut
}

// fnode is a formula over the variables in scope: parameters, dims, existential variables.
type fnode struct {
	op   byte // 'a' atom, '&' and, '|' or, '!' not, 'E' exists
	kids []*fnode
	// atoms: kind '>' expr >= 0, '=' expr = 0, '#' expr != 0, 'm' expr mod m = r, 'f' floor(expr/m) >= r,
	// 'c' ceil(expr/m) <= r, 'M' k*(x mod m) = r (c == 0) or >= r (c == 1) for the one variable x
	// with coefficient k, written as isl writes it, without parentheses: "2x mod 4 = 2"
	kind byte
	coef []int64
	c    int64
	m, r int64
	// exists: nEx new variables, each with bounds lo..hi
	lo, hi []int64
}

func (f *fnode) expr(vals []int64) int64 {
	v := f.c
	for i, c := range f.coef {
		v += c * vals[i]
	}
	return v
}

func (f *fnode) eval(vals []int64) bool {
	switch f.op {
	case 'a':
		e := f.expr(vals)
		switch f.kind {
		case '>':
			return e >= 0
		case '=':
			return e == 0
		case '#':
			return e != 0
		case 'm':
			return modFloor(e, f.m) == f.r
		case 'f':
			return floorDiv(e, f.m) >= f.r
		case 'c':
			return ceilDiv(e, f.m) <= f.r
		case 'M':
			for i, k := range f.coef {
				if k != 0 {
					v := k * modFloor(vals[i], f.m)
					return v == f.r || f.c == 1 && v > f.r
				}
			}
		}
	case '&':
		for _, k := range f.kids {
			if !k.eval(vals) {
				return false
			}
		}
		return true
	case '|':
		for _, k := range f.kids {
			if k.eval(vals) {
				return true
			}
		}
		return false
	case '!':
		return !f.kids[0].eval(vals)
	case 'E':
		n := len(vals)
		ext := append(append([]int64(nil), vals...), make([]int64, len(f.lo))...)
		var rec func(i int) bool
		rec = func(i int) bool {
			if i == len(f.lo) {
				return f.kids[0].eval(ext)
			}
			for v := f.lo[i]; v <= f.hi[i]; v++ {
				ext[n+i] = v
				if rec(i + 1) {
					return true
				}
			}
			return false
		}
		return rec(0)
	}
	panic("bad node")
}

// text prints the formula in isl notation with the variable names names.
func (f *fnode) text(r *rand.Rand, names []string) string {
	switch f.op {
	case 'a':
		e := linText(f.coef, f.c, names)
		switch f.kind {
		case '>':
			switch r.IntN(3) {
			case 0:
				return e + " >= 0"
			case 1:
				return e + " > -1"
			default:
				return "0 <= " + e
			}
		case '=':
			return e + " = 0"
		case '#':
			return e + " != 0"
		case 'm':
			if r.IntN(2) == 0 {
				return "(" + e + ") mod " + strconv.FormatInt(f.m, 10) + " = " + strconv.FormatInt(f.r, 10)
			}
			return "(" + e + ") % " + strconv.FormatInt(f.m, 10) + " = " + strconv.FormatInt(f.r, 10)
		case 'f':
			return "floor((" + e + ")/" + strconv.FormatInt(f.m, 10) + ") >= " + strconv.FormatInt(f.r, 10)
		case 'c':
			return "ceil((" + e + ")/" + strconv.FormatInt(f.m, 10) + ") <= " + strconv.FormatInt(f.r, 10)
		case 'M':
			rel := " = "
			if f.c == 1 {
				rel = " >= "
			}
			for i, k := range f.coef {
				if k != 0 {
					coef := strconv.FormatInt(k, 10)
					switch {
					case k == -1:
						coef = "-"
					case r.IntN(2) == 0:
						coef += "*"
					}
					return coef + names[i] + " mod " + strconv.FormatInt(f.m, 10) + rel + strconv.FormatInt(f.r, 10)
				}
			}
		}
	case '&', '|':
		op := " and "
		if f.op == '|' {
			op = " or "
		}
		var parts []string
		for _, k := range f.kids {
			parts = append(parts, "("+k.text(r, names)+")")
		}
		return strings.Join(parts, op)
	case '!':
		return "not (" + f.kids[0].text(r, names) + ")"
	case 'E':
		var vs, bs []string
		ext := append([]string(nil), names...)
		for i := range f.lo {
			n := "e" + strconv.Itoa(len(names)+i)
			ext = append(ext, n)
			vs = append(vs, n)
			bs = append(bs, fmt.Sprintf("%d <= %s <= %d", f.lo[i], n, f.hi[i]))
		}
		return "exists (" + strings.Join(vs, ", ") + " : " + strings.Join(bs, " and ") + " and (" + f.kids[0].text(r, ext) + "))"
	}
	panic("bad node")
}

func linText(coef []int64, c int64, names []string) string {
	var sb strings.Builder
	for i, k := range coef {
		if k == 0 {
			continue
		}
		switch {
		case sb.Len() == 0 && k < 0:
			sb.WriteString("-")
		case k < 0:
			sb.WriteString(" - ")
		case sb.Len() > 0:
			sb.WriteString(" + ")
		}
		if a := abs64(k); a != 1 {
			sb.WriteString(strconv.FormatInt(a, 10))
		}
		sb.WriteString(names[i])
	}
	switch {
	case sb.Len() == 0:
		return strconv.FormatInt(c, 10)
	case c < 0:
		sb.WriteString(" - " + strconv.FormatInt(-c, 10))
	case c > 0:
		sb.WriteString(" + " + strconv.FormatInt(c, 10))
	}
	return sb.String()
}

// gen holds the knobs of the generator.
type gen struct {
	r      *rand.Rand
	params []string
}

func newGen(t testing.TB, salt uint64) *gen {
	return &gen{r: rand.New(rand.NewPCG(*flagSeed, salt)), params: []string{"N", "M"}}
}

func (g *gen) coef(nvars int, density float64) []int64 {
	c := make([]int64, nvars)
	for i := range c {
		if g.r.Float64() < density {
			switch g.r.IntN(6) {
			case 0, 1:
				c[i] = 1
			case 2, 3:
				c[i] = -1
			case 4:
				c[i] = int64(g.r.IntN(3) + 2)
			default:
				c[i] = -int64(g.r.IntN(3) + 2)
			}
		}
	}
	return c
}

// atom returns a random atomic constraint over nvars variables.
func (g *gen) atom(nvars int) *fnode {
	f := &fnode{op: 'a', coef: g.coef(nvars, 0.5), c: int64(g.r.IntN(9) - 4)}
	switch k := g.r.IntN(21); {
	case k < 11:
		f.kind = '>'
	case k < 13:
		f.kind = '='
	case k < 14:
		f.kind = '#'
	case k < 17:
		f.kind = 'm'
		f.m = int64(g.r.IntN(3) + 2)
		f.r = int64(g.r.IntN(int(f.m)))
	case k < 19:
		f.kind = 'f'
		f.m = int64(g.r.IntN(3) + 2)
		f.r = int64(g.r.IntN(5) - 2)
	case k < 20:
		f.kind = 'c'
		f.m = int64(g.r.IntN(3) + 2)
		f.r = int64(g.r.IntN(5) - 2)
	default:
		// isl's precedence: the coefficient scales the mod
		f.kind = 'M'
		ks := []int64{2, 3, -1, -2}
		f.coef = make([]int64, nvars)
		f.coef[g.r.IntN(nvars)] = ks[g.r.IntN(len(ks))]
		f.m = int64(g.r.IntN(3) + 2)
		f.r = int64(g.r.IntN(7) - 3)
		f.c = int64(g.r.IntN(2))
	}
	return f
}

// formula returns a random formula of the given depth; exists and not are never nested in a not.
func (g *gen) formula(nvars, depth int, allowEx bool) *fnode {
	if depth == 0 || g.r.IntN(3) == 0 {
		return g.atom(nvars)
	}
	switch k := g.r.IntN(10); {
	case k < 5:
		n := g.r.IntN(3) + 1
		f := &fnode{op: '&'}
		for range n {
			f.kids = append(f.kids, g.formula(nvars, depth-1, allowEx))
		}
		return f
	case k < 7:
		f := &fnode{op: '|'}
		for range 2 {
			f.kids = append(f.kids, g.formula(nvars, depth-1, allowEx))
		}
		return f
	case k < 8:
		return &fnode{op: '!', kids: []*fnode{g.formula(nvars, depth-1, false)}}
	default:
		if !allowEx {
			return g.atom(nvars)
		}
		n := g.r.IntN(2) + 1
		f := &fnode{op: 'E'}
		for range n {
			lo := int64(g.r.IntN(5) - 4)
			f.lo = append(f.lo, lo)
			f.hi = append(f.hi, lo+int64(g.r.IntN(6)))
		}
		// a conjunction mixing the new variables with strong coefficients (inexact projections)
		sub := &fnode{op: '&'}
		for range g.r.IntN(3) + 1 {
			a := g.atom(nvars + n)
			for i := nvars; i < nvars+n; i++ {
				if a.coef[i] == 0 && g.r.IntN(2) == 0 {
					a.coef[i] = int64(g.r.IntN(5) - 2)
				}
			}
			sub.kids = append(sub.kids, a)
		}
		if g.r.IntN(3) == 0 {
			sub.kids = append(sub.kids, g.formula(nvars+n, depth-1, false))
		}
		f.kids = []*fnode{sub}
		return f
	}
}

// opiece is one piece of a generated value: a space and a formula over (params, dims).
type opiece struct {
	sp ospace
	f  *fnode
}

// oval is a generated value: its text, and the formula the oracle evaluates.
type oval struct {
	params []string // parameters of the text (a subset of gen.params, in order)
	pieces []opiece
	text   string
}

// spaces returns the distinct spaces of v.
func (v oval) spaces() []ospace {
	var out []ospace
	for _, p := range v.pieces {
		if !containsSpace(out, p.sp) {
			out = append(out, p.sp)
		}
	}
	return out
}

func containsSpace(l []ospace, s ospace) bool {
	for _, t := range l {
		if t == s {
			return true
		}
	}
	return false
}

// mem is the oracle: is point (params by name, dims) in v's space sp?
func (v oval) mem(sp ospace, pv map[string]int64, x []int64) bool {
	vals := make([]int64, 0, len(v.params)+len(x))
	for _, p := range v.params {
		vals = append(vals, pv[p])
	}
	vals = append(vals, x...)
	for _, p := range v.pieces {
		if p.sp == sp && p.f.eval(vals) {
			return true
		}
	}
	return false
}

var setPool = []ospace{{"", -1, "A", 2}, {"", -1, "B", 1}, {"", -1, "", 2}, {"", -1, "C", 3}}
var mapPool = []ospace{{"A", 2, "B", 1}, {"B", 1, "A", 2}, {"B", 1, "B", 1}, {"", 2, "B", 1}, {"B", 1, "", 2}}

// value generates a random bounded set (from setPool) or map (from mapPool) over some of the
// parameters. Spaces are drawn from spaces[:nsp].
func (g *gen) value(pool []ospace, nsp int) oval {
	var v oval
	for _, p := range g.params {
		if g.r.IntN(3) == 0 {
			v.params = append(v.params, p)
		}
	}
	npieces := g.r.IntN(3) + 1
	for range npieces {
		sp := pool[g.r.IntN(nsp)]
		v.pieces = append(v.pieces, opiece{sp, g.pieceFormula(len(v.params), sp.ndim())})
	}
	v.text = g.print(v)
	return v
}

// pieceFormula bounds every parameter and dim and adds a random formula.
func (g *gen) pieceFormula(np, nd int) *fnode {
	nv := np + nd
	f := &fnode{op: '&'}
	for i := range nv {
		b := int64(box)
		if i < np {
			b = pbox
		}
		lo, hi := -b+int64(g.r.IntN(2)), b-int64(g.r.IntN(2))
		up := make([]int64, nv)
		up[i] = -1
		dn := make([]int64, nv)
		dn[i] = 1
		f.kids = append(f.kids, &fnode{op: 'a', kind: '>', coef: dn, c: -lo}, &fnode{op: 'a', kind: '>', coef: up, c: hi})
	}
	for range g.r.IntN(3) + 1 {
		f.kids = append(f.kids, g.formula(nv, 2, true))
	}
	return f
}

func (g *gen) print(v oval) string {
	var sb strings.Builder
	if len(v.params) > 0 {
		sb.WriteString("[" + strings.Join(v.params, ", ") + "] -> ")
	}
	sb.WriteString("{ ")
	for i, p := range v.pieces {
		if i > 0 {
			sb.WriteString("; ")
		}
		names := append([]string(nil), v.params...)
		var in, out []string
		if !p.sp.isSet() {
			for k := range p.sp.nIn {
				in = append(in, "i"+strconv.Itoa(k))
			}
		}
		for k := range p.sp.nOut {
			out = append(out, "o"+strconv.Itoa(k))
		}
		names = append(append(names, in...), out...)
		if !p.sp.isSet() {
			sb.WriteString(p.sp.inName + "[" + strings.Join(in, ", ") + "] -> ")
		}
		sb.WriteString(p.sp.outName + "[" + strings.Join(out, ", ") + "]")
		sb.WriteString(" : " + p.f.text(g.r, names))
	}
	sb.WriteString(" }")
	return sb.String()
}

// pkey is one point of the oracle: a space, the parameter values and up to 4 coordinates.
type pkey struct {
	sp   ospace
	n, m int64
	x    [4]int64
}

func mkKey(sp ospace, pv map[string]int64, x []int64) pkey {
	k := pkey{sp: sp, n: pv["N"], m: pv["M"]}
	copy(k.x[:], x)
	return k
}

// pset is the oracle's value: the points (within one unit of the box, for every parameter
// assignment) of a set or map.
type pset map[pkey]bool

var allParams = []string{"N", "M"}

// forAllPoints calls f for every assignment of both parameters and every point of sp within one
// unit of the box.
func forAllPoints(sp ospace, f func(pv map[string]int64, x []int64)) {
	pv := map[string]int64{}
	nd := sp.ndim()
	x := make([]int64, nd)
	var recX func(i int)
	recX = func(i int) {
		if i == nd {
			f(pv, x)
			return
		}
		for v := int64(-box - 1); v <= box+1; v++ {
			x[i] = v
			recX(i + 1)
		}
	}
	for n := int64(-pbox - 1); n <= pbox+1; n++ {
		for m := int64(-pbox - 1); m <= pbox+1; m++ {
			pv["N"], pv["M"] = n, m
			recX(0)
		}
	}
}

// points evaluates the oracle of v on all points.
func (v oval) points() pset {
	ps := pset{}
	for _, sp := range v.spaces() {
		forAllPoints(sp, func(pv map[string]int64, x []int64) {
			if v.mem(sp, pv, x) {
				ps[mkKey(sp, pv, x)] = true
			}
		})
	}
	return ps
}

func unionSpaces(ls ...[]ospace) []ospace {
	var out []ospace
	for _, l := range ls {
		for _, s := range l {
			if !containsSpace(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// checkSet compares s with the oracle want on every space of spaces and every parameter
// assignment; it reports the first difference.
func checkSet(t *testing.T, what string, s Set, spaces []ospace, want pset) bool {
	t.Helper()
	return checkAny(t, what, s.String(), spaces, func(sp ospace, pv map[string]int64, x []int64) bool {
		return s.Contains(sp.outName, x, pv).holds()
	}, want)
}

// checkMap is checkSet for maps.
func checkMap(t *testing.T, what string, m Map, spaces []ospace, want pset) bool {
	t.Helper()
	return checkAny(t, what, m.String(), spaces, func(sp ospace, pv map[string]int64, x []int64) bool {
		return m.Contains(sp.inName, x[:sp.nIn], sp.outName, x[sp.nIn:], pv).holds()
	}, want)
}

func checkAny(t *testing.T, what, text string, spaces []ospace, got func(sp ospace, pv map[string]int64, x []int64) bool, want pset) bool {
	t.Helper()
	ok := true
	for _, sp := range spaces {
		forAllPoints(sp, func(pv map[string]int64, x []int64) {
			if !ok {
				return
			}
			var g bool
			if err := try(func() { g = got(sp, pv, x) }); err != nil {
				t.Errorf("%s: %v", what, err)
				ok = false
				return
			}
			if w := want[mkKey(sp, pv, x)]; g != w {
				t.Errorf("%s: point %s%v with N=%d M=%d: got %v, want %v\nresult: %s", what, sp.outName, x, pv["N"], pv["M"], g, w, text)
				ok = false
			}
		})
	}
	return ok
}

// cases runs f for the configured number of random cases, each with its own generator. A case
// that stops with ErrTooComplex is skipped; more than 2% of such cases fail the test.
func cases(t *testing.T, salt uint64, f func(t *testing.T, g *gen) bool) {
	t.Helper()
	n := *flagCases
	if testing.Short() {
		n = max(n/10, 10)
	}
	skipped := 0
	for i := range n {
		g := newGen(t, salt*1_000_003+uint64(i))
		var ok bool
		err := try(func() { ok = f(t, g) })
		if errors.Is(err, ErrTooComplex) {
			skipped++
			continue
		}
		if err != nil {
			t.Fatalf("case %d (seed %d, salt %d): %v", i, *flagSeed, salt, err)
		}
		if !ok {
			t.Fatalf("case %d failed (seed %d, salt %d)", i, *flagSeed, salt)
		}
	}
	if skipped > 0 {
		t.Logf("%d of %d cases too complex for exact elimination", skipped, n)
	}
	if skipped*50 > n {
		t.Fatalf("%d of %d cases too complex", skipped, n)
	}
}
