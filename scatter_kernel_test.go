package graphc_test

// This file checks scatter_elements_rt, the run-time walk of a scatter's updates
// (ir/ops_scatter_rt.go, lower/algo_scatter.go): the evaluator against the search form
// scatter_elements on the same operands, and the compiled kernel against the evaluator, for
// every reduction, along the first and the last axis, with duplicated, negative and
// out-of-range indices (duplicates combine in their order along the axis, out-of-range ones
// write nothing); and an ONNX ScatterElements over run-time indices, which imports as the walk,
// against the operator's definition written here.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
)

// scatterIndices returns n random indices into an axis of extent m: duplicates, negative ones
// (from the end) and, when outside, a few out of range either way.
func scatterIndices(r *rand.Rand, shape []int64, m int64, outside bool) *ir.Tensor {
	t := ir.NewTensor(ir.I64, shape)
	for i := range t.I {
		t.I[i] = r.Int64N(2*m) - m // [-m, m): every element, twice
		if outside && r.IntN(10) == 0 {
			t.I[i] = m + r.Int64N(3)
			if r.IntN(2) == 0 {
				t.I[i] = -m - 1 - r.Int64N(3)
			}
		}
	}
	return t
}

func scatterValues(r *rand.Rand, elem ir.DType, shape []int64) *ir.Tensor {
	t := ir.NewTensor(elem, shape)
	for i := range t.F {
		t.F[i] = float64(float32(r.NormFloat64()))
	}
	for i := range t.I {
		t.I[i] = r.Int64N(7) - 3
	}
	return t
}

func TestScatterElementsRT(t *testing.T) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	canRun := e2e.CanRun(t, e2e.Host())
	r := rand.New(rand.NewPCG(35, 7))
	for _, c := range []struct {
		elem       string
		data, upd  []int64
		axis       int64
		reductions []string
	}{
		{"f32", []int64{40, 6}, []int64{50, 6}, 0, []string{"add", "mul", "max", "min"}},
		{"f32", []int64{3, 5, 24}, []int64{3, 5, 30}, -1, []string{"add", "max"}},
		{"i64", []int64{16, 4}, []int64{40, 4}, 0, []string{"add", "mul", "max", "min"}},
	} {
		dt := map[string]ir.DType{"f32": ir.F32, "i64": ir.I64}[c.elem]
		ts := func(s []int64) string { return fmt.Sprintf("%s%v", c.elem, shapeText(s)) }
		text := fmt.Sprintf("graph @m(%%d: %s, %%i: i64%s, %%u: %s) {\n", ts(c.data), shapeText(c.upd), ts(c.upd))
		var outs []string
		for _, red := range c.reductions {
			for _, kind := range []string{"scatter_elements", "scatter_elements_rt"} {
				name := fmt.Sprintf("%%%s_%s", red, kind)
				text += fmt.Sprintf("  %s = %s(%%d, %%i, %%u) {axis = %d, reduction = %q} : %s\n", name, kind, c.axis, red, ts(c.data))
				outs = append(outs, name)
			}
		}
		text += "  return " + joinComma(outs) + "\n}"
		t.Run(fmt.Sprintf("%s_%v_axis%d", c.elem, c.data, c.axis), func(t *testing.T) {
			g, err := ir.Parse(text)
			require.NoError(t, err, text)
			res, err := graphc.CompileGraph(ctx, g, graphc.WithVerifyEach(true))
			require.NoError(t, err)
			prog, err := e2e.Build(ctx, t.TempDir(), res.Graph, res.Module)
			require.NoError(t, err)
			ax := c.axis
			if ax < 0 {
				ax += int64(len(c.data))
			}
			for trial := range 3 {
				ins := []*ir.Tensor{scatterValues(r, dt, c.data), scatterIndices(r, c.upd, c.data[ax], trial > 0), scatterValues(r, dt, c.upd)}
				want, err := eval.Run(g, map[string]*ir.Tensor{"d": ins[0], "i": ins[1], "u": ins[2]})
				require.NoError(t, err)
				for k := 0; k < len(want); k += 2 {
					require.Equal(t, want[k], want[k+1], "trial %d, %s: the walk evaluates as the search", trial, outs[k+1])
				}
				if !canRun {
					continue // compiled and checked by the build, not run on this host
				}
				got, _, err := prog.Run(ctx, ins, nil, 1)
				require.NoError(t, err)
				for k := 1; k < len(want); k += 2 {
					require.Equal(t, want[k].F, got[k].F, "trial %d, %s: compiled", trial, outs[k])
					require.Equal(t, want[k].I, got[k].I, "trial %d, %s: compiled", trial, outs[k])
				}
			}
		})
	}
}

func shapeText(s []int64) string {
	out := "["
	for i, v := range s {
		if i > 0 {
			out += ", "
		}
		out += fmt.Sprint(v)
	}
	return out + "]"
}

func joinComma(s []string) string {
	out := ""
	for i, v := range s {
		if i > 0 {
			out += ", "
		}
		out += v
	}
	return out
}

// TestScatterElementsRTImport: ONNX ScatterElements with run-time indices over many updates
// imports as the walk and computes the operator's definition: without reduction (unique
// indices, a permutation written with negative indices), and with add (duplicates).
func TestScatterElementsRTImport(t *testing.T) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	r := rand.New(rand.NewPCG(35, 8))
	const n, w = 64, 5
	for _, red := range []string{"none", "add"} {
		t.Run(red, func(t *testing.T) {
			m := onnxgen.New("s", 16)
			m.Input("D", ir.F32, n, w)
			m.Input("I", ir.I64, n, w)
			m.Input("U", ir.F32, n, w)
			m.Node("ScatterElements", "s", []string{"D", "I", "U"}, []string{"Y"},
				onnxgen.IntAttr("axis", 0), onnxgen.StringAttr("reduction", red))
			m.Output("Y", ir.F32, n, w)
			dir := t.TempDir()
			path := filepath.Join(dir, "m.onnx")
			require.NoError(t, m.Write(path))
			res, err := graphc.Compile(ctx, path, graphc.WithVerifyEach(true))
			require.NoError(t, err)
			kinds := opKinds(res.Graph)
			require.True(t, kinds["scatter_elements_rt"], "run-time indices over %d updates walk them:\n%s", n*w, res.Graph)
			require.False(t, kinds["scatter_elements"], "%s", res.Graph)
			d, u := scatterValues(r, ir.F32, []int64{n, w}), scatterValues(r, ir.F32, []int64{n, w})
			ind := ir.NewTensor(ir.I64, []int64{n, w})
			want := d.Clone()
			for j := range int64(w) {
				perm := r.Perm(n)
				for k := range int64(n) {
					i := int64(perm[k])
					if red == "add" {
						i = r.Int64N(n / 4) // duplicates
					}
					if r.IntN(2) == 0 {
						i -= n // the same row, counted from the end
					}
					ind.I[k*w+j] = i
					row := (i + n) % n
					if red == "add" {
						want.F[row*w+j] = float64(float32(want.F[row*w+j] + u.F[k*w+j]))
					} else {
						want.F[row*w+j] = u.F[k*w+j]
					}
				}
			}
			checkImported(t, path, dir, res, map[string]*ir.Tensor{"D": d, "I": ind, "U": u}, []*ir.Tensor{d, ind, u}, want)
		})
	}
}

// TestMaxUnpoolRuntimeIndices: MaxUnpool of MaxPool's run-time indices walks the pooled values
// (scatter_elements_rt) and leaves every window's maximum in place, zeros elsewhere.
func TestMaxUnpoolRuntimeIndices(t *testing.T) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	const c, h = 2, 8
	m := onnxgen.New("u", 13)
	m.Input("X", ir.F32, 1, c, h, h)
	pool := []onnxgen.Attr{onnxgen.IntsAttr("kernel_shape", 2, 2), onnxgen.IntsAttr("strides", 2, 2)}
	m.Node("MaxPool", "p", []string{"X"}, []string{"Y", "I"}, pool...)
	m.Node("MaxUnpool", "u", []string{"Y", "I"}, []string{"Z"}, pool...)
	m.Output("Z", ir.F32, 1, c, h, h)
	dir := t.TempDir()
	path := filepath.Join(dir, "m.onnx")
	require.NoError(t, m.Write(path))
	res, err := graphc.Compile(ctx, path, graphc.WithVerifyEach(true))
	require.NoError(t, err)
	walks := 0
	for _, op := range res.Graph.Ops {
		if op.Kind == "scatter_elements_rt" {
			walks++
		}
	}
	require.Positive(t, walks, "%s", res.Graph)
	r := rand.New(rand.NewPCG(35, 10))
	x := ir.NewTensor(ir.F32, []int64{1, c, h, h})
	for i, p := range r.Perm(len(x.F)) {
		x.F[i] = float64(p) - 40 // distinct: one maximum per window
	}
	want := ir.NewTensor(ir.F32, x.Shape)
	for ch := range c {
		for i := 0; i < h; i += 2 {
			for j := 0; j < h; j += 2 {
				best := -1
				for _, o := range []int{0, 1, h, h + 1} {
					k := ch*h*h + i*h + j + o
					if best < 0 || x.F[k] > x.F[best] {
						best = k
					}
				}
				want.F[best] = x.F[best]
			}
		}
	}
	checkImported(t, path, dir, res, map[string]*ir.Tensor{"X": x}, []*ir.Tensor{x}, want)
}

// TestScatterElementsRTSymbolic: the walk over a symbolic number of updates n (a caller's dim,
// as Faster R-CNN's per-level counts are bounded dims), whose result only rows 5..14 are
// required (DIE restricts the stored box: the copy and the writes keep to it), against the
// evaluator and the search form, for n = 0, 17 and 50.
func TestScatterElementsRTSymbolic(t *testing.T) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	text := `graph @m[n](%d: f32[40, 6], %i: i64[n, 6], %u: f32[n, 6]) {
  %w = scatter_elements_rt(%d, %i, %u) {axis = 0, reduction = "add"} : f32[40, 6]
  %s = scatter_elements(%d, %i, %u) {axis = 0, reduction = "add"} : f32[40, 6]
  %a = slice(%w) {axes = [0], ends = [15], starts = [5], steps = [1]} : f32[10, 6]
  %b = slice(%s) {axes = [0], ends = [15], starts = [5], steps = [1]} : f32[10, 6]
  return %a, %b
}`
	g, err := ir.Parse(text)
	require.NoError(t, err)
	res, err := graphc.CompileGraph(ctx, g, graphc.WithVerifyEach(true))
	require.NoError(t, err)
	prog, err := e2e.Build(ctx, t.TempDir(), res.Graph, res.Module)
	require.NoError(t, err)
	run := e2e.CanRun(t, e2e.Host())
	r := rand.New(rand.NewPCG(35, 12))
	for _, n := range []int64{0, 17, 50} {
		ins := []*ir.Tensor{scatterValues(r, ir.F32, []int64{40, 6}), scatterIndices(r, []int64{n, 6}, 40, true), scatterValues(r, ir.F32, []int64{n, 6})}
		want, err := eval.Run(g, map[string]*ir.Tensor{"d": ins[0], "i": ins[1], "u": ins[2]}, eval.WithParams(map[string]int64{"n": n}))
		require.NoError(t, err)
		require.Equal(t, want[1].F, want[0].F, "n = %d: the walk evaluates as the search", n)
		if !run {
			continue
		}
		got, _, err := prog.Run(ctx, ins, map[string]int64{"n": n}, 1)
		require.NoError(t, err)
		require.Equal(t, want[0].F, got[0].F, "n = %d: compiled", n)
	}
}

// TestScatterNDRT: scatter_nd_rt against the search form scatter_nd in the evaluator, and
// compiled against the evaluator, for every reduction, with one and two addressed dims, index
// boxes of rank 1 and 2, duplicated, negative and out-of-range indices.
func TestScatterNDRT(t *testing.T) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	canRun := e2e.CanRun(t, e2e.Host())
	r := rand.New(rand.NewPCG(35, 13))
	for _, c := range []struct {
		data, ut []int64
		k        int
	}{
		{[]int64{6, 5, 3}, []int64{20}, 2},
		{[]int64{8, 4}, []int64{3, 5}, 1},
		{[]int64{7}, []int64{12}, 1},
	} {
		upd := append(append([]int64(nil), c.ut...), c.data[c.k:]...)
		text := fmt.Sprintf("graph @m(%%d: f32%s, %%u: f32%s", shapeText(c.data), shapeText(upd))
		var idx []string
		for j := range c.k {
			text += fmt.Sprintf(", %%i%d: i64%s", j, shapeText(c.ut))
			idx = append(idx, fmt.Sprintf("%%i%d", j))
		}
		text += ") {\n"
		var outs []string
		for _, red := range []string{"add", "mul", "max", "min"} {
			for _, kind := range []string{"scatter_nd", "scatter_nd_rt"} {
				name := fmt.Sprintf("%%%s_%s", red, kind)
				text += fmt.Sprintf("  %s = %s(%%d, %%u, %s) {reduction = %q} : f32%s\n", name, kind, joinComma(idx), red, shapeText(c.data))
				outs = append(outs, name)
			}
		}
		text += "  return " + joinComma(outs) + "\n}"
		t.Run(fmt.Sprintf("%v_%v", c.data, c.ut), func(t *testing.T) {
			g, err := ir.Parse(text)
			require.NoError(t, err, text)
			res, err := graphc.CompileGraph(ctx, g, graphc.WithVerifyEach(true))
			require.NoError(t, err)
			prog, err := e2e.Build(ctx, t.TempDir(), res.Graph, res.Module)
			require.NoError(t, err)
			for trial := range 3 {
				ins := []*ir.Tensor{scatterValues(r, ir.F32, c.data), scatterValues(r, ir.F32, upd)}
				feed := map[string]*ir.Tensor{"d": ins[0], "u": ins[1]}
				for j := range c.k {
					ind := scatterIndices(r, c.ut, c.data[j], trial > 0)
					ins = append(ins, ind)
					feed[fmt.Sprintf("i%d", j)] = ind
				}
				want, err := eval.Run(g, feed)
				require.NoError(t, err)
				for k := 0; k < len(want); k += 2 {
					require.Equal(t, want[k].F, want[k+1].F, "trial %d, %s: the walk evaluates as the search", trial, outs[k+1])
				}
				if !canRun {
					continue
				}
				got, _, err := prog.Run(ctx, ins, nil, 1)
				require.NoError(t, err)
				for k := 1; k < len(want); k += 2 {
					require.Equal(t, want[k].F, got[k].F, "trial %d, %s: compiled", trial, outs[k])
				}
			}
		})
	}
}

// TestScatterNDRTImport: ONNX ScatterND with run-time indices over many updates imports as the
// walk and computes the operator's definition (without reduction: unique rows, some written
// with negative indices).
func TestScatterNDRTImport(t *testing.T) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	const n, w, q = 48, 6, 32
	m := onnxgen.New("s", 16)
	m.Input("D", ir.F32, n, w)
	m.Input("I", ir.I64, q, 1)
	m.Input("U", ir.F32, q, w)
	m.Node("ScatterND", "s", []string{"D", "I", "U"}, []string{"Y"})
	m.Output("Y", ir.F32, n, w)
	dir := t.TempDir()
	path := filepath.Join(dir, "m.onnx")
	require.NoError(t, m.Write(path))
	res, err := graphc.Compile(ctx, path, graphc.WithVerifyEach(true))
	require.NoError(t, err)
	kinds := opKinds(res.Graph)
	require.True(t, kinds["scatter_nd_rt"] && !kinds["scatter_nd"], "run-time indices walk the updates:\n%s", res.Graph)
	r := rand.New(rand.NewPCG(35, 14))
	d, u := scatterValues(r, ir.F32, []int64{n, w}), scatterValues(r, ir.F32, []int64{q, w})
	ind := ir.NewTensor(ir.I64, []int64{q, 1})
	want := d.Clone()
	for k, row := range r.Perm(n)[:q] {
		ind.I[k] = int64(row)
		if k%3 == 0 {
			ind.I[k] -= n
		}
		copy(want.F[row*w:(row+1)*w], u.F[k*w:(k+1)*w])
	}
	checkImported(t, path, dir, res, map[string]*ir.Tensor{"D": d, "I": ind, "U": u}, []*ir.Tensor{d, ind, u}, want)
}

// checkImported runs the model at path in the evaluator (with feeds) and its compiled form res
// (with ins, where the host runs it) and requires both to give want exactly.
func checkImported(t *testing.T, path, dir string, res *graphc.Result, feeds map[string]*ir.Tensor, ins []*ir.Tensor, want *ir.Tensor) {
	t.Helper()
	ctx := context.Background()
	ref, err := graphc.Load(ctx, path)
	require.NoError(t, err)
	got, err := eval.Run(ref, feeds)
	require.NoError(t, err)
	require.Equal(t, want.F, got[0].F, "the evaluator")
	prog, err := e2e.Build(ctx, dir, res.Graph, res.Module)
	require.NoError(t, err)
	if !e2e.CanRun(t, e2e.Host()) {
		return
	}
	out, _, err := prog.Run(ctx, ins, nil, 1)
	require.NoError(t, err)
	require.Equal(t, want.F, out[0].F, "compiled")
}

// opKinds is the set of op kinds in g (which form an import or a pass chose).
func opKinds(g *ir.Graph) map[string]bool {
	kinds := map[string]bool{}
	for _, op := range g.Ops {
		kinds[op.Kind] = true
	}
	return kinds
}
