// This file holds the harness of the per-op tests: a TensorFlow graph and an ONNX graph (or an
// IR graph) that state the same computation are imported and run by the evaluator on the same
// random inputs, and their outputs must be identical.

package tf_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/graphc/graphc/frontend/onnx"
	"github.com/graphc/graphc/frontend/tf"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/internal/tfgen"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
	"github.com/graphc/graphc/proto/onnxpb"
)

// inputKind says how random inputs are drawn.
type inputKind int

const (
	anyValues inputKind = iota // floats in [-3, 3), integers in [-5, 5]
	positive                   // floats in [0.1, 3.1), integers in [1, 9]
)

// randTensor returns a random tensor of type elem and the given shape.
func randTensor(r *rand.Rand, elem ir.DType, shape []int64, kind inputKind) *ir.Tensor {
	t := ir.NewTensor(elem, shape)
	for i := range t.F {
		v := r.Float64()*6 - 3
		if kind == positive {
			v = r.Float64()*3 + 0.1
		}
		t.F[i] = ir.RoundFloat(elem, v)
	}
	for i := range t.I {
		switch {
		case elem == ir.Bool:
			t.I[i] = r.Int64N(2)
		case kind == positive:
			t.I[i] = 1 + r.Int64N(9)
		case elem == ir.U8:
			t.I[i] = r.Int64N(10)
		default:
			t.I[i] = r.Int64N(11) - 5
		}
	}
	return t
}

// randInputs draws one random tensor per input of g (symbolic dims bound by params).
func randInputs(t *testing.T, r *rand.Rand, g *ir.Graph, kind inputKind, params map[string]int64) map[string]*ir.Tensor {
	t.Helper()
	in := map[string]*ir.Tensor{}
	for _, v := range g.Inputs {
		shape, err := v.Type.EvalShape(params)
		require.NoError(t, err)
		in[v.Name] = randTensor(r, v.Type.Elem, shape, kind)
	}
	return in
}

// requireSameTensors checks that two results are bit-identical (NaN equals NaN).
func requireSameTensors(t *testing.T, want, got *ir.Tensor, what string) {
	t.Helper()
	require.Equal(t, want.Elem, got.Elem, "%s: element type", what)
	require.Equal(t, want.Shape, got.Shape, "%s: shape", what)
	require.Equal(t, want.I, got.I, "%s: integer elements", what)
	require.Len(t, got.F, len(want.F), what)
	for i := range want.F {
		w, g := want.F[i], got.F[i]
		if math.IsNaN(w) && math.IsNaN(g) {
			continue
		}
		require.Equal(t, math.Float64bits(w), math.Float64bits(g), "%s: element %d: want %v, got %v", what, i, w, g)
	}
}

// sameCase is one comparison: a TensorFlow graph, and its ONNX equivalent or IR reference.
type sameCase struct {
	tf     *tfgen.Graph
	onnx   *onnxgen.Model // the reference, or
	ref    *ir.Graph      // this one
	kind   inputKind
	params map[string]int64 // values of the symbolic dims for the runs
	opts   []tf.Option
}

// checkSame imports both sides, runs them on the same random inputs (three draws) and requires
// identical outputs; it returns the TensorFlow side's graph.
func checkSame(t *testing.T, c sameCase) *ir.Graph {
	t.Helper()
	g, err := c.tf.Import(c.opts...)
	require.NoError(t, err)
	require.NoError(t, ir.Verify(g))
	ref := c.ref
	if ref == nil {
		ref, err = onnx.Import(c.onnx.Proto(), "onnxgen")
		require.NoError(t, err)
	}
	require.Len(t, g.Inputs, len(ref.Inputs))
	require.Len(t, g.Outputs, len(ref.Outputs))
	r := rand.New(rand.NewPCG(9, uint64(len(g.Ops))))
	var evalOpts []eval.Option
	if c.params != nil {
		evalOpts = append(evalOpts, eval.WithParams(c.params))
	}
	for draw := 0; draw < 3; draw++ {
		in := randInputs(t, r, g, c.kind, c.params)
		want, err := eval.Run(ref, in, evalOpts...)
		require.NoError(t, err)
		got, err := eval.Run(g, in, evalOpts...)
		require.NoError(t, err)
		for i := range want {
			requireSameTensors(t, want[i], got[i], g.Outputs[i].Name)
		}
	}
	return g
}

// i64 returns an i64 vector.
func i64(v ...int64) *ir.Tensor {
	t := ir.NewTensor(ir.I64, []int64{int64(len(v))})
	copy(t.I, v)
	return t
}

// randConst returns a random f32 tensor with a fixed seed, for weights.
func randConst(seed uint64, shape ...int64) *ir.Tensor {
	return randTensor(rand.New(rand.NewPCG(seed, 77)), ir.F32, shape, anyValues)
}

// onnxOut declares an output of m by name only (the importer computes its type).
func onnxOut(m *onnxgen.Model, name string) {
	m.G.Output = append(m.G.Output, &onnxpb.ValueInfoProto{Name: proto.String(name)})
}
