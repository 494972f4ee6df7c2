// This file lists the supported ONNX ops for `graphc ops`.

package main

import (
	"fmt"

	"github.com/graphc/graphc/frontend/onnx"
)

func onnxOps() []string {
	var out []string
	for _, op := range onnx.SupportedOps() {
		since, until, _ := onnx.OpRange(op)
		out = append(out, fmt.Sprintf("%-24s %d-%d", op, since, until))
	}
	return out
}
