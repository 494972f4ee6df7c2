// Package eval is the reference evaluator of graphc: it runs any ir.Graph on concrete inputs with
// the exact semantics of the IR, honouring restricted domains (result elements that no iteration
// of an op's domain writes keep the op's init value). Every pass and every compiled module is
// checked against it.
//
// Floating-point values are computed in float64 and rounded to the element type after every
// operation, which for +, −, ×, ÷ and sqrt gives exactly the IEEE result of the element type;
// iterations run in lexicographic order, so results are deterministic.
//
// Bodies compile into Go closures once per op (compile.go); every computing operation's
// closure is built from its row of the scalar table (ir.ScalarDef: Unary, Binary, Pick,
// Convert), the same semantics constant folding (fold.go) applies to known values.
package eval
