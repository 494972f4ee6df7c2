// Package volume is exact Presburger arithmetic for graphc: integer sets and maps with symbolic
// parameters, in isl's semantics and notation. It knows nothing about tensors.
//
// # Notation
//
// Values print and parse in isl notation, so any result can be pasted into isl or iscc and back:
//
//	[N] -> { S[i, j] : 0 <= i < N and i <= j < N and (i + j) mod 2 = 0 }
//	{ A[i, j] -> B[i + 1, 2j] }
//	{ [i] : exists (e : i = 4e + 1) }
//
// # Model
//
// A Set (or Map) is a finite union of conjunctions ("basic sets") of affine equalities and
// inequalities over integer dimensions, parameters and local variables. Every local variable is
// a div, floor(affine/d), which is what makes complement and subtraction exact. Existentially
// quantified variables (exists, projection, image) are eliminated exactly with the Omega test:
// unit substitution, Pugh's mod-hat reduction of equalities, Fourier–Motzkin where it is exact,
// and dark shadow plus splinters where it is not.
//
// Column layout of a constraint row (see basic.go): constant, parameters, input dims, output
// dims, divs.
//
// # Conventions
//
//   - Values are immutable: every operation returns a new value and never modifies its operands.
//   - Method names are isl's without the type prefix: Intersect, Union, Subtract, Complement,
//     Apply (image), Preimage, ApplyRange (composition), ApplyDomain, Reverse (inverse), Domain,
//     Range, ProjectOut, IntersectDomain, IntersectRange, FixParam, IsEmpty, IsSubset, IsEqual.
//   - Plain* methods (PlainIsEmpty) are cheap syntactic checks that may answer "don't know";
//     unprefixed methods are exact and may cost an integer feasibility test.
//   - Binary operations align parameters by name; pieces combine when their tuples (name and
//     arity) match, as in isl's union sets.
//   - Coefficients never overflow silently: arithmetic is checked, and an overflow panics with
//     ErrOverflow. A space mismatch (a programmer error) panics with ErrSpaceMismatch. Try turns
//     both into errors at API boundaries; errors caused by user input (parsing) are returned.
//
// # Scanning
//
// Set.Scan builds a loop AST (For, If, Assign, Leaf) that visits every point of a set exactly
// once; Walk interprets it and C prints it as C loops.
package volume
