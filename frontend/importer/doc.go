// Package importer is the kit the model importers (frontend/onnx, frontend/tf) are built on:
// what importing a graph of nodes into an ir.Graph needs whatever the file format.
//
//   - Config: the options every importer takes (bound symbolic dims, ir.Limits), Configure
//     applying a format's options, and ReadFile, ReadAll and Decode reading model files within
//     those limits (config.go).
//   - Values: what is known of each value of the model by the format's key (IR value, data
//     known at import, symbolic value), materialised in the graph on first use (values.go).
//   - Dims: the one way a symbolic dim of the model's inputs is bound with --dim (WithDim), and
//     the usage error for a bound name the model does not have (dims.go).
//   - Limit checks on the decoded graph (node count, string lengths) and on the result types of
//     the ops each node adds (limits.go).
//   - Constant folding: an op whose operands are all known is evaluated at import when its
//     result is small, within one documented limit (fold.go).
//   - Sym: symbolic shape values, small integer tensors whose elements are quasi-affine in the
//     symbolic dims, and their arithmetic (symbolic.go).
//   - Symbolic evaluations shared by the formats' tables: SymUnary, SymBinary, SymBroadcast,
//     SymCast and SymConcat (symops.go).
//   - Emitter: the one face both formats build node importers with (each format's emitter
//     embeds it): every op-adding method takes the result's name, "" for an intermediate
//     result named after the node, and the first error is kept (emit.go).
//   - Reshape extents: ExtentProduct and InferExtent, the -1 of a Reshape (reshape.go).
//   - Ident, the rule that turns a model's names into IR identifiers (names.go), and Notes,
//     the per-op notes of `graphc ops` (notes.go).
//   - ErrUnsupported, shared by the formats, and NodeError (errors.go); each format keeps its
//     own ErrInvalid, which the kit's functions take as an argument.
//   - Ints, ResolveAxes and SortedKeys, small helpers of node importers (axes.go).
//
// A format package keeps what is its own: its reader (protobuf decoding), its node context
// (how a node names its inputs, attributes and outputs) and its table of node importers.
package importer
