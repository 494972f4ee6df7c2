// This file tests buffer planning (region-sized buffers after DIE, lifetime sharing), symbolic
// dims (one module run with several batch sizes, invalid dims rejected), data-dependent reads
// and guarded accesses, as compiled code against the evaluator.

package lower_test

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/lower"
	"github.com/graphc/graphc/passes"
	"github.com/graphc/graphc/volume"
)

// logitsGraph is the last-token logits pattern: (rows×k)·(k×vocab), then the last row.
func logitsGraph(t *testing.T, rows, k, vocab int64) *ir.Graph {
	t.Helper()
	g := ir.NewGraph("logits")
	x := g.AddInput("x", ir.StaticType(ir.F32, rows, k))
	w := g.AddInput("w", ir.StaticType(ir.F32, k, vocab))
	mm, err := g.NewOp("matmul", "mm", []*ir.Value{x, w}, nil)
	require.NoError(t, err)
	last, err := g.NewOp("generic", "last", []*ir.Value{mm.Result}, ir.Attrs{
		"type": ir.StringAttr(ir.StaticType(ir.F32, 1, vocab).String()), "domain": ir.StringAttr("{ [i, j] : i = 0 and 0 <= j < " + itoa(vocab) + " }"),
		"access": ir.StringsAttr("{ [i, j] -> [" + itoa(rows-1) + ", j] }"), "out": ir.StringAttr("{ [i, j] -> [i, j] }"), "body": ir.StringAttr("in0"),
	})
	require.NoError(t, err)
	g.Outputs = []*ir.Value{last.Result}
	return g
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

func runPipeline(t *testing.T, g *ir.Graph, pipeline string) *passes.Result {
	t.Helper()
	ps, err := passes.ParsePipeline(pipeline)
	require.NoError(t, err)
	res, err := passes.Run(context.Background(), g, ps, &passes.Options{VerifyEach: true})
	require.NoError(t, err)
	return res
}

func TestWorkspaceLastRowLogits(t *testing.T) {
	// 128×4096 · 4096×32000, last row: after DIE the product keeps a 1×32000 buffer
	g := logitsGraph(t, 128, 4096, 32000)
	pr := runPipeline(t, g, passes.DefaultPipeline)
	req := map[*ir.Value]volume.Set{}
	for v, s := range pr.State.Required {
		req[v] = s
	}
	mod, err := lower.Lower(context.Background(), g, lower.Config{Required: req, CheckRequired: true})
	require.NoError(t, err)
	require.Equal(t, int64(32000*4), mod.Entries[0].WorkspaceBytes, "one row of 32000 floats")
	verifyModule(t, mod.String(), "")
	// a required volume that misses what the slice reads is caught
	bad := map[*ir.Value]volume.Set{g.Ops[0].Result: volume.MustParseSet("{ [i, j] : i = 0 and 0 <= j < 32000 }")}
	_, err = lower.Lower(context.Background(), g, lower.Config{Required: bad, CheckRequired: true})
	require.ErrorContains(t, err, "outside its required volume")

	// without DIE the product is computed whole: 128 rows
	g2 := logitsGraph(t, 128, 4096, 32000)
	mod2, err := lower.Lower(context.Background(), g2, lower.Config{})
	require.NoError(t, err)
	require.Equal(t, int64(128*32000*4), mod2.Entries[0].WorkspaceBytes)

	// and a small instance runs right, with and without DIE
	r := rand.New(rand.NewPCG(3, 3))
	var names []string
	var cases []*e2e.Case
	for _, pl := range []string{passes.DefaultPipeline, ""} {
		gs := logitsGraph(t, 9, 5, 37)
		runPipeline(t, gs, pl)
		names = append(names, "logits/pipeline="+pl)
		cases = append(cases, &e2e.Case{Graph: gs, Inputs: inputsFor(r, gs, nil, false)})
	}
	runCases(t, e2e.Host(), names, cases)
}

// chainGraph is x -> neg -> exp -> neg -> ... (n ops) over f32[1000].
func chainGraph(t *testing.T, n int) *ir.Graph {
	g := ir.NewGraph("chain")
	v := g.AddInput("x", ir.StaticType(ir.F32, 1000))
	kinds := []string{"neg", "tanh", "abs", "sigmoid"}
	for i := 0; i < n; i++ {
		op, err := g.NewOp(kinds[i%len(kinds)], "t", []*ir.Value{v}, nil)
		require.NoError(t, err)
		v = op.Result
	}
	g.Outputs = []*ir.Value{v}
	return g
}

func TestWorkspaceSharing(t *testing.T) {
	// 6 ops: 5 intermediates with lifetimes [i, i+1]; t0, t2, t4 share a slot, t1 and t3 another
	g := chainGraph(t, 6)
	mod, err := lower.Lower(context.Background(), g, lower.Config{})
	require.NoError(t, err)
	require.Equal(t, int64(2*4096), mod.Entries[0].WorkspaceBytes, "two 128-aligned slots of 4000 bytes")
	r := rand.New(rand.NewPCG(4, 4))
	runCases(t, e2e.Host(), []string{"chain"}, []*e2e.Case{{Graph: g, Inputs: inputsFor(r, g, nil, false)}})
}

func TestSymbolicBatch(t *testing.T) {
	// an ONNX model with a symbolic batch N: compiled once, run with N = 3 and N = 17
	m := onnxgen.New("batch", 17)
	m.Input("X", ir.F32, "N", 8)
	w := ir.NewTensor(ir.F32, []int64{8, 5})
	for i := range w.F {
		w.F[i] = float64(i%7) - 3
	}
	m.Init("W", w)
	m.Node("MatMul", "mm", []string{"X", "W"}, []string{"P"})
	b := ir.NewTensor(ir.F32, []int64{1, 5})
	b.F = []float64{0.5, -1, 0, 2, -0.25}
	m.Init("B", b)
	m.Node("Add", "add", []string{"P", "B"}, []string{"S"})
	m.Node("Relu", "relu", []string{"S"}, []string{"Y"})
	m.Output("Y", ir.F32, "N", 5)
	dir := t.TempDir()
	path := filepath.Join(dir, "batch.onnx")
	require.NoError(t, m.Write(path))
	res, err := graphc.Compile(context.Background(), path)
	require.NoError(t, err)
	g := res.Graph
	require.Equal(t, []string{"N"}, res.Module.Params, "N stays a trailing int64 argument")
	require.Equal(t, int64(-1), res.Module.Entries[0].WorkspaceBytes, "the workspace depends on N")
	r := rand.New(rand.NewPCG(5, 5))
	var names []string
	var cases []*e2e.Case
	for _, n := range []int64{3, 17, 0} {
		p := map[string]int64{"N": n}
		names = append(names, "N="+itoa(n))
		cases = append(cases, &e2e.Case{Graph: g, Params: p, Inputs: inputsFor(r, g, p, false)})
	}
	runCases(t, e2e.Host(), names, cases)

	// a negative N is rejected with status 1 (and ENTRY_workspace_size returns -1)
	p, err := e2e.BuildBatch(context.Background(), t.TempDir(), e2e.Host(), []*e2e.Case{
		{Graph: g, Params: map[string]int64{"N": -2}, Inputs: []*ir.Tensor{ir.NewTensor(ir.F32, []int64{0, 8})}}})
	require.NoError(t, err)
	out := p.Run(context.Background())
	require.NoError(t, out[0].Err)
	require.Equal(t, int64(-1), out[0].Status, "the driver reports the workspace size function's -1")
}

// gatherGraph reads data[idx[i], j] through a data-dependent read with a normalised index.
func gatherGraph(t *testing.T, n int64) *ir.Graph {
	s := genericSpec{
		inputs: []ir.TensorType{ir.StaticType(ir.F32, n, 4), ir.StaticType(ir.I64, 6)},
		domain: "{ [i, j] : 0 <= i < 6 and 0 <= j < 4 }",
		access: []string{"{ [i, j] -> [i, j] }", "{ [i, j] -> [i] }"},
		out:    "{ [i, j] -> [i, j] }",
		body:   "read(0, f32, select(lt(in1, 0:i64), add(in1, " + itoa(n) + ":i64), in1), idx(1))",
		typ:    ir.StaticType(ir.F32, 6, 4).String(),
	}
	g, err := genericGraph(s)
	require.NoError(t, err)
	return g
}

func TestDynamicReadsAndGuards(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	var names []string
	var cases []*e2e.Case
	// in-bounds indices (negative ones count from the end)
	g := gatherGraph(t, 7)
	in := inputsFor(r, g, nil, false)
	for i := range in[1].I {
		in[1].I[i] = int64(i%13) - 6
	}
	names = append(names, "gather")
	cases = append(cases, &e2e.Case{Graph: g, Inputs: in})
	// an out-of-bounds index: the evaluator fails, the entry returns a non-zero status
	g2 := gatherGraph(t, 7)
	in2 := inputsFor(r, g2, nil, false)
	for i := range in2[1].I {
		in2[1].I[i] = int64(i)
	}
	in2[1].I[5] = 9
	names = append(names, "gather-out-of-bounds")
	cases = append(cases, &e2e.Case{Graph: g2, Inputs: in2})
	// piecewise guarded access: transpose below the diagonal, identity above; avail selects
	g3, err := genericGraph(genericSpec{
		inputs: []ir.TensorType{ir.StaticType(ir.F32, 9, 9), ir.StaticType(ir.F32, 9, 9)},
		domain: "{ [i, j] : 0 <= i < 9 and 0 <= j < 9 }",
		access: []string{"{ [i, j] -> [i, j] : j >= i; [i, j] -> [j, i] : j < i }", "{ [i, j] -> [i - 1, j + 1] : i >= 1 and j <= 7 }"},
		out:    "{ [i, j] -> [i, j] }",
		body:   "add(in0, select(avail(1), in1, -1:f32))",
		typ:    ir.StaticType(ir.F32, 9, 9).String(),
	})
	require.NoError(t, err)
	names = append(names, "guarded")
	cases = append(cases, &e2e.Case{Graph: g3, Inputs: inputsFor(r, g3, nil, false)})
	// a strided, restricted domain (checkerboard) writing into an initialised result
	g4, err := genericGraph(genericSpec{
		inputs: []ir.TensorType{ir.StaticType(ir.F32, 8, 8)},
		domain: "{ [i, j] : 0 <= i < 8 and 0 <= j < 8 and (i + j) mod 2 = 0 }",
		access: []string{"{ [i, j] -> [i, j] }"}, out: "{ [i, j] -> [i, j] }",
		body: "mul(in0, 2:f32)", typ: ir.StaticType(ir.F32, 8, 8).String(), reduce: "none", init: 5,
	})
	require.NoError(t, err)
	names = append(names, "checkerboard")
	cases = append(cases, &e2e.Case{Graph: g4, Inputs: inputsFor(r, g4, nil, false)})
	runCases(t, e2e.Host(), names, cases)
	runCases(t, e2e.HexagonScalar(), names, cases)
}

// TestRequirementsChecked compiles a slice of a static buffer to a symbolic end (what exporters
// write for mask[:T]): it runs for T within the buffer and returns status 1 beyond it, where
// the evaluator refuses the requirement T <= 6 too, instead of reading past the buffer.
func TestRequirementsChecked(t *testing.T) {
	g, err := ir.Parse(`graph @g[T](%x: f32[T, 4]) {
  %b = constant dense<[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24]> : f32[6, 4]
  %s = slice(%b) {axes = [0], ends = [0], starts = [0], sym_ends = ["T"], sym_starts = ["0"]} : f32[T, 4]
  %y = add(%x, %s) : f32[T, 4]
  return %y
}`)
	require.NoError(t, err)
	require.Len(t, g.Ops[0].Requires, 1, "T <= 6")
	r := rand.New(rand.NewPCG(7, 7))
	var names []string
	var cases []*e2e.Case
	for _, n := range []int64{6, 2, 0, 7} {
		p := map[string]int64{"T": n}
		names = append(names, "T="+itoa(n))
		cases = append(cases, &e2e.Case{Graph: g, Params: p, Inputs: inputsFor(r, g, p, false)})
	}
	runCases(t, e2e.Host(), names, cases)
	runCases(t, e2e.HexagonScalar(), names, cases)
}

// TestSliceConstantEndChecked compiles a slice to the constant end 8 of a symbolic axis N: the
// op requires N >= 8 (a quasi-affine extent cannot clamp), so N = 4 returns status 1, as the
// evaluator refuses it, instead of reading past the operand; N = 8 and 11 match the evaluator.
func TestSliceConstantEndChecked(t *testing.T) {
	g, err := ir.Parse(`graph @g[N](%x: f32[N, 3]) {
  %s = slice(%x) {axes = [0], ends = [8], starts = [0], steps = [1]} : f32[8, 3]
  %y = neg(%s) : f32[8, 3]
  return %y
}`)
	require.NoError(t, err)
	require.Len(t, g.Ops[0].Requires, 1, "N >= 8")
	r := rand.New(rand.NewPCG(7, 8))
	var names []string
	var cases []*e2e.Case
	for _, n := range []int64{8, 11, 4} {
		p := map[string]int64{"N": n}
		names = append(names, "N="+itoa(n))
		cases = append(cases, &e2e.Case{Graph: g, Params: p, Inputs: inputsFor(r, g, p, false)})
	}
	_, err = evalCase(cases[2])
	require.ErrorContains(t, err, "violate the requirement N - 8 >= 0")
	runCases(t, e2e.Host(), names, cases)
}
