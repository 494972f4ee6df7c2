package lower

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/graphc/graphc/ir"
)

// TestScalarRecipes checks that every recipe, polynomial and special form the scalar table
// names (ir/scalar_ops.go) is one lowering knows: a typo in a row fails here, not when a model
// first uses the operation.
func TestScalarRecipes(t *testing.T) {
	for _, d := range ir.ScalarDefs() {
		l := d.Lower
		if l.All != "" {
			assert.Contains(t, specials, l.All, "%s: special form", d.Name)
		}
		for _, r := range []string{l.Float, l.Int, l.Unsigned, l.Bool} {
			if r == "" || r == "expand" {
				continue
			}
			name, arg := splitRecipe(r)
			if assert.Contains(t, recipes, name, "%s: recipe %q", d.Name, r) {
				switch name {
				case "fcmp":
					assert.Contains(t, fpreds, arg, "%s: %q", d.Name, r)
				case "icmp", "pick":
					assert.Contains(t, ipreds, arg, "%s: %q", d.Name, r)
				case "runtime":
					assert.Contains(t, runtimeDefs, "graphc."+arg, "%s: %q", d.Name, r)
				case "flogic":
					assert.NotEmpty(t, l.Bool, "%s: flogic applies the bool recipe", d.Name)
				case "widen":
					assert.NotEmpty(t, l.Int, "%s: widen applies the int recipe", d.Name)
				}
			}
		}
		if l.Poly != "" {
			assert.Contains(t, polys, l.Poly, "%s: polynomial", d.Name)
		}
	}
}
