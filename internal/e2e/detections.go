// This file compares the detections of an object detector (boxes, scores, labels, in ONNX
// order: descending score) with a reference, allowing the order of detections whose scores tie
// within the tolerance.

package e2e

import (
	"fmt"
	"math"

	"github.com/graphc/graphc/ir"
)

// Detections are a detector's outputs: boxes [n, 4], scores [n] and labels [n].
type Detections struct {
	Boxes, Scores, Labels *ir.Tensor
}

// CompareDetections checks that got has the detections of want: as many, the same label and a
// box within boxTol (|d| <= atol + rtol·|want|) and a score within scoreTol at each position.
// Detections are ordered by descending score, so two whose reference scores differ by less
// than twice the score tolerance (each computed score may be off by the tolerance, in
// opposite directions) may come in either order: within each run of such near ties, got must
// be a permutation of want (each matched detection within the tolerances). Positions outside
// such runs compare one to one.
func CompareDetections(got, want Detections, boxTol, scoreTol [2]float64) error {
	g, w := got.decoded(), want.decoded()
	n := w.Scores.Len()
	if g.Scores.Len() != n || g.Labels.Len() != n || g.Boxes.Len() != 4*n || w.Labels.Len() != n || w.Boxes.Len() != 4*n {
		return fmt.Errorf("got %d detections (%d labels, %d box coordinates), want %d", g.Scores.Len(), g.Labels.Len(), g.Boxes.Len(), n)
	}
	near := func(a, b float64, tol [2]float64) bool { return math.Abs(a-b) <= tol[1]+tol[0]*math.Abs(b) }
	same := func(i, j int) error { // got i against want j
		if g.Labels.I[i] != w.Labels.I[j] {
			return fmt.Errorf("label %d, want %d", g.Labels.I[i], w.Labels.I[j])
		}
		if !near(g.Scores.F[i], w.Scores.F[j], scoreTol) {
			return fmt.Errorf("score %v, want %v", g.Scores.F[i], w.Scores.F[j])
		}
		for c := range 4 {
			if !near(g.Boxes.F[4*i+c], w.Boxes.F[4*j+c], boxTol) {
				return fmt.Errorf("box %v, want %v", g.Boxes.F[4*i:4*i+4], w.Boxes.F[4*j:4*j+4])
			}
		}
		return nil
	}
	for a := 0; a < n; {
		// the run of near ties from a: consecutive reference scores closer than twice the
		// tolerance
		b := a + 1
		for b < n && math.Abs(w.Scores.F[b]-w.Scores.F[b-1]) <= 2*(scoreTol[1]+scoreTol[0]*math.Abs(w.Scores.F[b-1])) {
			b++
		}
		if b == a+1 {
			if err := same(a, a); err != nil {
				return fmt.Errorf("detection %d: %w", a, err)
			}
			a = b
			continue
		}
		// a permutation within [a, b): match each got detection to an unused reference one
		used := make([]bool, b-a)
		for i := a; i < b; i++ {
			found := false
			for j := a; j < b && !found; j++ {
				if !used[j-a] && same(i, j) == nil {
					used[j-a], found = true, true
				}
			}
			if !found {
				return fmt.Errorf("detection %d matches none of the near-tied reference detections %d..%d (against %d: %v)", i, a, b-1, i, same(i, i))
			}
		}
		a = b
	}
	return nil
}

func (d Detections) decoded() Detections {
	return Detections{Boxes: d.Boxes.Decoded(), Scores: d.Scores.Decoded(), Labels: d.Labels.Decoded()}
}
