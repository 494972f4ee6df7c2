package strat

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/graphc/graphc"
)

func TestStrat(t *testing.T) {
	res, err := graphc.Compile(context.Background(), os.Getenv("M"), graphc.WithCPU("native"))
	if err != nil {
		t.Fatal(err)
	}
	for i, op := range res.Graph.Ops {
		fmt.Printf("%-18s %-40s %s\n", op.Kind, op.Result.Type.String(), res.Module.Entries[0].Strategies[i])
	}
}
