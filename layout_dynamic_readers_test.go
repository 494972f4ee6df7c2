package graphc_test

// This file checks channels-last over a convolution whose result an op of no static form
// also reads, as Mask R-CNN's FPN outputs feed both the RPN head's convolutions and RoiAlign:
// the convolution writes a channels-last value (register tiles along its output channels), a
// copy reorders it for RoiAlign, and the other convolution reads it channels-last
// (passes/layout.go, reorderForDynamicReaders). Before, the whole value stayed NCHW and the
// convolution tiled its rows along the output channels, a third as fast.

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
)

func fpnRoiModel(t *testing.T, r *rand.Rand) string {
	m := onnxgen.New("fpn_roi", 16)
	m.Input("X", ir.F32, 1, 16, 20, 20)
	m.Input("rois", ir.F32, 5, 4)
	m.Input("batch", ir.I64, 5)
	for _, w := range []string{"W1", "W2"} {
		m.Init(w, e2e.RandomTensor(r, ir.F32, []int64{16, 16, 3, 3}))
	}
	pads := onnxgen.IntsAttr("pads", 1, 1, 1, 1)
	m.Node("Conv", "level", []string{"X", "W1"}, []string{"F"}, pads)
	m.Node("RoiAlign", "pool", []string{"F", "rois", "batch"}, []string{"Y"}, onnxgen.IntAttr("output_height", 3),
		onnxgen.IntAttr("output_width", 3), onnxgen.IntAttr("sampling_ratio", 2), onnxgen.FloatAttr("spatial_scale", 0.5))
	m.Node("Conv", "head", []string{"F", "W2"}, []string{"Z"}, pads)
	m.Output("Y", ir.F32, 5, 16, 3, 3)
	m.Output("Z", ir.F32, 1, 16, 20, 20)
	path := filepath.Join(t.TempDir(), "fpn_roi.onnx")
	require.NoError(t, m.Write(path))
	return path
}

func TestChannelsLastUnderDynamicReaders(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(35, 41))
	path := fpnRoiModel(t, r)
	ref, err := graphc.Load(ctx, path)
	require.NoError(t, err)
	res, err := graphc.Compile(ctx, path, graphc.WithVerifyEach(true))
	require.NoError(t, err)
	// the convolution that RoiAlign reads writes its output channels last
	var level *ir.Op
	for _, op := range res.Graph.Ops {
		if op.Name == "level" && op.Reduce == ir.ReduceSum {
			level = op
		}
	}
	require.NotNil(t, level, "the convolution of node level")
	require.Equal(t, "f32[1, 20, 20, 16]", level.Result.Type.String(), "its result is stored channels-last")
	var prog *e2e.Program
	if e2e.CanRun(t, e2e.Host()) {
		dir := filepath.Join(t.TempDir(), "x86")
		require.NoError(t, os.MkdirAll(dir, 0o755))
		prog, err = e2e.Build(ctx, dir, res.Graph, res.Module)
		require.NoError(t, err)
	}
	for trial := range 3 {
		x := e2e.RandomTensor(r, ir.F32, []int64{1, 16, 20, 20})
		rois := ir.NewTensor(ir.F32, []int64{5, 4})
		for k := range rois.F {
			rois.F[k] = float64(float32(r.Float64()*44 - 2)) // image coordinates at scale 0.5, some outside
		}
		batch := ir.NewTensor(ir.I64, []int64{5})
		feeds := map[string]*ir.Tensor{"X": x, "rois": rois, "batch": batch}
		want, err := eval.Run(ref, feeds)
		require.NoError(t, err)
		got, err := eval.Run(res.Graph, feeds)
		require.NoError(t, err)
		for o := range want {
			require.NoError(t, e2e.Compare(got[o], want[o], 0, 0, nil), "trial %d output %d: the optimised graph against the imported one", trial, o)
		}
		if prog != nil {
			out, _, err := prog.Run(ctx, []*ir.Tensor{x, rois, batch}, nil, 1)
			require.NoError(t, err)
			for o := range want {
				require.NoError(t, e2e.Compare(out[o], want[o], 1e-5, 1e-5, nil), "trial %d output %d: compiled against the evaluator", trial, o)
			}
		}
	}
}
