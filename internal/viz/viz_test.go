package viz_test

import (
	"context"
	"encoding/xml"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/viz"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/passes"
	"github.com/graphc/graphc/volume"
)

func optimize(t *testing.T, src string, require_ ...string) (*ir.Graph, *passes.State) {
	t.Helper()
	g, err := ir.Parse(src)
	require.NoError(t, err)
	ps, err := passes.ParsePipeline(passes.DefaultPipeline)
	require.NoError(t, err)
	opts := &passes.Options{VerifyEach: true}
	for _, r := range require_ {
		rq, err := passes.ParseRequirement(g, r)
		require.NoError(t, err)
		opts.Require = append(opts.Require, rq)
	}
	res, err := passes.Run(context.Background(), g, ps, opts)
	require.NoError(t, err)
	return g, res.State
}

// svgCounts parses the SVG and sums data-cells per class: the picture is checked by its
// structure, not by eye.
func svgCounts(t *testing.T, svg string) map[string]int {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(svg))
	counts := map[string]int{}
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "rect" {
			var class string
			var cells int
			for _, a := range se.Attr {
				switch a.Name.Local {
				case "class":
					class = a.Value
				case "data-cells":
					cells, _ = strconv.Atoi(a.Value)
				}
			}
			if class != "" {
				counts[class] += cells
			}
		}
	}
	return counts
}

const matmulTrilu = `graph @g(%a: f32[8, 8], %b: f32[8, 8]) {
  %c = matmul(%a, %b) : f32[8, 8]
  %y = trilu(%c) : f32[8, 8]
  return %y
}`

func TestTriangle(t *testing.T) {
	g, _ := optimize(t, matmulTrilu)
	pic, err := viz.Domain(g, g.OpByName("c"), 0, 1, nil, volume.Set{})
	require.NoError(t, err)
	require.Equal(t, 36, pic.Live, "8·9/2 cells on or above the diagonal")
	require.Equal(t, 28, pic.Dead)
	require.Equal(t, 0, pic.Partial)
	require.Equal(t, map[string]int{"live": 36, "dead": 28}, svgCounts(t, pic.SVG))
	// projecting onto (i, k) mixes live and dead j: every cell is partly live except row 7's
	pic, err = viz.Domain(g, g.OpByName("c"), 0, 2, nil, volume.Set{})
	require.NoError(t, err)
	require.Equal(t, 8, pic.Live, "row i = 7 only has j = 7, which is live")
	require.Equal(t, 56, pic.Partial)
}

func TestDiagonalTileCheckerboard(t *testing.T) {
	g, _ := optimize(t, `graph @g(%a: f32[6, 4], %b: f32[4, 6]) {
  %c = matmul(%a, %b) : f32[6, 6]
  %d = diag_part(%c) : f32[6]
  return %d
}`)
	pic, err := viz.Domain(g, g.OpByName("c"), 0, 1, nil, volume.Set{})
	require.NoError(t, err)
	require.Equal(t, 6, pic.Live)
	require.Equal(t, 30, pic.Dead)

	g, _ = optimize(t, `graph @g(%x: f32[10, 10]) {
  %y = relu(%x) : f32[10, 10]
  return %y
}`, "y[i, j] : 2 <= i < 5 and 3 <= j < 7")
	pic, err = viz.Domain(g, g.OpByName("y"), 0, 1, nil, volume.Set{})
	require.NoError(t, err)
	require.Equal(t, 12, pic.Live, "a 3×4 tile")
	require.Equal(t, 88, pic.Dead)

	g, _ = optimize(t, `graph @g(%x: f32[6, 6]) {
  %y = abs(%x) : f32[6, 6]
  return %y
}`, "y[i, j] : (i + j) mod 2 = 0")
	pic, err = viz.Domain(g, g.OpByName("y"), 0, 1, nil, volume.Set{})
	require.NoError(t, err)
	require.Equal(t, 18, pic.Live)
	require.Equal(t, 18, pic.Dead)
}

func TestDOT(t *testing.T) {
	g, st := optimize(t, matmulTrilu)
	dot := viz.DOT(g, st.Dead)
	require.Contains(t, dot, `digraph "g"`)
	require.Contains(t, dot, `label="%c\nmatmul\nf32[8, 8]\nDIE: 43.8% dead"`)
	require.Contains(t, dot, "-> out0")
}

// TestCausalAttention draws masked_fill attention: QK^T loses the masked triangle (dead: its
// results are unused), P·V projected onto (i, k) the same triangle as skipped (its iterations
// add the known-zero weights), and the DOT labels say how much known-values skipped.
func TestCausalAttention(t *testing.T) {
	g, st := optimize(t, `graph @causal(%q: f32[6, 4], %k: f32[4, 6], %v: f32[6, 4]) {
  %mask = constant dense<[0, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]> : i1[6, 6]
  %ninf = constant dense<[-inf]> : f32[]
  %s = matmul(%q, %k) : f32[6, 6]
  %w = where(%mask, %ninf, %s) : f32[6, 6]
  %m = reduce_max(%w) {axes = [1]} : f32[6, 1]
  %d = sub(%w, %m) : f32[6, 6]
  %e = exp(%d) : f32[6, 6]
  %z = reduce_sum(%e) {axes = [1]} : f32[6, 1]
  %p = div(%e, %z) : f32[6, 6]
  %y = matmul(%p, %v) : f32[6, 4]
  return %y
}`)
	var skipped volume.Set
	for _, d := range st.Dead {
		if d.Op == "y" {
			skipped = d.KnownZero()
		}
	}
	pic, err := viz.Domain(g, g.OpByName("s"), 0, 1, nil, volume.Set{})
	require.NoError(t, err)
	require.Equal(t, 21, pic.Live, "6·7/2 scores on or below the diagonal")
	require.Equal(t, 15, pic.Dead)
	pic, err = viz.Domain(g, g.OpByName("y"), 0, 2, nil, skipped)
	require.NoError(t, err)
	require.Equal(t, 21, pic.Live)
	require.Equal(t, 15, pic.Skipped, "the masked weights: skipped, not unused")
	require.Equal(t, map[string]int{"live": 21, "skipped": 15}, svgCounts(t, pic.SVG))
	dot := viz.DOT(g, st.Dead)
	require.Contains(t, dot, `label="%y\nmatmul\nf32[6, 4]\nDIE: 41.7% dead (41.7% known identity)"`)
}

// TestScaledAndInformative: a projection wider than the picture is drawn in blocks (live, dead,
// or partial on the diagonal); the default dims are those the restriction involves.
func TestScaledAndInformative(t *testing.T) {
	g, _ := optimize(t, `graph @g(%a: f32[600, 4], %b: f32[4, 600]) {
  %c = matmul(%a, %b) : f32[600, 600]
  %y = trilu(%c) : f32[600, 600]
  return %y
}`)
	c := g.OpByName("c")
	dr, dc, ok := viz.InformativeDims(c)
	require.True(t, ok)
	require.Equal(t, []int{0, 1}, []int{dr, dc}, "the triangle is in (i, j)")
	pic, err := viz.Domain(g, c, dr, dc, nil, volume.Set{})
	require.NoError(t, err)
	require.Equal(t, int64(3), pic.Scale, "600 cells drawn as 200 blocks of 3")
	require.Equal(t, 200, pic.Rows)
	require.Equal(t, 200, pic.Partial, "the diagonal blocks")
	require.Equal(t, 200*199/2, pic.Dead)
	require.Equal(t, 200*199/2, pic.Live)
	// the LM head of a last-token model: only the last row lives, along i
	g, _ = optimize(t, `graph @g(%h: f32[8, 4], %w: f32[4, 1000]) {
  %l = matmul(%h, %w) : f32[8, 1000]
  return %l
}`, "l[i, j] : i = 7")
	dr, dc, _ = viz.InformativeDims(g.OpByName("l"))
	require.Equal(t, 0, dr, "i, where the live row is")
	require.NotEqual(t, 2, dr)
	_ = dc
}
