package graphc_test

// This file runs the data-dependent ops over run-time data as compiled code (bounded dims,
// ir.BoundedDim) for x86-64 and for Hexagon under qemu (v67 scalar and HVX): NonZero, Compress,
// Unique, GatherND over NonZero's rows, TopK with a computed k and TopK of a selection with
// k = min(kmax, its count), on random inputs, inputs where nothing is selected (count 0, k 0)
// and inputs where everything is (the bound reached), against the reference evaluator on the
// imported graph, itself checked against onnxruntime once per regime where it is installed
// (ortref).

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/internal/ortref"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
)

// selection returns a tensor whose elements are all zero (mode 0), all non-zero (1) or about
// half zero (2); non-zero values are random, of either sign.
func selection(r *rand.Rand, elem ir.DType, shape []int64, mode int) *ir.Tensor {
	t := e2e.RandomTensor(r, elem, shape)
	for i := 0; i < t.Len(); i++ {
		zero := mode == 0 || mode == 2 && r.IntN(2) == 0
		switch {
		case elem == ir.Bool:
			t.I[i] = 1
			if zero {
				t.I[i] = 0
			}
		case elem.IsFloat():
			if zero {
				t.F[i] = 0
			} else if t.F[i] == 0 {
				t.F[i] = 1
			}
		default:
			if zero {
				t.I[i] = 0
			} else if t.I[i] == 0 {
				t.I[i] = 1
			}
		}
	}
	return t
}

func TestBoundedDimsCompiled(t *testing.T) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	nz := onnxgen.New("nz", 13)
	nz.Input("X", ir.F32, 3, 5, 4)
	nz.Node("NonZero", "nz", []string{"X"}, []string{"Y"})
	nz.Output("Y", ir.I64, 3, "n")
	cp := onnxgen.New("c", 13)
	cp.Input("X", ir.F32, 4, 7)
	cp.Input("C", ir.Bool, 6)
	cp.Node("Compress", "c", []string{"X", "C"}, []string{"Y"}, onnxgen.IntAttr("axis", 1))
	cp.Node("Relu", "r", []string{"Y"}, []string{"Z"})
	cp.Output("Z", ir.F32, 4, "n")
	// a condition longer than scanDirect: the running sum by doubling, not the cumsum op
	cl := onnxgen.New("cl", 13)
	cl.Input("X", ir.F32, 3, 70)
	cl.Input("C", ir.Bool, 67)
	cl.Node("Compress", "c", []string{"X", "C"}, []string{"Y"}, onnxgen.IntAttr("axis", 1))
	cl.Output("Y", ir.F32, 3, "n")
	tk := onnxgen.New("t", 13)
	tk.Input("X", ir.F32, 3, 9)
	tk.Input("K", ir.I64, 1)
	tk.Node("TopK", "t", []string{"X", "K"}, []string{"V", "I"}, onnxgen.IntAttr("axis", 1), onnxgen.IntAttr("largest", 0))
	tk.Output("V", ir.F32, 3, "k")
	tk.Output("I", ir.I64, 3, "k")
	// SSD's selection: the boxes whose scores pass a threshold, by NonZero and GatherND
	sel := onnxgen.New("sel", 13)
	sel.Input("S", ir.F32, 2, 10)
	sel.Input("B", ir.F32, 2, 10, 4)
	thr := ir.NewTensor(ir.F32, nil)
	thr.F[0] = 0.5
	sel.Init("thr", thr)
	sel.Node("Greater", "gt", []string{"S", "thr"}, []string{"M"})
	sel.Node("NonZero", "nz", []string{"M"}, []string{"NZ"})
	sel.Node("Transpose", "tr", []string{"NZ"}, []string{"IDX"}, onnxgen.IntsAttr("perm", 1, 0))
	sel.Node("GatherND", "gs", []string{"S", "IDX"}, []string{"SEL"})
	sel.Node("GatherND", "gb", []string{"B", "IDX"}, []string{"BOX"})
	sel.Node("Neg", "ng", []string{"BOX"}, []string{"Y"})
	sel.Output("SEL", ir.F32, "n")
	sel.Output("Y", ir.F32, "n", 4)
	un := onnxgen.New("u", 13)
	un.Input("X", ir.F32, 3, 4)
	un.Node("Unique", "u", []string{"X"}, []string{"Y", "I", "V", "C"})
	un.Output("Y", ir.F32, "n")
	un.Output("I", ir.I64, "n")
	un.Output("V", ir.I64, 12)
	un.Output("C", ir.I64, "n")
	// longer inputs sort (argsort, then runs): sorted and in order of first appearance
	uniqueLong := func(sorted int64) *onnxgen.Model {
		u := onnxgen.New("ul", 13)
		u.Input("X", ir.F32, 10, 20)
		u.Node("Unique", "u", []string{"X"}, []string{"Y", "I", "V", "C"}, onnxgen.IntAttr("sorted", sorted))
		u.Output("Y", ir.F32, "n")
		u.Output("I", ir.I64, "n")
		u.Output("V", ir.I64, 200)
		u.Output("C", ir.I64, "n")
		return u
	}
	ur := rand.New(rand.NewPCG(35, 2))
	uniqueLongInputs := func(mode, _ int) []*ir.Tensor {
		x := ir.NewTensor(ir.F32, []int64{10, 20})
		for i := range x.F {
			x.F[i] = []float64{1.5, float64((i * 7) % 200), float64(ur.IntN(30)) - 10}[mode]
		}
		return []*ir.Tensor{x}
	}
	// NonZero over a selection (an input of bounded extent)
	ns := onnxgen.New("ns", 13)
	ns.Input("S", ir.F32, 40)
	ns.Init("thr", thr)
	ns.Init("zero0", ir.NewTensor(ir.I64, []int64{1}))
	ns.Node("Greater", "g1", []string{"S", "thr"}, []string{"M1"})
	ns.Node("NonZero", "nz1", []string{"M1"}, []string{"NZ1"})
	ns.Node("Squeeze", "sq", []string{"NZ1", "zero0"}, []string{"I1"})
	ns.Node("Gather", "ga", []string{"S", "I1"}, []string{"SEL"})
	ns.Node("Greater", "g2", []string{"SEL", "thr2"}, []string{"M2"})
	thr2 := ir.NewTensor(ir.F32, []int64{})
	thr2.F[0] = 1.2
	ns.Init("thr2", thr2)
	ns.Node("NonZero", "nz2", []string{"M2"}, []string{"NZ2"})
	ns.Output("NZ2", ir.I64, 1, "m")
	// SSD's TopK of the selected scores with k = min(kmax, their count): two bounded dims, the
	// second's bound derived from the first's; k is 0 when nothing is selected
	selTopK := func(n, kmax int64) *onnxgen.Model {
		sk := onnxgen.New("sk", 13)
		sk.Input("S", ir.F32, n)
		sk.Init("thr", thr)
		zero := ir.NewTensor(ir.I64, []int64{1})
		sk.Init("zero", zero)
		km := ir.NewTensor(ir.I64, []int64{1})
		km.I[0] = kmax
		sk.Init("kmax", km)
		sk.Node("Greater", "gt", []string{"S", "thr"}, []string{"M"})
		sk.Node("NonZero", "nz", []string{"M"}, []string{"NZ"})
		sk.Node("Squeeze", "sq", []string{"NZ", "zero"}, []string{"IDX"})
		sk.Node("Gather", "ga", []string{"S", "IDX"}, []string{"SEL"})
		sk.Node("Shape", "sh", []string{"SEL"}, []string{"SHP"})
		sk.Node("Min", "mn", []string{"SHP", "kmax"}, []string{"K"})
		sk.Node("TopK", "tk", []string{"SEL", "K"}, []string{"V", "I"})
		sk.Output("V", ir.F32, "k")
		sk.Output("I", ir.I64, "k")
		return sk
	}
	// TopK with a run-time k over an axis of 40: the ranks are written by one walk
	// (scatter_elements_rt), not searched (k·n)
	tw := onnxgen.New("tw", 13)
	tw.Input("X", ir.F32, 3, 40)
	tw.Input("K", ir.I64, 1)
	tw.Node("TopK", "t", []string{"X", "K"}, []string{"V", "I"}, onnxgen.IntAttr("axis", 1))
	tw.Output("V", ir.F32, 3, "k")
	tw.Output("I", ir.I64, 3, "k")
	// NonZero over a Slice whose start is computed at run time (Faster R-CNN's per-class
	// scores): the extent end - start shrinks as the start's bounded dim grows, bounded with
	// that dim at 0
	zs := onnxgen.New("zs", 13)
	zs.Input("X", ir.F32, 30)
	zs.Input("S", ir.I64, 1)
	zs.Init("thr", thr)
	end := ir.NewTensor(ir.I64, []int64{1})
	end.I[0] = 30
	zs.Init("end", end)
	lo, hi := ir.NewTensor(ir.I64, []int64{}), ir.NewTensor(ir.I64, []int64{})
	hi.I[0] = 30
	zs.Init("lo", lo)
	zs.Init("hi", hi)
	zs.Node("Clip", "cl", []string{"S", "lo", "hi"}, []string{"SC"})
	zs.Node("Slice", "sl", []string{"X", "SC", "end"}, []string{"XS"})
	zs.Node("Greater", "gt", []string{"XS", "thr"}, []string{"M"})
	zs.Node("NonZero", "nz", []string{"M"}, []string{"NZ"})
	zs.Output("NZ", ir.I64, 1, "m")
	r := rand.New(rand.NewPCG(35, 1))
	cases := []struct {
		name   string
		model  *onnxgen.Model
		inputs func(mode, trial int) []*ir.Tensor
	}{
		{"nonzero", nz, func(mode, _ int) []*ir.Tensor { return []*ir.Tensor{selection(r, ir.F32, []int64{3, 5, 4}, mode)} }},
		{"compress", cp, func(mode, _ int) []*ir.Tensor {
			return []*ir.Tensor{e2e.RandomTensor(r, ir.F32, []int64{4, 7}), selection(r, ir.Bool, []int64{6}, mode)}
		}},
		{"compress_long", cl, func(mode, _ int) []*ir.Tensor {
			return []*ir.Tensor{e2e.RandomTensor(r, ir.F32, []int64{3, 70}), selection(r, ir.Bool, []int64{67}, mode)}
		}},
		{"select_gathernd", sel, func(mode, _ int) []*ir.Tensor {
			s := e2e.RandomTensor(r, ir.F32, []int64{2, 10})
			for i := range s.F {
				s.F[i] = []float64{-1, 1, s.F[i]}[mode] // none, all or some above the threshold
			}
			return []*ir.Tensor{s, e2e.RandomTensor(r, ir.F32, []int64{2, 10, 4})}
		}},
		{"unique", un, func(mode, _ int) []*ir.Tensor {
			x := ir.NewTensor(ir.F32, []int64{3, 4})
			for i := range x.F {
				// one value, all distinct (the bound), or a few repeated
				x.F[i] = []float64{1.5, float64(11 - i), float64(r.IntN(4)) - 1}[mode]
			}
			return []*ir.Tensor{x}
		}},
		{"nonzero_of_selection", ns, func(mode, _ int) []*ir.Tensor {
			x := e2e.RandomTensor(r, ir.F32, []int64{40})
			for i := range x.F {
				x.F[i] = []float64{-1, 2, 2 * r.Float64()}[mode] // none, all or some selected twice
			}
			return []*ir.Tensor{x}
		}},
		{"unique_long", uniqueLong(1), uniqueLongInputs},
		{"unique_long_unsorted", uniqueLong(0), uniqueLongInputs},
		{"topk_of_selection", selTopK(20, 5), func(mode, _ int) []*ir.Tensor {
			x := e2e.RandomTensor(r, ir.F32, []int64{20})
			for i := range x.F {
				x.F[i] = []float64{-1, 0.5 + float64(i)/64, x.F[i]}[mode] // none, all or some selected
			}
			return []*ir.Tensor{x}
		}},
		{"topk_of_selection_walk", selTopK(60, 40), func(mode, _ int) []*ir.Tensor {
			x := e2e.RandomTensor(r, ir.F32, []int64{60})
			for i := range x.F {
				x.F[i] = []float64{-1, 0.5 + float64(i)/128, x.F[i]}[mode] // none, all or some selected
			}
			return []*ir.Tensor{x}
		}},
		{"topk_walk", tw, func(mode, trial int) []*ir.Tensor {
			k := ir.NewTensor(ir.I64, []int64{1})
			k.I[0] = []int64{0, 40, int64(5 * trial)}[mode]
			return []*ir.Tensor{e2e.RandomTensor(r, ir.F32, []int64{3, 40}), k}
		}},
		{"nonzero_of_slice", zs, func(mode, trial int) []*ir.Tensor {
			st := ir.NewTensor(ir.I64, []int64{1})
			st.I[0] = []int64{0, 30, int64(7 * trial % 30)}[mode]
			return []*ir.Tensor{e2e.RandomTensor(r, ir.F32, []int64{30}), st}
		}},
		{"topk", tk, func(mode, trial int) []*ir.Tensor {
			k := ir.NewTensor(ir.I64, []int64{1})
			k.I[0] = []int64{0, 9, int64(trial)}[mode]
			return []*ir.Tensor{e2e.RandomTensor(r, ir.F32, []int64{3, 9}), k}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "m.onnx")
			require.NoError(t, tc.model.Write(path))
			ref, err := graphc.Load(ctx, path)
			require.NoError(t, err)
			require.NotEmpty(t, ref.Bounded)
			if tc.name == "topk_of_selection" {
				require.Equal(t, int64(5), ref.Bounded[1].Bound, "k = min(count, 5) is at most 5")
			}
			res, err := graphc.Compile(ctx, path, graphc.WithVerifyEach(true))
			require.NoError(t, err)
			require.Empty(t, res.Module.Params, "a bounded dim is no argument")
			if strings.HasSuffix(tc.name, "_walk") {
				// TopK's ranks written by one walk (k + n per row), not searched (k·n)
				kinds := opKinds(res.Graph)
				require.True(t, kinds["scatter_elements_rt"] && !kinds["scatter_elements"], "op kinds %v", kinds)
			}
			prog, err := e2e.Build(ctx, dir, res.Graph, res.Module)
			require.NoError(t, err)
			b := res.Graph.Bounded[0]
			check := func(what string, trial int, want, got []*ir.Tensor) {
				n := got[b.Output].I[0]
				require.Equal(t, want[b.Output].I[0], n, "%s trial %d: the count", what, trial)
				for i, w := range want {
					require.Equal(t, w.Elem, got[i].Elem)
					if w.Elem.IsFloat() {
						require.Equal(t, w.F, got[i].F[:len(w.F)], "%s trial %d, output %d (n = %d)", what, trial, i, n)
					} else {
						require.Equal(t, w.I, got[i].I[:len(w.I)], "%s trial %d, output %d (n = %d)", what, trial, i, n)
					}
				}
			}
			var cases []*e2e.Case
			var wants [][]*ir.Tensor
			for trial := range 9 {
				ins := tc.inputs(trial%3, trial)
				named := map[string]*ir.Tensor{}
				for i, in := range ref.Inputs {
					named[in.Name] = ins[i]
				}
				want, err := eval.Run(ref, named)
				require.NoError(t, err)
				if why := ortref.Missing(); why == "" && trial < 3 {
					// the evaluator against onnxruntime, once per regime: nothing selected,
					// everything (the bound), some
					names := make([]string, len(ref.Inputs))
					for i, in := range ref.Inputs {
						names[i] = in.Name
					}
					ort, err := ortref.Run(ctx, path, names, ins)
					require.NoError(t, err)
					for k, o := range ort {
						require.Equal(t, o.Shape, want[k].Shape, "trial %d output %d: the evaluator against onnxruntime", trial, k)
						require.NoError(t, e2e.Compare(want[k], o, 0, 0, nil), "trial %d output %d: the evaluator against onnxruntime", trial, k)
					}
				}
				// outputs are allocated at the bound, the extents come back in the count output
				got, _, err := prog.Run(ctx, ins, map[string]int64{b.Param: b.Bound}, 1)
				require.NoError(t, err)
				check("x86-64", trial, want, got)
				cases = append(cases, &e2e.Case{Graph: res.Graph, Inputs: ins})
				wants = append(wants, want)
			}
			// the same module for Hexagon (v67 scalar, and with HVX), under qemu
			for _, m := range []e2e.Machine{e2e.HexagonScalar(), e2e.HexagonHVX()} {
				hp, err := e2e.BuildBatch(ctx, filepath.Join(dir, m.String()), m, cases)
				require.NoError(t, err)
				if !e2e.CanRun(t, m) {
					continue
				}
				for i, r := range hp.Run(ctx) {
					require.NoError(t, r.Err)
					require.Zero(t, r.Status)
					check(m.String(), i, wants[i], r.Outputs)
				}
			}
			if tc.name == "topk" {
				// k beyond the axis: the entry checks the computed value against the bound
				k := ir.NewTensor(ir.I64, []int64{1})
				k.I[0] = 10
				_, _, err := prog.Run(ctx, []*ir.Tensor{e2e.RandomTensor(r, ir.F32, []int64{3, 9}), k}, map[string]int64{b.Param: b.Bound}, 1)
				require.ErrorContains(t, err, "entry returned 1")
				require.Contains(t, res.Header, "#define MAIN_GRAPH_OUT0_MAX_ELEMENTS ((3) * (9))")
				require.Contains(t, res.Header, "int32_t main_graph(const float *X, const int64_t *K, float *V, int64_t *I, int64_t *V_k, void *workspace);")
			}
		})
	}
}

// TestBoundedDIECompiled compiles the first k rows of a sorted tensor (passes/die_bounded_test.go:
// DIE keeps only the iterations of those rows, for each k) and runs it for every k in range
// against the evaluator on the unoptimized graph.
func TestBoundedDIECompiled(t *testing.T) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	const src = `graph @topk_rows[k <= 8 from %k](%x: f32[8, 4], %kin: i64[1]) {
  %early = neg(%x) : f32[8, 4]
  %k = reshape(%kin) {shape = "[]"} : i64[]
  %r = sort_rank(%early, %early) {axis = 0, descending = 1} : i64[8, 4]
  %z = fill() {type = "f32[8, 4]", value = -0.0} : f32[8, 4]
  %v = scatter_elements(%z, %r, %early) {axis = 0, reduction = "add"} : f32[8, 4]
  %y = exp(%v) : f32[8, 4]
  %w = slice(%y) {axes = [0], ends = [0], starts = [0], sym_ends = ["k"]} : f32[k, 4]
  return %w, %k
}`
	ctx := context.Background()
	ref, err := ir.Parse(src)
	require.NoError(t, err)
	g, err := ir.Parse(src)
	require.NoError(t, err)
	res, err := graphc.CompileGraph(ctx, g, graphc.WithVerifyEach(true))
	require.NoError(t, err)
	restricted := 0
	for _, op := range res.Graph.Ops {
		if op.IsRestricted() {
			restricted++
		}
	}
	require.NotZero(t, restricted, "DIE restricts the ops after k to the rows below k")
	prog, err := e2e.Build(ctx, t.TempDir(), res.Graph, res.Module)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(35, 3))
	for k := int64(0); k <= 8; k++ {
		x := e2e.RandomTensor(r, ir.F32, []int64{8, 4})
		kin := ir.NewTensor(ir.I64, []int64{1})
		kin.I[0] = k
		want, err := eval.Run(ref, map[string]*ir.Tensor{"x": x, "kin": kin})
		require.NoError(t, err)
		got, _, err := prog.Run(ctx, []*ir.Tensor{x, kin}, map[string]int64{"k": 8}, 1)
		require.NoError(t, err)
		require.Equal(t, k, got[1].I[0])
		// exp is a vector polynomial within 1–3 ulp of the evaluator's (design.md)
		wt := ir.NewTensor(ir.F32, want[0].Shape)
		copy(wt.F, want[0].F)
		gt := ir.NewTensor(ir.F32, want[0].Shape)
		copy(gt.F, got[0].F[:len(want[0].F)])
		require.NoError(t, e2e.Compare(gt, wt, 1e-6, 0, nil), "k = %d", k)
	}
}
