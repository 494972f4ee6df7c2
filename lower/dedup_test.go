// This file tests kernel deduplication: ops of repeated layers share one kernel, and two ops
// that differ in any part of the kernel key (domain, access and out maps, body, element types,
// shapes, buffer regions, alignment, result initialisation, symbolic dims) get distinct
// kernels; every case is also run as compiled code against the evaluator.

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

func TestKernelDedupRepeatedLayers(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var names []string
	var cases []*e2e.Case
	for _, n := range []int{1, 2, 6} {
		g := optimized(t, mlpText(n, 24))
		mod, err := lower.Lower(context.Background(), g, lower.Config{NoEpilogues: true})
		require.NoError(t, err)
		text := mod.String()
		verifyModule(t, text, "")
		calls := entryCalls(t, text, "main_graph")
		require.Len(t, calls, len(g.Ops))
		require.Len(t, mod.Entries[0].Strategies, len(g.Ops), "a strategy per op, shared kernels included")
		// the first matmul reads the caller's input, the others a workspace buffer; the last
		// relu writes the caller's output: at most 5 distinct kernels, however many layers
		want := map[int]int{1: 3, 2: 5, 6: 5}[n]
		require.Equal(t, want, kernelDefs(text), "%d layers", n)
		for i, op := range g.Ops {
			require.True(t, strings.HasSuffix(calls[i], "."+op.Kind), "op %d (%s) calls %s", i, op.Kind, calls[i])
			if i >= 6 && i < len(g.Ops)-3 {
				require.Equal(t, calls[i-3], calls[i], "op %d repeats op %d", i, i-3)
				require.Equal(t, mod.Entries[0].Strategies[i-3], mod.Entries[0].Strategies[i])
			}
		}
		names = append(names, fmt.Sprintf("mlp%d", n))
		cases = append(cases, &e2e.Case{Graph: g, Inputs: inputsFor(r, g, nil, false)})
	}
	runCases(t, e2e.Host(), names, cases)
	runCases(t, e2e.HexagonScalar(), names, cases)
}

// genericOp is a generic op reading one operand at access acc over domain dom.
func genericOp(res, operand, acc, dom, out, body, typ string) string {
	return fmt.Sprintf("  %%%s = generic(%%%s) {access = [\"%s\"], body = \"%s\", domain = \"%s\", out = \"%s\", type = \"%s\"} : %s\n",
		res, operand, acc, body, dom, out, typ, typ)
}

const (
	sq8   = "{ [i, j] : 0 <= i < 8 and 0 <= j < 8 }"
	ident = "{ [i, j] -> [i, j] }"
	trans = "{ [i, j] -> [j, i] }"
)

// keyCase is a graph in which the ops a and b (indices) differ in one part of the kernel key
// (differ) or in nothing that the key holds (!differ).
type keyCase struct {
	name   string
	text   string
	a, b   int
	differ bool
}

func keyCases() []keyCase {
	two := func(in, a, b string) string {
		return "graph @g(" + in + ") {\n" + a + b + "  return %p, %q\n}\n"
	}
	in8 := "%x: f32[8, 8], %y: f32[8, 8]"
	cases := []keyCase{
		{"same", two(in8, genericOp("p", "x", ident, sq8, ident, "in0", "f32[8, 8]"), genericOp("q", "y", ident, sq8, ident, "in0", "f32[8, 8]")), 0, 1, false},
		{"access", two(in8, genericOp("p", "x", ident, sq8, ident, "in0", "f32[8, 8]"), genericOp("q", "y", trans, sq8, ident, "in0", "f32[8, 8]")), 0, 1, true},
		{"out", two(in8, genericOp("p", "x", ident, sq8, ident, "in0", "f32[8, 8]"), genericOp("q", "y", ident, sq8, trans, "in0", "f32[8, 8]")), 0, 1, true},
		{"body", two(in8, genericOp("p", "x", ident, sq8, ident, "add(in0, 1.0:f32)", "f32[8, 8]"), genericOp("q", "y", ident, sq8, ident, "add(in0, 2.0:f32)", "f32[8, 8]")), 0, 1, true},
		{"elem", two("%x: f32[8, 8], %y: f64[8, 8]", genericOp("p", "x", ident, sq8, ident, "in0", "f32[8, 8]"), genericOp("q", "y", ident, sq8, ident, "in0", "f64[8, 8]")), 0, 1, true},
		{"shape", two("%x: f32[8, 8], %y: f32[8, 16]", genericOp("p", "x", ident, sq8, ident, "in0", "f32[8, 8]"), genericOp("q", "y", ident, sq8, ident, "in0", "f32[8, 8]")), 0, 1, true},
		// the same set in two representations: one kernel scans both
		{"domain-equal", "graph @g(%A: f32[8, 8], %B: f32[8, 8]) {\n  %p = matmul(%A, %B) : f32[8, 8]\n      domain { [i, j, k] : 0 <= k < 8 and 0 <= j < 8 and 0 <= i < 8 }\n  %q = matmul(%A, %B) : f32[8, 8]\n  return %p, %q\n}\n", 0, 1, false},
		{"domain", "graph @g(%A: f32[8, 8], %B: f32[8, 8]) {\n  %p = matmul(%A, %B) : f32[8, 8]\n      domain { [i, j, k] : 0 <= i <= j < 8 and 0 <= k < 8 }\n  %q = matmul(%A, %B) : f32[8, 8]\n  return %p, %q\n}\n", 0, 1, true},
	}
	// the buffer region of an intermediate: both producers write rows 2..3, the consumer of
	// the second reads rows 0..3 (its other rows keep the init value), so its buffer starts
	// at row 0 and is twice as tall
	rows := func(lo, hi int) string { return fmt.Sprintf("{ [i, j] : %d <= i < %d and 0 <= j < 8 }", lo, hi) }
	region := func(readLo int) string {
		return "graph @g(%x: f32[8, 8], %y: f32[8, 8]) {\n" +
			genericOp("p", "x", ident, sq8, ident, "add(in0, 1.0:f32)", "f32[8, 8]") + "      domain " + rows(2, 4) + "\n" +
			genericOp("q", "y", ident, sq8, ident, "add(in0, 1.0:f32)", "f32[8, 8]") + "      domain " + rows(2, 4) + "\n" +
			genericOp("u", "p", ident, rows(2, 4), ident, "in0", "f32[8, 8]") +
			genericOp("v", "q", ident, rows(readLo, 4), ident, "in0", "f32[8, 8]") +
			"  return %u, %v\n}\n"
	}
	cases = append(cases, keyCase{"region-same", region(2), 0, 1, false}, keyCase{"region", region(0), 0, 1, true})
	// alignment: reading a caller's buffer or a workspace buffer (both whole tensors)
	aligned := func(src string) string {
		return "graph @g(%x: f32[8, 8], %y: f32[8, 8]) {\n" +
			genericOp("t", "y", ident, sq8, ident, "add(in0, 1.0:f32)", "f32[8, 8]") +
			genericOp("p", "x", ident, sq8, ident, "in0", "f32[8, 8]") +
			genericOp("q", src, ident, sq8, ident, "in0", "f32[8, 8]") +
			"  return %p, %q\n}\n"
	}
	cases = append(cases, keyCase{"aligned-same", aligned("y"), 1, 2, false}, keyCase{"aligned", aligned("t"), 1, 2, true})
	// initialisation: two register-tile products over the same triangle; the first one's
	// consumer reads only the triangle, the second one's the whole square (its other
	// elements must be initialised to 0)
	tri := "{ [i, j] : 0 <= j <= i < 16 }"
	sq16 := "{ [i, j] : 0 <= i < 16 and 0 <= j < 16 }"
	fromInit := func(read string) string {
		return "graph @g(%A: f32[16, 16], %B: f32[16, 16]) {\n" +
			"  %p = matmul(%A, %B) : f32[16, 16]\n      domain { [i, j, k] : 0 <= j <= i < 16 and 0 <= k < 16 }\n" +
			"  %q = matmul(%A, %B) : f32[16, 16]\n      domain { [i, j, k] : 0 <= j <= i < 16 and 0 <= k < 16 }\n" +
			genericOp("u", "p", ident, tri, ident, "in0", "f32[16, 16]") +
			genericOp("v", "q", ident, read, ident, "in0", "f32[16, 16]") +
			"  return %u, %v\n}\n"
	}
	cases = append(cases, keyCase{"init-same", fromInit(tri), 0, 1, false}, keyCase{"init", fromInit(sq16), 0, 1, true})
	return cases
}

func TestKernelKeyParts(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var names []string
	var cases []*e2e.Case
	for _, c := range keyCases() {
		g, err := ir.Parse(c.text)
		require.NoError(t, err, c.name)
		require.NoError(t, ir.Verify(g), c.name)
		if c.name == "domain-equal" {
			require.NotEqual(t, g.Ops[c.a].Domain.String(), g.Ops[c.b].Domain.String(), "the case needs two representations")
		}
		mod, err := lower.Lower(context.Background(), g, lower.Config{NoEpilogues: true})
		require.NoError(t, err, c.name)
		text := mod.String()
		verifyModule(t, text, "")
		calls := entryCalls(t, text, "main_graph")
		require.Len(t, calls, len(g.Ops), c.name)
		if c.differ {
			require.NotEqual(t, calls[c.a], calls[c.b], "%s: ops %d and %d differ, they must not share a kernel", c.name, c.a, c.b)
		} else {
			require.Equal(t, calls[c.a], calls[c.b], "%s: ops %d and %d have the same kernel", c.name, c.a, c.b)
		}
		if strings.HasPrefix(c.name, "init") {
			for _, k := range []int{c.a, c.b} {
				require.True(t, strings.HasPrefix(mod.Entries[0].Strategies[k], "register-tiles"), "%s: op %d: %s", c.name, k, mod.Entries[0].Strategies[k])
			}
		}
		names = append(names, c.name)
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
