// Command graphc-conformance runs the ONNX backend node tests through graphc and prints a per-op
// table and the line "N passed, N failed, N skipped".
//
//	go run ./cmd/graphc-conformance [-suite ../shared/onnx-node-tests] [-run FILTER] [-v]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/graphc/graphc/internal/conformance"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/passes"
)

func main() {
	suite := flag.String("suite", "../shared/onnx-node-tests", "directory of the ONNX node tests")
	filter := flag.String("run", "", "only tests whose name contains this")
	verbose := flag.Bool("v", false, "list every failure with its reason")
	pipeline := flag.String("pipeline", passes.DefaultPipeline, "passes to run before execution")
	flag.Parse()
	ps, err := passes.ParsePipeline(*pipeline)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	prep := func(ctx context.Context, g *ir.Graph) error {
		_, err := passes.Run(ctx, g, ps, &passes.Options{VerifyEach: true})
		return err
	}
	rs, err := conformance.RunAll(context.Background(), *suite, *filter, prep, conformance.EvalExecutor)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Print(conformance.Table(rs, *verbose))
}
