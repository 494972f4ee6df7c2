package onnx_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/graphc/graphc/frontend/onnx"
	"github.com/graphc/graphc/proto/onnxpb"
)

// mergedRowsMutants returns the merged-rows idiom (mergedRowsModel) with each Reshape's target
// shape mutated: dropped, replaced by constants that disagree with the rows (other ranks,
// 0 and -1 entries, absurd extents) or by another shape value of the graph.
func mergedRowsMutants(t testing.TB) map[string][]byte {
	rng := rand.New(rand.NewPCG(7, 8))
	out := map[string][]byte{}
	targets := map[string][]int64{
		"empty": {}, "one": {5}, "minus1": {-1}, "zero": {0, 6}, "two_minus1": {-1, -1},
		"rank3": {2, 3, 6}, "huge": {1 << 40, 6}, "negative": {-7, 6}, "zeros": {0, 0, 0, 0},
	}
	for _, node := range []string{"merge", "split", "heads"} {
		mutate := func(name string, f func(n *onnxpb.NodeProto, m *onnxpb.ModelProto)) {
			mp := mergedRowsModel(rng, "").Proto()
			for _, n := range mp.Graph.Node {
				if n.GetName() == node {
					f(n, mp)
				}
			}
			b, err := proto.Marshal(mp)
			require.NoError(t, err)
			out[node+"_"+name] = b
		}
		mutate("no_shape", func(n *onnxpb.NodeProto, _ *onnxpb.ModelProto) { n.Input = n.Input[:1] })
		mutate("no_inputs", func(n *onnxpb.NodeProto, _ *onnxpb.ModelProto) { n.Input = nil })
		mutate("shape_of_x", func(n *onnxpb.NodeProto, _ *onnxpb.ModelProto) { n.Input[1] = "S" })
		mutate("shape_is_data", func(n *onnxpb.NodeProto, _ *onnxpb.ModelProto) { n.Input[1] = "X" })
		for tname, v := range targets {
			mutate("const_"+tname, func(n *onnxpb.NodeProto, mp *onnxpb.ModelProto) {
				c := fmt.Sprintf("mut_%s", tname)
				mp.Graph.Initializer = append(mp.Graph.Initializer, &onnxpb.TensorProto{Name: proto.String(c),
					DataType: proto.Int32(7), Dims: []int64{int64(len(v))}, Int64Data: v})
				n.Input[1] = c
			})
		}
	}
	return out
}

// TestMergedRowsMutated: a Reshape of the merged-rows idiom whose target shape was mutated
// imports or fails with an error naming the node, never with a panic.
func TestMergedRowsMutated(t *testing.T) {
	for name, data := range mergedRowsMutants(t) {
		t.Run(name, func(t *testing.T) {
			var err error
			require.NotPanics(t, func() { _, err = onnx.Read(bytes.NewReader(data), "mut.onnx") })
			if err != nil {
				t.Log(err)
				require.Contains(t, err.Error(), "mut.onnx")
				require.Contains(t, err.Error(), "node ", "the error names the node")
			}
		})
	}
}
