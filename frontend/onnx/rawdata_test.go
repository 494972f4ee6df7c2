package onnx_test

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/graphc/graphc/frontend/onnx"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/proto/onnxpb"
)

// TestUnmarshalAliased checks that the weights' raw_data is read without a copy (a slice of the
// file's buffer) and that everything else decodes as the protobuf runtime decodes it.
func TestUnmarshalAliased(t *testing.T) {
	m := onnxgen.New("w", 17)
	m.Input("x", ir.F32, 2, 2048)
	w := ir.NewTensor(ir.F32, []int64{2048, 3})
	for i := range w.F {
		w.F[i] = float64(i) * 0.5
	}
	m.Init("w", w)
	m.Init("empty", ir.NewTensor(ir.F32, []int64{0}))
	m.Init("s", ir.NewTensor(ir.I64, []int64{2}))
	m.Node("MatMul", "mm", []string{"x", "w"}, []string{"y"})
	m.Output("y", ir.F32, 2, 3)
	ct := ir.NewTensor(ir.I8, []int64{4096})
	for i := range ct.I {
		ct.I[i] = int64(int8(i))
	}
	cp := onnx.TensorToProto("c", ct)
	m.Node("Constant", "c", nil, []string{"c"}, &onnxpb.AttributeProto{Name: proto.String("value"), Type: onnxpb.AttributeProto_TENSOR.Enum(), T: cp})
	p := m.Proto()
	p.Graph.Initializer = append(p.Graph.Initializer, &onnxpb.TensorProto{Name: proto.String("typed"), DataType: proto.Int32(1), Dims: []int64{2}, FloatData: []float32{1, 2}})
	data, err := proto.Marshal(p)
	require.NoError(t, err)
	plain, err := onnx.Unmarshal(data)
	require.NoError(t, err)
	got, err := onnx.UnmarshalAliased(data)
	require.NoError(t, err)
	require.True(t, proto.Equal(plain, got), "the aliased decode is the plain one")
	raw := got.Graph.Initializer[0].RawData
	require.Len(t, raw, 2048*3*4)
	start, end := uintptr(unsafe.Pointer(&data[0])), uintptr(unsafe.Pointer(&data[len(data)-1]))
	require.True(t, uintptr(unsafe.Pointer(&raw[0])) >= start && uintptr(unsafe.Pointer(&raw[0])) <= end, "raw_data aliases the buffer")
	require.Equal(t, cap(raw), len(raw), "appending to raw_data cannot write into the buffer")
	craw := got.Graph.Node[1].Attribute[0].T.RawData
	require.Len(t, craw, 4096)
	require.True(t, uintptr(unsafe.Pointer(&craw[0])) >= start && uintptr(unsafe.Pointer(&craw[0])) <= end, "a Constant's raw_data aliases the buffer")

	// malformed data fails as the plain decode does
	_, err = onnx.UnmarshalAliased(data[:len(data)-3])
	require.Error(t, err)
}
