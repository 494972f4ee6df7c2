package graphc_test

// This file checks DIE on SSD's per-class postprocessing at SSDlite's 90 classes: the
// concatenation of the classes' top-k scores has an extent that sums 90 run-time sizes, and
// the gist of a required volume over it (ParamContext.Gist) exceeded volume's elimination
// budget (a redundancy test's allowance running out fails the operation: volume's
// scanFeasible allowance has no parent and counts as fatal); DIE then gives up on the ops
// after it ("problem too complex", keeping them whole: exact, nothing removed there). And DCE
// moved the requirement of a removed per-class op (k <= count) to the first op of the graph,
// before the class's count exists. Checked: a valid graph after every pass, and the optimized
// graph computes what the imported one does.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
)

// perClassModel is SSD's postprocessing in miniature: for each of classes classes, the scores
// of anchors anchors above a threshold (NonZero, Gather), their top min(kmax, count) (TopK),
// the classes' results concatenated, then the top min(keep, total) of them gathered by their
// data-dependent indices.
func perClassModel(classes, anchors int) *onnxgen.Model {
	m := onnxgen.New("pc", 13)
	m.Input("S", ir.F32, classes, anchors)
	thr := ir.NewTensor(ir.F32, nil)
	thr.F[0] = 0.5
	m.Init("thr", thr)
	i64 := func(v int64) *ir.Tensor { t := ir.NewTensor(ir.I64, []int64{1}); t.I[0] = v; return t }
	m.Init("zero", i64(0))
	m.Init("kmax", i64(int64(anchors/2)))
	m.Init("keep", i64(int64(classes)))
	var parts []string
	for c := range classes {
		p := func(s string) string { return fmt.Sprintf("%s%d", s, c) }
		m.Init(p("c"), i64(int64(c)))
		m.Node("Gather", p("row"), []string{"S", p("c")}, []string{p("R")}, onnxgen.IntAttr("axis", 0))
		m.Node("Squeeze", p("sq0"), []string{p("R"), "zero"}, []string{p("RS")})
		m.Node("Greater", p("gt"), []string{p("RS"), "thr"}, []string{p("M")})
		m.Node("NonZero", p("nz"), []string{p("M")}, []string{p("NZ")})
		m.Node("Squeeze", p("sq"), []string{p("NZ"), "zero"}, []string{p("IDX")})
		m.Node("Gather", p("ga"), []string{p("RS"), p("IDX")}, []string{p("SEL")})
		m.Node("Shape", p("sh"), []string{p("SEL")}, []string{p("SHP")})
		m.Node("Min", p("mn"), []string{p("SHP"), "kmax"}, []string{p("K")})
		m.Node("TopK", p("tk"), []string{p("SEL"), p("K")}, []string{p("V"), p("I")})
		parts = append(parts, p("V"))
	}
	m.Node("Concat", "cat", parts, []string{"ALL"}, onnxgen.IntAttr("axis", 0))
	m.Node("Shape", "sha", []string{"ALL"}, []string{"SHA"})
	m.Node("Min", "mna", []string{"SHA", "keep"}, []string{"KA"})
	m.Node("TopK", "tka", []string{"ALL", "KA"}, []string{"VA", "IA"})
	m.Node("Gather", "fin", []string{"ALL", "IA"}, []string{"Y"})
	m.Output("Y", ir.F32, "n")
	return m
}

func TestDIEPerClassConcat(t *testing.T) {
	const classes, anchors = 90, 4
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.onnx")
	require.NoError(t, perClassModel(classes, anchors).Write(path))
	ref, err := graphc.Load(ctx, path)
	require.NoError(t, err)
	res, err := graphc.Compile(ctx, path, graphc.WithoutLowering(), graphc.WithVerifyEach(true))
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(35, 90))
	counts := map[int64]bool{}
	for mode := range 3 {
		s := ir.NewTensor(ir.F32, []int64{classes, anchors})
		for i := range s.F {
			// nothing above the threshold, everything, about half
			s.F[i] = float64(float32([]float64{0.25 * r.Float64(), 0.5 + r.Float64(), r.Float64()}[mode]))
		}
		want, err := eval.Run(ref, map[string]*ir.Tensor{"S": s})
		require.NoError(t, err)
		got, err := eval.Run(res.Graph, map[string]*ir.Tensor{"S": s})
		require.NoError(t, err)
		require.Equal(t, want[0].Shape, got[0].Shape)
		require.Equal(t, want[0].F, got[0].F)
		counts[want[0].Shape[0]] = true
	}
	require.True(t, counts[0] && counts[classes], "counts %v: none and the bound", counts)
}
