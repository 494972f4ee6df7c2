// Package calc is graphc's volume calculator, an iscc-like language over the sets and maps of
// package volume, behind `graphc calc`.
//
// A program is a sequence of statements separated by ";". A statement "X := EXPR" binds X; any
// other statement is an expression whose value is printed on its own line: sets and maps in isl
// notation (coalesced), comparisons as True or False, cardinalities as one decimal integer, code
// as C statements.
//
//	A * B       intersection (a map times a set intersects the map's domain)
//	A + B       union
//	A - B       difference
//	M(S)        image of the set S under the map M
//	M . N       composition: { x -> z : x -> y in M, y -> z in N }
//	M^-1        inverse of a map
//	dom M       domain;  ran M  range
//	lexmin S    lexicographic minimum per tuple (sets without parameters); lexmax S likewise
//	card S      number of points of a bounded set without parameters, over all its tuples
//	sample S    one point of S
//	coalesce S  S with fewer pieces
//	codegen S   C loops that visit the points of S in lexicographic order, calling S(i, j, ...)
//	S <= T      subset;  S >= T  superset;  S = T  equality;  S < T, S > T strict
//
// Operators bind as in iscc: postfix application and ^-1 first, then the prefix words, then "*"
// and ".", then "+" and "-", then comparisons. Literals are isl sets and maps, with an optional
// parameter list: [N] -> { S[i] : 0 <= i < N }. Errors name the line and column.
package calc
