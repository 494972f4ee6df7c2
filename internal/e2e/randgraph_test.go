package e2e_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/internal/randgraph"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
	"github.com/graphc/graphc/passes"
	"github.com/graphc/graphc/volume"
)

var compiledGraphs = flag.Int("e2e.graphs", 200, "random graphs of TestRandomGraphsCompiled (per pipeline)")

// TestRandomGraphsCompiled is the compiled counterpart of passes' semantic test: random DAGs of
// catalogue ops (zero extents included) with random required regions go through the pipeline,
// are lowered for x86-64 (baseline CPU: no FMA, so products round as in the evaluator), built
// into one executable and run on random inputs; the required output elements must match the
// evaluator's results on the original graph. The tolerance (rtol 1e-5, atol 1e-6) covers the
// math runtime's few-ulp differences (exp, tanh, erf, pow…); arithmetic is bit-exact.
func TestRandomGraphsCompiled(t *testing.T) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	for _, pipeline := range []string{passes.DefaultPipeline, "remove-empty,die,fuse,dce", ""} {
		t.Run(fmt.Sprintf("pipeline=%q", pipeline), func(t *testing.T) {
			checkCompiled(t, e2e.Host(), pipeline, *compiledGraphs)
		})
	}
}

// TestRandomGraphsHexagon runs the same check as hexagonv67 scalar code under qemu-hexagon, on
// a quarter of the graphs (emulation is slower).
func TestRandomGraphsHexagon(t *testing.T) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	if _, err := exec.LookPath("qemu-hexagon"); err != nil {
		t.Skip("qemu-hexagon not installed")
	}
	checkCompiled(t, e2e.HexagonScalar(), passes.DefaultPipeline, max(1, *compiledGraphs/4))
}

type compiledCase struct {
	seed    int
	text    string
	reqs    []passes.Requirement
	reqText []string
	want    []*ir.Tensor
}

func checkCompiled(t *testing.T, m e2e.Machine, pipeline string, graphs int) {
	ps, err := passes.ParsePipeline(pipeline)
	require.NoError(t, err)
	var cases []*e2e.Case
	var meta []compiledCase
	for seed := range graphs {
		r := rand.New(rand.NewPCG(uint64(seed), 1234))
		g := randgraph.Graph(r)
		text := g.String()
		orig, err := ir.Parse(text)
		require.NoError(t, err, "seed %d", seed)
		opt, err := ir.Parse(text)
		require.NoError(t, err, "seed %d", seed)
		if len(opt.Params) > 0 {
			continue
		}
		var reqs []passes.Requirement
		var reqText []string
		for k, o := range opt.Outputs {
			if s := randgraph.Requirement(r, o, k); s != "" {
				rq, err := passes.ParseRequirement(opt, s)
				require.NoError(t, err, "seed %d", seed)
				reqs = append(reqs, rq)
				reqText = append(reqText, s)
			}
		}
		_, err = passes.Run(context.Background(), opt, ps, &passes.Options{VerifyEach: true, Require: reqs})
		require.NoError(t, err, "seed %d\n%s", seed, text)
		var inputs []*ir.Tensor
		byName := map[string]*ir.Tensor{}
		for _, in := range orig.Inputs {
			s, _ := in.Type.StaticShape()
			tt := e2e.RandomTensor(r, in.Type.Elem, s)
			for i := range tt.F {
				tt.F[i] = ir.RoundFloat(in.Type.Elem, tt.F[i]*2)
			}
			inputs = append(inputs, tt)
			byName[in.Name] = tt
		}
		want, err := eval.Run(orig, byName)
		if err != nil {
			continue // e.g. a data-dependent index out of range: nothing to compare
		}
		cases = append(cases, &e2e.Case{Graph: opt, Inputs: inputs})
		meta = append(meta, compiledCase{seed, text, reqs, reqText, want})
	}
	require.NotEmpty(t, cases)
	p, err := e2e.BuildBatch(context.Background(), t.TempDir(), m, cases)
	require.NoError(t, err)
	res := p.Run(context.Background())
	failures := 0
	for i, rs := range res {
		mc := meta[i]
		fail := func(format string, args ...any) {
			failures++
			t.Errorf("seed %d: %s\nrequire %v\noriginal:\n%s\noptimized:\n%s", mc.seed, fmt.Sprintf(format, args...), mc.reqText, mc.text, cases[i].Graph)
		}
		if rs.Err != nil || rs.Status != 0 {
			fail("status %d, %v", rs.Status, rs.Err)
			continue
		}
		g := cases[i].Graph
		for k, o := range g.Outputs {
			var mask func(int) bool
			for _, rq := range mc.reqs {
				if rq.Output != o.Name {
					continue
				}
				shape, _ := o.Type.StaticShape()
				region := rq.Set.Intersect(volume.Box(nil, "", nil, o.Type.Shape))
				pts, err := region.Points(nil, 0)
				require.NoError(t, err)
				in := map[int]bool{}
				for _, pt := range pts {
					off := int64(0)
					for d, x := range pt {
						off = off*shape[d] + x
					}
					in[int(off)] = true
				}
				mask = func(i int) bool { return in[i] }
			}
			if err := e2e.Compare(rs.Outputs[k], mc.want[k], 1e-5, 1e-6, mask); err != nil {
				fail("output %%%s: %v", o.Name, err)
			}
		}
		if failures >= 5 {
			t.Fatalf("stopping after %d failures", failures)
		}
	}
	t.Logf("%d graphs compiled for %s and run", len(cases), m)
}
