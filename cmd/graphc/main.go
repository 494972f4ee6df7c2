// Command graphc compiles tensor graphs to LLVM IR, removing dead iterations.
//
//	graphc [flags] MODEL            MODEL: .onnx | .pb/.pbtxt (TF GraphDef) | .graph (graphc IR text)
//	graphc calc 'EXPR'              the volume calculator
//	graphc ops                      supported ops with their opset ranges
//	graphc version
//
// Exit status: 0 success, 1 bad or unsupported input, 2 usage error, 3 internal error.
package main

import (
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Exit statuses.
const (
	exitOK       = 0
	exitInput    = 1
	exitUsage    = 2
	exitInternal = 3
)

var _ io.Reader
