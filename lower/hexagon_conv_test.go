// This file tests the convolutional kernels on Hexagon: after the default pipeline (which
// stores activations channels-last), convolutions, depthwise convolutions, their padding copies,
// pools, SiLU, squeeze-excitation scales and channel shuffles are vectorised along channels, llc-19 turns their hot loops into HVX float
// arithmetic for hexagonv68, and the same graphs run right as vector IR on x86-64 and as scalar
// hexagonv67 code under qemu.

package lower_test

import (
	"context"
	"math/rand/v2"
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

// convGraphs are small convolutional layers (constant weights, as in exported models) after
// the default pipeline; the convolutions' output channels are multiples of 32 so that HVX
// vectors cover them without remainder.
func convGraphs(t *testing.T) (names []string, gs []*ir.Graph) {
	r := rand.New(rand.NewPCG(20, 68))
	add := func(name string, build func(g *ir.Graph, x *ir.Value) *ir.Value, c, hw int64) {
		g := ir.NewGraph(name)
		x := g.AddInput("x", ir.StaticType(ir.F32, 1, c, hw, hw))
		g.Outputs = []*ir.Value{build(g, x)}
		require.NoError(t, ir.Verify(g))
		ps, err := passes.ParsePipeline(passes.DefaultPipeline)
		require.NoError(t, err)
		_, err = passes.Run(context.Background(), g, ps, &passes.Options{VerifyEach: true})
		require.NoError(t, err)
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
	pads := func(p int64) ir.Attrs { return ir.Attrs{"pads": ir.IntsAttr(p, p, p, p)} }
	add("conv3x3-bias-relu", func(g *ir.Graph, x *ir.Value) *ir.Value {
		y := op(g, "conv", pads(1), x, cnst(g, 64, 16, 3, 3), cnst(g, 64))
		y = op(g, "relu", nil, y)
		return op(g, "conv", pads(1), y, cnst(g, 32, 64, 3, 3))
	}, 16, 9)
	add("depthwise-strided", func(g *ir.Graph, x *ir.Value) *ir.Value {
		y := op(g, "conv", pads(1), x, cnst(g, 32, 8, 1, 1))
		a := pads(1)
		a["group"], a["strides"] = ir.IntAttr(32), ir.IntsAttr(2, 2)
		return op(g, "conv", a, y, cnst(g, 32, 1, 3, 3), cnst(g, 32))
	}, 8, 11)
	add("silu-se-shuffle", func(g *ir.Graph, x *ir.Value) *ir.Value {
		// EfficientNet's SiLU and squeeze-excitation, ShuffleNet's channel shuffle
		y := op(g, "conv", nil, x, cnst(g, 64, 32, 1, 1), cnst(g, 64))
		y = op(g, "mul", nil, y, op(g, "sigmoid", nil, y))
		se := op(g, "global_avg_pool", nil, y)
		se = op(g, "conv", nil, se, cnst(g, 32, 64, 1, 1), cnst(g, 32))
		se = op(g, "relu", nil, se)
		se = op(g, "conv", nil, se, cnst(g, 64, 32, 1, 1), cnst(g, 64))
		y = op(g, "mul", nil, y, op(g, "sigmoid", nil, se))
		y = op(g, "reshape", ir.Attrs{"shape": ir.StringAttr("[1, 2, 32, 9, 9]")}, y)
		y = op(g, "transpose", ir.Attrs{"perm": ir.IntsAttr(0, 2, 1, 3, 4)}, y)
		y = op(g, "reshape", ir.Attrs{"shape": ir.StringAttr("[1, 64, 9, 9]")}, y)
		a := pads(1)
		a["group"] = ir.IntAttr(64)
		y = op(g, "conv", a, y, cnst(g, 64, 1, 3, 3))
		return op(g, "conv", nil, y, cnst(g, 32, 64, 1, 1))
	}, 32, 9)
	add("maxpool-1x1", func(g *ir.Graph, x *ir.Value) *ir.Value {
		y := op(g, "max_pool", ir.Attrs{"kernel": ir.IntsAttr(3, 3), "strides": ir.IntsAttr(2, 2), "pads": ir.IntsAttr(1, 1, 1, 1)}, x)
		y = op(g, "conv", nil, y, cnst(g, 32, 32, 1, 1))
		return op(g, "conv", nil, y, cnst(g, 64, 32, 1, 1))
	}, 32, 12)
	return names, gs
}

// TestHVXConvolutions checks the vector strategy of every op of the convolutional layers
// (reorders at the graph boundary excepted) and HVX float arithmetic in each convolution's
// kernel, with no scalar float multiply there.
func TestHVXConvolutions(t *testing.T) {
	names, gs := convGraphs(t)
	hex, err := lower.LoadTarget("hexagon")
	require.NoError(t, err)
	llc, llcErr := exec.LookPath("llc-19")
	for i, g := range gs {
		mod, err := lower.Lower(context.Background(), g, lower.Config{Target: hex})
		require.NoError(t, err)
		var convs []string
		for k, op := range g.Ops {
			s := mod.Entries[0].Strategies[k]
			if op.Reduce == ir.ReduceSum && len(op.Operands) > 1 {
				convs = append(convs, op.Result.Name)
			}
			if op.Result == g.Outputs[0] || op.Operands[0] == g.Inputs[0] {
				continue // the reorders from and to NCHW at the graph's boundary
			}
			if len(op.Out.Pieces) == 1 && len(op.Out.Pieces[0].Index[len(op.Out.Pieces[0].Index)-1].Floors) > 0 {
				continue // a channel shuffle's writer stores channels 2 apart: scalar for now
			}
			require.Contains(t, s, "+vector", "%s: op %d (%s %s): %s", names[i], k, op.Result.Name, op.Result.Type, s)
		}
		require.NotEmpty(t, convs)
		if llcErr != nil {
			continue
		}
		dir := t.TempDir()
		ll := filepath.Join(dir, "m.ll")
		verifyModule(t, mod.String(), ll)
		out, err := exec.Command(llc, "-O2", "-relocation-model=pic", ll, "-o", "-").CombinedOutput()
		require.NoError(t, err, "%s: %s", names[i], firstLines(string(out), 20))
		for k, op := range g.Ops {
			if op.Reduce != ir.ReduceSum || len(op.Operands) < 2 || op.Result == g.Outputs[0] {
				continue // not a convolution, or one that writes NCHW
			}
			body := asmFunction(string(out), k2name("main_graph", k)+"."+op.Kind)
			require.NotEmpty(t, body, "%s: kernel %d in the assembly", names[i], k)
			require.Regexp(t, `qf32|\.sf`, body, "%s: kernel %d (%s): HVX float arithmetic", names[i], k, op.Result.Name)
			require.NotRegexp(t, `\bsfmpy\b|\bsffma\b`, body, "%s: kernel %d (%s): no scalar float products", names[i], k, op.Result.Name)
		}
	}
}

// k2name is the symbol prefix of kernel k of an entry.
func k2name(entry string, k int) string { return entry + ".k" + itoa(int64(k)) }

// asmFunction returns the assembly of the function named name, or name followed by the
// source node's name (kernelName), from its label to the next function's end marker.
func asmFunction(asm, name string) string {
	re := regexp.MustCompile(`(?m)^"?` + regexp.QuoteMeta(name) + `(\.[^":\s]*)?"?:`)
	loc := re.FindStringIndex(asm)
	if loc == nil {
		return ""
	}
	rest := asm[loc[1]:]
	if end := strings.Index(rest, ".Lfunc_end"); end >= 0 {
		rest = rest[:end]
	}
	return rest
}

// TestConvolutionsRunOnHexagon runs the convolutional layers as 128-byte vector IR on x86-64
// and as scalar hexagonv67 code under qemu, against the evaluator.
func TestConvolutionsRunOnHexagon(t *testing.T) {
	names, gs := convGraphs(t)
	r := rand.New(rand.NewPCG(21, 67))
	var cases []*e2e.Case
	for _, g := range gs {
		cases = append(cases, &e2e.Case{Graph: g, Inputs: inputsFor(r, g, nil, false)})
	}
	// sigmoid is a float32 polynomial (within 2 ulp of the evaluator's, 3 with HVX's Newton
	// reciprocal), and the vector nests sum channels in lanes: the reassociation tolerance
	m := e2e.Host()
	m.VectorBytes = 128
	m.NewtonReciprocal = true
	runCasesTol(t, m, names, cases, reassocTolerance)
	runCasesTol(t, e2e.HexagonScalar(), names, cases, reassocTolerance)
}
