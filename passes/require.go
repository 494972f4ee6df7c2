// This file parses required-output specifications (--require): the region of an output the
// user needs, in isl notation, e.g. "Y[i, j] : i = 127" or "[N] -> { Y[i, j] : i = N - 1 }".

package passes

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

// Requirement is the required region of one graph output.
type Requirement struct {
	Output string     // name of the output value
	Set    volume.Set // in the output's index space, anonymous tuple
	Text   string     // as the user wrote it
}

// RequiredVolume is the set of elements of a value that some required output depends on.
type RequiredVolume = volume.Set

// ParseRequirement parses a --require specification against g: the tuple name must be one of
// g's outputs (by value name, or out<k> for the k-th output as in the ABI) and its arity the
// output's rank. Symbolic dims of g may be used without declaring
// them.
func ParseRequirement(g *ir.Graph, text string) (Requirement, error) {
	s := strings.TrimSpace(text)
	lead := len(text) - len(strings.TrimLeft(text, " \t\n")) // where s starts in text
	braced := false
	if !strings.Contains(s, "{") {
		s, braced = "{ "+s+" }", true
		lead -= 2
	}
	if !strings.HasPrefix(s, "[") && len(g.Params) > 0 {
		pre := "[" + strings.Join(g.Params, ", ") + "] -> "
		s = pre + s
		lead -= len(pre)
	}
	set, err := volume.ParseSet(s)
	if err != nil {
		// report positions in the user's text, not in the braces and parameters added
		var pe *volume.ParseError
		if errors.As(err, &pe) && pe.Offset >= 0 {
			at := pe.Offset + lead
			switch {
			case braced && pe.Near == "}" && pe.Offset == len(s)-1 || at >= len(text):
				return Requirement{}, fmt.Errorf("--require %q: %s at the end of the requirement", text, pe.Msg)
			case at >= 0:
				return Requirement{}, fmt.Errorf("--require %q: %s (at %q, offset %d)", text, pe.Msg, pe.Near, at)
			}
		}
		return Requirement{}, fmt.Errorf("--require %q: %w", text, err)
	}
	if err := set.SingleSpace(); err != nil {
		return Requirement{}, fmt.Errorf("--require %q: give exactly one output tuple: %w", text, err)
	}
	name := set.TupleName()
	var outNames []string
	for _, o := range g.Outputs {
		outNames = append(outNames, o.Name)
	}
	i := slices.Index(outNames, name)
	if k, err := strconv.Atoi(strings.TrimPrefix(name, "out")); i < 0 && err == nil && strings.HasPrefix(name, "out") && k >= 0 && k < len(outNames) {
		i = k // out<k>: the k-th output, as in the ABI
	}
	if i < 0 {
		msg := fmt.Sprintf("--require %q: %q is not an output of @%s (outputs: %s)", text, name, g.Name, strings.Join(outNames, ", "))
		if sug := Suggest(name, outNames); sug != "" {
			msg += fmt.Sprintf("; did you mean %q?", sug)
		}
		return Requirement{}, fmt.Errorf("%s", msg)
	}
	o := g.Outputs[i]
	if set.NDim() != o.Type.Rank() {
		return Requirement{}, fmt.Errorf("--require %q: %s has rank %d, the requirement has %d dims", text, name, o.Type.Rank(), set.NDim())
	}
	for _, p := range set.Params() {
		if !slices.Contains(g.Params, p) {
			return Requirement{}, fmt.Errorf("--require %q: %s is not a symbolic dim of the graph", text, p)
		}
	}
	return Requirement{Output: o.Name, Set: set.SetTupleName(""), Text: text}, nil
}

// boxOf returns the index box of a tensor type.
func boxOf(params []string, t ir.TensorType) volume.Set {
	return volume.Box(params, "", nil, t.Shape)
}
