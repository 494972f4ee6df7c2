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
// The passes (docs/passes.md, generated from the table, has each one's pre- and
// postconditions; `graphc passes` lists them):
//   - remove-empty: ops whose iteration domain is empty (a zero extent) do no work; they become
//     fills of their init value (nvFuser's RemoveEmptyPass).
//   - known-values: regions where tensors are known constants (masks, -inf fills, positions),
//     propagated through every op; reduction iterations that add a known identity are dropped
//     (the masked half of causal attention), under zero-skipping's finite-value assumption
//     unless Options.NoZeroSkip.
//   - die: dead iteration elimination (Bastoul et al.): back-propagates the required volume of
//     every value through the element maps and restricts every op's domain to the iterations
//     that contribute to it; records dead spaces and out-of-bounds accesses.
//   - fuse: folds views into their consumers' access maps and inlines elementwise producers.
//   - channels-last: stores the activations around windowed ops (1D, 2D and 3D convolutions and
//     pools) channels-last.
//   - dce: removes the ops no required value depends on, and the constants they used.
package passes
