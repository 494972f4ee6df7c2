// Package modelrt loads and calls modules compiled by graphc, from Go.
//
// A module built as a shared library with its signature (graphc --emit=lib, or
// graphc.WithSignature then lower.Build(..., "lib")) exports, besides its entry and
// ENTRY_workspace_size, `const char *ENTRY_signature(void)`: its ABI as JSON, with the entry's
// inputs and outputs, their element types and shapes as functions of the symbolic dims, and
// the weights file it takes. Load opens the library with dlopen and reads that signature;
// Run checks the inputs against it (element type, rank, extents; the symbolic dims are
// inferred from the input shapes), sizes the workspace, calls the entry and returns the
// outputs as Tensors with their shapes.
//
//	m, err := modelrt.Load("model.so")          // modelrt.WithWeights("model.bin") for --weights
//	defer m.Close()
//	x := modelrt.New([]int64{2, 3}, []float32{1, 2, 3, 4, 5, 6})
//	outs, err := m.Run(ctx, x)
//	y, err := modelrt.Data[float32](outs[0])    // a typed view of the output
//
// Calls are safe from many goroutines at once: each call takes a workspace of its own (kept in
// a pool for the next call). A profiling build (graphc --profile) counts cycles in globals and
// is not re-entrant: its calls are serialised. The entry's status codes come back as a
// *StatusError wrapping ErrDims, ErrIndex, ErrDivZero or ErrWeights.
//
// The package is named modelrt, not runtime, so that importing it never shadows Go's own
// runtime package.
package modelrt
