// This file tests kernel deduplication: ops of repeated layers share one kernel, and two ops
// that differ in any part of the kernel key (domain, access and out maps, body, element types,
// shapes, buffer regions, alignment, result initialisation, symbolic dims) get distinct
// kernels, as testdata/lowering/kernel_dedup.graph and kernel_keys.graph state; every case is
// also run as compiled code against the evaluator, and the entries of one Builder share
// kernels.

package lower_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/lower"
	"github.com/graphc/graphc/passes"
)

var callRE = regexp.MustCompile(`call i32 @([\w.]+)\(`)

// entryCalls returns the kernels the entry function calls, in op order.
func entryCalls(t *testing.T, text, entry string) []string {
	t.Helper()
	start := strings.Index(text, "define i32 @"+entry+"(")
	require.GreaterOrEqual(t, start, 0, "no entry %s", entry)
	end := strings.Index(text[start:], "\n}\n")
	require.Greater(t, end, 0)
	var out []string
	for _, m := range callRE.FindAllStringSubmatch(text[start:start+end], -1) {
		out = append(out, m[1])
	}
	return out
}

// kernelDefs counts the kernel definitions of a module.
func kernelDefs(text string) int {
	return len(regexp.MustCompile(`(?m)^define internal i32 @[\w]+\.k\d+\.`).FindAllStringIndex(text, -1))
}

// unfusedPipeline is the default pipeline without fuse: tests of kernels, epilogues and
// in-place padding that count the named ops of their graphs (matmul, add, relu...) run it.
var unfusedPipeline = strings.Replace(passes.DefaultPipeline, "fuse,", "", 1)

// optimized parses g and runs unfusedPipeline.
func optimized(t *testing.T, text string) *ir.Graph {
	t.Helper()
	g, err := ir.Parse(text)
	require.NoError(t, err, text)
	require.NoError(t, ir.Verify(g), text)
	ps, err := passes.ParsePipeline(unfusedPipeline)
	require.NoError(t, err)
	_, err = passes.Run(context.Background(), g, ps, &passes.Options{VerifyEach: true})
	require.NoError(t, err)
	return g
}

// mlpText is n layers y = relu(x·W + b) of width w on a batch of 4, weights as inputs.
func mlpText(n, w int) string {
	var sb strings.Builder
	sb.WriteString("graph @mlp(%x: f32[4, " + fmt.Sprint(w) + "]")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, ", %%w%d: f32[%d, %d], %%b%d: f32[%d]", i, w, w, i, w)
	}
	sb.WriteString(") {\n")
	prev := "x"
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, "  %%m%d = matmul(%%%s, %%w%d) : f32[4, %d]\n", i, prev, i, w)
		fmt.Fprintf(&sb, "  %%s%d = add(%%m%d, %%b%d) : f32[4, %d]\n", i, i, i, w)
		fmt.Fprintf(&sb, "  %%a%d = relu(%%s%d) : f32[4, %d]\n", i, i, w)
		prev = fmt.Sprintf("a%d", i)
	}
	sb.WriteString("  return %" + prev + "\n}\n")
	return sb.String()
}

// TestKernelDedupRepeatedLayers runs the layers of testdata/lowering/kernel_dedup.graph, whose
// CHECK lines state which kernels they share, against the evaluator; their modules without
// epilogues verify.
func TestKernelDedupRepeatedLayers(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	gnames, gs := fileGraphs(t, "kernel_dedup.graph")
	var names []string
	var cases []*e2e.Case
	for i, g := range gs {
		if gnames[i] == "mlp6_epilogues" {
			continue // TestEpilogueDedup's
		}
		mod, err := lower.Lower(context.Background(), g, lower.Config{NoEpilogues: true})
		require.NoError(t, err, gnames[i])
		verifyModule(t, mod.String(), "")
		names = append(names, gnames[i])
		cases = append(cases, &e2e.Case{Graph: g, Inputs: inputsFor(r, g, nil, false)})
	}
	require.Equal(t, []string{"mlp1", "mlp2", "mlp6"}, names)
	runCases(t, e2e.Host(), names, cases)
	runCases(t, e2e.HexagonScalar(), names, cases)
}

// genericOp is a generic op reading one operand at access acc over domain dom.
func genericOp(res, operand, acc, dom, out, body, typ string) string {
	return fmt.Sprintf("  %%%s = generic(%%%s) {access = [\"%s\"], body = \"%s\", domain = \"%s\", out = \"%s\", type = \"%s\"} : %s\n",
		res, operand, acc, body, dom, out, typ, typ)
}

// ident is the identity access of a 2-dim op.
const ident = "{ [i, j] -> [i, j] }"

// TestKernelKeyParts runs the graphs of testdata/lowering/kernel_keys.graph, whose CHECK lines
// state which of their ops share a kernel (dedup.go's key), against the evaluator; their
// modules without epilogues verify.
func TestKernelKeyParts(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	names, gs := fileGraphs(t, "kernel_keys.graph")
	var cases []*e2e.Case
	for i, g := range gs {
		if names[i] == "domain_equal" {
			require.NotEqual(t, g.Ops[0].Domain.String(), g.Ops[1].Domain.String(), "the case needs two representations")
		}
		mod, err := lower.Lower(context.Background(), g, lower.Config{NoEpilogues: true})
		require.NoError(t, err, names[i])
		verifyModule(t, mod.String(), "")
		cases = append(cases, &e2e.Case{Graph: g, Inputs: inputsFor(r, g, nil, false)})
	}
	runCases(t, e2e.Host(), names, cases)
}

// TestKernelDedupAcrossEntries checks that the entries of one module share kernels, that a
// kernel with symbolic dims is not shared with a static one (its arguments differ), and that a
// failed Add forgets the kernels it emitted.
func TestKernelDedupAcrossEntries(t *testing.T) {
	static := "graph @g(%x: f32[4, 8]) {\n" + genericOp("p", "x", ident, "{ [i, j] : 0 <= i < 4 and 0 <= j < 8 }", ident, "neg(in0)", "f32[4, 8]") + "  return %p\n}\n"
	symbolic := "graph @g[N](%x: f32[4, 8], %z: f32[N]) {\n" + genericOp("p", "x", ident, "{ [i, j] : 0 <= i < 4 and 0 <= j < 8 }", ident, "neg(in0)", "f32[4, 8]") +
		genericOp("q", "z", "{ [i] -> [i] }", "[N] -> { [i] : 0 <= i < N }", "{ [i] -> [i] }", "in0", "f32[N]") + "  return %p, %q\n}\n"
	parse := func(text string) *ir.Graph {
		g, err := ir.Parse(text)
		require.NoError(t, err)
		require.NoError(t, ir.Verify(g))
		return g
	}
	b, err := lower.NewBuilder(lower.Config{})
	require.NoError(t, err)
	_, err = b.Add(context.Background(), parse(static), "a")
	require.NoError(t, err)
	_, err = b.Add(context.Background(), parse(static), "b")
	require.NoError(t, err)
	// a graph that fails after emitting a kernel nobody had: its body reads an unknown
	// symbolic dim in its second op
	bad := parse("graph @g(%x: f32[4, 8]) {\n" + genericOp("p", "x", ident, "{ [i, j] : 0 <= i < 4 and 0 <= j < 8 }", ident, "abs(in0)", "f32[4, 8]") +
		genericOp("q", "p", ident, "{ [i, j] : 0 <= i < 4 and 0 <= j < 8 }", ident, "in0", "f32[4, 8]") + "  return %q\n}\n")
	bad.Ops[1].Body = &ir.Scalar{Op: ir.SCast, Type: ir.F32, Args: []*ir.Scalar{{Op: ir.SParam, Type: ir.I64, Name: "nope"}}}
	_, err = b.Add(context.Background(), bad, "bad")
	require.ErrorContains(t, err, "nope")
	reuse := parse("graph @g(%x: f32[4, 8]) {\n" + genericOp("p", "x", ident, "{ [i, j] : 0 <= i < 4 and 0 <= j < 8 }", ident, "abs(in0)", "f32[4, 8]") +
		genericOp("q", "p", ident, "{ [i, j] : 0 <= i < 4 and 0 <= j < 8 }", ident, "neg(in0)", "f32[4, 8]") + "  return %q\n}\n")
	_, err = b.Add(context.Background(), reuse, "c")
	require.NoError(t, err)
	_, err = b.Add(context.Background(), parse(symbolic), "d")
	require.NoError(t, err)
	text := b.Module().String()
	verifyModule(t, text, "")
	a, bb, c, d := entryCalls(t, text, "a"), entryCalls(t, text, "b"), entryCalls(t, text, "c"), entryCalls(t, text, "d")
	require.Equal(t, a, bb, "identical graphs share their kernels")
	require.NotContains(t, c[0], "bad.", "a failed Add leaves no kernel behind")
	require.NotEqual(t, a[0], d[0], "a kernel of a graph with symbolic dims takes them as arguments")
	require.Equal(t, 5, kernelDefs(text), "a.k0 (neg, shared by b), c.k0 (abs), c.k1 (neg of a workspace buffer), d.k0 and d.k1")
}
