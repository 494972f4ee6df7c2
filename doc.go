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
// pass pipeline (package passes; default "remove-empty,fold-constants,known-values,die,fuse,dce,channels-last") then restricts every op's
// iteration domain to the iterations that contribute to the required outputs, exactly, with
// Presburger arithmetic (package volume). Lowering (package lower) scans the restricted domains
// into loop nests and emits the module with this ABI:
//
//	int64_t ENTRY_workspace_size(int64_t s0, ...);
//	int32_t ENTRY(const T *in0, ..., T *out0, ..., int64_t s0, ..., void *workspace);
//
// # Models
//
// Compile and Load choose the importer by the file's extension: .onnx (ONNX, opsets 1–28),
// .pb and .pbtxt (TensorFlow GraphDef, binary or text; WithOutputs picks the outputs) and
// .graph (graphc IR text, the format Result.Graph prints). Symbolic dimensions (ONNX
// dim_params, unknown TensorFlow dims, the parameters of a .graph) stay symbolic and become
// trailing int64 arguments of the entry function unless WithDim binds them. CompileGraph
// compiles a graph built in memory with package ir.
//
// # Options
//
// The options mirror the graphc command line: WithTarget, WithCPU and WithAttrs (--target,
// --mcpu, --mattr), WithEntry (--entry), WithPipeline (--pipeline; "" runs no pass),
// WithRequire (--require), WithDim (--dim), WithOutputs (--outputs), WithPrintIRBefore and
// WithPrintIRAfter with WithDumpWriter (--print-ir-before/after; "*" for every pass),
// WithVerifyEach (--verify-each) and WithoutLowering (--emit=ir). WithLimits bounds what a
// model may declare (ir.Limits) and WithInitializerInputs turns ONNX initializers that are
// also graph inputs into runtime inputs.
//
// # Required regions
//
// By default every element of every output is required. WithRequire("OUT[i, j] : constraints")
// narrows output OUT to a region in isl notation: one row ("i = 127"), a tile
// ("64 <= i < 128 and 64 <= j < 128"), a checkerboard ("(i + j) mod 2 = 0"). The compiled code
// then computes the required elements exactly and leaves the others unspecified; DIE shrinks
// every op to the iterations those elements depend on. Result.Dead holds, per op, the
// iterations removed, and Result.DeadReport prints them (what --report-dead shows);
// Result.Diagnostics holds the warnings, such as accesses outside an operand's index domain.
//
// # Errors
//
// Compile never panics. An error caused by the model or the options wraps ErrInput and names
// the file, the node or op, and the reason (exit status 1 in the CLI); a model beyond a limit
// also wraps ir.ErrLimit. Anything else is a bug in graphc and comes back as an
// *InternalError carrying the stack (exit status 3 in the CLI):
//
//	res, err := graphc.Compile(ctx, path)
//	var ie *graphc.InternalError
//	switch {
//	case errors.Is(err, graphc.ErrInput): // tell the user what is wrong with the model
//	case errors.As(err, &ie):             // report ie.Stack to the graphc developers
//	}
//
// # Cancellation and concurrency
//
// Compile checks ctx between passes, between the ops of a pass and between the kernels of
// lowering; a cancelled compilation returns ctx.Err(). Calls share no mutable state: several
// goroutines may compile at once, each with its own options.
//
// # Own pipelines
//
// Toolchains that want their own pipeline can import with Load, run passes.Run on the graph
// (with passes.ParsePipeline, or their own passes.Pass values) and call lower.Lower
// themselves; Compile is that sequence with the options of the graphc CLI. The Example
// functions show both ways.
package graphc
