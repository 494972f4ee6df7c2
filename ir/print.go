// This file prints graphs in the text format: MLIR-flavoured, stable for golden tests, and
// readable, with each op's domain printed in isl notation when it is smaller than the full box.

package ir

import (
	"encoding/hex"
	"fmt"
	"strings"
)

// maxInlineElems is the largest constant printed as a list of numbers; larger ones are hex.
const maxInlineElems = 16

// String prints g in the text format.
func (g *Graph) String() string {
	var sb strings.Builder
	g.Print(&sb)
	return sb.String()
}

// ElidedConstant is what a dump prints instead of the data of a large constant
// (Graph.DumpString); the parser refuses it with a message saying how to print the data.
const ElidedConstant = "dense<__elided__>"

// DumpElideElements is the size above which DumpString elides constants (a weight matrix of
// a real model prints as megabytes of hex).
const DumpElideElements = 64

// DumpString prints g like String but with the data of constants larger than
// DumpElideElements elements elided, as MLIR's --mlir-elide-elementsattrs-if-larger: for
// dumps a person reads, not for parsing back.
func (g *Graph) DumpString() string {
	var sb strings.Builder
	g.print(&sb, DumpElideElements)
	return sb.String()
}

// Print writes g in the text format.
func (g *Graph) Print(sb *strings.Builder) { g.print(sb, -1) }

// print writes g, eliding constants of more than elide elements (elide < 0: none).
func (g *Graph) print(sb *strings.Builder, elide int) {
	fmt.Fprintf(sb, "graph @%s", g.Name)
	if len(g.Params) > 0 {
		ps := make([]string, len(g.Params))
		for i, p := range g.Params {
			ps[i] = p
			if b, ok := g.BoundedParam(p); ok {
				ps[i] = g.boundedString(b)
			}
		}
		fmt.Fprintf(sb, "[%s]", strings.Join(ps, ", "))
	}
	sb.WriteString("(")
	for i, v := range g.Inputs {
		if i > 0 {
			sb.WriteString(", ")
		}
		fmt.Fprintf(sb, "%%%s: %s", v.Name, v.Type)
	}
	sb.WriteString(") {\n")
	for _, c := range g.Consts {
		data := ElidedConstant
		if elide < 0 || c.Data.Len() <= elide {
			data = denseString(c.Data)
		}
		fmt.Fprintf(sb, "  %%%s = constant %s : %s\n", c.Name, data, c.Type)
	}
	for _, op := range g.Ops {
		sb.WriteString("  ")
		sb.WriteString(op.String())
		sb.WriteString("\n")
	}
	sb.WriteString("  return")
	for i, o := range g.Outputs {
		if i > 0 {
			sb.WriteString(",")
		}
		sb.WriteString(" %" + o.Name)
	}
	sb.WriteString("\n}\n")
}

// String prints one op: "%r = kind(%a, %b) {attrs} : type", then its domain when restricted.
func (op *Op) String() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%%%s = %s(", op.Result.Name, op.Kind)
	for i, o := range op.Operands {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString("%" + o.Name)
	}
	sb.WriteString(")")
	if a := op.printedAttrs().String(); a != "" {
		sb.WriteString(" " + a)
	}
	sb.WriteString(" : " + op.Result.Type.String())
	if op.Name != "" && op.Name != op.Result.Name {
		fmt.Fprintf(&sb, " loc(%q)", op.Name)
	}
	if op.IsRestricted() {
		sb.WriteString("\n      domain " + op.Domain.String())
	}
	return sb.String()
}

// denseString prints constant data as dense<[...]> or dense<"0x...">.
func denseString(t *Tensor) string {
	if t.Len() > maxInlineElems {
		return `dense<"0x` + strings.ToUpper(hex.EncodeToString(t.Bytes())) + `">`
	}
	parts := make([]string, t.Len())
	for i := range parts {
		if t.Elem.IsFloat() {
			parts[i] = formatFloat(t.Float(i))
		} else {
			parts[i] = fmt.Sprint(t.Int(i))
		}
	}
	return "dense<[" + strings.Join(parts, ", ") + "]>"
}

// printedAttrs returns the attributes that differ from their catalogue defaults.
func (op *Op) printedAttrs() Attrs {
	def := LookupOp(op.Kind)
	out := Attrs{}
	for k, v := range op.Attrs {
		if def != nil {
			skip := false
			for _, ad := range def.Attrs {
				if ad.Name == k && ad.Default != nil && coerceAttr(*ad.Default, ad.Kind).Equal(v) {
					skip = true
				}
			}
			if skip {
				continue
			}
		}
		out[k] = v
	}
	return out
}
