// This file describes the op table for people: `graphc ops` and docs/ops.md are both generated
// from OpInfos, so that the documentation cannot drift from what the importer accepts.

package onnx

import (
	"fmt"
	"strings"
)

// OpInfo describes one supported ONNX op.
type OpInfo struct {
	Name         string
	Since, Until int    // the opset range whose semantics the importer implements
	Note         string // limitations and how the op is built, "" when there is nothing to say
}

// opNotes holds the notes of the ops that have one (set by noteOp from the op files).
var opNotes = map[string]string{}

func noteOp(name, note string) {
	if _, ok := opNotes[name]; ok {
		panic("onnx: op " + name + " noted twice")
	}
	opNotes[name] = note
}

// SupportedOpInfo returns every supported op, sorted by name.
func SupportedOpInfo() []OpInfo {
	var out []OpInfo
	for _, name := range SupportedOps() {
		since, until, _ := OpRange(name)
		out = append(out, OpInfo{Name: name, Since: since, Until: until, Note: opNotes[name]})
	}
	return out
}

// OpsMarkdown returns docs/ops.md: the supported ops with their opset ranges and notes.
func OpsMarkdown() string {
	var sb strings.Builder
	sb.WriteString("# Supported ONNX ops\n\n")
	sb.WriteString("<!-- Generated from the importer's op table by `go test ./frontend/onnx -update`; do not edit. -->\n\n")
	fmt.Fprintf(&sb, "graphc imports models of the default ONNX domain up to opset %d, with IR versions %d to %d. "+
		"Each op is imported from the first opset of its range, and every later version's semantics are honoured. "+
		"`graphc ops` prints the same table.\n\n", MaxOpset, MinIRVersion, MaxIRVersion)
	sb.WriteString("| op | opsets | notes |\n|---|---|---|\n")
	for _, o := range SupportedOpInfo() {
		fmt.Fprintf(&sb, "| %s | %d–%d | %s |\n", o.Name, o.Since, o.Until, strings.ReplaceAll(o.Note, "|", "\\|"))
	}
	return sb.String()
}
