// This file holds the check both formats' RequireInt and RequireFloat share: a constant
// input that must hold one value.

package importer

import "fmt"

// One returns the one value of constant input i (a scalar or a one-element vector) that a
// format's Require… method read (v, err); invalid is the format's ErrInvalid. Both formats'
// RequireInt and RequireFloat are this check.
func One[T int64 | float64](v []T, err error, i int, what string, invalid error) (T, error) {
	if err != nil {
		return 0, err
	}
	if len(v) != 1 {
		return 0, fmt.Errorf("%w: input #%d (%s) must be a scalar, got %d values", invalid, i, what, len(v))
	}
	return v[0], nil
}
