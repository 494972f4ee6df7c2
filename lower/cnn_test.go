package lower_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/internal/randgraph"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/passes"
)

// TestRandomCNNs compiles random convolutional networks (randgraph.CNN: every conv idiom,
// pools, residuals, squeeze-excitation, SiLU and HardSwish, concatenations) through the default pipeline and runs
// them against the evaluator: register tiles along channels, epilogues, in-place padding and
// guard splits together, without FMA (the evaluator's bits) and with AVX-512 FMA.
func TestRandomCNNs(t *testing.T) {
	ps, err := passes.ParsePipeline(passes.DefaultPipeline)
	require.NoError(t, err)
	var names []string
	var cases []*e2e.Case
	for seed := 0; seed < 24; seed++ {
		r := rand.New(rand.NewPCG(uint64(seed), 21))
		g := randgraph.CNN(r)
		_, err := passes.Run(context.Background(), g, ps, &passes.Options{VerifyEach: true})
		require.NoError(t, err, "seed %d", seed)
		names = append(names, fmt.Sprintf("cnn-%d", seed))
		cases = append(cases, &e2e.Case{Graph: g, Inputs: inputsFor(r, g, nil, false)})
	}
	// channels/taps sums accumulate in vector lanes (reassociated) and sigmoid is a vector
	// polynomial: within reassocTolerance of the evaluator
	runCasesTol(t, e2e.Host(), names, cases, reassocTolerance)
	runCasesTol(t, e2e.Machine{Target: "x86-64", CPU: "skylake-avx512"}, names, cases, func(d ir.DType) (float64, float64) {
		return 1e-5, 1e-4
	})
}
