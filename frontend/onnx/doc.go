// Package onnx imports ONNX models (ModelProto) into ir.Graph.
//
// Each supported op is one entry of the table in ops.go with the opset range it implements
// (families register theirs from ops_<family>.go); anything else is reported with the op, its
// opset and the node name, and a model whose opset is newer than MaxOpset or whose IR version
// lies outside MinIRVersion..MaxIRVersion is refused. `graphc ops` and docs/ops.md are both
// generated from the table (opsdoc.go).
//
// Constant inputs (initializers, Constant nodes and shape computations folded at import) are
// known to the importer, so ops that take attributes as inputs (Trilu's k, Reshape's shape,
// Reduce*'s axes) see their values. An input an op needs at compile time that is a graph input
// is reported with a NeedConstError; WithConstInput specialises the model to a value of it.
// Initializers a model also lists as graph inputs are constants unless WithInitializerInputs
// makes them runtime inputs. Tensors stored as external data are read from beside the model,
// with every bound checked. The model's value_info and declared output types are checked
// against what the importer computed.
//
// Multi-stage ops (Softmax, the normalisations, ReduceMean, Gemm, …) become several catalogue
// ops, each a clean generic op, so that dead iteration elimination sees through every stage.
// dim_param names of the graph inputs become symbolic dimensions shared across inputs.
//
// What does not depend on the format (the emitter, symbolic shape values, constant folding
// and its limits, --dim binding, limit checks, file reading) is the kit's, frontend/importer;
// this package holds the ModelProto reader, the node context and the node importers.
package onnx
