package passes_test

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
	"github.com/graphc/graphc/passes"
	"github.com/graphc/graphc/volume"
)

var semanticGraphs = flag.Int("passes.graphs", 1000, "number of random graphs of the semantic test")

// maker adds one random op to g reading existing values, or returns nil when it cannot.
type maker func(r *rand.Rand, g *ir.Graph, vals []*ir.Value) *ir.Op

// makers is the table of random op builders; op families add theirs from their own test files.
var makers = []maker{
	binaryMaker("add"), binaryMaker("sub"), binaryMaker("mul"), binaryMaker("max"), binaryMaker("min"),
	unaryMaker("relu"), unaryMaker("neg"), unaryMaker("abs"),
	func(r *rand.Rand, g *ir.Graph, vals []*ir.Value) *ir.Op { // matmul of two compatible values
		for range 8 {
			a, b := pick(r, vals), pick(r, vals)
			if a.Type.Rank() == 2 && b.Type.Rank() == 2 && a.Type.Shape[1].Equal(b.Type.Shape[0]) {
				return mustOp(g, "matmul", []*ir.Value{a, b}, nil)
			}
		}
		return nil
	},
	func(r *rand.Rand, g *ir.Graph, vals []*ir.Value) *ir.Op {
		v := pick(r, vals)
		if v.Type.Rank() < 2 {
			return nil
		}
		return mustOp(g, "trilu", []*ir.Value{v}, ir.Attrs{"upper": ir.IntAttr(int64(r.IntN(2))), "k": ir.IntAttr(int64(r.IntN(5) - 2))})
	},
	func(r *rand.Rand, g *ir.Graph, vals []*ir.Value) *ir.Op {
		v := pick(r, vals)
		if v.Type.Rank() < 2 {
			return nil
		}
		return mustOp(g, "diag_part", []*ir.Value{v}, nil)
	},
	func(r *rand.Rand, g *ir.Graph, vals []*ir.Value) *ir.Op { // a shifted stencil in generic form
		v := pick(r, vals)
		if v.Type.Rank() != 2 {
			return nil
		}
		s, _ := v.Type.StaticShape()
		if s[0] < 2 || s[1] < 2 {
			return nil
		}
		attrs := ir.Attrs{
			"type":   ir.StringAttr(v.Type.String()),
			"domain": ir.StringAttr(fmt.Sprintf("{ [i, j] : 0 <= i < %d and 0 <= j < %d }", s[0]-1, s[1]-1)),
			"access": ir.StringsAttr("{ [i, j] -> [i + 1, j] }", "{ [i, j] -> [i, j + 1] }"),
			"out":    ir.StringAttr("{ [i, j] -> [i + 1, j + 1] }"),
			"body":   ir.StringAttr("sub(in0, in1)"),
		}
		return mustOp(g, "generic", []*ir.Value{v, v}, attrs)
	},
}

func binaryMaker(kind string) maker {
	return func(r *rand.Rand, g *ir.Graph, vals []*ir.Value) *ir.Op {
		for range 8 {
			a, b := pick(r, vals), pick(r, vals)
			if op, err := g.NewOp(kind, "", []*ir.Value{a, b}, nil); err == nil {
				return op
			}
		}
		return nil
	}
}

func unaryMaker(kind string) maker {
	return func(r *rand.Rand, g *ir.Graph, vals []*ir.Value) *ir.Op {
		return mustOp(g, kind, []*ir.Value{pick(r, vals)}, nil)
	}
}

func pick(r *rand.Rand, vals []*ir.Value) *ir.Value {
	// prefer recent values so that graphs are deep rather than wide
	if r.IntN(3) > 0 && len(vals) > 2 {
		return vals[len(vals)-1-r.IntN(3)]
	}
	return vals[r.IntN(len(vals))]
}

func mustOp(g *ir.Graph, kind string, ops []*ir.Value, attrs ir.Attrs) *ir.Op {
	op, err := g.NewOp(kind, "", ops, attrs)
	if err != nil {
		return nil
	}
	return op
}

// randomGraph builds a graph of a few random ops over random inputs; extents may be zero.
func randomGraph(r *rand.Rand) *ir.Graph {
	g := ir.NewGraph("random")
	n := 1 + r.IntN(3)
	var vals []*ir.Value
	dim := func() int64 {
		if r.IntN(12) == 0 {
			return 0
		}
		return int64(1 + r.IntN(4))
	}
	shared := dim()
	for i := range n {
		rank := 1 + r.IntN(3)
		shape := make([]int64, rank)
		for k := range shape {
			shape[k] = dim()
			if r.IntN(2) == 0 {
				shape[k] = shared
			}
		}
		vals = append(vals, g.AddInput(fmt.Sprintf("x%d", i), ir.StaticType(ir.F32, shape...)))
	}
	nops := 1 + r.IntN(6)
	for len(g.Ops) < nops {
		op := makers[r.IntN(len(makers))](r, g, vals)
		if op != nil {
			vals = append(vals, op.Result)
		}
	}
	// outputs: the last op, and sometimes another value
	g.Outputs = []*ir.Value{vals[len(vals)-1]}
	if r.IntN(3) == 0 && len(g.Ops) > 1 {
		if o := g.Ops[r.IntN(len(g.Ops)-1)].Result; o != g.Outputs[0] {
			g.Outputs = append(g.Outputs, o)
		}
	}
	return g
}

// randomRequirement returns a random region of an output (or "" for the whole output).
func randomRequirement(r *rand.Rand, v *ir.Value, k int) string {
	rank := v.Type.Rank()
	if rank == 0 || r.IntN(3) == 0 {
		return ""
	}
	names := make([]string, rank)
	for i := range names {
		names[i] = fmt.Sprintf("d%d", i)
	}
	d := names[r.IntN(rank)]
	var c string
	switch r.IntN(5) {
	case 0:
		c = fmt.Sprintf("%s = %d", d, r.IntN(3))
	case 1:
		c = fmt.Sprintf("%d <= %s < %d", r.IntN(2), d, 1+r.IntN(4))
	case 2:
		c = fmt.Sprintf("(%s) mod 2 = %d", strings.Join(names, " + "), r.IntN(2))
	case 3:
		if rank >= 2 {
			c = fmt.Sprintf("%s <= %s", names[0], names[1])
		} else {
			c = fmt.Sprintf("%s >= 1", d)
		}
	default:
		c = fmt.Sprintf("%s != 1", d)
	}
	return fmt.Sprintf("out%d[%s] : %s", k, strings.Join(names, ", "), c)
}

func sameBits(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
}

// TestPipelinePreservesRequiredOutputs is issue 7's semantic test: random DAGs of catalogue ops
// with random shapes (zero extents included) and random required regions are evaluated before
// and after remove-empty,die,dce on random inputs; the required output elements agree exactly.
func TestPipelinePreservesRequiredOutputs(t *testing.T) {
	ps, err := passes.ParsePipeline(passes.DefaultPipeline)
	if err != nil {
		t.Fatal(err)
	}
	for seed := 0; seed < *semanticGraphs; seed++ {
		r := rand.New(rand.NewPCG(uint64(seed), 99))
		g := randomGraph(r)
		text := g.String()
		orig, err := ir.Parse(text)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, text)
		}
		opt, _ := ir.Parse(text)
		var reqs []passes.Requirement
		var reqText []string
		for k, o := range opt.Outputs {
			if s := randomRequirement(r, o, k); s != "" {
				rq, err := passes.ParseRequirement(opt, s)
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				reqs = append(reqs, rq)
				reqText = append(reqText, s)
			}
		}
		if _, err := passes.Run(context.Background(), opt, ps, &passes.Options{VerifyEach: true, Require: reqs}); err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, text)
		}
		inputs := map[string]*ir.Tensor{}
		for _, in := range orig.Inputs {
			s, _ := in.Type.StaticShape()
			tt := ir.NewTensor(in.Type.Elem, s)
			for i := range tt.F {
				tt.F[i] = ir.RoundFloat(in.Type.Elem, r.Float64()*4-2)
			}
			inputs[in.Name] = tt
		}
		want, err := eval.Run(orig, inputs)
		if err != nil {
			t.Fatalf("seed %d: original: %v\n%s", seed, err, text)
		}
		got, err := eval.Run(opt, inputs)
		if err != nil {
			t.Fatalf("seed %d: optimized: %v\n%s", seed, err, opt)
		}
		for k, o := range orig.Outputs {
			region := volume.Box(nil, "", nil, o.Type.Shape)
			for _, rq := range reqs {
				if rq.Output == o.Name {
					region = rq.Set.Intersect(volume.Box(nil, "", nil, o.Type.Shape))
				}
			}
			pts, err := region.Points(nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			shape, _ := o.Type.StaticShape()
			for _, p := range pts {
				off := int64(0)
				for d, x := range p {
					off = off*shape[d] + x
				}
				if !sameBits(got[k].F[off], want[k].F[off]) {
					t.Fatalf("seed %d: output %%%s element %v: optimized %v, original %v\nrequire %v\noriginal:\n%s\noptimized:\n%s",
						seed, o.Name, p, got[k].F[off], want[k].F[off], reqText, text, opt)
				}
			}
		}
	}
}
