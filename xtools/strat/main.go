package main

import (
	"context"
	"fmt"
	"os"

	"github.com/graphc/graphc"
)

func main() {
	pipe := "remove-empty,die,dce"
	if len(os.Args) > 2 {
		pipe = os.Args[2]
	}
	res, err := graphc.Compile(context.Background(), os.Args[1], graphc.WithPipeline(pipe), graphc.WithCPU("native"))
	if err != nil {
		panic(err)
	}
	e := res.Module.Entries[0]
	for i, op := range res.Graph.Ops {
		if i < len(e.Strategies) {
			fmt.Printf("k%d %s %s %s: %s\n", i, op.Kind, op.Result.Name, op.Result.Type.String(), e.Strategies[i])
		}
	}
}
