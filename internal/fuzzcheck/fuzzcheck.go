// Package fuzzcheck holds the property the importers' fuzz targets share: whatever a frontend
// makes of hostile bytes is an error or a graph that verifies and that the evaluator runs (or
// refuses) without panicking, within bounded size and time.
package fuzzcheck

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"testing"
	"time"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
	"github.com/graphc/graphc/volume"
)

// Imported checks the result of one import: an error wrapping volume.ErrInternal (a bug in
// volume) and a graph the verifier rejects are findings; other errors are fine. A graph is then
// evaluated on zero inputs (symbolic dims bound to 2, at most 2^12 elements per input, 2^14 per
// value, one second): its errors are fine too, only panics are findings.
func Imported(t testing.TB, g *ir.Graph, err error) {
	t.Helper()
	if errors.Is(err, volume.ErrInternal) {
		t.Fatalf("volume reported a bug: %v", err)
	}
	if err != nil {
		return
	}
	if err := ir.Verify(g); err != nil {
		t.Fatalf("import produced an invalid graph: %v", err)
	}
	params := map[string]int64{}
	for _, p := range g.Params {
		params[p] = 2
	}
	in := map[string]*ir.Tensor{}
	for _, v := range g.Inputs {
		shape, err := v.Type.EvalShape(params)
		if err != nil || ir.NumElements(shape) > 1<<12 {
			return
		}
		in[v.Name] = ir.NewTensor(v.Type.Elem, shape)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, _ = eval.Run(g, in, eval.WithParams(params), eval.WithMaxElements(1<<14), eval.WithContext(ctx))
}

// TimeLimit bounds the import and evaluation of one input under go test: the seeds take
// milliseconds and the evaluator stops after a second, so an input that takes this long found
// super-linear work in a reader or an importer (a hang, for a user).
const TimeLimit = 10 * time.Second

// Watchdog crashes the process, with every goroutine's stack, unless the returned stop is
// called within limit. It gives the corpus that go test runs the bound go test -fuzz already
// puts on every input: a fuzz worker panics after 10 s (internal/fuzz; its output is
// discarded) and the input is reported as "fuzzing process hung or terminated unexpectedly".
func Watchdog(limit time.Duration) (stop func() bool) {
	return time.AfterFunc(limit, func() {
		debug.SetTraceback("all")
		panic(fmt.Sprintf("the input took longer than %v", limit))
	}).Stop
}
