// Package tf imports TensorFlow GraphDef models (binary .pb and text .pbtxt) into ir.Graph.
//
// Nodes may appear in any order; they are imported in dependency order (cycles are errors).
// Placeholders become graph inputs (unknown dims become symbolic dims named
// <placeholder>_d<i>, or after the dim's name), Const nodes constants. The outputs are the
// tensors named by WithOutputs ("name" or "name:port"), or by default the outputs of the nodes
// nobody consumes.
//
// Each supported op is one entry of the table in ops.go, registered by its family's file
// (ops_math.go, ops_contraction.go, ops_reduce.go, ops_norm.go, ops_layout.go, ops_slice.go,
// ops_pad.go, ops_conv.go) and documented in docs/tf-ops.md (generated from the table).
// Multi-stage ops become several catalogue ops, named after the node (the last) or after the
// node and the op kind (the intermediate ones), built with the same catalogue ops and in the
// same order as the ONNX importer builds its equivalents (Softmax, Mean, the transposed
// matmuls), so that both importers give identical results. The catalogue's conv, pools and
// batch_norm work on NCHW: NHWC nodes are transposed in and out, HWIO filters rearranged.
//
// Inputs that give shapes, axes, paddings, strides or indices must be known at import. Any op
// whose operands are all constants is evaluated at import (within the kit's fold limits, frontend/importer), so
// that weight rearrangements and shape computations on static shapes become constants. Over a
// symbolic batch, Shape gives a value whose elements are quasi-affine in the symbolic dims, and
// StridedSlice, Pack, ConcatV2, Prod, Cast, Add, Sub, Mul and FloorDiv keep it so
// (symbolic.go), so that the shape subgraphs of exported models (Shape → StridedSlice → Pack →
// Reshape) resolve at import while the batch stays symbolic. Anything unsupported is reported with the file, the node,
// the op and the reason (NodeError, wrapping ErrUnsupported or ErrInvalid).
//
// What does not depend on the format (the emitter, symbolic shape values, constant folding
// and its limits, --dim binding, limit checks, file reading) is the kit's, frontend/importer;
// this package holds the GraphDef readers, the node context and the node importers.
package tf
