package passes_test

import (
	"context"
	"testing"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/passes"
)

// dieCoalesceCases are graphs whose DIE coalesces unions of many pieces (found by fuzzing: a
// pairwise coalescing without pre-filters took seconds on them).
var dieCoalesceCases = []struct{ name, graph, require string }{
	{"reshape", `graph @g(%x: f32[4, 4, 4]) {
  %y = reshape(%x) {shape = "[2, 32]"} : f32[2, 32]
  return %y
}
`, "y[d0, d1] : d1 >= 2"},
	{"tile-cumprod-pad", `graph @random(%x0: f32[4, 4], %x1: f32[4]) {
  %2 = ceil(%x0) : f32[4, 4]
  %3 = tile(%2) {repeats = [3, 3]} : f32[12, 12]
  %4 = cumprod(%3) {exclusive = 1, reverse = 1} : f32[12, 12]
  %5 = pad(%4) {mode = "wrap", pads = [0, 0, 1, -1], value = 0.5} : f32[13, 11]
  return %5, %4
}
`, "out0[d0, d1] : d0 <= d1"},
}

func BenchmarkDIECoalesce(b *testing.B) {
	for _, c := range dieCoalesceCases {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				g, err := ir.Parse(c.graph)
				if err != nil {
					b.Fatal(err)
				}
				rq, err := passes.ParseRequirement(g, c.require)
				if err != nil {
					b.Fatal(err)
				}
				ps, err := passes.ParsePipeline("die")
				if err != nil {
					b.Fatal(err)
				}
				if _, err := passes.Run(context.Background(), g, ps, &passes.Options{Require: []passes.Requirement{rq}}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
