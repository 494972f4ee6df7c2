// This file tests what is specific to Hexagon and to explicit vectors: HVX instructions in
// llc-19's output for elementwise and matmul kernels, the same vector IR running right on
// x86-64, and Hexagon objects that reference no external symbol. Their strategies are
// testdata/lowering/hvx_vector_strategy.graph's CHECK lines.

package lower_test

import (
	"context"
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
)

// kernelGraphs are the elementwise and matmul kernels the vector strategy must cover: the
// graphs of testdata/lowering/hvx_vector_strategy.graph, whose CHECK lines state their
// strategies on Hexagon.
func kernelGraphs(t *testing.T) (names []string, gs []*ir.Graph) {
	return fileGraphs(t, "hvx_vector_strategy.graph")
}

// hvxPattern matches HVX vector instructions in Hexagon assembly (vector registers vN).
var hvxPattern = regexp.MustCompile(`\bv\d+(\.\w+)?\s*=\s*v\w+\(|\bvmem[u]?\(|\bv\d+\.\w+\s*=\s*v\d+\.\w+`)

func TestHVXInstructions(t *testing.T) {
	llc, err := exec.LookPath("llc-19")
	if err != nil {
		t.Skip("llc-19 not installed")
	}
	names, gs := kernelGraphs(t)
	hex, err := lower.LoadTarget("hexagon")
	require.NoError(t, err)
	for i, g := range gs {
		if strings.HasSuffix(names[i], "f64") {
			continue // HVX has no double vectors
		}
		mod, err := lower.Lower(context.Background(), g, lower.Config{Target: hex})
		require.NoError(t, err)
		text := mod.String()
		require.Contains(t, text, "x ", "%s: explicit vector types", names[i])
		dir := t.TempDir()
		ll := filepath.Join(dir, "m.ll")
		verifyModule(t, text, ll)
		out, err := exec.Command(llc, "-O2", "-relocation-model=pic", ll, "-o", "-").CombinedOutput()
		require.NoError(t, err, "%s: %s", names[i], firstLines(string(out), 20))
		n := len(hvxPattern.FindAllString(string(out), -1))
		least := 3
		if strings.HasPrefix(names[i], "reduce") {
			least = 0 // vector loads; the lanes are combined in order by scalar code
		}
		require.Greater(t, n, least, "%s: llc-19 for hexagonv68+HVX emits HVX instructions", names[i])
		if strings.HasSuffix(names[i], "_f32") && !strings.HasPrefix(names[i], "reduce") {
			require.Regexp(t, `qf32|\.sf`, string(out), "%s: HVX float arithmetic", names[i])
		}
		require.NotRegexp(t, `call\s+graphc\.(exp|log|tanh|sigmoid|erf)`, string(out), "%s: float32 math is inline", names[i])
	}
}

func TestVectorIRRunsOnX86(t *testing.T) {
	// the 128-byte vector IR Hexagon gets, run on x86-64
	names, gs := kernelGraphs(t)
	r := rand.New(rand.NewPCG(8, 8))
	var cases []*e2e.Case
	for _, g := range gs {
		cases = append(cases, &e2e.Case{Graph: g, Inputs: inputsFor(r, g, nil, true)})
	}
	sn, sc := scalarCases(t, allTypes, 9)
	names = append(names, sn...)
	cases = append(cases, sc...)
	m := e2e.Host()
	m.VectorBytes = 128
	m.NewtonReciprocal = true // as HVX divides in float32 math
	runCases(t, m, names, cases)
	// and as scalar hexagonv67 code under qemu
	runCases(t, e2e.HexagonScalar(), names[:len(gs)], cases[:len(gs)])
}

// TestHexagonV67Runs: --mcpu=hexagonv67 alone gives hexagonv67's own features
// (+hvxv67,+hvx-length128b), whose code runs under qemu-hexagon -cpu v67: integer loops as
// HVX, float loops scalar (issue 22: the v68 features stayed and qemu aborted).
func TestHexagonV67Runs(t *testing.T) {
	names, gs := kernelGraphs(t)
	r := rand.New(rand.NewPCG(22, 1))
	var cases []*e2e.Case
	for _, g := range gs {
		cases = append(cases, &e2e.Case{Graph: g, Inputs: inputsFor(r, g, nil, true)})
	}
	// mul_i8 runs as HVX (hvx_vector_strategy.graph checks its <128 x i8>)
	runCases(t, e2e.HexagonHVX(), names, cases)
}

func TestHexagonNoExternalSymbols(t *testing.T) {
	llc, err := exec.LookPath("llc-19")
	if err != nil {
		t.Skip("llc-19 not installed")
	}
	nm, err := exec.LookPath("llvm-nm-19")
	if err != nil {
		t.Skip("llvm-nm-19 not installed")
	}
	// every operation that could become a libcall: math functions, f64 and integer division,
	// remainders, square roots, f16 conversions, integer power
	_, cases := scalarCases(t, allTypes, 10)
	for _, target := range []string{"hexagon", "hexagon-v67"} {
		tg, err := lower.LoadTarget(target)
		require.NoError(t, err)
		b, err := lower.NewBuilder(lower.Config{Target: tg})
		require.NoError(t, err)
		for i, c := range cases {
			_, err := b.Add(context.Background(), c.Graph, "t"+itoa(int64(i)))
			require.NoError(t, err)
		}
		dir := t.TempDir()
		ll := filepath.Join(dir, "m.ll")
		require.NoError(t, os.WriteFile(ll, []byte(b.Module().String()), 0o644))
		obj := filepath.Join(dir, "m.o")
		for _, opt := range []string{"-O0", "-O2"} {
			out, err := exec.CommandContext(context.Background(), llc, opt, "-relocation-model=pic", "-filetype=obj", ll, "-o", obj).CombinedOutput()
			require.NoError(t, err, string(out))
			out, err = exec.Command(nm, "--undefined-only", obj).CombinedOutput()
			require.NoError(t, err, string(out))
			require.Empty(t, strings.TrimSpace(string(out)), "%s %s: undefined symbols", target, opt)
		}
	}
}
