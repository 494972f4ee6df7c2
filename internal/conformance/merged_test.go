package conformance

// This file checks the Optimum-style merged decoder step of testdata/msft (an If on the graph
// input use_cache_branch whose branches' present outputs differ in length: past + new, or new
// alone): imported with its sequence and past lengths symbolic, the If asks for its condition
// at compile time (a NeedConstError naming use_cache_branch), and one model compiles into one
// specialised entry per branch, each matching onnxruntime's outputs on its data set (prefill
// without the cache, decode with it).

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/frontend/onnx"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
)

func TestMergedDecoderBranches(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(msftSuite, "optimum_merged_prefill", "model.onnx"))
	require.NoError(t, err)
	m, err := onnx.Unmarshal(data)
	require.NoError(t, err)
	_, err = onnx.Import(m, "model.onnx")
	var nc *onnx.NeedConstError
	require.True(t, errors.As(err, &nc), "%v", err)
	require.Equal(t, []string{"use_cache_branch"}, nc.Inputs())
	require.Contains(t, err.Error(), "differ in shape")

	for _, c := range []struct {
		dir    string
		cache  bool
		params []string
	}{{"optimum_merged_prefill", false, []string{"S", "P"}}, {"optimum_merged_decode", true, []string{"S", "P"}}} {
		dir := filepath.Join(msftSuite, c.dir, "test_data_set_0")
		ins, err := readTensors(dir, "input")
		require.NoError(t, err)
		want, err := readTensors(dir, "output")
		require.NoError(t, err)
		tol, err := readTolerance(filepath.Join(msftSuite, c.dir))
		require.NoError(t, err)
		cond := ir.NewTensor(ir.Bool, []int64{1})
		if c.cache {
			cond.I[0] = 1
		}
		require.Equal(t, cond.I[0], ins[3].I[0], "%s: the data set's use_cache_branch", c.dir)
		// one model (the decode case's file differs from the prefill's in its name only)
		// with only the condition bound: the lengths stay symbolic
		g, err := onnx.Import(m, "model.onnx", onnx.WithConstInput("use_cache_branch", cond))
		require.NoError(t, err, c.dir)
		require.ElementsMatch(t, c.params, g.Params, "%s: symbolic dims", c.dir)
		byName := map[string]*ir.Tensor{"x": ins[0], "past_key": ins[1], "past_value": ins[2]}
		params := map[string]int64{"S": ins[0].Shape[1], "P": ins[1].Shape[2]}
		feed := map[string]*ir.Tensor{}
		for _, v := range g.Inputs {
			feed[v.Name] = byName[v.Name]
		}
		got, err := eval.Run(g, feed, eval.WithParams(params))
		require.NoError(t, err, c.dir)
		require.Len(t, got, len(want))
		for k := range want {
			require.NoError(t, compareTol(got[k], want[k], tol), "%s output %d", c.dir, k)
		}
	}
}
