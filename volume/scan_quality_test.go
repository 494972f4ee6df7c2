// This file holds the quality tests of scanning on the domains of the papers (triangle, diagonal,
// checkerboard, the mean/Roberts tile of the DIE slides, a padded strided convolution's dense
// interior and borders): besides visiting the right points, the loops must have no guard in the
// innermost loop and no iteration that executes no statement.

package volume

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// loopStats interprets an AST and counts, for every loop iteration, whether it executed a leaf.
type loopStats struct {
	leaves, iters, empty int
	params               map[string]int64
	x                    []int64
}

func (st *loopStats) eval(a Aff) int64 {
	v, err := a.Eval(st.x, func(n string) (int64, bool) { p, ok := st.params[n]; return p, ok })
	if err != nil {
		panic(err)
	}
	return v
}

// run returns the number of leaves n executes.
func (st *loopStats) run(n Node) int {
	switch n := n.(type) {
	case nil:
		return 0
	case *Leaf:
		st.leaves++
		return 1
	case *Block:
		t := 0
		for _, k := range n.Nodes {
			t += st.run(k)
		}
		return t
	case *Assign:
		st.x[n.Dim] = st.eval(n.Value)
		return st.run(n.Body)
	case *If:
		for _, c := range n.Conds {
			v := st.eval(c.Aff)
			if c.Eq && v != 0 || !c.Eq && v < 0 {
				return 0
			}
		}
		return st.run(n.Then)
	case *For:
		lo, hi := int64(-1<<62), int64(1<<62)
		for _, b := range n.Lower {
			lo = max(lo, st.eval(b))
		}
		for _, b := range n.Upper {
			hi = min(hi, st.eval(b))
		}
		if n.Stride > 1 {
			lo += modFloor(st.eval(n.Offset)-lo, n.Stride)
		}
		t := 0
		for v := lo; v <= hi; v += max(n.Stride, 1) {
			st.x[n.Dim] = v
			k := st.run(n.Body)
			st.iters++
			if k == 0 {
				st.empty++
			}
			t += k
		}
		return t
	}
	panic(fmt.Sprintf("unknown node %T", n))
}

// innermostGuards counts the If nodes inside a loop whose subtree holds no loop: guards
// evaluated at every iteration of an innermost loop.
func innermostGuards(n Node, inLoop bool) int {
	switch n := n.(type) {
	case *Block:
		t := 0
		for _, k := range n.Nodes {
			t += innermostGuards(k, inLoop)
		}
		return t
	case *Assign:
		return innermostGuards(n.Body, inLoop)
	case *If:
		t := innermostGuards(n.Then, inLoop)
		if inLoop && !hasLoop(n.Then) {
			t++
		}
		return t
	case *For:
		return innermostGuards(n.Body, true)
	}
	return 0
}

func hasLoop(n Node) bool {
	switch n := n.(type) {
	case *Block:
		for _, k := range n.Nodes {
			if hasLoop(k) {
				return true
			}
		}
	case *Assign:
		return hasLoop(n.Body)
	case *If:
		return hasLoop(n.Then)
	case *For:
		return true
	}
	return false
}

// paperDomains returns the papers' domains by name, each with parameter values to run it with.
func paperDomains(t testing.TB) map[string]struct {
	set    Set
	params []map[string]int64
} {
	out := map[string]struct {
		set    Set
		params []map[string]int64
	}{}
	add := func(name string, s Set, params ...map[string]int64) {
		out[name] = struct {
			set    Set
			params []map[string]int64
		}{s, params}
	}
	parse := func(src string) Set {
		s, err := ParseSet(src)
		require.NoError(t, err, src)
		return s
	}
	mn := []map[string]int64{{"M": 0, "N": 0, "P": 3}, {"M": 1, "N": 2, "P": 1}, {"M": 7, "N": 5, "P": 4}}
	// MatMul + BandPart / Trilu (DIE slides): the product restricted to the upper triangle
	add("triangle", parse("[M, P] -> { S[i, j, k] : 0 <= i < M and i <= j < M and 0 <= k < P }"), mn...)
	add("triangle2", parse("[N] -> { S[i, j] : 0 <= i < N and i <= j < N }"), mn...)
	// MatMul + DiagPart: only the diagonal of the product
	add("diagonal", parse("[M, P] -> { S[i, j, k] : 0 <= i < M and j = i and 0 <= k < P }"), mn...)
	add("diagonal2", parse("{ S[i, j] : 0 <= i < 10 and i = j }"), nil)
	// checkerboard subsampling of the Roberts filter (output[i+1][j+2] with (d1 + d2) % 2 == 0)
	hw := []map[string]int64{{"H": 3, "W": 3}, {"H": 4, "W": 9}, {"H": 11, "W": 8}}
	add("checkerboard", parse("[H, W] -> { S[i, j] : 0 <= i < H - 3 and 0 <= j < W - 3 and (i + j - 3) mod 2 = 0 }"), hw...)
	add("checkerboard2", parse("[N] -> { S[i, j] : 0 <= i < N and 0 <= j < N and (i + j) mod 2 = 0 }"), mn...)

	// the mean/Roberts/additive pipeline restricted to the tile output[LB0..UB0][LB1..UB1]
	tile := []map[string]int64{
		{"H": 20, "W": 20, "LB0": 5, "UB0": 9, "LB1": 6, "UB1": 12},
		{"H": 12, "W": 10, "LB0": 0, "UB0": 30, "LB1": 0, "UB1": 30},
		{"H": 9, "W": 16, "LB0": 7, "UB0": 7, "LB1": 3, "UB1": 2},
	}
	req := parse("[LB0, UB0, LB1, UB1] -> { [d0, d1] : LB0 <= d0 <= UB0 and LB1 <= d1 <= UB1 }")
	s2 := parse("[H, W] -> { [i, j] : 1 <= i < H - 2 and 2 <= j < W - 1 }").Intersect(req) // output[i][j]
	// Roberts writes tmp2[i+1][j+2]; its contributing iterations are the preimage of what S2 reads
	wr1, err := ParseMap("{ [i, j] -> [i + 1, j + 2] }")
	require.NoError(t, err)
	s1 := parse("[H, W] -> { [i, j] : 0 <= i < H - 3 and 0 <= j < W - 3 }").Intersect(s2.Apply(wr1.Reverse()))
	// the mean filter must produce tmp1 where S2 and S1 read it
	need := s2
	for _, m := range []string{"{ [i, j] -> [i + 1, j + 2] }", "{ [i, j] -> [i + 2, j + 1] }", "{ [i, j] -> [i + 2, j + 2] }", "{ [i, j] -> [i + 1, j + 1] }"} {
		mm, err := ParseMap(m)
		require.NoError(t, err)
		need = need.Union(s1.Apply(mm))
	}
	s0 := parse("[H, W] -> { [i, j] : 1 <= i < H - 1 and 1 <= j < W - 1 }").Intersect(need)
	add("tile-additive", s2, tile...)
	add("tile-roberts", s1, tile...)
	add("tile-mean", s0, tile...)
	// the concrete tile of the slides: output[64..127][67..127] of a 512×512 image
	fix := func(s Set) Set {
		for p, v := range map[string]int64{"H": 512, "W": 512, "LB0": 64, "UB0": 127, "LB1": 67, "UB1": 127} {
			s = s.FixParam(p, v)
		}
		return s
	}
	add("tile-mean-64", fix(s0), nil)

	// the padded strided convolution of the volume-model paper: 5×5 kernel, stride 2, a
	// 512×512 input padded by 1 on the low side; 256×256 outputs
	conv := "0 <= n < 1 and 0 <= f < 8 and 0 <= h < 256 and 0 <= w < 256"
	add("conv-interior", parse("{ S[n, f, h, w] : "+conv+" and 1 <= h <= 254 and 1 <= w <= 254 }"), nil)
	add("conv-borders", parse("{ S[n, f, h, w] : "+conv+" and (h <= 0 or w <= 0 or h >= 255 or w >= 255) }"), nil)
	small := "0 <= n < 1 and 0 <= f < 2 and 0 <= h < 6 and 0 <= w < 6 and 0 <= c < 2 and 0 <= a < 5 and 0 <= b < 5"
	// iterations reading the input (pad index 2h + a in [1, 10] for a 10×10 input) and those
	// reading the padding
	add("conv-dense-iters", parse("{ S[n, f, h, w, c, a, b] : "+small+" and 1 <= 2h + a <= 10 and 1 <= 2w + b <= 10 }"), nil)
	add("conv-pad-iters", parse("{ S[n, f, h, w, c, a, b] : "+small+" and (2h + a < 1 or 2h + a > 10 or 2w + b < 1 or 2w + b > 10) }"), nil)
	return out
}

func TestScanQualityPaperDomains(t *testing.T) {
	for name, dom := range paperDomains(t) {
		t.Run(name, func(t *testing.T) {
			ast, err := dom.set.Scan()
			require.NoError(t, err)
			names := dom.set.DimNames()
			code := C(ast, names, func(int) string { return "S" })
			require.Zero(t, innermostGuards(ast, false), "guards in innermost loops:\n%s", code)
			params := dom.params
			if params == nil {
				params = []map[string]int64{{}}
			}
			for _, pv := range params {
				bind := map[string]int64{}
				for _, p := range dom.set.Params() {
					bind[p] = pv[p]
				}
				st := &loopStats{params: bind, x: make([]int64, len(names))}
				st.run(ast)
				require.Zero(t, st.empty, "%d of %d loop iterations execute nothing with %v:\n%s", st.empty, st.iters, bind, code)
				n, err := dom.set.Card(bind)
				require.NoError(t, err)
				require.Equal(t, n, int64(st.leaves), "with %v", bind)
			}
			t.Logf("%s\n%s", dom.set, code)
		})
	}
}
