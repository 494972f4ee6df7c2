// Package onnx imports ONNX models (ModelProto) into ir.Graph.
//
// Each supported op is one entry of the table in ops.go with the opset range it implements;
// anything else is reported with the op, its opset and the node name. Constant inputs
// (initializers, Constant nodes and shape computations folded at import) are known to the
// importer, so ops that take attributes as inputs (Trilu's k, Reshape's shape) see their values.
// dim_param names of the graph inputs become symbolic dimensions shared across inputs.
package onnx
