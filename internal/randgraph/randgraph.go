// Package randgraph builds random graphs of catalogue ops, with random shapes (zero extents
// included) and random required regions, for the semantic tests of the passes and the fuzzing
// of the whole pipeline. Op families add their builders to Makers.
package randgraph

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/graphc/graphc/ir"
)

// Maker adds one random op to g reading existing values, or returns nil when it cannot.
type Maker func(r *rand.Rand, g *ir.Graph, vals []*ir.Value) *ir.Op

// Makers is the table of random op builders; op families add theirs in their own files.
var Makers = []Maker{
	BinaryMaker("add"), BinaryMaker("sub"), BinaryMaker("mul"), BinaryMaker("max"), BinaryMaker("min"),
	UnaryMaker("relu"), UnaryMaker("neg"), UnaryMaker("abs"),
	func(r *rand.Rand, g *ir.Graph, vals []*ir.Value) *ir.Op { // matmul of two compatible values
		for range 8 {
			a, b := Pick(r, vals), Pick(r, vals)
			if a.Type.Rank() == 2 && b.Type.Rank() == 2 && a.Type.Shape[1].Equal(b.Type.Shape[0]) {
				return TryOp(g, "matmul", []*ir.Value{a, b}, nil)
			}
		}
		return nil
	},
	func(r *rand.Rand, g *ir.Graph, vals []*ir.Value) *ir.Op {
		v := Pick(r, vals)
		if v.Type.Rank() < 2 {
			return nil
		}
		return TryOp(g, "trilu", []*ir.Value{v}, ir.Attrs{"upper": ir.IntAttr(int64(r.IntN(2))), "k": ir.IntAttr(int64(r.IntN(5) - 2))})
	},
	func(r *rand.Rand, g *ir.Graph, vals []*ir.Value) *ir.Op {
		v := Pick(r, vals)
		if v.Type.Rank() < 2 {
			return nil
		}
		return TryOp(g, "diag_part", []*ir.Value{v}, nil)
	},
	func(r *rand.Rand, g *ir.Graph, vals []*ir.Value) *ir.Op { // a shifted stencil in generic form
		v := Pick(r, vals)
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
		return TryOp(g, "generic", []*ir.Value{v, v}, attrs)
	},
}

// BinaryMaker returns a maker of a broadcasting binary op.
func BinaryMaker(kind string) Maker {
	return func(r *rand.Rand, g *ir.Graph, vals []*ir.Value) *ir.Op {
		for range 8 {
			a, b := Pick(r, vals), Pick(r, vals)
			if op, err := g.NewOp(kind, "", []*ir.Value{a, b}, nil); err == nil {
				return op
			}
		}
		return nil
	}
}

// UnaryMaker returns a maker of a unary op.
func UnaryMaker(kind string) Maker {
	return func(r *rand.Rand, g *ir.Graph, vals []*ir.Value) *ir.Op {
		return TryOp(g, kind, []*ir.Value{Pick(r, vals)}, nil)
	}
}

// Pick returns a random value, preferring recent ones.
func Pick(r *rand.Rand, vals []*ir.Value) *ir.Value {
	// prefer recent values so that graphs are deep rather than wide
	if r.IntN(3) > 0 && len(vals) > 2 {
		return vals[len(vals)-1-r.IntN(3)]
	}
	return vals[r.IntN(len(vals))]
}

// TryOp appends an op to g, or returns nil when the catalogue rejects it.
func TryOp(g *ir.Graph, kind string, ops []*ir.Value, attrs ir.Attrs) *ir.Op {
	op, err := g.NewOp(kind, "", ops, attrs)
	if err != nil {
		return nil
	}
	return op
}

// Graph builds a graph of a few random ops over random inputs; extents may be zero.
func Graph(r *rand.Rand) *ir.Graph {
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
		op := Makers[r.IntN(len(Makers))](r, g, vals)
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

// Requirement returns a random region of an output (or "" for the whole output).
func Requirement(r *rand.Rand, v *ir.Value, k int) string {
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
