// Package ir is graphc's SSA graph of tensor operations, in one linalg.generic-like op form.
//
// # Op model
//
// Every op has an iteration domain (a volume.Set over named iteration dims), one access
// function per operand and one for its result (piecewise quasi-affine functions of the
// iteration point, possibly guarded), iterator kinds, a scalar body (Scalar) and a reduction
// kind. Its semantics: every result element starts at Init; for every point x of Domain, in
// lexicographic order, the body is evaluated on the operand elements Access[k](x) and written
// to (or, for reductions, combined into) the result element Out(x).
//
// The volume element map of an op — which operand elements each result element depends on —
// follows from that form (Op.ElementMap), as in the volume-model paper: Out⁻¹ restricted to the
// domain, composed with Access[k]. Guards make index-based selection visible to it (trilu reads
// its operand only inside the kept triangle, pad only inside the interior), and data-dependent
// reads (gather) carry an over-approximated map marked Approx.
//
// Named ops (matmul, trilu, add, …) are constructors over that form, declared once in the
// catalogue (catalogue.go): MakeOp builds the generic form from the kind, the attributes and the
// operand types; the printer prints the kind and attributes and, when DIE restricted it, the
// domain in isl notation; the parser rebuilds the op through the catalogue. The generic op
// spells everything out for stencils and tests.
//
// # Text format
//
//	graph @main_graph(%A: f32[512, 512], %B: f32[512, 512]) {
//	  %C = matmul(%A, %B) : f32[512, 512]
//	      domain { [i, j, k] : 0 <= i <= j < 512 and 0 <= k < 512 }
//	  %Y = trilu(%C) {k = 0, upper = 1} : f32[512, 512]
//	  return %Y
//	}
//
// Parse(g.String()) rebuilds g. Symbolic dims are graph parameters: graph @g[N](%x: f32[N, 4]).
//
// # Scalar operations
//
// A body is a DAG of Scalar nodes whose operations are the rows of one table (scalar_ops.go):
// each row gives the operation's name in the body syntax, its arity and typing rule, its
// semantics (the functions the evaluator and constant folding apply), its meaning on affine
// values (what DIE and the known-values pass reason with) and how lowering emits it (a recipe
// per class of element type, in lower's vocabulary). The evaluator and lowering switch only on
// the leaves (operand reads, indices, symbolic dims, constants); adding a primitive is one row,
// which the scalar tests of the evaluator and both targets and docs/ir-format.md pick up.
//
// The reference evaluator is the sub-package eval.
package ir
