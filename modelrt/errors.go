// This file holds the errors of calls: bad inputs, and the entry's status codes.

package modelrt

import "fmt"

// ErrInput matches (errors.Is) the errors about the tensors given to a call: count, element
// type, shape, size.
var ErrInput = fmt.Errorf("modelrt: bad input")

// inputError is an error about the tensors of a call; it is ErrInput without saying so in its
// message, which already names the input and what was expected.
type inputError struct{ msg string }

func (e *inputError) Error() string        { return e.msg }
func (e *inputError) Is(target error) bool { return target == ErrInput }

func inputErrorf(format string, args ...any) error {
	return &inputError{fmt.Sprintf(format, args...)}
}

// The errors a *StatusError wraps, one per status code of the ABI.
var (
	ErrDims    = fmt.Errorf("a symbolic dim is negative or breaks a requirement of the model")
	ErrIndex   = fmt.Errorf("a data-dependent index is out of bounds")
	ErrDivZero = fmt.Errorf("integer division by zero")
	ErrWeights = fmt.Errorf("the weights are not the weights file of this module")
	ErrStatus  = fmt.Errorf("unknown status")
)

// StatusError is a non-zero status returned by the entry (or -1 by ENTRY_workspace_size,
// reported as status 1).
type StatusError struct {
	Entry    string
	Status   int32
	Dims     string // the symbolic dims of the call, "N = 3, T = 8"
	Requires string // the model's requirements on them
}

func (e *StatusError) Error() string {
	msg := fmt.Sprintf("modelrt: %s returned status %d: %v", e.Entry, e.Status, e.Unwrap())
	if e.Status == 1 && e.Dims != "" {
		msg += " (" + e.Dims
		if e.Requires != "" {
			msg += "; the model requires " + e.Requires
		}
		msg += ")"
	}
	return msg
}

// Unwrap returns ErrDims, ErrIndex, ErrDivZero, ErrWeights or ErrStatus.
func (e *StatusError) Unwrap() error {
	switch e.Status {
	case 1:
		return ErrDims
	case 2:
		return ErrIndex
	case 3:
		return ErrDivZero
	case 4:
		return ErrWeights
	}
	return ErrStatus
}
