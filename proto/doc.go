// Package proto holds Go generated from the protobuf schemas graphc reads (`make proto`):
// onnxpb from Debian libonnx-dev's onnx.proto (ONNX 1.12 schema, which later IR versions extend
// compatibly); tfpb from tfpb/graph.proto, the subset of TensorFlow's GraphDef schema graphc
// reads, with TensorFlow's field numbers.
package proto
