// This file describes the op table for people: `graphc ops` and docs/tf-ops.md are both
// generated from OpInfos, so that the documentation cannot drift from what the importer
// accepts.

package tf

import (
	"fmt"
	"strings"

	kit "github.com/graphc/graphc/frontend/importer"
)

// OpInfo describes one supported TensorFlow op.
type OpInfo struct {
	Name string
	Note string // limitations and how the op is built, "" when there is nothing to say
}

// opNotes holds the notes of the ops that have one (set by noteOp from the op files).
var opNotes = kit.Notes{}

func noteOp(note string, names ...string) { opNotes.Add("tf", note, names...) }

// SupportedOpInfo returns every supported op, sorted by name.
func SupportedOpInfo() []OpInfo {
	var out []OpInfo
	for _, name := range SupportedOps() {
		out = append(out, OpInfo{Name: name, Note: opNotes[name]})
	}
	return out
}

// OpsMarkdown returns docs/tf-ops.md: the supported ops with their notes.
func OpsMarkdown() string {
	var sb strings.Builder
	sb.WriteString("# Supported TensorFlow ops\n\n")
	sb.WriteString("<!-- Generated from the importer's op table by `go test ./frontend/tf -update`; do not edit. -->\n\n")
	sb.WriteString("graphc imports frozen TensorFlow GraphDefs (`.pb` binary, `.pbtxt` text). Inputs that " +
		"shapes, axes, paddings or indices are read from must be constants known at import (a Const, or " +
		"computed from constants and static shapes, which the importer folds). Unknown placeholder dims " +
		"are symbolic (`<placeholder>_d<i>`, bound with `--dim`). `graphc ops` prints the same table.\n\n")
	sb.WriteString("| op | notes |\n|---|---|\n")
	for _, o := range SupportedOpInfo() {
		fmt.Fprintf(&sb, "| %s | %s |\n", o.Name, strings.ReplaceAll(o.Note, "|", "\\|"))
	}
	return sb.String()
}
