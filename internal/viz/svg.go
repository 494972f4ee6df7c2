// This file renders a 2-D projection of an op's iteration domain as SVG: live, dead and partly
// dead cells in three colours.

package viz

import (
	"fmt"
	"strings"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// Cell classes of the picture.
const (
	ClassLive    = "live"    // every iteration projecting to the cell is executed
	ClassDead    = "dead"    // no iteration projecting to the cell is executed
	ClassPartial = "partial" // some are
	// ClassSkipped cells hold only iterations known-values skipped (they add a known zero or
	// take the max of a known -inf: the masked half of causal attention) or dead ones, at
	// least one skipped.
	ClassSkipped = "skipped"
)

// maxCells bounds the pictures (cells of the projection's bounding box); maxSide is the largest
// number of cells drawn along a side: larger projections are scaled down, each drawn cell a
// square block of iterations (live when all of the block's cells are, dead when none is).
const (
	maxCells = 1 << 20
	maxSide  = 256
)

// Picture is a rendered projection.
type Picture struct {
	SVG                          string
	Live, Dead, Partial, Skipped int // cells of each class
	Rows, Cols                   int
	DimRow, DimCol               string
	RowOrigin, ColOrigin         int64
	// Scale is the side of the square block of projected cells each drawn cell stands for
	// (1: one cell per projected point).
	Scale int64
}

// Domain draws op's iteration domain projected onto iteration dims (dr, dc) (rows, columns):
// cells where every iteration of the full domain is in op.Domain are live, cells where none is
// are dead (skipped when known-values removed some of them: skipped holds those iterations,
// or is the zero Set), the others partial. params binds the symbolic dims.
func Domain(g *ir.Graph, op *ir.Op, dr, dc int, params map[string]int64, skipped volume.Set) (*Picture, error) {
	if dr == dc || dr < 0 || dc < 0 || dr >= op.NDim() || dc >= op.NDim() {
		return nil, fmt.Errorf("op %%%s has %d iteration dims; cannot project onto dims %d and %d", op.Result.Name, op.NDim(), dr, dc)
	}
	var live, dead, skip volume.Set
	hasSkip := skipped.NPieces() > 0
	full, dom := op.Full, op.Domain
	for _, p := range g.Params {
		v, ok := params[p]
		if !ok {
			return nil, fmt.Errorf("%w: bind symbolic dim %s (--dim %s=N)", volume.ErrUnbounded, p, p)
		}
		full, dom = full.FixParam(p, v), dom.FixParam(p, v)
		if hasSkip {
			skipped = skipped.FixParam(p, v)
		}
	}
	live = project(dom, dr, dc)
	dead = project(full.Subtract(dom), dr, dc)
	if hasSkip {
		skip = project(skipped.SetDimNames(op.Dims), dr, dc)
	}
	if err := volume.FirstErr(live, dead, skip); err != nil {
		return nil, err
	}
	scale, err := scaleFor(live.Union(dead))
	if err != nil {
		return nil, err
	}
	if scale > 1 {
		m := volume.MustParseMap(fmt.Sprintf("{ [a, b] -> [floor(a/%d), floor(b/%d)] }", scale, scale))
		live, dead = live.Apply(m), dead.Apply(m)
		if hasSkip {
			skip = skip.Apply(m)
		}
		if err := volume.FirstErr(live, dead, skip); err != nil {
			return nil, err
		}
	}
	lp, err := live.Points(nil, maxCells)
	if err != nil {
		return nil, err
	}
	dp, err := dead.Points(nil, maxCells)
	if err != nil {
		return nil, err
	}
	if len(lp)+len(dp) == 0 {
		return nil, fmt.Errorf("op %%%s has an empty iteration domain", op.Result.Name)
	}
	class := map[[2]int64]string{}
	for _, p := range lp {
		class[[2]int64{p[0], p[1]}] = ClassLive
	}
	for _, p := range dp {
		k := [2]int64{p[0], p[1]}
		if class[k] == ClassLive {
			class[k] = ClassPartial
		} else {
			class[k] = ClassDead
		}
	}
	if hasSkip {
		sp, err := skip.Points(nil, maxCells)
		if err != nil {
			return nil, err
		}
		for _, p := range sp {
			if k := [2]int64{p[0], p[1]}; class[k] == ClassDead {
				class[k] = ClassSkipped
			}
		}
	}
	r0, r1, c0, c1 := int64(1<<62), int64(-1<<62), int64(1<<62), int64(-1<<62)
	for k := range class {
		r0, r1, c0, c1 = min(r0, k[0]), max(r1, k[0]), min(c0, k[1]), max(c1, k[1])
	}
	rows, cols := int(r1-r0+1), int(c1-c0+1)
	if int64(rows)*int64(cols) > maxCells {
		return nil, fmt.Errorf("projection of %d×%d cells is too large to draw", rows, cols)
	}
	pic := &Picture{Rows: rows, Cols: cols, DimRow: op.Dims[dr], DimCol: op.Dims[dc], RowOrigin: r0, ColOrigin: c0, Scale: scale}
	cell := max(1, min(16, 640/max(rows, cols)))
	w, h := cols*cell, rows*cell
	var sb strings.Builder
	fmt.Fprintf(&sb, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">`+"\n", w+120, h+40, w+120, h+40)
	fmt.Fprintf(&sb, "<title>%%%s (%s): iteration domain projected onto (%s, %s)</title>\n", op.Result.Name, op.Kind, pic.DimRow, pic.DimCol)
	colors := map[string]string{ClassLive: "#2e7d32", ClassDead: "#e0e0e0", ClassPartial: "#f9a825", ClassSkipped: "#90caf9"}
	sb.WriteString(`<g transform="translate(0,20)">` + "\n")
	// one rect per horizontal run of cells of the same class
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; {
			k := class[[2]int64{r0 + int64(r), c0 + int64(c)}]
			run := 1
			for c+run < cols && class[[2]int64{r0 + int64(r), c0 + int64(c+run)}] == k {
				run++
			}
			if k != "" {
				fmt.Fprintf(&sb, `<rect class="%s" x="%d" y="%d" width="%d" height="%d" fill="%s" data-cells="%d"/>`+"\n",
					k, c*cell, r*cell, run*cell, cell, colors[k], run)
				switch k {
				case ClassLive:
					pic.Live += run
				case ClassDead:
					pic.Dead += run
				case ClassSkipped:
					pic.Skipped += run
				default:
					pic.Partial += run
				}
			}
			c += run
		}
	}
	sb.WriteString("</g>\n")
	scaled := ""
	if scale > 1 {
		scaled = fmt.Sprintf(" (each cell %d×%d)", scale, scale)
	}
	fmt.Fprintf(&sb, `<text x="0" y="14" font-size="12" font-family="Helvetica">%%%s: %s → columns, %s ↓ rows%s</text>`+"\n", op.Result.Name, pic.DimCol, pic.DimRow, scaled)
	legend := []string{ClassLive, ClassDead, ClassPartial}
	if pic.Skipped > 0 {
		legend = append(legend, ClassSkipped)
	}
	for i, k := range legend {
		fmt.Fprintf(&sb, `<rect x="%d" y="%d" width="10" height="10" fill="%s"/><text x="%d" y="%d" font-size="10" font-family="Helvetica">%s</text>`+"\n",
			w+10, 30+16*i, colors[k], w+24, 39+16*i, k)
	}
	sb.WriteString("</svg>\n")
	pic.SVG = sb.String()
	return pic, nil
}

// scaleFor returns the side of the blocks that bring a 2-D set's bounding box within maxSide
// cells per side.
func scaleFor(s volume.Set) (int64, error) {
	side := int64(1)
	for d := 0; d < 2; d++ {
		bs, err := s.DimBounds(d)
		if err != nil {
			return 0, err
		}
		lo, hi := int64(1<<62), int64(-1<<62)
		for _, b := range bs {
			for _, l := range b.Lower {
				if c, ok := l.IsConst(); ok {
					lo = min(lo, c)
				}
			}
			for _, u := range b.Upper {
				if c, ok := u.IsConst(); ok {
					hi = max(hi, c)
				}
			}
		}
		if hi >= lo {
			side = max(side, hi-lo+1)
		}
	}
	return max(1, (side+maxSide-1)/maxSide), nil
}

// InformativeDims returns the two iteration dims of op a picture shows best: those the
// restriction (or the domain itself, when nothing is restricted) involves most, the largest
// extents on ties; false when op has fewer than two dims, or when volume gave up scoring them
// (the two dims returned are then a guess).
func InformativeDims(op *ir.Op) (dr, dc int, ok bool) {
	n := op.NDim()
	if n < 2 {
		return 0, 0, false
	}
	score := make([]int64, n)
	scored := true // false when volume gave up on a score
	func() {
		dead := op.Full.Subtract(op.Domain)
		for d := 0; d < n; d++ {
			lo, hi := extentOf(op.Full, d)
			score[d] = hi - lo + 1
			empty := dead.IsEmpty()
			if !empty.Known() {
				scored = false
				return
			}
			if empty == volume.Yes {
				continue
			}
			// the live or the dead iterations cover only part of d's range: the picture shows
			// where they stop
			for _, part := range []volume.Set{dead, op.Domain} {
				if l, h := extentOf(part, d); l != lo || h != hi {
					score[d] += 1 << 40
				}
			}
			if bs, err := dead.DimBounds(d); err == nil {
				for _, b := range bs {
					for _, a := range append(b.Lower, b.Upper...) {
						if len(a.Dims) > 0 {
							score[d] += 1 << 41 // bounded by another dim: a triangle, a band
						}
					}
				}
			}
		}
	}()
	best := func(skip int) int {
		k := -1
		for d := 0; d < n; d++ {
			if d != skip && (k < 0 || score[d] > score[k]) {
				k = d
			}
		}
		return k
	}
	a := best(-1)
	b := best(a)
	if a > b {
		a, b = b, a
	}
	// when volume gave up scoring, the scores so far still pick two dims to draw, but the
	// choice is not informed: ok says so
	return a, b, scored
}

func extentOf(s volume.Set, d int) (lo, hi int64) {
	lo, hi = 0, 0
	bs, err := s.DimBounds(d)
	if err != nil {
		return
	}
	lo, hi = 1<<62, -1<<62
	for _, b := range bs {
		for _, l := range b.Lower {
			if c, ok := l.IsConst(); ok {
				lo = min(lo, c)
			}
		}
		for _, u := range b.Upper {
			if c, ok := u.IsConst(); ok {
				hi = max(hi, c)
			}
		}
	}
	if hi < lo {
		return 0, 0
	}
	return lo, hi
}

// project keeps dims dr and dc (in that order) of s.
func project(s volume.Set, dr, dc int) volume.Set {
	n := s.NDim()
	// move dr and dc to the front by projecting the others out, highest first
	keep := map[int]bool{dr: true, dc: true}
	for d := n - 1; d >= 0; d-- {
		if !keep[d] {
			s = s.ProjectOut(d, 1)
		}
	}
	if dr > dc {
		// dims are now (dc, dr): swap
		s = s.Apply(volume.MustParseMap("{ [a, b] -> [b, a] }"))
	}
	return s
}
