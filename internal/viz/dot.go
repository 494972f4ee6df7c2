// This file renders a graph as Graphviz DOT.

package viz

import (
	"fmt"
	"strings"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/passes"
)

// DOT returns g as a Graphviz digraph. dead, when non-nil, is DIE's report: each op is labelled
// with its kind, result shape and the fraction of its iterations DIE removed (and how many of
// them known-values skipped as known identities), and filled with a colour from white (nothing
// removed) to red (everything removed).
func DOT(g *ir.Graph, dead []passes.DeadSpace) string {
	byOp := map[string]passes.DeadSpace{}
	for _, d := range dead {
		byOp[d.Op] = d
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "digraph %q {\n  rankdir=TB;\n  node [fontname=\"Helvetica\", fontsize=10];\n", g.Name)
	id := map[*ir.Value]string{}
	n := 0
	node := func(v *ir.Value) string {
		if s, ok := id[v]; ok {
			return s
		}
		n++
		id[v] = fmt.Sprintf("n%d", n)
		return id[v]
	}
	for _, in := range g.Inputs {
		fmt.Fprintf(&sb, "  %s [shape=ellipse, label=%q];\n", node(in), "%"+in.Name+"\n"+in.Type.String())
	}
	for _, c := range g.Consts {
		fmt.Fprintf(&sb, "  %s [shape=note, label=%q];\n", node(c), "%"+c.Name+"\nconstant "+c.Type.String())
	}
	for _, op := range g.Ops {
		label := fmt.Sprintf("%%%s\n%s\n%s", op.Result.Name, op.Kind, op.Result.Type)
		fill := "#ffffff"
		if d, ok := byOp[op.Result.Name]; ok {
			switch {
			case d.Counted && d.Total > 0:
				f := float64(d.DeadCount+d.KnownZeroCount) / float64(d.Total)
				label += fmt.Sprintf("\nDIE: %.1f%% dead", 100*f)
				if d.KnownZeroCount > 0 {
					label += fmt.Sprintf(" (%.1f%% known identity)", 100*float64(d.KnownZeroCount)/float64(d.Total))
				}
				fill = shade(f)
			case d.Dead().PlainIsEmpty() && !d.HasKnownZero():
				label += "\nDIE: 0% dead"
			default:
				label += "\nDIE: partly dead (symbolic)"
				fill = shade(0.5)
			}
		}
		fmt.Fprintf(&sb, "  %s [shape=box, style=filled, fillcolor=%q, label=%q];\n", node(op.Result), fill, label)
		for k, o := range op.Operands {
			fmt.Fprintf(&sb, "  %s -> %s [label=\"%d\"];\n", node(o), node(op.Result), k)
		}
	}
	for i, o := range g.Outputs {
		fmt.Fprintf(&sb, "  out%d [shape=plaintext, label=\"out%d\"];\n  %s -> out%d;\n", i, i, node(o), i)
	}
	sb.WriteString("}\n")
	return sb.String()
}

// shade maps a fraction in [0, 1] to a colour from white to red.
func shade(f float64) string {
	f = max(0, min(1, f))
	c := int(255 * (1 - 0.75*f))
	return fmt.Sprintf("#ff%02x%02x", c, c)
}
