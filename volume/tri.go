// This file holds Tri and Decide: the answer of a predicate that may give up. The operations
// of this package stop (through a panic that Try converts to an error) when a problem
// overflows int64, exceeds the elimination budget or is cancelled; a caller that asks a
// yes-or-no question then has no answer, and must say which answer is the safe one. Decide
// makes that a value: a call site reads
//
//	whole := volume.Decide(func() bool { return writesWhole(op) }).Or(false) // unknown: initialise
//
// so the conservative answer stands where the question is asked.

package volume

// Tri is the answer of a predicate that may give up: Yes, No or Unknown.
type Tri int8

const (
	// Unknown: the predicate gave up (overflow, too complex, cancelled, internal error).
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

// Decide evaluates the predicate f, which may call any operation of this package: Yes or No
// as f answers, Unknown when an operation gave up (what Try would return as an error). Other
// panics propagate.
func Decide(f func() bool) Tri {
	ans := false
	if err := Try(func() { ans = f() }); err != nil {
		return Unknown
	}
	if ans {
		return Yes
	}
	return No
}
