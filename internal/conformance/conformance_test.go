package conformance

import (
	"context"
	"os"
	"testing"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/passes"
)

// suite is the ONNX node test suite beside the repository (../shared in CI).
const suite = "../../../shared/onnx-node-tests"

// minPassing is a ratchet: raise it as ops are added, never lower it.
const minPassing = 655

func TestConformanceEvaluator(t *testing.T) {
	if _, err := os.Stat(suite); err != nil {
		t.Skipf("ONNX node tests not found at %s", suite)
	}
	ps, err := passes.ParsePipeline(passes.DefaultPipeline)
	if err != nil {
		t.Fatal(err)
	}
	prep := func(ctx context.Context, g *ir.Graph) error {
		_, err := passes.Run(ctx, g, ps, &passes.Options{VerifyEach: true})
		return err
	}
	rs, err := RunAll(context.Background(), suite, "", prep, EvalExecutor)
	if err != nil {
		t.Fatal(err)
	}
	p, f, s := Summary(rs)
	t.Logf("%d passed, %d failed, %d skipped", p, f, s)
	if p < minPassing {
		t.Errorf("%d tests pass, fewer than the ratchet %d:\n%s", p, minPassing, Table(rs, true))
	}
}
