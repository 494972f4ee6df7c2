// This file holds Tri, the answer of a predicate that may give up. The operations of this
// package stop when a problem overflows int64, exceeds the work budget or is cancelled; a
// caller that asks a yes-or-no question then has no answer, and must say which answer is the
// safe one. The predicates return a Tri, so that the conservative answer stands where the
// question is asked:
//
//	if written.IsSubset(read).Or(false) { // unknown: keep the copy
//
// (isl's isl_bool has the same three values: true, false and error.)

package volume

// Tri is the answer of a predicate that may give up: Yes, No or Unknown.
type Tri int8

const (
	// Unknown: the predicate gave up (overflow, too complex, cancelled, an operand that is
	// an error value, a space mismatch).
	Unknown Tri = iota
	// No: the predicate answered false.
	No
	// Yes: the predicate answered true.
	Yes
)

// String returns "yes", "no" or "unknown".
func (t Tri) String() string {
	switch t {
	case Yes:
		return "yes"
	case No:
		return "no"
	}
	return "unknown"
}

// Known reports whether the predicate answered.
func (t Tri) Known() bool { return t != Unknown }

// Or returns the answer, or conservative when the predicate gave up. The argument is the
// answer that is safe to act on without knowing: the call site names it.
func (t Tri) Or(conservative bool) bool {
	if t == Unknown {
		return conservative
	}
	return t == Yes
}

// Not returns the negated answer (Unknown stays Unknown).
func (t Tri) Not() Tri {
	switch t {
	case Yes:
		return No
	case No:
		return Yes
	}
	return Unknown
}

// And is Yes when both are Yes, No when either is No, else Unknown.
func (t Tri) And(u Tri) Tri {
	switch {
	case t == No || u == No:
		return No
	case t == Yes && u == Yes:
		return Yes
	}
	return Unknown
}

// TriOf returns Yes or No.
func TriOf(b bool) Tri {
	if b {
		return Yes
	}
	return No
}
