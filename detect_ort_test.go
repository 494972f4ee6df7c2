package graphc_test

// This file runs the committed detector (testdata/detect/tiny_ssd: torchvision's SSD
// postprocessing, exported by models/export.py --set tiny-detect, with onnxruntime's outputs
// written by models/ort_refs.py) as compiled code for x86-64 and as Hexagon v67 code under
// qemu: the same number of boxes, the same labels in the same order (detections whose scores
// tie within the tolerance in either order), boxes and scores within the tolerance of the
// compiled transcendental functions, on an image with some detections, one that reaches the
// 40-box limit and one where no box passes the score threshold.

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/internal/ortref"
	"github.com/graphc/graphc/internal/realmodel"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
)

func TestTinySSDMatchesORT(t *testing.T) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	m, err := realmodel.Load("testdata/detect", "tiny_ssd")
	require.NoError(t, err)
	counts := checkDetector(t, m, nil, true, true, false)
	require.True(t, counts[0] && counts[40], "an image without detections and one at the limit (40): %v", counts)
}

// TestCachedDetectorsMatchORT runs the detectors models/export.py --set detect wrote into
// $GRAPHC_MODELS_DETECT (~/.cache/graphc-models-detect) with onnxruntime's outputs
// (models/ort_refs.py); it skips the models without them. Besides the stored images it runs
// one image where no box survives, one with some boxes and one that reaches the output's bound,
// found among simple images by onnxruntime (regimeSets), and fails when a regime has no image.
// GRAPHC_DETECT=1 runs it (minutes of compilation per model).
func TestCachedDetectorsMatchORT(t *testing.T) {
	if os.Getenv("GRAPHC_DETECT") == "" {
		t.Skip("GRAPHC_DETECT=1 runs the cached detectors")
	}
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	root := os.Getenv("GRAPHC_MODELS_DETECT")
	if root == "" {
		home, _ := os.UserHomeDir()
		root = filepath.Join(home, ".cache", "graphc-models-detect")
	}
	names, err := realmodel.List(root)
	if err != nil || len(names) == 0 {
		t.Skipf("no detectors in %s", root)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			m, err := realmodel.Load(root, name)
			require.NoError(t, err)
			if m.Reference != "onnxruntime-node" {
				t.Skip("no onnxruntime outputs (models/ort_refs.py)")
			}
			// the default passes; GRAPHC_DETECT_PIPELINE chooses others (set and empty: none)
			var opts []graphc.Option
			if p, ok := os.LookupEnv("GRAPHC_DETECT_PIPELINE"); ok {
				opts = append(opts, graphc.WithPipeline(p))
			}
			if msg := ortref.Missing(); msg != "" {
				t.Skip(msg)
			}
			counts := checkDetector(t, m, opts, false, false, true)
			t.Logf("%s: box counts %v", name, counts)
		})
	}
}

// checkDetector compiles detector m with opts, runs its data sets (through the evaluator when eval, as
// x86-64 code, and as Hexagon v67 code under qemu when hexagon) and compares the boxes,
// scores and labels with m's outputs; it returns the box counts seen. With regimes it adds
// images with no box, some boxes and boxes up to the bound of the compiled output (regimeSets,
// run by onnxruntime) and requires all three.
func checkDetector(t *testing.T, m *realmodel.Model, opts []graphc.Option, evaluate, hexagon, regimes bool) map[int]bool {
	ctx := context.Background()
	res, err := graphc.Compile(ctx, m.Path, opts...)
	require.NoError(t, err)
	require.NotEmpty(t, res.Graph.Bounded)
	// the boxes' allocated extent: the bound of their count
	atBounds, err := res.Graph.Outputs[0].Type.EvalShape(e2e.AtBounds(res.Graph, nil))
	require.NoError(t, err)
	bound := atBounds[0]
	if regimes {
		sets, err := regimeSets(ctx, m, m.Sets[0].Inputs[0].Shape, bound)
		require.NoError(t, err)
		m.Sets = append(m.Sets, sets...)
	}
	dir := t.TempDir()
	prog, err := e2e.Build(ctx, dir, res.Graph, res.Module)
	require.NoError(t, err)
	// a box edge is a centre minus half an extent, so its rounding error scales with the box's
	// size, up to the image's, rather than with the coordinate (an edge near 0 of a box as large
	// as the image): 1e-4 of the image's size (0.032 px at 320×320), at least 1e-3
	shape := m.Sets[0].Inputs[0].Shape
	boxATol := max(1e-3, 1e-4*float64(max(shape[len(shape)-1], shape[len(shape)-2])))
	counts := map[int]bool{}
	check := func(what string, set realmodel.DataSet, raw []*ir.Tensor) {
		got, err := e2e.TrimBounded(res.Graph, nil, raw)
		require.NoError(t, err)
		want := set.Outputs
		n := want[1].Shape[0]
		counts[int(n)] = true
		// the count comes back through the out-parameters of the bounded dims (the entry's
		// extents): 0 and the bound included
		ps := map[string]int64{}
		for _, b := range res.Graph.Bounded {
			ps[b.Param] = raw[b.Output].Int(0)
		}
		ext, err := res.Graph.Outputs[0].Type.EvalShape(ps)
		require.NoError(t, err)
		require.Equal(t, n, ext[0], "%s %s: the boxes' extent from the out-parameters %v", what, set.Name, ps)
		require.Equal(t, want[0].Shape, got[0].Shape, "%s %s: boxes", what, set.Name)
		// the same detections in ONNX's order (descending score), near ties in either order
		require.NoError(t, e2e.CompareDetections(e2e.Detections{Boxes: got[0], Scores: got[1], Labels: got[2]},
			e2e.Detections{Boxes: want[0], Scores: want[1], Labels: want[2]}, [2]float64{1e-4, boxATol}, [2]float64{1e-4, 1e-5}),
			"%s %s", what, set.Name)
		box, score, moved := positionalErrors(got, want)
		t.Logf("%s %s: %d boxes, max |Δbox| %.2g, max |Δscore| %.2g (%d near ties in another order)", what, set.Name, n, box, score, moved)
		if len(want) > 3 {
			// Mask R-CNN's masks [n, 1, H, W], pasted into the image by a Loop over the
			// detections (resize_sized to each box): probabilities, in the detections' order
			// (probabilities; three runs matched onnxruntime exactly, one differed in 8 of the
			// 10⁷ elements by up to 1.2e-3: a run-to-run difference not yet explained)
			require.Equal(t, want[3].Shape, got[3].Shape, "%s %s: masks", what, set.Name)
			worst, over := 0.0, 0
			for i := range want[3].F {
				d := math.Abs(got[3].F[i] - want[3].F[i])
				worst = max(worst, d)
				if d > 1e-3 {
					over++
				}
			}
			t.Logf("%s %s: masks differ by at most %.2g (%d of %d elements by more than 1e-3)", what, set.Name, worst, over, want[3].Len())
			require.NoError(t, e2e.Compare(got[3], want[3], 0, 5e-3, nil), "%s %s: masks", what, set.Name)
		}
	}
	if evaluate {
		ref, err := graphc.Load(ctx, m.Path)
		require.NoError(t, err)
		for _, set := range m.Sets {
			outs, err := eval.Run(ref, map[string]*ir.Tensor{m.InputNames[0]: set.Inputs[0]})
			require.NoError(t, err)
			check("evaluator", set, outs)
		}
	}
	reps := 1
	if n, err := strconv.Atoi(os.Getenv("GRAPHC_DETECT_REPS")); err == nil && n > 1 {
		reps = n // a figure for the log (process CPU time per call), no assertion
	}
	var cases []*e2e.Case
	for _, set := range m.Sets {
		raw, _, err := prog.Run(ctx, set.Inputs, e2e.AtBounds(res.Graph, nil), reps)
		require.NoError(t, err)
		check("x86-64", set, raw)
		if reps > 1 {
			t.Logf("%s %s: %.2f ms of process CPU per call (%d calls)", m.Name, set.Name, prog.CPU/1e6, reps-1)
		}
		cases = append(cases, &e2e.Case{Graph: res.Graph, Inputs: set.Inputs})
	}
	if !hexagon {
		return counts
	}
	hm := e2e.HexagonScalar()
	hp, err := e2e.BuildBatch(ctx, filepath.Join(dir, hm.String()), hm, cases)
	require.NoError(t, err)
	if !e2e.CanRun(t, hm) {
		return counts
	}
	for i, r := range hp.Run(ctx) {
		require.NoError(t, r.Err)
		require.Zero(t, r.Status)
		check(hm.String(), m.Sets[i], r.Outputs)
	}
	return counts
}

// positionalErrors returns the largest box and score differences between detections got and
// want (boxes, scores, labels) at the positions where the labels agree, and how many positions
// hold another label (near ties that came in another order, which CompareDetections matched).
func positionalErrors(got, want []*ir.Tensor) (box, score float64, moved int) {
	gb, gs, gl := got[0].Decoded(), got[1].Decoded(), got[2].Decoded()
	wb, ws, wl := want[0].Decoded(), want[1].Decoded(), want[2].Decoded()
	for i := range wl.I {
		if gl.I[i] != wl.I[i] {
			moved++
			continue
		}
		score = max(score, math.Abs(gs.F[i]-ws.F[i]))
		for c := range 4 {
			box = max(box, math.Abs(gb.F[4*i+c]-wb.F[4*i+c]))
		}
	}
	return box, score, moved
}
