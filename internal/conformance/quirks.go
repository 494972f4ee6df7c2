package conformance

// This file adapts the test data of older onnx releases to what the models declare. onnx 1.12
// (Debian's libonnx-testdata) had no bfloat16 numpy type: its bfloat16 Cast and CastLike tests
// store bfloat16 inputs and expected outputs as UINT16 tensors of the same bits. Read as
// bfloat16, they test what they meant to.

import (
	"github.com/graphc/graphc/frontend/onnx"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/proto/onnxpb"
)

// bf16AsU16 reinterprets each UINT16 tensor whose graph input (or output) is declared bfloat16
// as bfloat16: inputs in the order of the graph inputs that are not initializers, want in the
// order of the outputs.
func bf16AsU16(m *onnxpb.ModelProto, inputs, want []*ir.Tensor) {
	inits := map[string]bool{}
	for _, t := range m.Graph.Initializer {
		inits[t.GetName()] = true
	}
	var ins []*onnxpb.ValueInfoProto
	for _, vi := range m.Graph.Input {
		if !inits[vi.GetName()] {
			ins = append(ins, vi)
		}
	}
	relabel := func(vis []*onnxpb.ValueInfoProto, ts []*ir.Tensor) {
		for k, t := range ts {
			if k >= len(vis) || t.Elem != ir.U16 {
				continue
			}
			if d, err := onnx.DType(vis[k].GetType().GetTensorType().GetElemType()); err == nil && d == ir.BF16 {
				if b, err := ir.TensorFromBytes(ir.BF16, t.Shape, t.Bytes()); err == nil {
					ts[k] = b
				}
			}
		}
	}
	relabel(ins, inputs)
	relabel(m.Graph.Output, want)
}
