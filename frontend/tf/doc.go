// Package tf imports TensorFlow GraphDef models (binary .pb and text .pbtxt) into ir.Graph.
//
// Nodes may appear in any order; they are imported in dependency order. Placeholders become
// graph inputs (unknown dims become symbolic dims), Const nodes constants. The outputs are the
// tensors named by WithOutputs ("name" or "name:port"), or by default the outputs of the nodes
// nobody consumes. Each supported op is one entry of the table in ops.go; anything else is
// reported with the op and the node name.
package tf
