// This file prints the scalar table as the Markdown table of docs/ir-format.md ("Body
// expressions"), which a test keeps in step with the rows.

package ir

import (
	"fmt"
	"strings"
)

// ScalarOpsMarkdown returns the computing operations of the scalar table as a Markdown table:
// the body syntax, the result type, the element types the operation is defined on, whether
// lowering computes it on vectors, and its meaning.
func ScalarOpsMarkdown() string {
	var b strings.Builder
	b.WriteString("| operation | result | defined on | vectors | meaning |\n")
	b.WriteString("|---|---|---|---|---|\n")
	for _, d := range ScalarDefs() {
		if d.Leaf {
			continue
		}
		args := []string{"x", "x, y", "c, a, b"}[d.Arity-1]
		syntax := d.Name + "(" + args + ")"
		result := "type of x"
		switch d.Result {
		case ResultBool:
			result = "i1"
		case ResultArm:
			result = "type of a"
		case ResultGiven:
			syntax = d.Name + "<TYPE>(x)"
			result = "TYPE"
		}
		on := "every type"
		if d.Pick == nil && d.Convert == nil {
			var classes []string
			for _, c := range []struct {
				name string
				t    DType
			}{{"floats", F32}, {"integers", I32}, {"bool", Bool}} {
				var err error
				if d.Arity == 1 {
					_, err = d.Unary(c.t, c.t)
				} else {
					_, err = d.Binary(c.t, c.t)
				}
				if err == nil && d.Lower.For(c.t) != "" {
					classes = append(classes, c.name)
				}
			}
			on = strings.Join(classes, ", ")
		}
		lanes := map[LaneRule]string{LanesNone: "no", LanesAny: "yes", LanesFloat: "floats", LanesRule: "some"}[d.Lower.Lanes]
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", syntax, result, on, lanes, d.Doc)
	}
	return b.String()
}
