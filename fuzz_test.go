package graphc_test

import (
	"context"
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/fuzzcheck"
	"github.com/graphc/graphc/internal/randgraph"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/passes"
	"github.com/graphc/graphc/volume"
)

// compileTimeLimit bounds one compilation: the seeds' graphs compile in milliseconds. Some small
// graphs take over 10 s in die (docs/fuzzing.md, open findings), which go test -fuzz reports as
// hung whatever this limit is.
const compileTimeLimit = 10 * time.Second

// FuzzCompile runs the whole pipeline (with --verify-each) and lowering on small random graphs
// with random required regions: it must compile or return an error. CompileGraph turns panics
// into *InternalError, so an internal error, like a pass leaving a graph the verifier rejects or
// volume reporting a bug of its own (ErrInternal), is a finding; other errors (an input graphc
// refuses, a problem too complex for exact elimination) are allowed. Compiling must take less
// than compileTimeLimit.
func FuzzCompile(f *testing.F) {
	for s := uint64(0); s < 64; s++ {
		f.Add(s, s*7+1)
	}
	f.Fuzz(func(t *testing.T, s1, s2 uint64) {
		defer fuzzcheck.Watchdog(compileTimeLimit)()
		r := rand.New(rand.NewPCG(s1, s2))
		g := randgraph.Graph(r)
		var opts []graphc.Option
		var reqs []string
		for k, o := range g.Outputs {
			if req := randgraph.Requirement(r, o, k); req != "" {
				opts = append(opts, graphc.WithRequire(req))
				reqs = append(reqs, req)
			}
		}
		opts = append(opts, graphc.WithVerifyEach(true))
		if err := ir.Verify(g); err != nil {
			t.Fatalf("randgraph built an invalid graph: %v\n%s", err, g)
		}
		text := g.String() // CompileGraph modifies g
		_, err := graphc.CompileGraph(context.Background(), g, opts...)
		var ie *graphc.InternalError
		var pe *passes.InternalError
		switch {
		case errors.As(err, &ie):
			t.Fatalf("%v\n%s\ngraph:\n%s\nrequire: %q", err, ie.Stack, text, reqs)
		case errors.As(err, &pe):
			t.Fatalf("%v\n%s\ngraph:\n%s\nrequire: %q", err, pe.Stack, text, reqs)
		case errors.Is(err, ir.ErrInvalid):
			t.Fatalf("a pass left an invalid graph: %v\ngraph:\n%s\nrequire: %q", err, text, reqs)
		case errors.Is(err, volume.ErrInternal):
			t.Fatalf("volume reported a bug: %v\ngraph:\n%s\nrequire: %q", err, text, reqs)
		case err != nil:
			t.Logf("error (allowed): %v", err)
		}
	})
}

// TestFuzzTargetsListed keeps the one list of fuzz targets, FUZZ_TARGETS in the Makefile (what
// make fuzz runs), and docs/fuzzing.md in step with the Fuzz functions of the repository.
func TestFuzzTargetsListed(t *testing.T) {
	makefile, err := os.ReadFile("Makefile")
	require.NoError(t, err)
	doc, err := os.ReadFile("docs/fuzzing.md")
	require.NoError(t, err)
	fuzzFunc := regexp.MustCompile(`(?m)^func (Fuzz\w+)\(f \*testing\.F\)`)
	var targets []string
	require.NoError(t, filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range fuzzFunc.FindAllStringSubmatch(string(src), -1) {
			pkg := "./" + filepath.ToSlash(filepath.Dir(path))
			if pkg == "./." {
				pkg = "."
			}
			targets = append(targets, pkg+":"+m[1])
		}
		return nil
	}))
	require.NotEmpty(t, targets)
	listed := regexp.MustCompile(`(?m)^\t(\S+:Fuzz\w+)`).FindAllStringSubmatch(string(makefile), -1)
	var inMakefile []string
	for _, m := range listed {
		inMakefile = append(inMakefile, m[1])
	}
	assert.ElementsMatch(t, targets, inMakefile, "FUZZ_TARGETS in the Makefile")
	for _, target := range targets {
		pkg, name, _ := strings.Cut(target, ":")
		assert.Contains(t, string(doc), "| `"+name+"` | `"+pkg+"` |", "docs/fuzzing.md lists %s", target)
	}
}
