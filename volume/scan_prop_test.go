// This file holds the property tests of scanning: random unions of parametric polyhedra (boxes,
// triangles, diagonals, strides, holes) are scanned, and the AST interpreted by Walk must visit
// exactly the points a brute-force enumeration finds with Contains, each once, in lexicographic
// order.

package volume

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var scanCases = flag.Int("scan.cases", 400, "random cases of each scanning property test")

// enumBox is the half-width of the brute-force box: every random set below lies in [-4, 5]^n for
// the parameter values tried (they are at most 5).
const enumBox = 6

// scanParamValues are the values each parameter takes in the property tests.
var scanParamValues = []int64{0, 1, 3, 5}

// randAffine returns a random affine expression over the dims and params with small coefficients.
func randAffine(r *rand.Rand, dims, params []string, maxc int) string {
	var terms []string
	for _, d := range dims {
		if c := r.IntN(2*maxc+1) - maxc; c != 0 && r.IntN(3) > 0 {
			terms = append(terms, fmt.Sprintf("%d%s", c, d))
		}
	}
	for _, p := range params {
		if c := r.IntN(3) - 1; c != 0 && r.IntN(3) == 0 {
			terms = append(terms, fmt.Sprintf("%d%s", c, p))
		}
	}
	terms = append(terms, fmt.Sprint(r.IntN(7)-3))
	return strings.ReplaceAll(strings.Join(terms, " + "), "+ -", "- ")
}

// randConjunction returns the constraints of one random bounded piece.
func randConjunction(r *rand.Rand, dims, params []string) string {
	var cs []string
	for _, d := range dims {
		lo := r.IntN(5) - 4
		switch {
		case len(params) > 0 && r.IntN(3) == 0:
			cs = append(cs, fmt.Sprintf("%d <= %s < %s", lo, d, params[r.IntN(len(params))]))
		default:
			cs = append(cs, fmt.Sprintf("%d <= %s <= %d", lo, d, lo+r.IntN(6)))
		}
	}
	for k := r.IntN(4); k > 0; k-- {
		switch r.IntN(8) {
		case 0, 1: // a half-space (triangles, skewed bounds)
			cs = append(cs, randAffine(r, dims, params, 2)+" >= 0")
		case 2: // a diagonal
			a, b := dims[r.IntN(len(dims))], dims[r.IntN(len(dims))]
			cs = append(cs, fmt.Sprintf("%s = %s + %d", a, b, r.IntN(3)-1))
		case 3: // a stride on a combination of dims
			m := 2 + r.IntN(3)
			cs = append(cs, fmt.Sprintf("(%s) mod %d = %d", randAffine(r, dims, nil, 2), m, r.IntN(m)))
		case 4: // an existential stride
			d := dims[r.IntN(len(dims))]
			cs = append(cs, fmt.Sprintf("exists (e : %s = %de + %d)", d, 2+r.IntN(3), r.IntN(3)))
		case 5: // a scaled equality
			cs = append(cs, fmt.Sprintf("%s = 0", randAffine(r, dims, nil, 2)))
		case 6: // a floor bound
			d := dims[r.IntN(len(dims))]
			e := dims[r.IntN(len(dims))]
			cs = append(cs, fmt.Sprintf("%s <= floor((%s + %d)/%d) + 1", d, e, r.IntN(3), 2+r.IntN(2)))
		case 7: // a dimension bounded through its own div only
			d := dims[r.IntN(len(dims))]
			e := dims[r.IntN(len(dims))]
			cs = append(cs, fmt.Sprintf("floor((%s + %d)/%d) = %s", d, r.IntN(3), 2+r.IntN(2), e))
		}
	}
	return strings.Join(cs, " and ")
}

// randScanSet returns a random union (holes included) as isl text.
func randScanSet(r *rand.Rand, name string, n int, params []string) string {
	dims := []string{"i", "j", "k", "l"}[:n]
	var pieces []string
	for k := 1 + r.IntN(3); k > 0; k-- {
		c := randConjunction(r, dims, params)
		if r.IntN(4) == 0 { // a hole
			var h []string
			for _, d := range dims {
				lo := r.IntN(5) - 3
				h = append(h, fmt.Sprintf("%d <= %s <= %d", lo, d, lo+r.IntN(3)))
			}
			c += " and not (" + strings.Join(h, " and ") + ")"
		}
		pieces = append(pieces, name+"["+strings.Join(dims, ", ")+"] : "+c)
	}
	head := ""
	if len(params) > 0 {
		head = "[" + strings.Join(params, ", ") + "] -> "
	}
	return head + "{ " + strings.Join(pieces, "; ") + " }"
}

// paramBindings returns every assignment of scanParamValues to params.
func paramBindings(params []string) []map[string]int64 {
	out := []map[string]int64{{}}
	for _, p := range params {
		var next []map[string]int64
		for _, m := range out {
			for _, v := range scanParamValues {
				c := map[string]int64{}
				for k, x := range m {
					c[k] = x
				}
				c[p] = v
				next = append(next, c)
			}
		}
		out = next
	}
	return out
}

// bruteForce returns the points of s (tuple name, n dims) in [-enumBox, enumBox]^n in
// lexicographic order.
func bruteForce(s Set, name string, n int, params map[string]int64) [][]int64 {
	var out [][]int64
	x := make([]int64, n)
	var rec func(d int)
	rec = func(d int) {
		if d == n {
			if s.Contains(name, x, params).holds() {
				out = append(out, slices.Clone(x))
			}
			return
		}
		for v := int64(-enumBox); v <= enumBox; v++ {
			x[d] = v
			rec(d + 1)
		}
	}
	rec(0)
	return out
}

// stmtPoint is a statement execution.
type stmtPoint struct {
	stmt int
	x    []int64
}

func (p stmtPoint) String() string { return fmt.Sprintf("S%d%v", p.stmt, p.x) }

// walkAll returns the statement executions of ast in execution order.
func walkAll(t *testing.T, ast Node, n int, params map[string]int64) []stmtPoint {
	var out []stmtPoint
	err := Walk(ast, n, params, func(stmt int, x []int64) {
		out = append(out, stmtPoint{stmt, slices.Clone(x)})
		if len(out) > 100000 {
			t.Fatalf("walk does not stop")
		}
	})
	require.NoError(t, err)
	return out
}

func TestScanRandomSets(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	cases := *scanCases
	if testing.Short() {
		cases /= 4
	}
	for c := 0; c < cases; c++ {
		n := 1 + r.IntN(3)
		params := []string{"N", "M"}[:r.IntN(3)]
		src := randScanSet(r, "S", n, params)
		s, err := ParseSet(src)
		require.NoError(t, err, src)
		ast, err := s.Scan()
		require.NoError(t, err, src)
		for _, pv := range paramBindings(params) {
			want := bruteForce(s, "S", n, pv)
			got := walkAll(t, ast, n, pv)
			var gotX [][]int64
			for _, p := range got {
				require.Equal(t, 0, p.stmt, "case %d: %s", c, src)
				gotX = append(gotX, p.x)
			}
			if !slices.EqualFunc(want, gotX, slices.Equal) {
				t.Fatalf("case %d: %s with %v:\nwant %v\ngot  %v\nAST:\n%s", c, src, pv, want, gotX, C(ast, s.DimNames(), func(int) string { return "S" }))
			}
		}
	}
}

func TestScanStatementsRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	cases := *scanCases / 2
	if testing.Short() {
		cases /= 4
	}
	for c := 0; c < cases; c++ {
		n := 1 + r.IntN(3)
		params := []string{"N"}[:r.IntN(2)]
		var sets []Set
		var srcs []string
		for k := 1 + r.IntN(3); k > 0; k-- {
			src := randScanSet(r, "S", n, params)
			s, err := ParseSet(src)
			require.NoError(t, err, src)
			sets = append(sets, s)
			srcs = append(srcs, src)
		}
		ast, err := ScanStatements(sets)
		require.NoError(t, err, "%v", srcs)
		for _, pv := range paramBindings(params) {
			var want []stmtPoint
			for k, s := range sets {
				for _, x := range bruteForce(s, "S", n, pv) {
					want = append(want, stmtPoint{k, x})
				}
			}
			slices.SortStableFunc(want, func(a, b stmtPoint) int {
				if c := slices.Compare(a.x, b.x); c != 0 {
					return c
				}
				return a.stmt - b.stmt
			})
			got := walkAll(t, ast, n, pv)
			if fmt.Sprint(want) != fmt.Sprint(got) {
				t.Fatalf("case %d: %v with %v:\nwant %v\ngot  %v\nAST:\n%s", c, srcs, pv, want, got, C(ast, []string{"i", "j", "k"}[:n], func(k int) string { return fmt.Sprintf("S%d", k) }))
			}
		}
	}
}

func TestCardRandomSets(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	cases := *scanCases / 8 // Card scans again for every parameter binding
	if testing.Short() {
		cases /= 4
	}
	for c := 0; c < cases; c++ {
		n := 1 + r.IntN(3)
		params := []string{"N", "M"}[:r.IntN(3)]
		src := randScanSet(r, "S", n, params)
		s, err := ParseSet(src)
		require.NoError(t, err, src)
		for _, pv := range paramBindings(params) {
			got, err := s.Card(pv)
			require.NoError(t, err, src)
			require.Equal(t, int64(len(bruteForce(s, "S", n, pv))), got, "case %d: %s with %v", c, src, pv)
		}
	}
}

func TestCardLarge(t *testing.T) {
	for _, c := range []struct {
		src  string
		want int64
	}{
		{"{ S[i, j, k] : 0 <= i < 512 and 0 <= j < 512 and 0 <= k < 512 }", 512 * 512 * 512},
		{"{ S[i, j, k] : 0 <= i < 512 and i <= j < 512 and 0 <= k < 512 }", 512 * 513 / 2 * 512},
		{"{ S[i, j] : 0 <= i < 512 and 0 <= j < 512 and (i + j) mod 2 = 0 }", 512 * 256},
		{"{ S[i, j] : 0 <= i < 512 and 0 <= j < 512 and i mod 4 <= 1 }", 256 * 512},
		{"{ S[i] : 0 <= i < 5; T[i, j] : 0 <= i < 3 and 0 <= j < 3 }", 5 + 9},
		{"{ S[i, j] : 0 <= i < 10 and 0 <= j < 10 and not (3 <= i < 6 and 4 <= j < 7) }", 100 - 9},
	} {
		s, err := ParseSet(c.src)
		require.NoError(t, err)
		got, err := s.Card(nil)
		require.NoError(t, err)
		require.Equal(t, c.want, got, c.src)
	}
	_, err := MustParseSet("{ S[i] : i >= 0 }").Card(nil)
	require.ErrorIs(t, err, ErrUnbounded)
	_, err = MustParseSet("[N] -> { S[i] : 0 <= i < N }").Card(nil)
	require.ErrorIs(t, err, ErrSpaceMismatch)
}

// FuzzScan scans sets read from isl text (parameters fixed to 3, cut to a small box) and checks
// the points against brute force; ErrOverflow and ErrTooComplex are the only allowed errors.
func FuzzScan(f *testing.F) {
	for _, s := range []string{
		"[N] -> { S[i, j] : 0 <= i <= j < N and (i + j) mod 2 = 0 }",
		"{ S[i, j] : i = 2j and 0 <= j < 5 }",
		"{ [i, j] : 0 <= i < 10 and 0 <= j < 10 and not (3 <= i < 6 and 4 <= j < 7) }",
		"{ [h, w] : (h <= 0 or w <= 0 or h >= 5 or w >= 5) }",
		"{ [i] : exists (e : i = 4e + 1) }",
		"{ [i, j, k] : floor((i + 1)/2) = j and k <= i + j }",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		defer watchdog(fuzzTimeLimit)()
		s, err := ParseSet(src)
		if err != nil || len(s.u.spaces) != 1 || s.NDim() == 0 || s.NDim() > 3 || len(s.u.pieces) > 4 {
			return
		}
		for _, p := range s.Params() {
			s = s.FixParam(p, 3)
		}
		sp := s.u.spaces[0].out
		var box []Constraint
		for d := range sp.dims {
			box = append(box, GE(AffDim(d), AffConst(-enumBox)), GE(AffConst(enumBox), AffDim(d)))
		}
		s = s.Intersect(SetFromConstraints(nil, sp.name, sp.dims, box))
		ast, err := s.Scan()
		if err != nil {
			// refusals are documented and never wrong: coefficients beyond int64, and
			// eliminations beyond the splinter bound ({ [i, j] : 10001i = 2j }, testdata)
			if errors.Is(err, ErrOverflow) || errors.Is(err, ErrTooComplex) {
				return
			}
			t.Fatalf("%s: %v", src, err)
		}
		want := bruteForce(s, sp.name, sp.n(), nil)
		var got [][]int64
		require.NoError(t, Walk(ast, sp.n(), nil, func(_ int, x []int64) { got = append(got, slices.Clone(x)) }))
		if !slices.EqualFunc(want, got, slices.Equal) {
			t.Fatalf("%s:\nwant %v\ngot  %v", src, want, got)
		}
	})
}

// TestScanDivOnlyBounds: sets whose dims are bounded only through floor divisions of them (DIE
// produces such domains once redundant plain bounds are dropped: i <= 2*floor((i + k - 1)/2) + 1
// implies k >= 0) scan into loops that visit exactly their points. The integer shadow of such a
// div keeps a div of the dim (a congruence step); the scanner uses the rational shadow.
func TestScanDivOnlyBounds(t *testing.T) {
	for _, src := range []string{
		"{ S[i, k] : 0 <= i < 3 and i <= 2*floor((i + k - 1)/2) + 1 and k < 3 }",
		"{ S[i, j, k] : 0 <= i < 3 and i <= 2*floor((i + k - 1)/2) + 1 and 0 <= j < 3 and k < 3 }",
		"{ S[i] : floor((i - 1)/2) = 0 }",
		"{ S[i, j] : 0 <= i < 4 and 3*floor((i + j)/3) >= i and j <= 5 }",
		"{ S[i, j] : 0 <= i < 4 and j >= -2 and 2*floor((i + j + 1)/2) <= i + 2 }",
		"{ S[i, j] : -3 <= i < 4 and 3*floor((i + j)/3) >= i and 2*floor((i + j + 1)/2) <= i + 2 }",
	} {
		s := MustParseSet(src)
		ast, err := s.Scan()
		require.NoError(t, err, src)
		n := s.NDim()
		want := bruteForce(s, "S", n, nil)
		require.NotEmpty(t, want, src)
		var got [][]int64
		for _, p := range walkAll(t, ast, n, nil) {
			got = append(got, p.x)
		}
		require.Equal(t, want, got, src)
	}
}
