// Command strat compiles one model for the host CPU and prints each op's kernel strategy, one
// line per op:
//
//	go run ./xtools/strat model.onnx [PIPELINE]
//
// PIPELINE is the pass pipeline (default remove-empty,die,dce). graphc --emit=plan prints the
// whole plan, with the kernel family each op's kernel was chosen from.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/graphc/graphc"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: strat MODEL [PIPELINE]")
		os.Exit(2)
	}
	pipe := "remove-empty,die,dce"
	if len(os.Args) > 2 {
		pipe = os.Args[2]
	}
	res, err := graphc.Compile(context.Background(), os.Args[1], graphc.WithPipeline(pipe), graphc.WithCPU("native"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "strat:", err)
		os.Exit(1)
	}
	e := res.Module.Entries[0]
	for i, op := range res.Graph.Ops {
		if i < len(e.Strategies) {
			fmt.Printf("k%d %s %s %s: %s\n", i, op.Kind, op.Result.Name, op.Result.Type.String(), e.Strategies[i])
		}
	}
}
