package lower_test

import (
	"context"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/passes"
)

// TestChannelsLastConv1d3d compiles the 1D- and 3D-convolution blocks of
// testdata/passes/channels-last (NWC and NDHWC activations, explicitly padded inputs written in
// place, strided and dilated windows) through the default pipeline and runs them against the
// evaluator, without FMA and with AVX-512 FMA.
func TestChannelsLastConv1d3d(t *testing.T) {
	ps, err := passes.ParsePipeline(passes.DefaultPipeline)
	require.NoError(t, err)
	var names []string
	var cases []*e2e.Case
	for i, name := range []string{"conv1d", "conv3d"} {
		data, err := os.ReadFile("../testdata/passes/channels-last/" + name + ".graph")
		require.NoError(t, err)
		g, err := ir.Parse(string(data))
		require.NoError(t, err)
		_, err = passes.Run(context.Background(), g, ps, &passes.Options{VerifyEach: true})
		require.NoError(t, err)
		r := rand.New(rand.NewPCG(uint64(i), 31))
		names = append(names, name)
		cases = append(cases, &e2e.Case{Graph: g, Inputs: inputsFor(r, g, nil, false)})
	}
	runCasesTol(t, e2e.Host(), names, cases, reassocTolerance)
	runCasesTol(t, e2e.Machine{Target: "x86-64", CPU: "skylake-avx512"}, names, cases, func(d ir.DType) (float64, float64) {
		return 1e-5, 1e-4
	})
}
