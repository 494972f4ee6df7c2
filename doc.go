// Package graphc compiles tensor graphs (ONNX models, TensorFlow GraphDefs, graphc IR text) into
// LLVM IR for x86-64 and Qualcomm Hexagon, removing the work that cannot reach the outputs.
//
// The flow is import → passes → lower:
//
//	res, err := graphc.Compile(ctx, "model.onnx",
//		graphc.WithTarget("x86-64"),
//		graphc.WithRequire("Y[i, j] : i = 127"), // only the last row of Y is needed
//	)
//	// res.LLVM is the module text, res.Header its C declarations, res.DeadReport what DIE removed.
//
// Import turns the model into an ir.Graph: SSA values with (possibly symbolic) tensor types and
// ops in generic form, each with an iteration domain and affine access maps (package ir). The
// pass pipeline (package passes; default "remove-empty,die,dce") then restricts every op's
// iteration domain to the iterations that contribute to the required outputs, exactly, with
// Presburger arithmetic (package volume). Lowering (package lower) scans the restricted domains
// into loop nests and emits the module with this ABI:
//
//	int64_t ENTRY_workspace_size(int64_t s0, ...);
//	int32_t ENTRY(const T *in0, ..., T *out0, ..., int64_t s0, ..., void *workspace);
//
// Toolchains that want their own pipeline can import with Load, run passes.Run on the graph and
// call lower.Lower themselves; Compile is that sequence with the options of the graphc CLI.
package graphc
