// This file describes the op table for people: `graphc ops` and docs/ops.md are both generated
// from OpInfos, so that the documentation cannot drift from what the importer accepts.

package onnx

import (
	"fmt"
	"strings"

	kit "github.com/graphc/graphc/frontend/importer"
)

// OpInfo describes one supported ONNX op.
type OpInfo struct {
	Name         string
	Since, Until int    // the opset range whose semantics the importer implements
	Note         string // limitations and how the op is built, "" when there is nothing to say
}

// opNotes holds the notes of the ops that have one (set by noteOp from the op files).
var opNotes = kit.Notes{}

func noteOp(name, note string) { opNotes.Add("onnx", note, name) }

// SupportedOpInfo returns every supported op, sorted by name.
func SupportedOpInfo() []OpInfo {
	var out []OpInfo
	for _, name := range SupportedOps() {
		since, until, _ := OpRange(name)
		out = append(out, OpInfo{Name: name, Since: since, Until: until, Note: opNotes[name]})
	}
	return out
}

// unsupportedOps are the ops of the ONNX standard that graphc does not import, with the reason
// (the default domain's complete; of ai.onnx.ml only the ones the node tests use).
var unsupportedOps = []OpInfo{
	{Name: "Bernoulli", Note: "draws random numbers (the reference's outputs come from numpy's global state, not from the seed)"},
	{Name: "ConcatFromSequence", Note: "sequence values"},
	{Name: "ImageDecoder", Note: "decodes image files: not a tensor computation"},
	{Name: "LabelEncoder", Note: "domain ai.onnx.ml: string keys and values"},
	{Name: "MaxRoiPool", Note: "not implemented yet (RoiAlign is)"},
	{Name: "Multinomial", Note: "draws random numbers"},
	{Name: "Optional", Note: "optional values"},
	{Name: "RandomNormal", Note: "draws random numbers"},
	{Name: "RandomNormalLike", Note: "draws random numbers"},
	{Name: "RandomUniform", Note: "draws random numbers"},
	{Name: "RandomUniformLike", Note: "draws random numbers"},
	{Name: "RegexFullMatch", Note: "strings"},
	{Name: "SequenceAt", Note: "sequence values"},
	{Name: "SequenceConstruct", Note: "sequence values"},
	{Name: "SequenceEmpty", Note: "sequence values"},
	{Name: "SequenceErase", Note: "sequence values"},
	{Name: "SequenceInsert", Note: "sequence values"},
	{Name: "SequenceLength", Note: "sequence values"},
	{Name: "SequenceMap", Note: "sequence values"},
	{Name: "SplitToSequence", Note: "sequence values"},
	{Name: "StringConcat", Note: "strings"},
	{Name: "StringNormalizer", Note: "strings"},
	{Name: "StringSplit", Note: "strings"},
}

// UnsupportedOpInfo returns the ONNX ops that graphc does not import, sorted by name, each with
// the reason (Since and Until are 0). Graph inputs and outputs of string, sequence, map and
// optional types are not supported by any op.
func UnsupportedOpInfo() []OpInfo { return append([]OpInfo(nil), unsupportedOps...) }

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
	sb.WriteString("\n## onnxruntime's operators (com.microsoft)\n\n")
	sb.WriteString("These operators of onnxruntime's `com.microsoft` domain (its contrib operators, as onnxruntime's transformer optimizer, " +
		"Optimum and onnxruntime-genai's model builder write them) are imported with the semantics of onnxruntime's " +
		"ContribOperators documentation and CPU kernels. SimplifiedLayerNormalization is also accepted in the default domain, " +
		"where onnxruntime registers it.\n\n")
	sb.WriteString("| op | notes |\n|---|---|\n")
	for _, o := range DomainOpInfo() {
		fmt.Fprintf(&sb, "| %s.%s | %s |\n", o.Domain, o.Name, strings.ReplaceAll(o.Note, "|", "\\|"))
	}
	sb.WriteString("\n## Not supported\n\n")
	sb.WriteString("These ONNX ops are not imported (a model using them is refused with every such node named). " +
		"No op takes or returns string, sequence, map or optional values.\n\n")
	sb.WriteString("| op | why |\n|---|---|\n")
	for _, o := range UnsupportedOpInfo() {
		fmt.Fprintf(&sb, "| %s | %s |\n", o.Name, o.Note)
	}
	return sb.String()
}
