// This file tests the integer dot-product kernels (intdot.go) against the evaluator: matrix
// products and convolutions of u8 and i8 activations with constant u8 and i8 weights, zero
// points zero and not, reductions not a multiple of 4, tiles cut by rows and columns, batch
// dims, strides, dilations, padding, bias; compiled with every instruction family the machine
// can run (portable vectors, AVX-512 VNNI, AVX-VNNI-width VNNI, HVX vrmpy under qemu-hexagon);
// and the HVX assembly of the kernels holds vector multiply-accumulates.

package lower_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/lower"
	"github.com/graphc/graphc/passes"
)

// randConst returns a constant tensor of t with random values over t's whole range.
func randConst(r *rand.Rand, t ir.DType, shape ...int64) *ir.Tensor {
	x := ir.NewTensor(t, shape)
	lo, hi, _ := ir.QuantRange(t)
	if t == ir.I32 {
		lo, hi = -5000, 5000
	}
	for i := range x.I {
		x.I[i] = int64(lo) + r.Int64N(int64(hi-lo)+1)
	}
	return x
}

// intDotGraphs are quantized contractions the dot-product kernels must take.
func intDotGraphs(t *testing.T) (names []string, gs []*ir.Graph) {
	r := rand.New(rand.NewPCG(22, 4))
	scalar := func(t ir.DType, v int64) *ir.Tensor {
		x := ir.NewTensor(t, nil)
		x.I[0] = v
		return x
	}
	add := func(name string, build func(g *ir.Graph) *ir.Value) {
		g := ir.NewGraph(name)
		g.Outputs = []*ir.Value{build(g)}
		require.NoError(t, ir.Verify(g))
		names = append(names, name)
		gs = append(gs, g)
	}
	op := func(g *ir.Graph, kind string, attrs ir.Attrs, ins ...*ir.Value) *ir.Value {
		o, err := g.NewOp(kind, kind, ins, attrs)
		require.NoError(t, err)
		return o.Result
	}
	for _, c := range []struct {
		name         string
		xt, wt       ir.DType
		batch        int64
		m, k, n      int64
		xz           int64
		wz           []int64 // nil: zero
		perColumnZps bool
	}{
		{"gemm-u8s8", ir.U8, ir.I8, 0, 13, 64, 100, 128, nil, false},
		{"gemm-u8s8-k-odd", ir.U8, ir.I8, 0, 7, 37, 19, 3, nil, false},
		{"gemm-i8s8-wz", ir.I8, ir.I8, 0, 9, 30, 70, -5, []int64{3}, false},
		{"gemm-u8u8", ir.U8, ir.U8, 0, 6, 16, 33, 200, []int64{128}, false},
		{"gemm-i8u8-cols", ir.I8, ir.U8, 0, 5, 21, 40, 7, nil, true},
		{"gemm-batch", ir.U8, ir.I8, 3, 4, 24, 17, 1, nil, false},
		{"gemm-runtime-xz", ir.U8, ir.I8, 0, 11, 50, 33, -1, nil, false},
		{"gemm-runtime-xz-i8-wz", ir.I8, ir.U8, 0, 7, 18, 20, -1, []int64{100}, false},
	} {
		add(c.name, func(g *ir.Graph) *ir.Value {
			xs := []int64{c.m, c.k}
			if c.batch > 0 {
				xs = append([]int64{c.batch}, xs...)
			}
			x := g.AddInput("x", ir.StaticType(c.xt, xs...))
			w := g.AddConst("w", randConst(r, c.wt, c.k, c.n))
			var wz *ir.Value
			switch {
			case c.perColumnZps:
				wz = g.AddConst("wz", randConst(r, c.wt, c.n))
			case c.wz != nil:
				wz = g.AddConst("wz", scalar(c.wt, c.wz[0]))
			default:
				wz = g.AddConst("wz", scalar(c.wt, 0))
			}
			xz := g.AddConst("xz", scalar(c.xt, c.xz))
			if c.xz < 0 && c.xt == ir.U8 || c.xz == -1 {
				// a zero point computed at run time (dynamic quantization): an input
				xz = g.AddInput("xz", ir.StaticType(c.xt))
			}
			return op(g, "matmul_integer", nil, x, w, xz, wz)
		})
	}
	for _, c := range []struct {
		name         string
		xt, wt       ir.DType
		c, h, w, m   int64
		kh, kw       int64
		attrs        ir.Attrs
		xz           int64
		wzPerChannel bool
		bias         bool
	}{
		{"conv-3x3-pad", ir.U8, ir.I8, 8, 9, 11, 16, 3, 3, ir.Attrs{"pads": ir.IntsAttr(1, 1, 1, 1)}, 120, false, true},
		{"conv-c-odd-stride2", ir.U8, ir.I8, 3, 12, 13, 7, 3, 3, ir.Attrs{"pads": ir.IntsAttr(1, 0, 1, 2), "strides": ir.IntsAttr(2, 2)}, 30, true, false},
		{"conv-i8-dil", ir.I8, ir.I8, 5, 10, 10, 6, 2, 3, ir.Attrs{"dilations": ir.IntsAttr(2, 2), "pads": ir.IntsAttr(2, 1, 0, 3)}, -3, false, true},
		{"conv-1x1-u8u8", ir.U8, ir.U8, 16, 5, 40, 9, 1, 1, nil, 128, true, true},
		// 38 channels: two 16-byte blocks of NEON's blocked reduction, a group and 2 bytes
		{"conv-c38-i8", ir.I8, ir.I8, 38, 6, 9, 20, 3, 3, ir.Attrs{"pads": ir.IntsAttr(1, 1, 1, 1)}, -2, true, true},
		{"conv-wide", ir.U8, ir.I8, 4, 3, 70, 5, 3, 1, ir.Attrs{"pads": ir.IntsAttr(1, 0, 1, 0), "strides": ir.IntsAttr(1, 3)}, 0, false, false},
		{"conv-narrow-channels", ir.U8, ir.I8, 20, 7, 7, 40, 3, 3, ir.Attrs{"pads": ir.IntsAttr(1, 1, 1, 1)}, 77, false, true},
		{"conv-narrow-i8-stride2", ir.I8, ir.U8, 9, 9, 9, 70, 3, 3, ir.Attrs{"pads": ir.IntsAttr(1, 1, 1, 1), "strides": ir.IntsAttr(2, 2)}, 5, true, true},
		{"depthwise-3x3", ir.U8, ir.I8, 12, 11, 37, 12, 3, 3, ir.Attrs{"pads": ir.IntsAttr(1, 1, 1, 1), "group": ir.IntAttr(12)}, 99, true, true},
		{"depthwise-i8u8-stride2", ir.I8, ir.U8, 5, 14, 14, 5, 3, 3, ir.Attrs{"pads": ir.IntsAttr(0, 1, 2, 1), "strides": ir.IntsAttr(2, 2), "group": ir.IntAttr(5)}, -7, true, false},
	} {
		add(c.name, func(g *ir.Graph) *ir.Value {
			x := g.AddInput("x", ir.StaticType(c.xt, 2, c.c, c.h, c.w))
			cin := c.c
			if g := c.attrs.Int("group", 1); g > 1 {
				cin = c.c / g
			}
			w := g.AddConst("w", randConst(r, c.wt, c.m, cin, c.kh, c.kw))
			wz := g.AddConst("wz", scalar(c.wt, 0))
			if c.wzPerChannel {
				wz = g.AddConst("wz", randConst(r, c.wt, c.m))
			}
			ins := []*ir.Value{x, w, g.AddConst("xz", scalar(c.xt, c.xz)), wz}
			if c.bias {
				ins = append(ins, g.AddConst("b", randConst(r, ir.I32, c.m)))
			}
			return op(g, "conv_integer", c.attrs, ins...)
		})
	}
	return names, gs
}

func TestIntDotKernels(t *testing.T) {
	names, gs := intDotGraphs(t)
	r := rand.New(rand.NewPCG(5, 6))
	var cases []*e2e.Case
	for _, g := range gs {
		in := inputsFor(r, g, nil, false)
		for _, x := range in {
			lo, hi, _ := ir.QuantRange(x.Elem)
			for i := range x.I {
				x.I[i] = int64(lo) + r.Int64N(int64(hi-lo)+1)
			}
		}
		cases = append(cases, &e2e.Case{Graph: g, Inputs: in})
	}
	type machine struct {
		m    e2e.Machine
		kind string
	}
	// every machine's kernels are checked and its code built; runCases executes only what
	// the host runs (e2e.CanRun)
	machines := []machine{{e2e.Host(), "sse2-pmaddwd"}, {e2e.Machine{Target: "x86-64", VectorBytes: 32}, "generic"},
		{e2e.Machine{Target: "x86-64", CPU: "x86-64-v4", Attrs: "+avx512vnni"}, "vnni512"},
		{e2e.Machine{Target: "x86-64", CPU: "x86-64-v4", Attrs: "+avx512vnni,-evex512"}, "vnni256"},
		{e2e.Machine{Target: "x86-64", CPU: "haswell"}, "avx2-pmaddwd"},
		{e2e.HexagonHVX(), "hvx-vrmpy"}}
	for _, mc := range machines {
		t.Run(mc.m.String()+mc.kind, func(t *testing.T) {
			cfg, err := mc.m.Config()
			require.NoError(t, err)
			for i, g := range gs {
				mod, err := lower.Lower(context.Background(), g, cfg)
				require.NoError(t, err, names[i])
				strat := mod.Entries[0].Strategies[0]
				require.Contains(t, strat, "int-dot "+mc.kind, "%s: %s", names[i], lower.WhyNotIntDot(g.Ops[0], cfg))
				if strings.HasPrefix(names[i], "depthwise") {
					require.Contains(t, strat, "depthwise", names[i])
				}
				if strings.HasPrefix(names[i], "conv-narrow") && mc.m.String() != "x86-64" {
					require.Contains(t, strat, "conv-channels", "%s: 7 or 5 output columns, lanes over channels", names[i])
				}
			}
			runCases(t, mc.m, names, cases)
		})
	}
}

// TestHVXIntDotInstructions: llc-19 turns the HVX kernels into vrmpy multiply-accumulates.
func TestHVXIntDotInstructions(t *testing.T) {
	llc, err := exec.LookPath("llc-19")
	if err != nil {
		t.Skip("llc-19 not installed")
	}
	names, gs := intDotGraphs(t)
	cfg, err := e2e.HexagonHVX().Config()
	require.NoError(t, err)
	vrmpy := regexp.MustCompile(`v\d+\.w \+= vrmpy\(v\d+\.ub,v\d+\.b\)`)
	for i, g := range gs {
		mod, err := lower.Lower(context.Background(), g, cfg)
		require.NoError(t, err)
		ll := filepath.Join(t.TempDir(), "m.ll")
		require.NoError(t, os.WriteFile(ll, []byte(mod.String()), 0o644))
		out, err := exec.Command(llc, "-O2", "-relocation-model=pic", ll, "-o", "-").CombinedOutput()
		require.NoError(t, err, "%s: %s", names[i], firstLines(string(out), 20))
		if strings.HasPrefix(names[i], "depthwise") {
			// 9-tap reductions: i32 vector multiplies of widened bytes
			require.Greater(t, len(hvxPattern.FindAllString(string(out), -1)), 20, fmt.Sprintf("%s: HVX vector code", names[i]))
			continue
		}
		require.Greater(t, len(vrmpy.FindAllString(string(out), -1)), 3, fmt.Sprintf("%s: vrmpy accumulations", names[i]))
	}
}

// TestIntDotAfterDIE: the last row of a quantized logits product (the DIE paper's last-token
// logits, in int8): DIE restricts the integer matmul to one row, which keeps its dot-product
// kernel over the restricted box, on x86-64 and as HVX code under qemu.
func TestIntDotAfterDIE(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	build := func() *ir.Graph {
		g, err := ir.Parse(`graph @qlogits(%h: u8[16, 64]) {
  return %h
}`)
		require.NoError(t, err)
		w := g.AddConst("w", randConst(r, ir.I8, 64, 96))
		hz := ir.NewTensor(ir.U8, nil)
		hz.I[0] = 3
		wz := ir.NewTensor(ir.I8, nil)
		acc, err := g.NewOp("matmul_integer", "acc", []*ir.Value{g.Inputs[0], w, g.AddConst("hz", hz), g.AddConst("wz", wz)}, nil)
		require.NoError(t, err)
		last, err := g.NewOp("generic", "last", []*ir.Value{acc.Result}, ir.Attrs{
			"access": ir.StringsAttr("{ [i, j] -> [15, j] }"), "body": ir.StringAttr("in0"),
			"domain": ir.StringAttr("{ [i, j] : i = 0 and 0 <= j < 96 }"), "out": ir.StringAttr("{ [i, j] -> [i, j] }"),
			"type": ir.StringAttr("i32[1, 96]")})
		require.NoError(t, err)
		g.Outputs = []*ir.Value{last.Result}
		ps, err := passes.ParsePipeline(passes.DefaultPipeline)
		require.NoError(t, err)
		_, err = passes.Run(context.Background(), g, ps, &passes.Options{VerifyEach: true})
		require.NoError(t, err)
		require.Contains(t, g.String(), "domain { [i, j, k] : i = 15", "DIE keeps one row")
		return g
	}
	g := build()
	in := ir.NewTensor(ir.U8, []int64{16, 64})
	for i := range in.I {
		in.I[i] = r.Int64N(256)
	}
	for _, m := range []e2e.Machine{e2e.Host(), e2e.HexagonHVX()} {
		cfg, err := m.Config()
		require.NoError(t, err)
		mod, err := lower.Lower(context.Background(), g, cfg)
		require.NoError(t, err)
		require.Contains(t, mod.Entries[0].Strategies[0], "int-dot", m.String())
		runCases(t, m, []string{"qlogits"}, []*e2e.Case{{Graph: g, Inputs: []*ir.Tensor{in}}})
	}
}

// TestIntDotNHWC: the convolutions of intDotGraphs after the default pipeline, whose
// channels-last pass stores them NHWC (weights output-channel last): the integer kernels read
// the activations in place, lanes over output channels, on every family.
func TestIntDotNHWC(t *testing.T) {
	names, gs := intDotGraphs(t)
	ps, err := passes.ParsePipeline(passes.DefaultPipeline)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(5, 7))
	var cnames []string
	var cases []*e2e.Case
	for i, g := range gs {
		if !strings.HasPrefix(names[i], "conv") && !strings.HasPrefix(names[i], "depthwise") {
			continue
		}
		if i%2 == 0 {
			// an elementwise producer makes the convolution's input an intermediate, which the
			// pass stores channels-last (else the graph input stays NCHW)
			x := g.Inputs[0]
			pre, err := ir.MakeOp(g.Params, "max", "pre", []*ir.Value{x, x}, nil)
			require.NoError(t, err)
			g.Ops = append([]*ir.Op{pre}, g.Ops...)
			pre.Result.Name = "pre"
			for _, op := range g.Ops[1:] {
				for k, o := range op.Operands {
					if o == x {
						op.Operands[k] = pre.Result
					}
				}
			}
			names[i] += "-nhwc-input"
			require.NoError(t, ir.Verify(g))
		}
		_, err := passes.Run(context.Background(), g, ps, &passes.Options{VerifyEach: true})
		require.NoError(t, err)
		in := inputsFor(r, g, nil, false)
		for _, x := range in {
			lo, hi, _ := ir.QuantRange(x.Elem)
			for i := range x.I {
				x.I[i] = int64(lo) + r.Int64N(int64(hi-lo)+1)
			}
		}
		cnames = append(cnames, names[i])
		cases = append(cases, &e2e.Case{Graph: g, Inputs: in})
	}
	require.NotEmpty(t, cases)
	machines := []e2e.Machine{e2e.Host(), e2e.HexagonHVX(), {Target: "x86-64", CPU: "x86-64-v4", Attrs: "+avx512vnni"},
		e2e.AArch64("cortex-a76"), e2e.AArch64("cortex-x2")}
	for _, m := range machines {
		t.Run(m.String(), func(t *testing.T) {
			cfg, err := m.Config()
			require.NoError(t, err)
			for i, c := range cases {
				mod, err := lower.Lower(context.Background(), c.Graph, cfg)
				require.NoError(t, err)
				found := false
				for _, s := range mod.Entries[0].Strategies {
					if strings.HasPrefix(cnames[i], "depthwise") {
						// a graph input stays NCHW: its depthwise convolution keeps the nest
						found = found || strings.Contains(s, "int-dot") && strings.Contains(s, "depthwise-nhwc") ||
							!strings.HasSuffix(cnames[i], "-nhwc-input")
						continue
					}
					found = found || strings.Contains(s, "int-dot") && strings.Contains(s, "conv-nhwc") &&
						strings.Contains(s, "from-nchw") == !strings.HasSuffix(cnames[i], "-nhwc-input")
				}
				require.True(t, found, "%s: a channels-last integer kernel: %v (%s)\n%s", cnames[i], mod.Entries[0].Strategies, lower.WhyNotIntDot(c.Graph.Ops[len(c.Graph.Ops)-2], cfg), c.Graph)
			}
			runCases(t, m, cnames, cases)
		})
	}
}
