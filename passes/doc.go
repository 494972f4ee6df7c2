// Package passes holds graphc's pass manager and its passes.
//
// Passes are declared once, in the ordered table of manager.go; a pass's kebab-case name is its
// CLI word (--pipeline=remove-empty,die,fuse,dce, --print-ir-after=die), its dump-file name and its
// test directory under testdata/passes. Ordering constraints between passes live in a second
// table with the reason for each entry, checked by a unit test.
//
// Every pass preserves the values of the required output elements: every element of every graph
// output unless Options.Require narrows them. The tests prove it with the reference evaluator
// (ir/eval) on random graphs and inputs.
//
// The passes:
//   - remove-empty: ops whose iteration domain is empty (a zero extent) do no work; they become
//     fills of their init value (nvFuser's RemoveEmptyPass).
//   - die: dead iteration elimination (Bastoul et al.): back-propagates the required volume of
//     every value through the element maps and restricts every op's domain to the iterations
//     that contribute to it; records dead spaces and out-of-bounds accesses.
//   - dce: removes the ops no required value depends on, and the constants they used.
package passes
