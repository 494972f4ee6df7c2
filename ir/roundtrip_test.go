package ir_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/fuzzcheck"
	"github.com/graphc/graphc/ir"
)

// roundTrip checks parse(print(g)) prints the same as g, and that the parsed graph verifies.
func roundTrip(t *testing.T, g *ir.Graph) {
	t.Helper()
	text := g.String()
	h, err := ir.Parse(text)
	require.NoError(t, err, "parsing:\n%s", text)
	require.NoError(t, ir.Verify(h))
	require.Equal(t, text, h.String())
}

// TestRoundTripCorpus round-trips every .graph file under testdata (the IR corpus and the pass
// tests).
func TestRoundTripCorpus(t *testing.T) {
	var files []string
	require.NoError(t, filepath.Walk("../testdata", func(p string, info os.FileInfo, err error) error {
		if err == nil && filepath.Ext(p) == ".graph" {
			files = append(files, p)
		}
		return err
	}))
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			g, err := ir.Parse(string(data))
			if err != nil {
				t.Skipf("not a single valid graph (negative test file?): %v", err)
			}
			require.NoError(t, ir.Verify(g))
			roundTrip(t, g)
		})
	}
}

// TestParseRejects: malformed text is an error naming the problem, not a panic (the cases are
// FuzzParse findings).
func TestParseRejects(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{`graph @g(%x: f32[4]) {
  %y = relu(%x) : f32[4]
      domain { [i] : 0 <= i < 2; A[i, j] : 0 <= i < 2 and j = 0 }
  return %y
}`, "line 3: domain: a set of one space is needed, this one has 2"},
		{`graph @g(%x: f32[4]) {
  %y = generic(%x) {access = ["{ [i] -> [i] }"], body = "in0", domain = "[A] -> { }", out = "{ [i] -> [i] }", type = "f32[4]"} : f32[4]
  return %y
}`, `domain: a set of one space is needed, "[A] -> { }" has 0`},
		{`graph @g(%x: f32[4]) {
  %y = resize(%x) {scales = [2.0], shape = "[-2]"} : f32[-2]
  return %y
}`, "resize: extent -2 of dim 0 is negative"},
		// an empty tensor passes every element limit, but the builder tabulates each resized dim
		{`graph @g(%x: f32[0, 4]) {
  %y = resize(%x) {scales = [1.0, 3.0e12], shape = "[0, 12000000000000]"} : f32[0, 12000000000000]
  return %y
}`, "resize: resizing dim 1 to 12000000000000 elements: at most 67108864 per dim are supported"},
	} {
		_, err := ir.Parse(c.text)
		require.ErrorContains(t, err, c.want, c.text)
	}
}

// parseTimeLimit bounds parsing, verifying and round-tripping one input: the seeds take
// milliseconds, so an input that takes this long found super-linear work (a hang, for a user).
const parseTimeLimit = 10 * time.Second

// FuzzParse parses text: whatever parses and verifies must print to text that parses to the
// same print (parse(print(g)) == g), never panicking, within parseTimeLimit. Its seeds are the
// graphs of testdata/ir.
func FuzzParse(f *testing.F) {
	filepath.Walk("../testdata/ir", func(p string, info os.FileInfo, err error) error {
		if err == nil && filepath.Ext(p) == ".graph" {
			if data, err := os.ReadFile(p); err == nil {
				f.Add(string(data))
			}
		}
		return nil
	})
	f.Fuzz(func(t *testing.T, text string) {
		defer fuzzcheck.Watchdog(parseTimeLimit)()
		g, err := ir.Parse(text)
		if err != nil {
			return
		}
		if ir.Verify(g) != nil {
			return
		}
		h, err := ir.Parse(g.String())
		if err != nil {
			t.Fatalf("printed graph does not parse: %v\n%s", err, g)
		}
		if h.String() != g.String() {
			t.Fatalf("print/parse/print unstable:\n%s\n---\n%s", g, h)
		}
	})
}

// TestDumpElidesLargeConstants: dumps print large constants as dense<__elided__> (a real
// model's weights would fill megabytes), small ones in full; the parser refuses an elided
// constant with a message saying how to print it.
func TestDumpElidesLargeConstants(t *testing.T) {
	g := ir.NewGraph("g")
	x := g.AddInput("x", ir.StaticType(ir.F32, 100))
	big := g.AddConst("big", ir.NewTensor(ir.F32, []int64{100}))
	small := g.AddConst("small", ir.NewTensor(ir.F32, []int64{4}))
	op, err := g.NewOp("add", "", []*ir.Value{x, big}, nil)
	require.NoError(t, err)
	g.Outputs = []*ir.Value{op.Result, small}
	dump := g.DumpString()
	require.Contains(t, dump, "%big = constant dense<__elided__> : f32[100]")
	require.Contains(t, dump, "%small = constant dense<[0.0, 0.0, 0.0, 0.0]> : f32[4]")
	require.NotContains(t, g.String(), "__elided__")
	_, err = ir.Parse(dump)
	require.ErrorContains(t, err, "constant %big was elided from a dump")
}

// TestGraphNameRoundTrip: graph names are printed as given (importers name graphs after model
// files, add-f32.v2) and parse back.
func TestGraphNameRoundTrip(t *testing.T) {
	g, err := ir.Parse("graph @add-f32.v2[N](%x: f32[N]) {\n  %y = relu(%x) : f32[N]\n  return %y\n}\n")
	require.NoError(t, err)
	require.Equal(t, "add-f32.v2", g.Name)
	roundTrip(t, g)
}
