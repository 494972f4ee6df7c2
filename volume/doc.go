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
// The parser accepts chains and lists (0 <= i, j < 10), !=, not, or under and (expanded to a
// disjunctive normal form), floor(e/d), ceil(e/d), e mod d and e % d, e // d, exists, true and
// false, ";"-separated pieces in different tuples, and { } for the empty set. Expressions have
// isl's precedence exactly (parse.go gives the grammar; TestISLPrecedence compares 6,600 forms
// with libisl): a coefficient scales its whole factor, mod included, so 2i mod 8 is
// 2*(i mod 8) and (2i) mod 8 is the other reading; -i mod 8 is -(i mod 8); "/" divides the
// factor before it (floor(i + j/2) is i + floor(j/2)); a < b is a <= b - 1. Forms isl
// rejects as ambiguous ("i*2 mod 8", "i mod 8 mod 3", "3 mod 2") are syntax errors. The printer writes
// readable forms (chains, "i < N", "(i + j) mod 2 = 0", outputs of maps inline) that isl reads
// with the same meaning (checked against libisl by TestISLCrossCheck), and print→parse→print is
// stable (FuzzParse).
//
// # Model
//
// A Set (or Map) is a finite union of conjunctions ("basic sets") of affine equalities and
// inequalities over integer dimensions, parameters and local variables. Every local variable is
// a div, floor(affine/d), which is what makes complement and subtraction exact. Existentially
// quantified variables (exists, projection, image) are eliminated exactly with the Omega test
// (Pugh 1991): unit substitution, Pugh's mod-hat reduction of equalities, Fourier–Motzkin where
// it is exact, and dark shadow plus splinters where it is not. A variable whose propagated
// constant bounds leave it few values is split on instead (one case per value, each exact),
// where an elimination would be inexact or multiply the constraints: bounded sets, such as
// tensor domains, never need a shadow. Emptiness is decided by the same test, so every answer
// is exact over the integers; a rational answer is never reported as an integer one.
//
// Column layout of a constraint row (see basic.go): constant, parameters, input dims, output
// dims, divs (then, transiently during projection, existentials).
//
// # Operations
//
// A value's parameters are those its constraints may mention: the constructors (Box,
// SetFromConstraints, MultiAff.Map, Universe, EmptySet) take the ones their constraints use,
// whatever list the caller declares, and DropUnusedParams removes those no constraint mentions
// any longer (isl's drop_unused_params). A set is the same for every value of a parameter it
// does not mention, so the cost of an operation follows the parameters its operands use, not
// how many a graph declares (a detector has hundreds of run-time sizes, each op a few).
// Binary operations align parameters by name (the result has the parameters of both operands)
// and combine pieces whose tuples match by name and arity, as isl's union sets and maps do;
// pieces in a tuple only one operand has are kept by Union and Subtract and dropped by
// Intersect. Costs: operations marked "exact test" run integer feasibility tests (the Omega
// test: microseconds on tensor-sized problems, exponential in the worst case).
//
//	Group        Operation                          Meaning, preconditions
//	Properties   IsEmpty                            no point for any parameter values (exact test; a Tri)
//	             PlainIsEmpty                       syntactic: a violated constant constraint only
//	             IsSubset, IsEqual (…Context)        exact tests (a Tri; …Context: a bool and an error)
//	             NDim, TupleName, DimNames          single-space sets (SingleSpace says; else 0, "", nil)
//	             Params, NPieces, Tuples            parameters; pieces; one Set per tuple
//	             Contains (Set and Map)             point membership; every parameter bound (a Tri)
//	Binary       Intersect, Union, Subtract         same kind (set/set, map/map)
//	             Map.IntersectDomain/Range          the set's tuple matches the map's domain/range
//	             IntersectParams                    a set without dims
//	             Set.Apply (image), Preimage        map domain (range) tuple = set tuple
//	             Map.ApplyRange (compose)           { x -> z : x -> y ∈ m, y -> z ∈ n }
//	             Map.ApplyDomain                    { z -> y : x -> y ∈ m, x -> z ∈ n }
//	Unary        Complement                         within the set's own tuples
//	             Map.Reverse (inverse)              { y -> x : x -> y ∈ m }
//	             Map.Domain, Map.Range, Map.Wrap    projections; Wrap flattens to [x, y]
//	             ProjectOut(first, n)               single-space sets
//	             FixParam                           binds a parameter; it disappears
//	             ProjectOutParam                    ∃ the parameter; it disappears
//	             DropUnusedParams                   the parameters no constraint mentions leave
//	             GistParams(ctx)                    without the constraints a parameter context
//	                                                (one piece, no dims) implies; s ∩ ctx kept
//	             Simplify                           gcd normalisation, integer tightening,
//	                                                implicit equalities, redundant constraints
//	             Coalesce                           Simplify, drop pieces contained in others,
//	                                                merge pairs whose union is convex (exact)
//	Points       Sample                             some point with its parameter values
//	             Lexmin, Lexmax                     per tuple; no parameters (ErrParametric);
//	                                                ErrUnbounded when no optimum exists
//	             Points, Card                       bounded single-space sets with parameters
//	                                                bound (ErrUnbounded otherwise)
//	             DimBounds(d)                       bounds of dim d as quasi-affine functions of
//	                                                parameters and outer dims, per piece
//	Scanning     Scan, C, Walk                      loop AST of a single-space set (see scan*.go)
//	Functions    Aff, MultiAff, AffPieces, ParseAff quasi-affine expressions and maps from them
//	Building     Universe, EmptySet, UniverseMap, Box, SetFromConstraints, GE, LT, EQ
//	Text         ParseSet, ParseMap, MustParse*, String; errors are *ParseError (ErrSyntax)
//
// # Values and aliasing
//
// Values are immutable: every operation returns a new value and never modifies its operands or
// any value it shares pieces with. Results may share unchanged pieces, or constraint rows, with
// operands, which is safe because nothing ever writes to a piece after construction; callers may
// use a value from several goroutines. Pieces also record what was proven about them when they
// were built (that they have a point, that their constraints are normalised), so that IsEmpty and
// IsSubset of an operation's result, and later operations on its pieces, skip the tests that
// established it. Method names are isl's without the type prefix (Intersect, ApplyRange,
// Reverse); MLIR's synonyms (compose, inverse) appear only in comments.
//
// # Errors: values, never panics
//
// Errors caused by user input (parsing) are returned. The algorithms stop by panicking inside
// the package (guard.go) when a coefficient would leave the int64 range (ErrOverflow; no wrong
// answer is ever produced), when exact elimination would create more constraints than the
// package allows or an operation's work budget runs out (ErrTooComplex), when a context is
// done, and on a space mismatch (ErrSpaceMismatch: operands in incompatible spaces, a
// projection past the last dim). Every public operation recovers at its boundary and returns
// what happened as a value, as isl's functions return NULL and isl_bool_error:
//
//   - an operation that builds a Set, Map or Aff returns an error value: Err reports its
//     error, it keeps the spaces the result would have (NDim, TupleName), every operation on
//     it returns an error value with the same error, and it prints as "(error: …)";
//   - a predicate (IsEmpty, IsSubset, IsEqual, Contains, Sample's answer) returns a Tri: Yes,
//     No or Unknown, and the call site names the conservative answer, Or(false) or Or(true),
//     with a comment saying why it is the safe one;
//   - the operations that return an error (Card, Points, Lexmin, DimBounds, Scan, AffPieces,
//     ParseSet, the …Context forms) return it, also the error of an error value.
//
// So a computation checks its results once (FirstErr), not every step; MustParseSet and
// MustParseMap, for constants in code, are the only functions that panic.
//
// # Work budget and contexts
//
// Each public operation has one work budget (maxOpWork, about a second of eliminations at most), shared
// by every emptiness test, projection and coalescing step it runs; a parse is one operation. When
// it runs out the operation stops with ErrTooComplex. Tests whose answer is optional (redundant
// constraints, coalescing a pair, scanning guards) run on a smaller allowance inside it and are
// left undecided, never answered, when it runs out: the result stays exact, only less compact.
//
// Variants bound to a context.Context stop with the context's error (errors.Is(err,
// context.Canceled) or context.DeadlineExceeded) once it is done, and return the error beside
// the value:
//
//	Set, Map     IsEmptyContext, IsSubsetContext, IsEqualContext (bool, error)
//	Set          IntersectContext, SubtractContext, ApplyContext, PreimageContext,
//	             CoalesceContext                                (Set, error)
//	Text         ParseSetContext, ParseMapContext
package volume
