// This file runs the papers' examples (testdata/passes/die: MatMul+BandPart, MatMul+DiagPart,
// mean/Roberts with a tile requirement, the checkerboard subsampling, the padded strided
// convolution) with at most 10^6 flops after DIE, as compiled code on x86-64 and as hexagonv67
// code under qemu-hexagon, against the evaluator.

package lower_test

import (
	"context"
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/passes"
)

// paperParams binds the symbolic dims of the examples to small sizes (the mean/Roberts tile
// requirement needs H, W > 130).
var paperParams = map[string]int64{"M": 37, "P": 23, "H": 140, "W": 133}

var (
	runPipelineRE = regexp.MustCompile(`--pipeline=(\S*)`)
	runRequire    = regexp.MustCompile(`--require='([^']*)'`)
)

// paperCases parses the example files and keeps the graphs within maxFlops.
func paperCases(t *testing.T, maxFlops int64) ([]string, []*e2e.Case) {
	r := rand.New(rand.NewPCG(12, 12))
	var names []string
	var cases []*e2e.Case
	for _, file := range []string{"papers.graph", "conv_layer.graph", "logits.graph"} {
		data, err := os.ReadFile("../testdata/passes/die/" + file)
		if err != nil {
			t.Skipf("examples not found: %v", err)
		}
		run := ""
		for _, chunk := range strings.Split(string(data), "// -----") {
			if m := regexp.MustCompile(`// RUN: (.*)`).FindStringSubmatch(chunk); m != nil {
				run = m[1] // a RUN line applies to the following cases until the next one
			}
			i := strings.Index(chunk, "graph @")
			if i < 0 {
				continue
			}
			g, err := ir.Parse(chunk[i:])
			require.NoError(t, err, file)
			opts := &passes.Options{VerifyEach: true}
			for _, m := range runRequire.FindAllStringSubmatch(run, -1) {
				rq, err := passes.ParseRequirement(g, m[1])
				require.NoError(t, err)
				opts.Require = append(opts.Require, rq)
			}
			pipeline := passes.DefaultPipeline
			if m := runPipelineRE.FindStringSubmatch(run); m != nil {
				pipeline = m[1]
			}
			ps, err := passes.ParsePipeline(pipeline)
			require.NoError(t, err)
			_, err = passes.Run(context.Background(), g, ps, opts)
			require.NoError(t, err, g.Name)
			params := map[string]int64{}
			for _, p := range g.Params {
				params[p] = paperParams[p]
			}
			flops := int64(0)
			for _, op := range g.Ops {
				n, err := op.Domain.Card(params)
				require.NoError(t, err)
				flops += 2 * n
			}
			if flops > maxFlops {
				t.Logf("%s: %d flops after DIE, more than %d: not run", g.Name, flops, maxFlops)
				continue
			}
			names = append(names, g.Name)
			cases = append(cases, &e2e.Case{Graph: g, Params: params, Inputs: inputsFor(r, g, params, false)})
		}
	}
	require.GreaterOrEqual(t, len(cases), 5, "the papers' examples")
	return names, cases
}

func TestPapersExamples(t *testing.T) {
	names, cases := paperCases(t, 1_000_000)
	// float sums along the innermost dim accumulate in vector lanes (the convolution's window)
	runCasesTol(t, e2e.Host(), names, cases, reassocTolerance)
	ordered := e2e.Host()
	ordered.OrderedReductions = true
	runCases(t, ordered, names, cases)
	runCases(t, e2e.HexagonScalar(), names, cases)
}
