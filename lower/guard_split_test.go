package lower_test

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/lower"
)

// TestGuardSplit checks that concatenations and padding copies are split along their reads'
// guards (one part per operand, then the part no operand covers) and still compute the
// evaluator's values, with explicit vectors and without.
func TestGuardSplit(t *testing.T) {
	cases := []struct {
		name, text string
		parts      int
	}{
		{"concat-channels", `graph @g(%a: f32[1, 5, 6, 3], %b: f32[1, 5, 6, 16], %c: f32[1, 5, 6, 37]) {
  %y = concat(%a, %b, %c) {axis = 3} : f32[1, 5, 6, 56]
  return %y
}`, 3},
		{"pad", `graph @g(%a: f32[2, 7, 9, 40]) {
  %y = pad(%a) {pads = [0, 1, 2, 0, 0, 2, 1, 0]} : f32[2, 10, 12, 40]
  return %y
}`, 2},
		{"trilu", `graph @g(%a: f32[37, 70]) {
  %y = trilu(%a) : f32[37, 70]
  return %y
}`, 2},
	}
	x86, err := lower.LoadTarget("x86-64")
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(5, 5))
	var names []string
	var ecs []*e2e.Case
	for _, c := range cases {
		g, err := ir.Parse(c.text)
		require.NoError(t, err, c.name)
		mod, err := lower.Lower(context.Background(), g, lower.Config{Target: x86})
		require.NoError(t, err, c.name)
		s := mod.Entries[0].Strategies[0]
		require.True(t, strings.HasPrefix(s, "guard-split"), "%s: %s", c.name, s)
		require.Equal(t, c.parts, strings.Count(s, "] [")+1, "%s: %s", c.name, s)
		names = append(names, c.name)
		ecs = append(ecs, &e2e.Case{Graph: g, Inputs: inputsFor(r, g, nil, true)})
	}
	runCases(t, e2e.Host(), names, ecs)
	m := e2e.Host()
	m.VectorBytes = 64
	runCases(t, m, names, ecs)
}

// TestPieceSplit checks that a linear resize, whose taps are clamped at the borders by access
// pieces, runs its interior with one unguarded piece and its border with all of them, and
// still computes the evaluator's values (to the reassociation of its vector sums).
func TestPieceSplit(t *testing.T) {
	g, err := ir.Parse(`graph @g(%x: f32[1, 3, 7, 9]) {
  %y = resize(%x) {mode = "linear", scales = [1.0, 1.0, 4.0, 4.0], shape = "[1, 3, 28, 36]"} : f32[1, 3, 28, 36]
  return %y
}`)
	require.NoError(t, err)
	x86, err := lower.LoadTarget("x86-64")
	require.NoError(t, err)
	mod, err := lower.Lower(context.Background(), g, lower.Config{Target: x86})
	require.NoError(t, err)
	s := mod.Entries[0].Strategies[0]
	require.True(t, strings.HasPrefix(s, "piece-split"), s)
	r := rand.New(rand.NewPCG(7, 7))
	// the interior's four-tap sums accumulate in vector lanes (reassociated): within
	// reassocTolerance of the evaluator
	runCasesTol(t, e2e.Host(), []string{"resize"}, []*e2e.Case{{Graph: g, Inputs: inputsFor(r, g, nil, true)}}, reassocTolerance)
}
