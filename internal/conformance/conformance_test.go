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
const minPassing = 1730

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

// TestZeroSizeTensors runs the node tests with zero-size tensors through remove-empty alone:
// every one must pass (issue 7), and remove-empty must have rewritten the empty reductions.
func TestZeroSizeTensors(t *testing.T) {
	if _, err := os.Stat(suite); err != nil {
		t.Skipf("ONNX node tests not found at %s", suite)
	}
	tests := []string{"test_reduce_sum_empty_set", "test_reduce_sum_empty_set_non_reduced_axis_zero",
		"test_reduce_prod_empty_set", "test_reduce_max_empty_set", "test_reduce_min_empty_set",
		"test_reduce_l1_empty_set", "test_reduce_l2_empty_set", "test_reduce_log_sum_exp_empty_set",
		"test_reduce_sum_square_empty_set", "test_reduce_sum_empty_axes_input_noop",
		"test_split_zero_size_splits_opset18", "test_tril_zero", "test_triu_zero", "test_reshape_zero_dim",
		"test_constantofshape_int_shape_zero"}
	ps, err := passes.ParsePipeline("remove-empty")
	if err != nil {
		t.Fatal(err)
	}
	rewritten := 0
	prep := func(ctx context.Context, g *ir.Graph) error {
		res, err := passes.Run(ctx, g, ps, &passes.Options{VerifyEach: true})
		if err == nil {
			rewritten += res.State.Stats["remove-empty"].OpsRewritten
		}
		return err
	}
	for _, name := range tests {
		r := RunTest(context.Background(), suite+"/"+name, prep, EvalExecutor)
		if r.Status != Pass {
			t.Errorf("%s: %s %s", name, r.Status, r.Reason)
		}
	}
	if rewritten == 0 {
		t.Errorf("remove-empty rewrote no op in the zero-size tests")
	}
}
