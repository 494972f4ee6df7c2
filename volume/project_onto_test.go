package volume

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestProjectOnto: each dim of a triangle alone, the others projected out.
func TestProjectOnto(t *testing.T) {
	s := MustParseSet("{ [i, j, k] : 0 <= i < 4 and i <= j < 6 and k = 2j }")
	for d, want := range []string{"{ [i] : 0 <= i <= 3 }", "{ [j] : 0 <= j <= 5 }", "{ [k] : exists (e : k = 2e and 0 <= e <= 5) }"} {
		assert.True(t, s.ProjectOnto(d).IsEqual(MustParseSet(want)).holds(), "dim %d: %s", d, s.ProjectOnto(d))
	}
}
