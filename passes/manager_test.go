package passes

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/ir"
)

// TestOrderTableMatchesRegistry checks every ordering constraint names registered passes and
// that the registry (and so the default pipeline) respects it.
func TestOrderTableMatchesRegistry(t *testing.T) {
	for _, o := range order {
		require.NotNil(t, Lookup(o.Before), o.Before)
		require.NotNil(t, Lookup(o.After), o.After)
		require.NotEmpty(t, o.Why)
	}
	require.NoError(t, checkOrder(registry))
	ps, err := ParsePipeline(DefaultPipeline)
	require.NoError(t, err)
	require.Len(t, ps, 7)
	for _, p := range registry {
		require.NotEmpty(t, p.Summary, p.Name)
		require.NotEmpty(t, p.Doc, p.Name)
		require.Equal(t, strings.ToLower(p.Name), p.Name)
	}
}

func TestParsePipelineErrors(t *testing.T) {
	_, err := ParsePipeline("remove-empty,dei")
	require.ErrorIs(t, err, ErrUnknownPass)
	require.Contains(t, err.Error(), `did you mean "die"?`)
	_, err = ParsePipeline("dce,die")
	require.ErrorContains(t, err, "pipeline runs dce before die, but die must come first")
	ps, err := ParsePipeline("")
	require.NoError(t, err)
	require.Empty(t, ps)
}

const small = `graph @g(%a: f32[4, 4], %b: f32[4, 4]) {
  %c = matmul(%a, %b) : f32[4, 4]
  %d = trilu(%c) : f32[4, 4]
  return %d
}
`

func TestDumpsVerifyAndStats(t *testing.T) {
	g, err := ir.Parse(small)
	require.NoError(t, err)
	ps, err := ParsePipeline(DefaultPipeline)
	require.NoError(t, err)
	var buf bytes.Buffer
	res, err := Run(context.Background(), g, ps, &Options{PrintAfter: map[string]bool{"*": true}, PrintBefore: map[string]bool{"die": true}, Dump: &buf, VerifyEach: true})
	require.NoError(t, err)
	out := buf.String()
	require.Equal(t, 1, strings.Count(out, "IR Dump Before die"))
	for _, p := range []string{"remove-empty", "die", "dce"} {
		require.Equal(t, 1, strings.Count(out, "IR Dump After "+p+" "), p)
	}
	require.Equal(t, 1, res.State.Stats["die"].DomainsReduced)
	require.Contains(t, res.TimingReport(), "die")
}

func TestPanicNamesThePass(t *testing.T) {
	g, err := ir.Parse(small)
	require.NoError(t, err)
	boom := &Pass{Name: "boom", Summary: "panics", Doc: "test", Run: func(context.Context, *ir.Graph, *State) error { panic("kaboom") }}
	_, err = Run(context.Background(), g, []*Pass{boom}, nil)
	var ie *InternalError
	require.True(t, errors.As(err, &ie))
	require.Contains(t, err.Error(), "panic during pass boom while compiling @g: kaboom")
}

func TestDCEIsIdempotent(t *testing.T) {
	g, err := ir.Parse(small)
	require.NoError(t, err)
	ps, _ := ParsePipeline(DefaultPipeline)
	_, err = Run(context.Background(), g, ps, nil)
	require.NoError(t, err)
	once := g.String()
	_, err = Run(context.Background(), g, []*Pass{dcePass}, &Options{VerifyEach: true})
	require.NoError(t, err)
	require.Equal(t, once, g.String())
}
