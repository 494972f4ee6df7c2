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
// it is exact, and dark shadow plus splinters where it is not. Emptiness is decided by the same
// test, so every answer is exact over the integers; a rational answer is never reported as an
// integer one.
//
// Column layout of a constraint row (see basic.go): constant, parameters, input dims, output
// dims, divs (then, transiently during projection, existentials).
//
// # Operations
//
// Binary operations align parameters by name (the result has the parameters of both operands)
// and combine pieces whose tuples match by name and arity, as isl's union sets and maps do;
// pieces in a tuple only one operand has are kept by Union and Subtract and dropped by
// Intersect. Costs: operations marked "exact test" run integer feasibility tests (the Omega
// test: microseconds on tensor-sized problems, exponential in the worst case).
//
//	Group        Operation                          Meaning, preconditions
//	Properties   IsEmpty (TryIsEmpty)               no point for any parameter values (exact test)
//	             PlainIsEmpty                       syntactic: a violated constant constraint only
//	             IsSubset, IsEqual (Try…, …Context)  exact tests
//	             NDim, TupleName, DimNames          single-space sets only (else ErrSpaceMismatch)
//	             Params, NPieces, Tuples            parameters; pieces; one Set per tuple
//	             Contains (Set and Map)             point membership; every parameter bound
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
// # Errors
//
// Errors caused by user input (parsing) are returned. Programmer errors panic: a space mismatch
// with ErrSpaceMismatch. Coefficients are int64 with checked arithmetic; when one would leave the
// int64 range the operation panics with ErrOverflow (no wrong answer is ever produced), and when
// exact elimination would create more constraints than the package allows (dense systems with
// large coefficients) it panics with ErrTooComplex. Try converts these panics into errors at API
// boundaries (passes, the calculator, importers). Operations that return an error (Lexmin,
// Points, Card, DimBounds, Scan, AffPieces, ParseSet) do so themselves.
//
// # Work budget, tri-state predicates and contexts
//
// Each public operation has one work budget (maxOpWork, at most about 0.5 s of eliminations), shared
// by every emptiness test, projection and coalescing step it runs; a parse is one operation. When
// it runs out the operation stops with ErrTooComplex. Tests whose answer is optional (redundant
// constraints, coalescing a pair, scanning guards) run on a smaller allowance inside it and are
// left undecided, never answered, when it runs out: the result stays exact, only less compact.
//
// The predicates that can give up have tri-state variants that return an error instead of
// panicking, and variants bound to a context.Context, which stop with the context's error
// (errors.Is(err, context.Canceled) or context.DeadlineExceeded) once it is done:
//
//	Set, Map     TryIsEmpty, TryIsSubset, TryIsEqual            (bool, error): true, false or
//	                                                            ErrTooComplex / ErrOverflow
//	             IsEmptyContext, IsSubsetContext, IsEqualContext the same, bound to a context
//	Set          IntersectContext, SubtractContext, ApplyContext, PreimageContext,
//	             CoalesceContext                                (Set, error)
//	Text         ParseSetContext, ParseMapContext
//
// IsEmpty, IsSubset and IsEqual keep their signatures and panic where the tri-state variants
// return an error (Try converts the panic).
package volume
