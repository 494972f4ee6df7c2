// This file lists the supported ONNX and TensorFlow ops for `graphc ops`, from the same tables as
// docs/ops.md and docs/tf-ops.md.

package main

import (
	"fmt"
	"strings"

	"github.com/graphc/graphc/frontend/onnx"
	"github.com/graphc/graphc/frontend/tf"
)

func onnxOps() []string {
	var out []string
	for _, op := range onnx.SupportedOpInfo() {
		line := fmt.Sprintf("%-24s %-6s", op.Name, fmt.Sprintf("%d-%d", op.Since, op.Until))
		if op.Note != "" {
			line += "  " + op.Note
		}
		out = append(out, strings.TrimRight(line, " "))
	}
	// the ops of com.microsoft (onnxruntime's contrib operators), by their qualified names
	for _, op := range onnx.DomainOpInfo() {
		line := fmt.Sprintf("%-24s %-6s", op.Domain+"."+op.Name, fmt.Sprintf("%d-%d", op.Since, op.Until))
		if op.Note != "" {
			line += "  " + op.Note
		}
		out = append(out, strings.TrimRight(line, " "))
	}
	return out
}

// tfOps returns one line per supported TensorFlow op: name and note.
func tfOps() []string {
	var out []string
	for _, op := range tf.SupportedOpInfo() {
		line := fmt.Sprintf("%-24s", op.Name)
		if op.Note != "" {
			line += "  " + op.Note
		}
		out = append(out, strings.TrimRight(line, " "))
	}
	return out
}

// onnxUnsupported returns one line per ONNX op that graphc does not import: name and reason.
func onnxUnsupported() []string {
	var out []string
	for _, op := range onnx.UnsupportedOpInfo() {
		out = append(out, fmt.Sprintf("%-24s  %s", op.Name, op.Note))
	}
	return out
}
