// Package lower turns an optimized ir.Graph into an LLVM IR module (github.com/llir/llvm) with
// graphc's C ABI:
//
//	int64_t ENTRY_workspace_size(int64_t s0, ...);
//	int32_t ENTRY(const T *in0, ..., T *out0, ..., int64_t s0, ..., void *workspace);
//
// Each op's (possibly DIE-restricted) iteration domain is scanned into a loop nest
// (volume.Set.Scan); the body is emitted as scalar LLVM IR; reductions accumulate into the
// result, initialised with the op's init value. Intermediate tensors live in the caller's
// workspace. Targets are JSON files in targets/ with the triple, CPU, features and data layout
// (llir has no target machine to ask for them).
package lower
