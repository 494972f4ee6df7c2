package passes_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/randgraph"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
	"github.com/graphc/graphc/passes"
)

// TestChannelsLastPreservesOutputs checks on random convolutional networks and random inputs
// that channels-last (after the default passes) keeps every output element's bits.
func TestChannelsLastPreservesOutputs(t *testing.T) {
	ps, err := passes.ParsePipeline("remove-empty,die,dce,channels-last")
	require.NoError(t, err)
	rewrote, split := 0, 0
	for seed := 0; seed < 150; seed++ {
		r := rand.New(rand.NewPCG(uint64(seed), 20))
		g := randgraph.CNN(r)
		text := g.String()
		checkSemantics(t, fmt.Sprintf("seed %d", seed), ps, text, nil, r)
		opt, err := ir.Parse(text)
		require.NoError(t, err)
		_, err = passes.Run(t.Context(), opt, ps, &passes.Options{VerifyEach: true})
		require.NoError(t, err)
		if strings.Contains(opt.String(), "generic(") {
			rewrote++
		}
		if strings.Contains(opt.String(), "_taps") {
			split++
		}
	}
	// the generator always has a windowed op, so the pass must rewrite most graphs
	require.Greater(t, rewrote, 100)
	// and some atrous convolutions are split into tap regions
	require.Greater(t, split, 0)
}

// TestChannelsLastShuffles checks, after the default pipeline (fuse folds ShuffleNet's
// reshape-transpose-reshape into the consumers' accesses of a rank-5 view), that channel
// shuffles are stored channels-last (no rank-5 value is left) and that every output keeps its
// bits.
func TestChannelsLastShuffles(t *testing.T) {
	ps, err := passes.ParsePipeline(passes.DefaultPipeline)
	require.NoError(t, err)
	shuffles, merged := 0, 0
	for seed := 0; seed < 150 && shuffles < 12; seed++ {
		r := rand.New(rand.NewPCG(uint64(seed), 20))
		g := randgraph.CNN(r)
		text := g.String()
		if !strings.Contains(text, "transpose(") {
			continue
		}
		shuffles++
		checkSemantics(t, fmt.Sprintf("seed %d", seed), ps, text, nil, r)
		opt, err := ir.Parse(text)
		require.NoError(t, err)
		_, err = passes.Run(t.Context(), opt, ps, &passes.Options{VerifyEach: true})
		require.NoError(t, err)
		rank5 := false
		for _, op := range opt.Ops {
			rank5 = rank5 || op.Result.Type.Rank() == 5
		}
		if !rank5 {
			merged++
		}
	}
	require.Greater(t, shuffles, 5)
	require.Greater(t, merged, shuffles/2, "shuffles stored channels-last")
}

// TestChannelsLastSpatialRanks runs the 1D- and 3D-convolution blocks of
// testdata/passes/channels-last through channels-last (alone, and after the default passes) and
// checks against the evaluator on random inputs that every output keeps its bits, and that the
// activations were stored channels-last with explicitly padded convolution inputs.
func TestChannelsLastSpatialRanks(t *testing.T) {
	// the channels of the activations ("": all but those named)
	channels := map[string]map[string]int64{
		"conv1d": {"": 6, "y_pad": 3, "z_nhwc": 5},
		"conv3d": {"": 4, "y_pad": 2},
	}
	for _, name := range []string{"conv1d", "conv3d"} {
		data, err := os.ReadFile("../testdata/passes/channels-last/" + name + ".graph")
		require.NoError(t, err)
		text := string(data)
		for _, pipeline := range []string{"channels-last", passes.DefaultPipeline} {
			ps, err := passes.ParsePipeline(pipeline)
			require.NoError(t, err)
			for seed := range 4 {
				r := rand.New(rand.NewPCG(uint64(seed), 30))
				checkSemantics(t, fmt.Sprintf("%s %q seed %d", name, pipeline, seed), ps, text, nil, r)
			}
			g, err := ir.Parse(text)
			require.NoError(t, err)
			_, err = passes.Run(t.Context(), g, ps, &passes.Options{VerifyEach: true})
			require.NoError(t, err)
			pads, rank := 0, g.Inputs[0].Type.Rank()
			for _, op := range g.Ops {
				if strings.HasSuffix(op.Result.Name, "_pad") {
					pads++
				}
				require.NotEqual(t, "conv", op.Kind, "%s: every convolution is rewritten", name)
				if op.Result.Type.Rank() == rank && !slices.Contains(g.Outputs, op.Result) {
					// channels-last: the channels are the last axis
					want, ok := channels[name][op.Result.Name]
					if !ok {
						want = channels[name][""]
					}
					last, _ := op.Result.Type.Shape[rank-1].IsConst()
					require.Equal(t, want, last, "%s: %s is channels-last", name, op.Result.Name)
				}
			}
			require.Equal(t, 2, pads, "%s %q: both convolutions read explicitly padded inputs", name, pipeline)
		}
	}
}

// TestChannelsLastSymbolicPadding runs the 1D-convolution block over T samples of
// testdata/passes/channels-last/conv1d_symbolic.graph through channels-last (alone, and after
// the default passes): both convolutions read explicitly padded copies whose extents are
// expressions of T, and every output keeps its bits against the evaluator at several T (from
// one sample, where the taps read mostly padding, to lengths of either parity for the strided
// one).
func TestChannelsLastSymbolicPadding(t *testing.T) {
	data, err := os.ReadFile("../testdata/passes/channels-last/conv1d_symbolic.graph")
	require.NoError(t, err)
	text := string(data)
	for _, pipeline := range []string{"channels-last", passes.DefaultPipeline} {
		ps, err := passes.ParsePipeline(pipeline)
		require.NoError(t, err)
		orig, err := ir.Parse(text)
		require.NoError(t, err)
		g, err := ir.Parse(text)
		require.NoError(t, err)
		_, err = passes.Run(t.Context(), g, ps, &passes.Options{VerifyEach: true})
		require.NoError(t, err)
		pads := 0
		for _, op := range g.Ops {
			if strings.HasSuffix(op.Result.Name, "_pad") {
				pads++
				_, static := op.Result.Type.StaticShape()
				require.False(t, static, "%q: %s has an extent of T", pipeline, op.Result.Name)
			}
			require.NotEqual(t, "conv", op.Kind, "%q: every convolution is rewritten", pipeline)
		}
		require.Equal(t, 2, pads, "%q: both convolutions read explicitly padded inputs", pipeline)
		r := rand.New(rand.NewPCG(7, 31))
		for _, T := range []int64{1, 2, 3, 4, 7, 10, 33} {
			x := ir.NewTensor(ir.F32, []int64{1, 3, T})
			for i := range x.F {
				x.F[i] = ir.RoundFloat(ir.F32, r.Float64()*4-2)
			}
			in := map[string]*ir.Tensor{"x": x}
			want, err := eval.Run(orig, in)
			require.NoError(t, err, "T = %d", T)
			got, err := eval.Run(g, in)
			require.NoError(t, err, "%q: T = %d", pipeline, T)
			require.Equal(t, want[0].Shape, got[0].Shape, "%q: T = %d", pipeline, T)
			for i := range want[0].F {
				require.Equal(t, math.Float64bits(want[0].F[i]), math.Float64bits(got[0].F[i]), "%q: T = %d, element %d", pipeline, T, i)
			}
		}
	}
}

// fewChannelsGraph is a network whose second convolution has few channels over rows of 66: 3 to
// 8 channels 3×3 (stride stem, 1 or 2), ReLU, 8 to 8 channels 3×3, ReLU, 8 to 8 channels 1×1.
func fewChannelsGraph(r *rand.Rand, stem int64) string {
	weights := func(n int) string {
		vs := make([]string, n)
		for i := range vs {
			vs[i] = fmt.Sprintf("%.3f", 2*r.Float64()-1)
		}
		return strings.Join(vs, ", ")
	}
	in := 66 * stem
	return fmt.Sprintf(`graph @few(%%x: f32[1, 3, %d, %d]) {
  %%w1 = constant dense<[%s]> : f32[8, 3, 3, 3]
  %%w2 = constant dense<[%s]> : f32[8, 8, 3, 3]
  %%w3 = constant dense<[%s]> : f32[8, 8, 1, 1]
  %%a = conv(%%x, %%w1) {pads = [1, 1, 1, 1], strides = [%d, %d]} : f32[1, 8, 66, 66]
  %%b = relu(%%a) : f32[1, 8, 66, 66]
  %%c = conv(%%b, %%w2) {pads = [1, 1, 1, 1]} : f32[1, 8, 66, 66]
  %%d = relu(%%c) : f32[1, 8, 66, 66]
  %%e = conv(%%d, %%w3) : f32[1, 8, 66, 66]
  return %%e
}
`, in, in, weights(8*3*9), weights(8*8*9), weights(8*8), stem, stem)
}

// TestChannelsLastFewChannels checks prefersNCHW's scope: a convolution of few channels over
// wide rows keeps NCHW when it reads the image, and is stored channels-last when an earlier
// convolution computed its input (a channels-last activation NCHW would transpose: MobileNetV3's
// first block after its stride-2 stem), with every output keeping its bits.
func TestChannelsLastFewChannels(t *testing.T) {
	ps, err := passes.ParsePipeline(passes.DefaultPipeline)
	require.NoError(t, err)
	for _, stem := range []int64{1, 2} {
		r := rand.New(rand.NewPCG(uint64(stem), 40))
		text := fewChannelsGraph(r, stem)
		checkSemantics(t, fmt.Sprintf("stem stride %d", stem), ps, text, nil, r)
		g, err := ir.Parse(text)
		require.NoError(t, err)
		_, err = passes.Run(t.Context(), g, ps, &passes.Options{VerifyEach: true})
		require.NoError(t, err)
		found := false
		for _, op := range g.Ops {
			if op.Result.Name != "c" {
				continue
			}
			found = true
			last, _ := op.Result.Type.Shape[3].IsConst()
			if stem == 1 {
				require.Equal(t, int64(66), last, "the image's 8-channel convolutions keep NCHW")
			} else {
				require.Equal(t, int64(8), last, "the activation's 8-channel convolution is channels-last")
			}
		}
		require.True(t, found, "%%c is computed")
	}
}
