// This file tests the readers, the walk over the graph (order, outputs, pruning, cycles) and
// constant decoding.

package tf_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/graphc/graphc/frontend/tf"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/proto/tfpb"
)

func parseText(t *testing.T, text string, opts ...tf.Option) (*ir.Graph, error) {
	t.Helper()
	gd, err := tf.Unmarshal([]byte(text), true)
	if err != nil {
		return nil, err
	}
	return tf.Import(gd, "test.pbtxt", opts...)
}

const placeholder = `node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: -1 } dim { size: 4 } } } } }
`

func TestPlaceholderUnknownDimIsSymbolic(t *testing.T) {
	g, err := parseText(t, placeholder+`node { name: "y" op: "Relu" input: "x" }`)
	require.NoError(t, err)
	require.Equal(t, []string{"x_d0"}, g.Params)
	require.Equal(t, "f32[x_d0, 4]", g.Inputs[0].Type.String())
	require.Equal(t, "y", g.Outputs[0].Name)
	g, err = parseText(t, placeholder+`node { name: "y" op: "Relu" input: "x" }`, tf.WithDim("x_d0", 3))
	require.NoError(t, err)
	require.Equal(t, "f32[3, 4]", g.Inputs[0].Type.String())
}

func TestOutputsAndOrder(t *testing.T) {
	// nodes out of order, a control input, two sinks
	text := `node { name: "b" op: "Neg" input: "a" input: "^x" }
node { name: "a" op: "Relu" input: "x" }
node { name: "c" op: "Abs" input: "a" }
` + placeholder
	g, err := parseText(t, text)
	require.NoError(t, err)
	require.Len(t, g.Outputs, 2)
	require.Equal(t, "b", g.Outputs[0].Name)
	require.Equal(t, "c", g.Outputs[1].Name)
	g, err = parseText(t, text, tf.WithOutputs("a:0"))
	require.NoError(t, err)
	require.Equal(t, "a", g.Outputs[0].Name)
}

func TestErrors(t *testing.T) {
	cases := map[string]string{
		`node { name: "y" op: "Frobnicate" input: "x" }` + placeholder:                      `test.pbtxt: node "y" (Frobnicate): unsupported: op Frobnicate; supported ops: Abs, Add`,
		`node { name: "y" op: "Relu" input: "z" }` + placeholder:                            `node "y" (Relu): invalid graph: input "z" names no node`,
		`node { name: "a" op: "Relu" input: "b" } node { name: "b" op: "Relu" input: "a" }`: `the graph has a cycle`,
		placeholder + placeholder: `two nodes are named "x"`,
		`node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_STRING } } }`: `node "x" (Placeholder): unsupported: element type DT_STRING`,
	}
	for text, want := range cases {
		_, err := parseText(t, text)
		require.Error(t, err, text)
		require.Contains(t, err.Error(), want)
	}
	_, err := tf.Unmarshal([]byte("this is { not a graph"), true)
	require.ErrorContains(t, err, "not a text TensorFlow GraphDef")
	_, err = tf.Unmarshal([]byte{0xff, 0xff, 0xff}, false)
	require.ErrorContains(t, err, "not a binary TensorFlow GraphDef")
}

// TestBinaryMatchesText writes the paper's example as a binary .pb and imports both forms.
func TestBinaryMatchesText(t *testing.T) {
	data, err := os.ReadFile("../../testdata/models/tf/matmul_bandpart.pbtxt")
	require.NoError(t, err)
	gd, err := tf.Unmarshal(data, true)
	require.NoError(t, err)
	bin, err := proto.Marshal(gd)
	require.NoError(t, err)
	p := filepath.Join(t.TempDir(), "m.pb")
	require.NoError(t, os.WriteFile(p, bin, 0o644))
	g1, err := tf.Load(p)
	require.NoError(t, err)
	g2, err := tf.Load("../../testdata/models/tf/matmul_bandpart.pbtxt")
	require.NoError(t, err)
	require.Equal(t, g2.String(), g1.String())
	require.Contains(t, g1.String(), "band_part(%tmp) {lower = 0}")
}

// TestConstSplat checks TensorFlow's convention that fewer values than elements repeat the last.
func TestConstSplat(t *testing.T) {
	tp := &tfpb.TensorProto{Dtype: tfpb.DataType_DT_FLOAT, TensorShape: &tfpb.TensorShapeProto{Dim: []*tfpb.TensorShapeProto_Dim{{Size: 2}, {Size: 2}}}, FloatVal: []float32{1, 2}}
	c, err := tf.TensorFromProto(tp)
	require.NoError(t, err)
	require.Equal(t, []float64{1, 2, 2, 2}, c.F)
	tp.TensorShape.Dim[0].Size = 1 << 40
	_, err = tf.TensorFromProto(tp)
	require.ErrorContains(t, err, "more than")
}

// TestSplatLimit: a splat constant may not expand beyond the size limit.
func TestSplatLimit(t *testing.T) {
	tp := &tfpb.TensorProto{Dtype: tfpb.DataType_DT_FLOAT, TensorShape: &tfpb.TensorShapeProto{Dim: []*tfpb.TensorShapeProto_Dim{{Size: 1000}}}, FloatVal: []float32{1}}
	gd := &tfpb.GraphDef{Node: []*tfpb.NodeDef{{Name: "c", Op: "Const", Attr: map[string]*tfpb.AttrValue{"value": {Value: &tfpb.AttrValue_Tensor{Tensor: tp}}}},
		{Name: "y", Op: "Neg", Input: []string{"c"}}}}
	_, err := tf.Import(gd, "t.pb", tf.WithMaxFileSize(1000))
	require.ErrorContains(t, err, `t.pb: node "c" (Const): invalid graph: a splat constant of shape [1000] (4000 bytes) exceeds the size limit of 1000 bytes`)
	_, err = tf.Import(gd, "t.pb", tf.WithMaxFileSize(4000))
	require.NoError(t, err)
}

// TestOnlyWhatTheOutputsNeed: nodes the outputs do not depend on (a saver, an unused feed) are
// not imported, so an unsupported op there does not matter.
func TestOnlyWhatTheOutputsNeed(t *testing.T) {
	text := placeholder + `node { name: "unused" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "save" op: "SaveV2" input: "unused" }
node { name: "y" op: "Relu" input: "x" input: "^save" }`
	_, err := parseText(t, text, tf.WithOutputs("save"))
	require.ErrorContains(t, err, `node "save" (SaveV2): unsupported: op SaveV2`)
	// by default the outputs are the nodes whose data nobody reads: y (save only orders it)
	for _, opts := range [][]tf.Option{nil, {tf.WithOutputs("y")}} {
		g, err := parseText(t, text, opts...)
		require.NoError(t, err)
		require.Len(t, g.Inputs, 1)
		require.Equal(t, "x", g.Inputs[0].Name)
		require.Len(t, g.Outputs, 1)
		require.Equal(t, "y", g.Outputs[0].Name)
	}
}

// TestNoOpIsNeitherAnOpNorAnOutput: a NoOp (an init or grouping node that only carries control
// inputs) adds nothing to the graph and is never a default output, though nobody consumes it.
func TestNoOpIsNeitherAnOpNorAnOutput(t *testing.T) {
	g, err := parseText(t, placeholder+`node { name: "y" op: "Relu" input: "x" }
node { name: "init" op: "NoOp" input: "^y" }
node { name: "z" op: "Neg" input: "y" input: "^init" }`)
	require.NoError(t, err)
	require.Len(t, g.Outputs, 1)
	require.Equal(t, "z", g.Outputs[0].Name)
	require.Len(t, g.Ops, 2, "relu and neg; the NoOp adds no op")
	_, err = parseText(t, placeholder+`node { name: "init" op: "NoOp" }`, tf.WithOutputs("init"))
	require.ErrorContains(t, err, "output init: invalid graph")
}
