// Package importertest holds the checks the importers' tests share.
package importertest

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/ir"
)

// LimitCase is one limit a test model reaches exactly: OK sets it to what the model declares,
// Below one less; Want is a part of the error message Below gives.
type LimitCase struct {
	Name      string
	OK, Below ir.Limits
	Want      string
}

// CheckLimits checks that each limit accepts the model at exactly what it declares and
// rejects it just below with an error wrapping ir.ErrLimit and invalid (the format's
// ErrInvalid) that starts with file and names the case's Want.
func CheckLimits(t *testing.T, imp func(ir.Limits) error, invalid error, file string, cases []LimitCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			require.NoError(t, imp(c.OK))
			err := imp(c.Below)
			require.ErrorIs(t, err, ir.ErrLimit)
			require.ErrorIs(t, err, invalid)
			require.ErrorContains(t, err, c.Want)
			require.True(t, strings.HasPrefix(err.Error(), file+": "), err.Error())
		})
	}
}
