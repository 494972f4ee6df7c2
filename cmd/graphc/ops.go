// This file lists the supported ONNX ops for `graphc ops`, from the same table as docs/ops.md.

package main

import (
	"fmt"
	"strings"

	"github.com/graphc/graphc/frontend/onnx"
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
	return out
}
