package e2e

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/ir"
)

func detections(scores []float64, labels []int64) Detections {
	d := Detections{Boxes: ir.NewTensor(ir.F32, []int64{int64(len(scores)), 4}),
		Scores: ir.NewTensor(ir.F32, []int64{int64(len(scores))}), Labels: ir.NewTensor(ir.I64, []int64{int64(len(scores))})}
	for i, s := range scores {
		d.Scores.F[i], d.Labels.I[i] = s, labels[i]
		for c := range 4 {
			d.Boxes.F[4*i+c] = float64(10*labels[i] + int64(c)) // a box per label
		}
	}
	return d
}

// TestCompareDetectionsNearTies: two detections whose scores differ by less than twice the
// score tolerance may swap (and only as a whole: label, box and score together); a swap of
// scores further apart, a wrong label or a missing detection is an error.
func TestCompareDetectionsNearTies(t *testing.T) {
	boxTol, scoreTol := [2]float64{1e-4, 1e-3}, [2]float64{1e-4, 1e-5}
	want := detections([]float64{0.9, 0.500005, 0.5, 0.3}, []int64{1, 2, 3, 4})
	require.NoError(t, CompareDetections(want, want, boxTol, scoreTol))
	// the near tie (0.500005 vs 0.5: 5e-6 apart, within twice 1e-5 + 1e-4·0.5) in either order
	swapped := detections([]float64{0.9, 0.5, 0.500005, 0.3}, []int64{1, 3, 2, 4})
	require.NoError(t, CompareDetections(swapped, want, boxTol, scoreTol))
	// a swap of labels without their boxes and scores is not a permutation of detections
	labelsOnly := detections([]float64{0.9, 0.500005, 0.5, 0.3}, []int64{1, 3, 2, 4})
	labelsOnly.Boxes = want.Boxes
	require.ErrorContains(t, CompareDetections(labelsOnly, want, boxTol, scoreTol), "detection 1 matches none of the near-tied reference detections 1..2")
	// scores 0.2 apart decide the order
	far := detections([]float64{0.500005, 0.9, 0.5, 0.3}, []int64{2, 1, 3, 4})
	require.ErrorContains(t, CompareDetections(far, want, boxTol, scoreTol), "detection 0: label 2, want 1")
	require.ErrorContains(t, CompareDetections(detections([]float64{0.9}, []int64{1}), want, boxTol, scoreTol), "got 1 detections")
	wrong := detections([]float64{0.9, 0.500005, 0.5, 0.3}, []int64{1, 2, 3, 5})
	require.ErrorContains(t, CompareDetections(wrong, want, boxTol, scoreTol), "detection 3: label 5, want 4")
}
