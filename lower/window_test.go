package lower_test

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llir/llvm/asm"
	llir "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/value"
	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/lower"
	"github.com/graphc/graphc/passes"
)

// windowGraphs are pools and a windowed sum after the default pipeline: max and average
// pools in NCHW (a pool of the input) and channels-last (a pool after a convolution), with
// padding, strides, dilations, ceil_mode and count_include_pad, 1-D to 3-D, channel counts
// that leave a remainder after the vectors, and the global pools.
func windowGraphs(t *testing.T) (names []string, gs []*ir.Graph) {
	r := rand.New(rand.NewPCG(32, 9))
	add := func(name string, in []int64, build func(g *ir.Graph, x *ir.Value) *ir.Value) {
		g := ir.NewGraph(strings.ReplaceAll(name, "-", "_"))
		x := g.AddInput("x", ir.StaticType(ir.F32, in...))
		g.Outputs = []*ir.Value{build(g, x)}
		require.NoError(t, ir.Verify(g), name)
		ps, err := passes.ParsePipeline(passes.DefaultPipeline)
		require.NoError(t, err)
		_, err = passes.Run(context.Background(), g, ps, &passes.Options{VerifyEach: true})
		require.NoError(t, err, name)
		names = append(names, name)
		gs = append(gs, g)
	}
	cnst := func(g *ir.Graph, shape ...int64) *ir.Value {
		w := ir.NewTensor(ir.F32, shape)
		for i := range w.F {
			w.F[i] = ir.RoundFloat(ir.F32, r.Float64()-0.5)
		}
		return g.AddConst("w", w)
	}
	op := func(g *ir.Graph, kind string, attrs ir.Attrs, ins ...*ir.Value) *ir.Value {
		o, err := g.NewOp(kind, kind, ins, attrs)
		require.NoError(t, err)
		return o.Result
	}
	pool := func(kind string, k, s, p []int64, extra ir.Attrs) func(g *ir.Graph, x *ir.Value) *ir.Value {
		return func(g *ir.Graph, x *ir.Value) *ir.Value {
			a := ir.Attrs{"kernel": ir.IntsAttr(k...), "strides": ir.IntsAttr(s...), "pads": ir.IntsAttr(p...)}
			for n, v := range extra {
				a[n] = v
			}
			return op(g, kind, a, x)
		}
	}
	// afterConv puts a 1×1 convolution of c output channels before a pool, which the
	// pipeline then computes channels-last
	afterConv := func(c int64, p func(g *ir.Graph, x *ir.Value) *ir.Value) func(g *ir.Graph, x *ir.Value) *ir.Value {
		return func(g *ir.Graph, x *ir.Value) *ir.Value {
			w := []int64{c, x.Type.Shape[1].Const}
			for range x.Type.Shape[2:] {
				w = append(w, 1)
			}
			return p(g, op(g, "conv", nil, x, cnst(g, w...)))
		}
	}
	add("max-3x3-s1-p1-nchw", []int64{1, 5, 13, 19}, pool("max_pool", []int64{3, 3}, []int64{1, 1}, []int64{1, 1, 1, 1}, nil))
	add("max-3x3-s2-ceil-nchw", []int64{2, 3, 15, 21}, pool("max_pool", []int64{3, 3}, []int64{2, 2}, []int64{0, 0, 0, 0}, ir.Attrs{"ceil_mode": ir.IntAttr(1)}))
	add("max-3x3-s1-p1-cl", []int64{1, 8, 11, 12}, afterConv(24, pool("max_pool", []int64{3, 3}, []int64{1, 1}, []int64{1, 1, 1, 1}, nil)))
	add("max-3x3-s2-ceil-cl-c20", []int64{1, 8, 14, 13}, afterConv(20, pool("max_pool", []int64{3, 3}, []int64{2, 2}, []int64{0, 1, 0, 1}, ir.Attrs{"ceil_mode": ir.IntAttr(1)})))
	add("max-2x3-dil-cl-c13", []int64{1, 4, 12, 15}, afterConv(13, pool("max_pool", []int64{2, 3}, []int64{1, 2}, []int64{1, 0, 1, 2}, ir.Attrs{"dilations": ir.IntsAttr(2, 2)})))
	add("avg-3x3-s1-p1-cl", []int64{1, 8, 9, 10}, afterConv(16, pool("avg_pool", []int64{3, 3}, []int64{1, 1}, []int64{1, 1, 1, 1}, nil)))
	add("avg-2x2-s2-ceil-pad-cl", []int64{1, 8, 9, 11}, afterConv(32, pool("avg_pool", []int64{2, 2}, []int64{2, 2}, []int64{1, 1, 1, 1}, ir.Attrs{"ceil_mode": ir.IntAttr(1), "count_include_pad": ir.IntAttr(1)})))
	add("avg-5x5-s3-nchw", []int64{1, 2, 17, 23}, pool("avg_pool", []int64{5, 5}, []int64{3, 3}, []int64{2, 2, 2, 2}, nil))
	add("max-1d-k5-s2", []int64{2, 6, 40}, pool("max_pool", []int64{5}, []int64{2}, []int64{2, 2}, nil))
	add("max-3d-cl", []int64{1, 4, 5, 6, 7}, afterConv(16, pool("max_pool", []int64{2, 3, 3}, []int64{1, 2, 2}, []int64{0, 1, 1, 1, 1, 1}, nil)))
	add("avg-3d-nchw", []int64{1, 3, 5, 6, 17}, pool("avg_pool", []int64{3, 2, 3}, []int64{1, 1, 1}, []int64{1, 0, 1, 1, 0, 1}, nil))
	add("global-avg-cl", []int64{1, 8, 7, 7}, afterConv(40, func(g *ir.Graph, x *ir.Value) *ir.Value { return op(g, "global_avg_pool", nil, x) }))
	add("global-max-cl", []int64{1, 8, 6, 5}, afterConv(24, func(g *ir.Graph, x *ir.Value) *ir.Value { return op(g, "global_max_pool", nil, x) }))
	add("global-avg-concat-cl", []int64{1, 8, 7, 7}, func(g *ir.Graph, x *ir.Value) *ir.Value {
		// GoogLeNet's head: the pool reads the concatenation of convolutions (fused into it)
		a := op(g, "relu", nil, op(g, "conv", nil, x, cnst(g, 24, 8, 1, 1)))
		b := op(g, "relu", nil, op(g, "conv", nil, x, cnst(g, 40, 8, 1, 1)))
		p := op(g, "global_avg_pool", nil, op(g, "concat", ir.Attrs{"axis": ir.IntAttr(1)}, a, b))
		p = op(g, "reshape", ir.Attrs{"shape": ir.StringAttr("[1, 64]")}, p)
		return op(g, "matmul", nil, p, cnst(g, 64, 10))
	})
	add("reduce-sum-middle", []int64{3, 7, 45}, func(g *ir.Graph, x *ir.Value) *ir.Value {
		return op(g, "reduce_sum", ir.Attrs{"axes": ir.IntsAttr(1)}, x)
	})
	add("reduce-max-two-axes", []int64{2, 3, 4, 37}, func(g *ir.Graph, x *ir.Value) *ir.Value {
		return op(g, "reduce_max", ir.Attrs{"axes": ir.IntsAttr(1, 2), "keepdims": ir.IntAttr(0)}, x)
	})
	return names, gs
}

// TestWindowedReductions runs the windowed reductions against the evaluator on random inputs
// (with NaNs and infinities for the maxima) at x86-64's baseline, x86-64-v3 and the host's
// native ISA (and x86-64-v3 with every kernel split over threads), as AArch64 code under qemu
// and as Hexagon code (scalar floats under qemu, HVX v68 built by llc only).
func TestWindowedReductions(t *testing.T) {
	names, gs := windowGraphs(t)
	var cases []*e2e.Case
	r := rand.New(rand.NewPCG(32, 10))
	for i, g := range gs {
		special := strings.HasPrefix(names[i], "max") || strings.Contains(names[i], "-max")
		cases = append(cases, &e2e.Case{Graph: g, Inputs: inputsFor(r, g, nil, special)})
	}
	// the convolutions before the channels-last pools fuse multiply-adds with FMA (AVX2,
	// AArch64): within TestRandomCNNs's tolerance; the interiors of the strided NCHW average
	// pools sum their innermost taps in vector lanes ("+vector-acc", reassociated): within
	// reassocTolerance; Hexagon's scalar code gives the evaluator's bits
	fma := func(ir.DType) (float64, float64) { return 1e-5, 1e-4 }
	for _, c := range []struct {
		m   e2e.Machine
		tol func(ir.DType) (float64, float64)
	}{{e2e.Host(), reassocTolerance}, {e2e.Machine{Target: "x86-64", CPU: "x86-64-v3"}, fma}, {e2e.Native(), fma},
		{e2e.AArch64("cortex-a76"), fma}, {e2e.HexagonHVX(), tolerance},
		// every kernel split, the chunks run by the driver one after another, the last first
		{e2e.Machine{Target: "x86-64", CPU: "x86-64-v3", Threads: lower.ThreadsCaller, SplitAll: true, CallerPool: true}, fma}} {
		t.Run(c.m.String(), func(t *testing.T) { runCasesTol(t, c.m, names, cases, c.tol) })
	}
	// HVX float (v68) is built only: qemu cannot run it
	llc, err := exec.LookPath("llc-19")
	if err != nil {
		t.Skip("llc-19 not installed")
	}
	hex, err := lower.LoadTarget("hexagon")
	require.NoError(t, err)
	for i, g := range gs {
		mod, err := lower.Lower(context.Background(), g, lower.Config{Target: hex})
		require.NoError(t, err, names[i])
		ll := filepath.Join(t.TempDir(), "m.ll")
		verifyModule(t, mod.String(), ll)
		out, err := exec.Command(llc, "-O2", "-relocation-model=pic", ll, "-o", os.DevNull).CombinedOutput()
		require.NoError(t, err, "%s: %s", names[i], firstLines(string(out), 20))
	}
}

// TestWindowStrategies checks that the channels-last pools, a global pool over a concatenation
// (split along it) and the reductions over a middle axis of windowGraphs take the window-acc
// strategy, and that in each such kernel the result is
// stored outside the loops over the window: the deepest store to the result sits in fewer loops
// than the deepest read of the operand. The interchanged nest that window-acc replaced stored
// it at every window tap. (The strided NCHW pools vectorise along no dim; the average pools
// after a convolution are register tiles.)
func TestWindowStrategies(t *testing.T) {
	names, gs := windowGraphs(t)
	want := map[string]bool{"max-3x3-s1-p1-cl": true, "max-3x3-s2-ceil-cl-c20": true, "max-2x3-dil-cl-c13": true,
		"max-3d-cl": true, "global-avg-concat-cl": true, "reduce-sum-middle": true, "reduce-max-two-axes": true}
	for i, g := range gs {
		if !want[names[i]] {
			continue
		}
		t.Run(names[i], func(t *testing.T) {
			tgt, err := lower.LoadTarget("x86-64")
			require.NoError(t, err)
			mod, err := lower.Lower(context.Background(), g, lower.Config{Target: tgt, CPU: "x86-64-v3", Threads: lower.ThreadsNone})
			require.NoError(t, err)
			m, err := asm.ParseString("m.ll", mod.LLVM.String())
			require.NoError(t, err)
			found := 0
			eg := mod.Entries[0].Graph
			for _, po := range mod.Entries[0].Plan.Ops {
				// the pool or reduction: not the convolutions or the product around it
				if o := eg.Ops[po.Index]; o.Reduce == ir.ReduceNone || po.Kernel == "" || strings.HasPrefix(po.Strategy, "register-tiles") {
					continue
				}
				found++
				require.Contains(t, po.Strategy, "window-acc", "op %d", po.Index)
				f := kernelFunc(m, po.Kernel)
				require.NotNil(t, f, "kernel %s", po.Kernel)
				store, load := accessDepths(f)
				require.Greater(t, load, store, "%s: the result is stored in %d loops, the operand read in %d", po.Strategy, store, load)
			}
			require.NotZero(t, found, "no reduction kernel: %v", mod.Entries[0].Strategies)
		})
	}
}

func kernelFunc(m *llir.Module, name string) *llir.Func {
	for _, f := range m.Funcs {
		if f.Name() == name {
			return f
		}
	}
	return nil
}

// accessDepths returns the loop depth of the deepest store through the kernel's result
// pointer (its first parameter) and of the deepest load through its operands. Loops are the
// natural loops of the emitted, structured code: every loop of a nest kernel has a block named
// *.header.N (funcBuilder.loopMD, vectorFor, windowFor) that starts with the phi of its
// induction variable, whose first incoming block enters the loop and the others are its back
// edges; a loop's blocks reach a back edge without passing its header.
func accessDepths(f *llir.Func) (store, load int) {
	preds := map[*llir.Block][]*llir.Block{}
	for _, b := range f.Blocks {
		for _, s := range b.Term.Succs() {
			preds[s] = append(preds[s], b)
		}
	}
	depth := map[*llir.Block]int{}
	for _, h := range f.Blocks {
		if !strings.Contains(h.Name(), ".header.") {
			continue
		}
		phi, ok := h.Insts[0].(*llir.InstPhi)
		if !ok {
			continue
		}
		body := map[*llir.Block]bool{h: true}
		var stack []*llir.Block
		for _, inc := range phi.Incs[1:] {
			if p := inc.Pred.(*llir.Block); !body[p] {
				body[p] = true
				stack = append(stack, p)
			}
		}
		if len(stack) == 0 {
			continue
		}
		for len(stack) > 0 {
			b := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, p := range preds[b] {
				if !body[p] {
					body[p] = true
					stack = append(stack, p)
				}
			}
		}
		for b := range body {
			depth[b]++
		}
	}
	base := func(v value.Value) value.Value {
		for {
			switch x := v.(type) {
			case *llir.InstGetElementPtr:
				v = x.Src
			case *llir.InstBitCast:
				v = x.From
			default:
				return v
			}
		}
	}
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			switch x := inst.(type) {
			case *llir.InstStore:
				if base(x.Dst) == f.Params[0] {
					store = max(store, depth[b])
				}
			case *llir.InstLoad:
				for _, p := range f.Params[1:] {
					if base(x.Src) == p {
						load = max(load, depth[b])
					}
				}
			}
		}
	}
	return store, load
}
