// This file holds the package's sentinel errors and try, which turns its panics into errors
// inside the package (guard.go keeps them there).

package volume

import (
	"context"
	"errors"
	"fmt"
)

var (
	// ErrSpaceMismatch is the panic value of an operation whose operands live in incompatible
	// spaces (a programmer error, like a shape mismatch in gonum's mat).
	ErrSpaceMismatch = errors.New("volume: space mismatch")
	// ErrOverflow is the error (of an operation that gives up) when a coefficient leaves the int64 range. No
	// operation ever returns a wrong answer because of overflow: it stops with this error.
	ErrOverflow = errors.New("volume: coefficient overflow")
	// ErrUnbounded is returned by operations that need a bounded set (Card, Points, Lexmin).
	ErrUnbounded = errors.New("volume: set is unbounded")
	// ErrTooComplex is the error (of an operation that gives up) when exact elimination would create more
	// constraints than the package allows (maxFMRows): dense systems with many variables and
	// large coefficients. The operation stops rather than exhaust memory; it never answers wrongly.
	ErrTooComplex = errors.New("volume: problem too complex for exact elimination")
	// ErrInternal reports a bug in the package.
	ErrInternal = errors.New("volume: internal error")
)

// try runs f and converts the panics of this package (ErrOverflow, ErrTooComplex,
// ErrSpaceMismatch, a done context, internal errors) into an error. Other panics (bugs of the
// runtime kind) propagate. Every public operation runs its work under try (guard.go), so that
// no panic of the package reaches a caller.
func try(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			switch v := r.(type) {
			case overflow:
				err = ErrOverflow
			case tooComplex:
				err = fmt.Errorf("%w: %s", ErrTooComplex, v.what)
			case ctxDone:
				err = fmt.Errorf("volume: operation stopped: %w", v.err)
			case internalError:
				err = fmt.Errorf("%w: %s", ErrInternal, v.msg)
			case error:
				if errors.Is(v, ErrSpaceMismatch) || errors.Is(v, ErrUnbounded) || errors.Is(v, ErrTooComplex) || errors.Is(v, ErrOverflow) || errors.Is(v, ErrInternal) || errors.Is(v, context.Canceled) || errors.Is(v, context.DeadlineExceeded) {
					err = v
					return
				}
				panic(r)
			default:
				panic(r)
			}
		}
	}()
	f()
	return nil
}

func spaceMismatch(format string, args ...any) {
	panic(fmt.Errorf("%w: %s", ErrSpaceMismatch, fmt.Sprintf(format, args...)))
}
