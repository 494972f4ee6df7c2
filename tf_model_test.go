// This file compiles the bundled TensorFlow classifier (testdata/models/tf/classifier.pbtxt)
// through the whole pipeline and checks it against the same model written in ONNX.

package graphc_test

import (
	"context"
	"flag"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/frontend/onnx"
	"github.com/graphc/graphc/frontend/tf"
	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/internal/tfgen"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
)

var updateModels = flag.Bool("update", false, "rewrite the generated models of testdata/models/tf")

const classifierPath = "testdata/models/tf/classifier.pbtxt"

// TestTensorFlowClassifierFile: the bundled file holds the graph tfgen.Classifier builds
// (-update rewrites it).
func TestTensorFlowClassifierFile(t *testing.T) {
	g := tfgen.Classifier()
	if *updateModels {
		text, err := g.Text()
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(classifierPath, text, 0o644))
	}
	have, err := os.ReadFile(classifierPath)
	require.NoError(t, err)
	gd, err := tf.Unmarshal(have, true)
	require.NoError(t, err)
	require.True(t, proto.Equal(g.G, gd), "run go test . -run TestTensorFlowClassifierFile -update")
}

// TestTensorFlowClassifier compiles the classifier (symbolic batch) with the default pipeline
// and checks the optimised graph against the ONNX equivalent in the evaluator (identical
// results: the same catalogue ops in the same order), and the compiled code against both.
func TestTensorFlowClassifier(t *testing.T) {
	ctx := context.Background()
	res, err := graphc.Compile(ctx, classifierPath, graphc.WithVerifyEach(true))
	if err != nil && strings.Contains(err.Error(), "is not supported yet") {
		// TODO(tf): lowering of exp comes with the lower branch's math runtime; until then the
		// passes run and the compiled-code check is left out
		t.Logf("lowering: %v; checking the optimised graph only", err)
		res, err = graphc.Compile(ctx, classifierPath, graphc.WithVerifyEach(true), graphc.WithoutLowering())
	}
	require.NoError(t, err)
	require.Equal(t, []string{"images_d0"}, res.Graph.Params)
	require.Equal(t, "f32[images_d0, 10]", res.Graph.Outputs[0].Type.String())
	ref, err := onnx.Import(tfgen.ClassifierONNX().Proto(), "classifier.onnx")
	require.NoError(t, err)
	var prog *e2e.Program
	if _, err := e2e.Clang(); err == nil && res.Module != nil {
		prog, err = e2e.Build(ctx, t.TempDir(), res.Graph, res.Module)
		require.NoError(t, err)
	}
	r := rand.New(rand.NewPCG(12, 34))
	for _, batch := range []int64{1, 3} {
		params := map[string]int64{"images_d0": batch}
		x := e2e.RandomTensor(r, ir.F32, []int64{batch, 8, 8, 1})
		in := map[string]*ir.Tensor{"images": x}
		got, err := eval.Run(res.Graph, in, eval.WithParams(params))
		require.NoError(t, err)
		want, err := eval.Run(ref, in, eval.WithParams(params))
		require.NoError(t, err)
		require.Equal(t, want[0].Shape, got[0].Shape)
		require.Equal(t, want[0].F, got[0].F, "batch %d", batch)
		for i := int64(0); i < batch; i++ {
			sum := 0.0
			for _, p := range got[0].F[i*10 : i*10+10] {
				sum += p
			}
			require.InDelta(t, 1, sum, 1e-5, "the probabilities of image %d sum to 1", i)
		}
		if prog != nil {
			out, _, err := prog.Run(ctx, []*ir.Tensor{x}, params, 1)
			require.NoError(t, err)
			// libm's expf may differ from the evaluator's exp in the last bit
			require.NoError(t, e2e.Compare(out[0], want[0], 1e-5, 1e-6, nil), "compiled code, batch %d", batch)
		}
	}
}
